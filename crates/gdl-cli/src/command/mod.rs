//! The subcommands of `gdl`, one module each, and what they share: loading
//! a rules file with its drawing annotations, failures and exit statuses.

pub mod ai;
pub mod analyse;
pub mod bench;
pub mod check;
pub mod fmt;
pub mod generate;
pub mod lsp;
pub mod match_cmd;
pub mod perft;
pub mod play;
pub mod player;
pub mod random;
pub mod record_cmd;
pub mod review;
pub mod stop;
pub mod studio;
pub mod test_cmd;
pub mod trace_cmd;

use gdl::record::{BoardSpec, Record, RecordError};
use gdl::{Diagnostic, Game, GameError, Limits, LoadError, Severity};
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The stack of the threads that load rules (the one that runs the
/// command, and those of `gdl player`): reading rules nested
/// `MAX_NESTING_CEILING` deep recurses that far (only the pages touched
/// are ever allocated).
pub const STACK_BYTES: usize = 256 << 20;

/// Why a command failed; decides the message and the exit status.
#[derive(Debug)]
pub enum Failure {
    /// Bad arguments or input that is not a game (exit 2).
    Usage(String),
    /// A file could not be read or written (exit 2).
    Io(String),
    /// The rules file is not a valid game description: its rendered
    /// diagnostics (exit 1).
    Invalid(String),
    /// The game went wrong: an illegal move, an error of the rules (exit 1).
    Game(String),
    /// Interrupted by the user (Ctrl-C at `play`'s prompt): what was kept,
    /// said as is (exit 130, as a shell gives a command stopped by SIGINT).
    Interrupted(String),
}

/// The exit status of a command interrupted by the user (SIGINT, Ctrl-C):
/// 128 + 2, as shells report a command the signal stopped.
pub const INTERRUPTED: u8 = 130;

impl Failure {
    /// Prints the failure on standard error and gives the exit status (the
    /// same when standard error cannot be written).
    pub fn report(self) -> ExitCode {
        let mut stderr = std::io::stderr();
        let (text, code) = match self {
            Failure::Usage(m) | Failure::Io(m) => (format!("error: {m}\n"), 2),
            Failure::Invalid(rendered) => (rendered, 1),
            Failure::Game(m) => (format!("error: {m}\n"), 1),
            Failure::Interrupted(m) => (format!("{m}\n"), INTERRUPTED),
        };
        let _ = stderr.write_all(text.as_bytes());
        ExitCode::from(code)
    }

    /// What went wrong, without the `error: ` a report starts with.
    pub fn message(&self) -> &str {
        match self {
            Failure::Usage(m)
            | Failure::Io(m)
            | Failure::Invalid(m)
            | Failure::Game(m)
            | Failure::Interrupted(m) => m,
        }
    }

    /// A game error at a step of the game.
    pub fn at_step(step: usize, e: &GameError) -> Failure {
        Failure::Game(format!("step {step}: {}", describe(e)))
    }

    /// A game error at a step of the game, with the facts of the state
    /// where a fault of the rules was met, when known ([`fault_state`]).
    pub fn at_fault(step: usize, e: &GameError, fault: Option<&[String]>) -> Failure {
        let mut message = format!("step {step}: {}", describe(e));
        if let Some(facts) = fault {
            message.push_str(&fault_state(step, facts));
        }
        Failure::Game(message)
    }
}

/// The most facts of a state an error lists.
const FAULT_FACTS_SHOWN: usize = 60;

/// The facts of the state where a game met a fault of the rules, for the
/// end of an error message: `\n  the state at step 4 (2 facts):\n    (a)...`,
/// the first `FAULT_FACTS_SHOWN` of them.
pub fn fault_state(step: usize, facts: &[String]) -> String {
    let mut out = format!(
        "\n  the state at step {step} ({} fact{}):",
        facts.len(),
        if facts.len() == 1 { "" } else { "s" }
    );
    for fact in facts.iter().take(FAULT_FACTS_SHOWN) {
        out.push_str("\n    ");
        out.push_str(fact);
    }
    if facts.len() > FAULT_FACTS_SHOWN {
        out.push_str(&format!(
            "\n    ... and {} more",
            facts.len() - FAULT_FACTS_SHOWN
        ));
    }
    out
}

/// The end of the message of a game stopped by `error`: for a fault of the
/// rules, how to count such games as ended there instead (`random` and
/// `bench`); nothing for other errors.
fn keep_going_hint(error: &GameError) -> &'static str {
    match is_fault_of_the_rules(error) {
        true => {
            "\n  (a fault of the rules: --keep-going counts such a game as ended there and goes on)"
        }
        false => "",
    }
}

/// Whether an error is a fault of the rules met in a state (which
/// `--keep-going` of `bench` and `random` counts and passes), rather than
/// a limit reached.
fn is_fault_of_the_rules(error: &GameError) -> bool {
    matches!(
        error,
        GameError::NoLegalMove { .. }
            | GameError::NoGoal { .. }
            | GameError::SeveralGoals { .. }
            | GameError::BadGoal { .. }
    )
}

/// A game error for people; an illegal move lists the legal ones on a line
/// of their own.
pub fn describe(e: &GameError) -> String {
    match e {
        GameError::IllegalMove {
            role,
            played,
            legal,
        } => crate::compare::illegal_move(role, played, legal),
        GameError::Limit { kind, .. } => format!("{e}; {}", raise(*kind)),
        other => other.to_string(),
    }
}

/// How a user of the command raises a limit of the library: its flag.
pub fn raise(kind: gdl::LimitKind) -> String {
    use gdl::LimitKind as K;
    let flag = match kind {
        K::Facts | K::GroundLiterals => "--max-facts",
        K::GroundingWork => "--max-ground-work",
        K::GroundAtoms => "--max-ground-atoms",
        K::JoinWork => "--max-work",
        K::TermDepth => "--max-term-depth",
        K::Memory => "--max-memory",
        K::Nesting => "--max-nesting",
        _ => return "raise it in the library's limits".to_string(),
    };
    format!("raise it with {flag}")
}

/// The diagnostics with the command's flags in their notes: the flag that
/// raises the limit each reached, and for an allowance the flag that
/// refuses it (the library names the limit and the allowance, the command
/// its flags).
pub fn with_flags(diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    diagnostics.into_iter().map(with_flag).collect()
}

/// One diagnostic of [`with_flags`].
fn with_flag(mut d: Diagnostic) -> Diagnostic {
    if let Some(kind) = d.limit {
        d.notes.push(raise(kind));
    }
    if d.is_allowance() {
        d.notes.push("`--strict` refuses it".to_string());
    }
    d
}

/// How a command prints its results: `--format text|json`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// For people.
    #[default]
    Text,
    /// For programs: one JSON object, its shape in docs/manual.md.
    Json,
}

/// Prints a JSON value on standard output, indented, with a newline.
pub fn print_json(value: &serde_json::Value) {
    println!(
        "{}",
        serde_json::to_string_pretty(value).unwrap_or_default()
    );
}

/// Whether to colour diagnostics: only on a terminal, unless NO_COLOR is set.
pub fn color() -> bool {
    std::io::stderr().is_terminal()
        && std::io::stdout().is_terminal()
        && std::env::var_os("NO_COLOR").is_none()
}

/// The heading of the limit flags in every command's help: they come after
/// the command's own flags, in one order everywhere (`--timeout`, a flag of
/// `gdl` itself, last).
pub const LIMITS: &str = "Limits";

/// The flags shared by every command that loads rules: the evaluator's
/// limits (under the heading [`LIMITS`]), and whether the published-game
/// allowances are refused.
#[derive(clap::Args, Clone, Debug)]
pub struct LimitArgs {
    /// Refuse, as errors, what GDL forbids or leaves unsaid but published
    /// games do and gdl reads as ggp-base does, with a warning (no `init`,
    /// a goal of a role that does not play, a name of several arities...:
    /// the allowances of docs/language.md).
    #[arg(long)]
    pub strict: bool,
    /// Refuse, as errors, the warnings of the rules file (all but the
    /// advice `no-base-input`).
    #[arg(long)]
    pub deny_warnings: bool,
    /// The engine that plays the rules: `ground` (ground rules, or an
    /// error where they do not ground within the limits), `interpreter`
    /// (the rules as written, never ground), or `auto`: ground rules where
    /// they fit and cost less to play, chosen by counting work at load,
    /// so one file gets one engine on any machine.
    #[arg(long, default_value = "auto", value_name = "ENGINE",
          value_parser = engine_parser())]
    pub engine: gdl::EngineChoice,
    /// Most facts one model may hold before the evaluator gives up.
    #[arg(long, help_heading = LIMITS, value_name = "N")]
    pub max_facts: Option<usize>,
    /// Deepest term nesting the evaluator accepts.
    #[arg(long, help_heading = LIMITS, value_name = "N")]
    pub max_term_depth: Option<usize>,
    /// Deepest nesting of lists the parser accepts in the rules file (at
    /// most 10000).
    #[arg(long, help_heading = LIMITS, value_name = "N",
          value_parser = clap::value_parser!(u16).range(1..=gdl::MAX_NESTING_CEILING as i64))]
    pub max_nesting: Option<u16>,
    /// Most candidate facts the joins of one evaluation may look at.
    #[arg(long, help_heading = LIMITS, value_name = "N")]
    pub max_work: Option<u64>,
    /// Most candidate facts grounding may look at, and terms it may build,
    /// before it gives up (and the interpreter plays the rules, or
    /// `--engine ground` fails)
    /// [default: 50000000].
    #[arg(long, help_heading = LIMITS, value_name = "N")]
    pub max_ground_work: Option<u64>,
    /// Most facts that could hold (atoms) for the rules to be ground
    /// (evaluated incrementally, the fast engine); a game with more is
    /// interpreted [default: no count: grounding is bounded by an eighth of
    /// --max-memory].
    #[arg(long, help_heading = LIMITS, value_name = "N")]
    pub max_ground_atoms: Option<usize>,
    /// Largest file read, in bytes: the rules file, a recorded game, a file
    /// of moves (and a line of `play`'s input; `player`: a message's body);
    /// at most 4 GiB - 1 [default: 16 MiB for rules and messages; for
    /// recorded games and moves files a sixteenth of --max-memory, at least
    /// 16 MiB].
    #[arg(long, help_heading = LIMITS, value_name = "BYTES",
          value_parser = clap::value_parser!(u64).range(1..=gdl::MAX_SOURCE_BYTES as u64))]
    pub max_file_size: Option<u64>,
    /// Most memory the command may hold, in bytes or with a unit (`512M`,
    /// `2G`); reaching it stops the command with an error naming what was
    /// being computed [default: half the machine's memory, at most 4G].
    #[arg(long, help_heading = LIMITS, value_name = "BYTES", value_parser = parse_bytes)]
    pub max_memory: Option<usize>,
}

/// Reads `--engine`: one of [`gdl::EngineChoice::NAMES`], listed in the
/// help and completed by the shells.
fn engine_parser() -> impl clap::builder::TypedValueParser<Value = gdl::EngineChoice> {
    use clap::builder::{PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(gdl::EngineChoice::NAMES)
        .map(|name| name.parse().expect("a listed name"))
}

/// Reads a size in bytes: a number, optionally followed by `K`, `M`, `G` or
/// `T` (powers of 1024; `KiB`, `MB` and the like are read the same); a
/// fraction of a unit (`1.5G`) is rounded down to a byte.
pub fn parse_bytes(text: &str) -> Result<usize, String> {
    let text = text.trim();
    let digits = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(digits);
    if number.is_empty() || number.parse::<f64>().is_err() {
        return Err("expected a number of bytes, such as 1048576, 512M or 1.5G".to_string());
    }
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        other => return Err(format!("unknown unit `{other}`: use K, M, G or T")),
    };
    let too_big = || "expected a positive size that fits in memory".to_string();
    let bytes = match number.split_once('.') {
        // A whole number: exact, however large.
        None => number
            .parse::<usize>()
            .ok()
            .and_then(|n| n.checked_mul(1 << shift)),
        // A fraction of a unit (`1.5G`): rounded down to a byte.
        Some(_) => number
            .parse::<f64>()
            .ok()
            .filter(|n| n.is_finite())
            .map(|n| n * (1u64 << shift) as f64)
            .filter(|&n| n < usize::MAX as f64)
            .map(|n| n as usize),
    };
    bytes.filter(|&b| b > 0).ok_or_else(too_big)
}

/// The default of `--max-file-size` for rules files (and `player`'s
/// messages), and the least for recorded games: far above any real rules
/// file (the largest of ours is 16 KB).
pub const DEFAULT_MAX_FILE_BYTES: u64 = 16 << 20;

/// The default of `--max-file-size` under a memory budget of `max_memory`
/// bytes: a sixteenth of it (a recorded game takes some ten times its size
/// once read, a rules file of facts some forty), at least
/// [`DEFAULT_MAX_FILE_BYTES`]: 256 MiB under the default budget of 4 GiB,
/// so that a recorded game of a published puzzle (21 MB) is read.
pub fn default_max_file_bytes(max_memory: usize) -> u64 {
    (max_memory as u64 / 16).clamp(DEFAULT_MAX_FILE_BYTES, gdl::MAX_SOURCE_BYTES as u64)
}

/// How `--board` asks a command to draw states.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BoardMode {
    /// As the rules file's `;!` annotations say, else a grid when the
    /// state's facts look like one.
    #[default]
    Auto,
    /// Never a grid: the facts of each state, one a line.
    None,
    /// A grid whenever a relation of three or more arguments can be one
    /// (over `;! board none`, and however few or many its cells).
    Grid,
}

impl BoardMode {
    /// `spec` with `--board`'s choice over the annotations'.
    pub fn apply(self, mut spec: BoardSpec) -> BoardSpec {
        match self {
            BoardMode::Auto => {}
            BoardMode::None => spec.disabled = true,
            BoardMode::Grid => {
                spec.disabled = false;
                spec.forced = true;
            }
        }
        spec
    }
}

/// Reads a recorded game ([`gdl::record::read_record_within`]) within the
/// memory budget of `limits`, `name` the file's name for messages; a text
/// trace is refused with the commands that record the game as JSON (a
/// usage error, exit 2), the budget reached is named with its flag (exit 1).
pub fn read_record(text: &str, name: &str, limits: &LimitArgs) -> Result<Record, Failure> {
    gdl::record::read_record_within(text, limits.to_limits().max_memory).map_err(|e| match e {
        RecordError::TextTrace => Failure::Usage(format!(
            "{name}: {e} (`gdl record RULES`, or `gdl trace RULES --format json`)"
        )),
        RecordError::Memory { .. } => {
            Failure::Game(format!("{name}: {e}; {}", raise(gdl::LimitKind::Memory)))
        }
        RecordError::Invalid(message) => Failure::Usage(format!("{name}: {message}")),
    })
}

/// A loaded rules file with how to draw its states.
pub struct Loaded {
    /// The game.
    pub game: Game,
    /// From the file's `;!` annotations.
    pub spec: BoardSpec,
    /// The file name as given.
    pub name: String,
}

/// Loads a rules file: I/O errors exit 2, invalid rules exit 1 with their
/// diagnostics. Its warnings, and problems in `;!` annotations, are
/// printed on standard error.
pub fn load(path: &Path, limits: &LimitArgs) -> Result<Loaded, Failure> {
    let bytes = read_rules(path, limits)?;
    let name = file_name(path);
    let game = load_game(path, bytes, limits).map_err(|e| match (e, stop::reason()) {
        // Ctrl-C or --timeout of a command that keeps its work (see
        // `stop`), during its load.
        (LoadError::Cancelled, Some(reason)) => stop::failure(reason),
        (e @ (LoadError::Io { .. } | LoadError::Cancelled), _) => Failure::Io(
            e.render(false)
                .trim_start_matches("error: ")
                .trim_end()
                .to_string(),
        ),
        (LoadError::Invalid { file, diagnostics }, _) => {
            let limits_only = diagnostics
                .iter()
                .filter(|d| d.is_error())
                .all(|d| matches!(d.code, "runaway" | "too-deep"));
            // Each error a warning made one by a flag: name the flags.
            let mut flags: Vec<&str> = (diagnostics.iter().filter(|d| d.is_error()))
                .map(|d| {
                    (d.notes.iter())
                        .find_map(|n| n.strip_prefix(REFUSED))
                        .map(str::trim)
                })
                .collect::<Option<_>>()
                .unwrap_or_default();
            flags.sort_unstable();
            flags.dedup();
            let why = if limits_only {
                "an evaluator limit stopped the loading".to_string()
            } else if !flags.is_empty() {
                format!("its warnings are refused under {}", flags.join(" and "))
            } else {
                format!(
                    "not a valid game description; see `gdl check {}`",
                    path.display()
                )
            };
            let shown: Vec<Diagnostic> =
                with_flags(diagnostics.into_iter().filter(|d| !is_advice(d)).collect());
            Failure::Invalid(format!(
                "{}{name}: {why}\n",
                gdl::render(&file, &shown, color())
            ))
        }
    })?;
    show_warnings(&game);
    let (spec, problems) = BoardSpec::from_source(&game.source().text);
    for p in problems {
        eprintln!("warning: {name}: {p}");
    }
    Ok(Loaded { game, spec, name })
}

/// Prints the warnings of a loaded rules file on standard error, rendered
/// as `gdl check` renders them, but for `no-base-input`: advice, not a
/// mistake, which `gdl check` alone gives.
fn show_warnings(game: &Game) {
    let shown: Vec<Diagnostic> = (game.warnings().iter())
        .filter(|d| !is_advice(d))
        .cloned()
        .map(with_flag)
        .collect();
    if !shown.is_empty() {
        eprint!("{}", gdl::render(game.source(), &shown, color()));
    }
}

/// The one warning that is advice rather than a likely mistake:
/// `no-base-input`. Only `gdl check` shows it, and `--deny-warnings` leaves
/// it a warning.
fn is_advice(d: &Diagnostic) -> bool {
    d.code == "no-base-input"
}

/// Reads a rules file, refusing one larger than `--max-file-size` (exit
/// 1): a regular file by its size before reading, anything else (a pipe,
/// `/dev/zero`) once it has given one byte more than the limit.
pub fn read_rules(path: &Path, limits: &LimitArgs) -> Result<Vec<u8>, Failure> {
    read_bounded(path, limits.rules_limit(), limits, "rules files")
}

/// The file name that stands for standard input: `-`, wherever a file is
/// read (the rules file, a moves file, a recorded game).
pub const STDIN: &str = "-";

/// How standard input is named in messages and diagnostics
/// (`<stdin>:3:5: ...`).
pub const STDIN_NAME: &str = "<stdin>";

/// Whether a file named on the command line is standard input (`-`).
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == STDIN
}

/// A file named on the command line as messages name it: `<stdin>` for
/// `-`, the path as given otherwise.
pub fn file_name(path: &Path) -> String {
    if is_stdin(path) {
        STDIN_NAME.to_string()
    } else {
        path.display().to_string()
    }
}

/// Whether standard input has been read as a file (`-`): it can be only
/// once, so a second `-` is a usage error rather than an empty file.
static STDIN_READ: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Reads a file named on the command line, at most `limit` bytes of it
/// (`--max-file-size`; more is an error naming the flag, exit 1) and no more than
/// the memory budget has room for (an error naming `--max-memory`, exit 1);
/// `what` the files of its kind, for the message. A file that cannot be
/// read exits 2. `-` is standard input, read to its end (once: a second
/// `-` is a usage error).
fn read_bounded(
    path: &Path,
    limit: u64,
    limits: &LimitArgs,
    what: &str,
) -> Result<Vec<u8>, Failure> {
    let budget = limits.to_limits().max_memory;
    let name = file_name(path);
    let cannot = |e: std::io::Error| Failure::Io(format!("cannot read {name}: {e}"));
    let too_big = |size: String| {
        Failure::Game(format!(
            "{name} {size} than the {limit}-byte limit on {what}; \
             raise it with --max-file-size",
        ))
    };
    if is_stdin(path) {
        if STDIN_READ.swap(true, std::sync::atomic::Ordering::SeqCst) {
            return Err(Failure::Usage(
                "standard input (`-`) can be read only once: name the other files".into(),
            ));
        }
        let bytes = read_within(&mut std::io::stdin().lock(), limit, budget, &name, 0)
            .map_err(|e| e.into_failure(cannot))?;
        if bytes.len() as u64 > limit {
            return Err(too_big("holds more".to_string()));
        }
        return Ok(bytes);
    }
    let mut file = std::fs::File::open(path).map_err(cannot)?;
    let metadata = file.metadata().map_err(cannot)?;
    let size = if metadata.is_file() {
        metadata.len()
    } else {
        0
    };
    if size > limit {
        return Err(too_big(format!("is {size} bytes, more")));
    }
    // A regular file may grow while it is read, and the size of anything
    // else is only known by reading it: one byte past the limit is enough.
    let bytes =
        read_within(&mut file, limit, budget, &name, size).map_err(|e| e.into_failure(cannot))?;
    if bytes.len() as u64 > limit {
        return Err(too_big("holds more".to_string()));
    }
    Ok(bytes)
}

/// Why [`read_within`] stopped.
enum ReadError {
    /// The file could not be read.
    Io(std::io::Error),
    /// Its bytes would take the heap past the memory budget: the message.
    Budget(String),
}

impl ReadError {
    /// The failure it makes, `cannot` turning an I/O error into one.
    fn into_failure(self, cannot: impl Fn(std::io::Error) -> Failure) -> Failure {
        match self {
            ReadError::Io(e) => cannot(e),
            ReadError::Budget(m) => Failure::Game(m),
        }
    }
}

/// Reads `reader` to its end, or to one byte past `limit`, keeping its
/// bytes within the memory budget `budget`: the buffer grows only while
/// the heap it would take leaves the budget room (`expected`, a regular
/// file's size, is taken at once if it fits), so that a file larger than
/// the budget allows is an error naming `--max-memory` before the system
/// runs out, never an abort.
fn read_within(
    reader: &mut dyn Read,
    limit: u64,
    budget: usize,
    name: &str,
    expected: u64,
) -> Result<Vec<u8>, ReadError> {
    let most = usize::try_from(limit.saturating_add(1)).unwrap_or(usize::MAX);
    let over = |asked: usize| {
        ReadError::Budget(format!(
            "{name}: reading it would take more than the memory limit ({}): it needs {} more; \
             raise it with --max-memory",
            gdl::human_bytes(budget),
            gdl::human_bytes(asked)
        ))
    };
    let fits = |more: usize| {
        gdl::heap_bytes()
            .unwrap_or(0)
            .checked_add(more)
            .is_some_and(|after| after <= budget)
    };
    let mut bytes: Vec<u8> = Vec::new();
    // A regular file's size, and one byte to see its end.
    let first = usize::try_from(expected)
        .unwrap_or(usize::MAX)
        .saturating_add(1)
        .min(most);
    if !fits(first) {
        return Err(over(first));
    }
    bytes.reserve_exact(first.max(8192));
    let mut chunk = vec![0u8; 64 << 10];
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(0) => return Ok(bytes),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(ReadError::Io(e)),
        };
        let n = n.min(most - bytes.len());
        if bytes.len() + n > bytes.capacity() {
            // Doubling, within the budget.
            let grow = bytes.capacity().max(n).min(most - bytes.len());
            if !fits(grow) {
                return Err(over(grow));
            }
            bytes.reserve_exact(grow);
        }
        bytes.extend_from_slice(&chunk[..n]);
        if bytes.len() >= most {
            return Ok(bytes);
        }
    }
}

/// Loads the rules file `path` from its `bytes` (as read by [`read_rules`])
/// with the limits given on the command line, ready to play.
pub fn load_game(path: &Path, bytes: Vec<u8>, limits: &LimitArgs) -> Result<Game, LoadError> {
    load_game_with(path, bytes, limits, limits.to_options())
}

impl LimitArgs {
    /// The largest rules file read: `--max-file-size`, or by default
    /// [`DEFAULT_MAX_FILE_BYTES`] (a rules file of 50 MB of facts takes 20 s
    /// and 2 GB to load).
    pub fn rules_limit(&self) -> u64 {
        self.max_file_size.unwrap_or(DEFAULT_MAX_FILE_BYTES)
    }

    /// The largest recorded game or moves file read or written:
    /// `--max-file-size`, or by default a share of the memory budget
    /// ([`default_max_file_bytes`]).
    pub fn file_limit(&self) -> u64 {
        self.max_file_size
            .unwrap_or_else(|| default_max_file_bytes(self.to_limits().max_memory))
    }

    /// The library's load options: the limits and the engine given on the
    /// command line.
    pub fn to_options(&self) -> gdl::LoadOptions {
        gdl::LoadOptions {
            limits: self.to_limits(),
            engine: self.engine,
        }
    }

    /// The library's limits with those given on the command line.
    pub fn to_limits(&self) -> Limits {
        let mut l = Limits::default();
        if let Some(n) = self.max_facts {
            l.max_facts = n;
        }
        if let Some(n) = self.max_term_depth {
            l.max_term_depth = n;
        }
        if let Some(n) = self.max_nesting {
            l.max_nesting = n.into();
        }
        if let Some(n) = self.max_work {
            l.max_work = n;
        }
        if let Some(n) = self.max_ground_atoms {
            l.max_ground_atoms = n;
        }
        if let Some(n) = self.max_ground_work {
            l.max_ground_work = n;
        }
        if let Some(n) = self.max_memory {
            l.max_memory = n;
        }
        l
    }
}

/// Loads the rules file `path` from its `bytes` with `options`, refusing the
/// published-game allowances under `--strict` and every warning under
/// `--deny-warnings`.
pub fn load_game_with(
    path: &Path,
    bytes: Vec<u8>,
    limits: &LimitArgs,
    options: gdl::LoadOptions,
) -> Result<Game, LoadError> {
    let game = Game::from_bytes_with(&file_name(path), bytes, options)?;
    let denied = |d: &Diagnostic| {
        (limits.deny_warnings && !is_advice(d)) || (limits.strict && d.is_allowance())
    };
    if game.warnings().iter().any(denied) {
        return Err(LoadError::Invalid {
            file: Box::new(game.source().clone()),
            diagnostics: as_errors(game.warnings(), denied),
        });
    }
    Ok(game)
}

/// The diagnostics with those `denied` made errors (the allowances under
/// `--strict`, every warning under `--deny-warnings`), each with a note
/// that says which flag made it one ([`REFUSED`]).
fn as_errors(diagnostics: &[Diagnostic], denied: impl Fn(&Diagnostic) -> bool) -> Vec<Diagnostic> {
    diagnostics
        .iter()
        .map(|d| {
            let mut d = d.clone();
            if denied(&d) {
                let flag = if d.is_allowance() {
                    "--strict"
                } else {
                    "--deny-warnings"
                };
                d.severity = Severity::Error;
                d.notes.push(format!("{REFUSED} {flag}"));
            }
            d
        })
        .collect()
}

/// How the note of a warning made an error by a flag begins.
const REFUSED: &str = "a warning, made an error by";

/// Reads a recorded game or a file of commands named on the command line:
/// at most `--max-file-size` bytes (exit 1 past it, exit 2 when it cannot
/// be read or is not UTF-8 text).
pub fn read_file(path: &Path, limits: &LimitArgs) -> Result<String, Failure> {
    let limit = limits.file_limit();
    let bytes = read_bounded(path, limit, limits, "recorded games and moves files")?;
    String::from_utf8(bytes).map_err(|e| {
        let good = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = good.iter().filter(|&&b| b == b'\n').count() + 1;
        let start = good.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let column = String::from_utf8_lossy(&good[start..]).chars().count() + 1;
        Failure::Io(format!(
            "{}:{line}:{column}: not UTF-8 text (is it a binary file?)",
            file_name(path)
        ))
    })
}

/// Held while a file is written ([`uninterrupted`]), so that an interrupt
/// (Ctrl-C) or the `--timeout` ending the process ([`exit_after_writes`])
/// never cuts a write short nor leaves a temporary file behind.
static WRITING: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The note a command wants said when it is interrupted (`play --save`:
/// where the game so far is); taken after [`WRITING`], never before.
static NOTE: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

thread_local! {
    /// Whether this thread holds [`WRITING`]'s lock (so that a write
    /// inside a longer uninterrupted step does not lock it again).
    static UNINTERRUPTED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` (a write, or a step of a game and its save) with interrupts
/// held off until it is done: [`exit_after_writes`] waits for it.
pub fn uninterrupted<T>(f: impl FnOnce() -> T) -> T {
    if UNINTERRUPTED.with(|u| u.get()) {
        return f();
    }
    let _guard = WRITING.lock().unwrap_or_else(|e| e.into_inner());
    /// Clears the thread's flag however `f` ends.
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            UNINTERRUPTED.with(|u| u.set(false));
        }
    }
    UNINTERRUPTED.with(|u| u.set(true));
    let _reset = Reset;
    f()
}

/// Sets what an interrupt says on standard error before the process ends
/// (`None`: nothing).
pub fn on_interrupt(note: Option<String>) {
    *NOTE.lock().unwrap_or_else(|e| e.into_inner()) = note;
}

/// Ends the process with exit status `code` once the file being written,
/// if any, is whole: prints `message` (if any) and the note of
/// [`on_interrupt`] on standard error first. For the binary's signal and
/// time-limit handlers, on a thread of their own.
pub fn exit_after_writes(code: u8, message: Option<&str>) -> ! {
    let _writing = WRITING.lock().unwrap_or_else(|e| e.into_inner());
    let note = NOTE.lock().unwrap_or_else(|e| e.into_inner());
    let mut stderr = std::io::stderr();
    for line in message.into_iter().chain(note.as_deref()) {
        // Not eprintln!: a full standard error must not stop the exit.
        let _ = writeln!(stderr, "{line}");
    }
    std::process::exit(code.into())
}

/// What a write does with a file already at its path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Existing {
    /// Leaves it as it is and fails: a game recorded without `--force`
    /// (`record`, `match`), even one that appears while the new one is
    /// being written.
    Keep,
    /// Replaces it, if it is a regular file: saves (`--save`), `--force`,
    /// `test --update`.
    Replace,
}

/// Whether `path` may be written: `Ok(true)` when a regular file is
/// there, `Ok(false)` when nothing is. Anything else is refused with an
/// error naming the path and what is there: a folder, a symbolic link
/// (never written through nor replaced), a named pipe, a device, a socket.
/// `gdl` writes only regular files and new paths.
pub fn regular_or_new(path: &Path) -> Result<bool, Failure> {
    let metadata = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(Failure::Io(format!("cannot write {}: {e}", path.display()))),
    };
    let kind = metadata.file_type();
    if kind.is_file() {
        return Ok(true);
    }
    let what = if kind.is_symlink() {
        match std::fs::read_link(path) {
            Ok(to) => format!("a symbolic link (to {})", to.display()),
            Err(_) => "a symbolic link".to_string(),
        }
    } else if kind.is_dir() {
        "a folder".to_string()
    } else {
        special_kind(&kind).to_string()
    };
    Err(Failure::Io(format!(
        "cannot write {}: it is {what}, not a regular file; gdl writes only regular files \
         (replacing them whole) and new ones, never through a link",
        path.display()
    )))
}

/// What a file that is neither a regular file, a folder nor a symbolic
/// link is, for [`regular_or_new`]'s message.
#[cfg(unix)]
fn special_kind(kind: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_fifo() {
        "a named pipe (FIFO)"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "a special file"
    }
}

/// What a file that is neither a regular file, a folder nor a symbolic
/// link is, for [`regular_or_new`]'s message.
#[cfg(not(unix))]
fn special_kind(_: &std::fs::FileType) -> &'static str {
    "a special file"
}

/// Writes a file atomically, so that an interrupt never leaves half a file
/// and two writers never mix their texts: the text goes to a temporary file
/// beside it, created afresh under an unpredictable name (never through a
/// file or a symbolic link already there), then put in its place. Only a
/// new path or a regular file is written ([`regular_or_new`]): a folder, a
/// symbolic link, a named pipe or a device is refused, and never replaced.
///
/// With [`Existing::Replace`] the temporary file is renamed over the file:
/// of two processes writing one file at once, both succeed and the last
/// rename wins. With [`Existing::Keep`] it is linked to its name only if
/// that name is still free at that moment (`renameat2` with
/// `RENAME_NOREPLACE` on Linux, else a hard link, which never replaces a
/// file): of two processes creating one file at once, one fails and the
/// other's file is kept whole.
///
/// Every file `gdl` writes goes through here.
pub fn write_file(path: &Path, contents: &[u8], existing: Existing) -> Result<(), Failure> {
    uninterrupted(|| write_whole(path, contents, existing))
}

/// [`write_file`], with interrupts held off by the caller.
fn write_whole(path: &Path, contents: &[u8], existing: Existing) -> Result<(), Failure> {
    let cannot = |e: std::io::Error| Failure::Io(format!("cannot write {}: {e}", path.display()));
    let already = || {
        Failure::Io(format!(
            "cannot write {}: a file is already there (written meanwhile by another process?); \
             it is left as it is and nothing was written; --force writes over it",
            path.display()
        ))
    };
    // Refused before a temporary file is made beside it (in /dev, say).
    if regular_or_new(path)? && existing == Existing::Keep {
        return Err(already());
    }
    let (tmp, mut file) = create_temporary(path).map_err(cannot)?;
    let written = file.write_all(contents).and_then(|()| file.sync_all());
    drop(file);
    let placed = written.map_err(cannot).and_then(|()| match existing {
        Existing::Keep => match place_new(&tmp, path) {
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(already()),
            other => other.map_err(cannot),
        },
        // Looked at again just before: what is there may have changed
        // while the text was written.
        Existing::Replace => {
            regular_or_new(path).and_then(|_| std::fs::rename(&tmp, path).map_err(cannot))
        }
    });
    if placed.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    placed
}

/// Gives the file `tmp` the name `path` if nothing has it, in one step:
/// fails with [`std::io::ErrorKind::AlreadyExists`] (and `tmp` left) when
/// a file, of any kind, is there. On Linux, `renameat2(RENAME_NOREPLACE)`;
/// where it is not supported (other systems, a file system without it), a
/// hard link to `tmp` under the new name (which never replaces anything),
/// then `tmp` removed.
pub fn place_new(tmp: &Path, path: &Path) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    match rename_no_replace(tmp, path) {
        Err(e) if matches!(e.raw_os_error(), Some(libc::EINVAL | libc::ENOSYS)) => {}
        other => return other,
    }
    link_new(tmp, path)
}

/// `renameat2(tmp, path, RENAME_NOREPLACE)`, Linux's rename that fails
/// with `EEXIST` rather than replace a file (`EINVAL` where the file
/// system does not support it, `ENOSYS` on a kernel before 3.15).
#[cfg(target_os = "linux")]
fn rename_no_replace(tmp: &Path, path: &Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| {
        std::ffi::CString::new(p.as_os_str().as_bytes())
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))
    };
    let (from, to) = (c(tmp)?, c(path)?);
    // SAFETY: both paths are NUL-terminated strings that outlive the call;
    // renameat2 only reads them.
    let r = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::RENAME_NOREPLACE,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// [`place_new`] by a hard link: `path` made a second name of `tmp` (an
/// error, `AlreadyExists`, when `path` is taken), then `tmp` removed.
pub fn link_new(tmp: &Path, path: &Path) -> std::io::Result<()> {
    std::fs::hard_link(tmp, path)?;
    // The file is in place: a temporary name left behind is harmless.
    let _ = std::fs::remove_file(tmp);
    Ok(())
}

/// Creates a new file beside `path` for [`write_file`]: `.NAME.RANDOM.tmp`
/// in the same directory (so that renaming it is atomic), opened with
/// `create_new` (O_EXCL), which refuses any name already there, a planted
/// symbolic link included. Tries a few random names before giving up.
fn create_temporary(path: &Path) -> std::io::Result<(PathBuf, std::fs::File)> {
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file name"))?;
    let mut attempts = 0;
    loop {
        let mut tmp_name = std::ffi::OsString::from(".");
        tmp_name.push(name);
        tmp_name.push(format!(".{:016x}.tmp", rand::random::<u64>()));
        let tmp = path.with_file_name(tmp_name);
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Ok(file) => return Ok((tmp, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempts < 16 => {
                attempts += 1;
            }
            Err(e) => return Err(e),
        }
    }
}

/// Refuses, before it is written, a recorded game or moves file (`text`,
/// to go to `path`) that `gdl` would refuse to read back under the same
/// `--max-file-size` (`limit`): what `gdl record` writes under the defaults, `gdl
/// test` and `gdl replay` read under the defaults.
pub fn readable_back(path: &Path, text: &str, limit: u64) -> Result<(), Failure> {
    if text.len() as u64 > limit {
        return Err(Failure::Game(format!(
            "{} not written: it would be {} bytes, more than the {limit}-byte limit on recorded \
             games and moves files, and gdl would refuse to read it back (`gdl test`, `gdl \
             replay`); raise the limit with --max-file-size, here and where it is read",
            path.display(),
            text.len()
        )));
    }
    Ok(())
}

/// Saves joint moves as a moves file naming the rules file `rules`; a
/// control character in that name (a newline) is written escaped, so that
/// the file's first line stays one comment. A file is replaced if it is a
/// regular one ([`write_file`]); one larger than `limit` (the
/// `--max-file-size` it would be read back under) is refused.
pub fn save_moves(
    path: &Path,
    rules: &str,
    roles: &[String],
    moves: &[Vec<String>],
    limit: u64,
) -> Result<(), Failure> {
    let mut one_line = String::new();
    for c in rules.chars() {
        if c.is_control() {
            one_line.extend(c.escape_default());
        } else {
            one_line.push(c);
        }
    }
    let text = gdl::record::moves_file(&one_line, roles, moves);
    readable_back(path, &text, limit)?;
    write_file(path, text.as_bytes(), Existing::Replace)
}

/// The most threads a command may be asked to use: more only cost memory,
/// and a million cannot be started.
pub const MAX_THREADS: usize = 1024;

/// Reads `--threads`: 0 (every core) to [`MAX_THREADS`].
pub fn thread_count(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n <= MAX_THREADS => Ok(n),
        _ => Err(format!(
            "expected a number of threads from 0 (every core) to {MAX_THREADS}"
        )),
    }
}

/// The number of threads asked for: 0 means every core.
pub fn threads(asked: usize) -> usize {
    if asked == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        asked
    }
}

/// The seed of game `i` of a series starting at `seed`: `seed + i`, so that
/// `gdl trace FILE --seed S` replays any game of `gdl random`.
pub fn game_seed(seed: u64, i: usize) -> u64 {
    seed.wrapping_add(i as u64)
}

#[cfg(test)]
mod tests {
    use super::{
        Existing, Failure, default_max_file_bytes, link_new, parse_bytes, place_new,
        regular_or_new, write_file,
    };
    use std::path::PathBuf;

    /// A fresh folder for one test's files.
    fn folder(test: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("gdl-cli-{}-{test}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// The names in a folder, sorted.
    fn names(dir: &std::path::Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn placing_a_new_file_never_replaces_one_there() {
        let dir = folder("place_new");
        let (tmp, there) = (dir.join(".new.tmp"), dir.join("game.json"));
        std::fs::write(&there, "kept").unwrap();
        // renameat2(RENAME_NOREPLACE) on Linux, and the hard link that
        // stands in for it elsewhere: both fail, and leave both files.
        for place in [place_new, link_new] {
            std::fs::write(&tmp, "new").unwrap();
            let e = place(&tmp, &there).unwrap_err();
            assert_eq!(e.kind(), std::io::ErrorKind::AlreadyExists);
            assert_eq!(std::fs::read_to_string(&there).unwrap(), "kept");
            assert_eq!(std::fs::read_to_string(&tmp).unwrap(), "new");
        }
        // Nor does it replace a symbolic link, even a dangling one.
        #[cfg(unix)]
        {
            let link = dir.join("link");
            std::os::unix::fs::symlink("nowhere", &link).unwrap();
            for place in [place_new, link_new] {
                let e = place(&tmp, &link).unwrap_err();
                assert_eq!(e.kind(), std::io::ErrorKind::AlreadyExists);
                assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
            }
        }
        // A free name is taken, the temporary name gone.
        for place in [place_new, link_new] {
            let new = dir.join("new.json");
            let _ = std::fs::remove_file(&new);
            std::fs::write(&tmp, "new").unwrap();
            place(&tmp, &new).unwrap();
            assert_eq!(std::fs::read_to_string(&new).unwrap(), "new");
            assert!(!tmp.exists());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_write_that_keeps_what_is_there_fails_and_leaves_no_temporary_file() {
        let dir = folder("keep");
        let there = dir.join("game.json");
        std::fs::write(&there, "kept").unwrap();
        let e = write_file(&there, b"new", Existing::Keep).unwrap_err();
        assert!(matches!(e, Failure::Io(_)));
        assert!(
            e.message().contains("a file is already there"),
            "{}",
            e.message()
        );
        assert_eq!(std::fs::read_to_string(&there).unwrap(), "kept");
        write_file(&dir.join("new.json"), b"new", Existing::Keep).unwrap();
        write_file(&there, b"replaced", Existing::Replace).unwrap();
        assert_eq!(std::fs::read_to_string(&there).unwrap(), "replaced");
        assert_eq!(names(&dir), ["game.json", "new.json"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn only_regular_files_and_new_paths_are_written() {
        let dir = folder("regular");
        let file = dir.join("file");
        std::fs::write(&file, "kept").unwrap();
        assert!(regular_or_new(&file).unwrap());
        assert!(!regular_or_new(&dir.join("new")).unwrap());
        let link = dir.join("link");
        std::os::unix::fs::symlink("file", &link).unwrap();
        let cases = [
            (link, "it is a symbolic link (to file), not a regular file"),
            (dir.join("."), "it is a folder, not a regular file"),
            (PathBuf::from("/dev/null"), "it is a character device"),
        ];
        for (path, why) in cases {
            let e = regular_or_new(&path).unwrap_err();
            let expected = format!("cannot write {}: {why}", path.display());
            assert!(e.message().starts_with(&expected), "{}", e.message());
            for existing in [Existing::Keep, Existing::Replace] {
                assert_eq!(
                    write_file(&path, b"new", existing).unwrap_err().message(),
                    e.message()
                );
            }
        }
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "kept");
        assert_eq!(names(&dir), ["file", "link"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_default_file_size_scales_with_the_memory_budget() {
        // A 21 MB recorded game is read under the default budget of 4 GiB.
        assert_eq!(default_max_file_bytes(4 << 30), 256 << 20);
        assert_eq!(default_max_file_bytes(64 << 20), 16 << 20);
        assert_eq!(default_max_file_bytes(usize::MAX), u32::MAX as u64);
    }

    #[test]
    fn sizes_read_with_or_without_a_unit() {
        assert_eq!(parse_bytes("1048576"), Ok(1 << 20));
        assert_eq!(parse_bytes("512M"), Ok(512 << 20));
        assert_eq!(parse_bytes("512 MiB"), Ok(512 << 20));
        assert_eq!(parse_bytes("2g"), Ok(2 << 30));
        assert_eq!(parse_bytes("1.5G"), Ok(3 << 29));
        assert_eq!(parse_bytes("0.5k"), Ok(512));
    }

    #[test]
    fn bad_sizes_say_what_was_expected() {
        for bad in ["", "M", "1.2.3M", "."] {
            let error = parse_bytes(bad).unwrap_err();
            assert!(
                error.starts_with("expected a number of bytes"),
                "{bad}: {error}"
            );
        }
        assert_eq!(
            parse_bytes("12Q").unwrap_err(),
            "unknown unit `q`: use K, M, G or T"
        );
        for huge in ["0", "0.0001", "99999999999T", "1e300"] {
            assert!(parse_bytes(huge).is_err(), "{huge}");
        }
    }
}
