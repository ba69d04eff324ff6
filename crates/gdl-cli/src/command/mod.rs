//! The subcommands of `gdl`, one module each, and what they share: loading
//! a rules file with its drawing annotations, failures and exit statuses.

pub mod ai;
pub mod analyse;
pub mod bench;
pub mod check;
pub mod perft;
pub mod play;
pub mod random;
pub mod trace_cmd;

use crate::board::BoardSpec;
use gdl::{Diagnostic, Game, GameError, Limits, LoadError, Severity};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

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
}

impl Failure {
    /// Prints the failure on standard error and gives the exit status.
    pub fn report(self) -> ExitCode {
        match self {
            Failure::Usage(m) | Failure::Io(m) => {
                eprintln!("error: {m}");
                ExitCode::from(2)
            }
            Failure::Invalid(rendered) => {
                eprint!("{rendered}");
                ExitCode::from(1)
            }
            Failure::Game(m) => {
                eprintln!("error: {m}");
                ExitCode::from(1)
            }
        }
    }

    /// A game error at a step of the game.
    pub fn at_step(step: usize, e: &GameError) -> Failure {
        Failure::Game(format!("step {step}: {}", describe(e)))
    }
}

/// A game error for people; an illegal move lists the legal ones on a line
/// of their own.
pub fn describe(e: &GameError) -> String {
    match e {
        GameError::IllegalMove {
            role,
            played,
            legal,
        } => format!(
            "illegal move {} for {role}\n  legal moves of {role}: {}",
            gdl::clip(played),
            if legal.is_empty() {
                "none".to_string()
            } else {
                legal.join(" ")
            }
        ),
        other => other.to_string(),
    }
}

/// Whether to colour diagnostics: only on a terminal, unless NO_COLOR is set.
pub fn color() -> bool {
    std::io::stderr().is_terminal()
        && std::io::stdout().is_terminal()
        && std::env::var_os("NO_COLOR").is_none()
}

/// The flags shared by every command that loads rules: the evaluator's
/// limits, and whether the published-game allowances are refused.
#[derive(clap::Args, Clone, Debug)]
pub struct LimitArgs {
    /// Refuse, as errors, what GDL forbids or leaves unsaid but published
    /// games do and gdl allows with a warning (no `init`; a goal of a role
    /// that does not play).
    #[arg(long)]
    pub strict: bool,
    /// Most facts one model may hold before the evaluator gives up.
    #[arg(long, value_name = "N")]
    pub max_facts: Option<usize>,
    /// Deepest term nesting the evaluator accepts.
    #[arg(long, value_name = "N")]
    pub max_term_depth: Option<usize>,
    /// Deepest nesting of lists the parser accepts in the rules file (at
    /// most 10000).
    #[arg(long, value_name = "N",
          value_parser = clap::value_parser!(u16).range(1..=gdl::MAX_NESTING_CEILING as i64))]
    pub max_nesting: Option<u16>,
    /// Most candidate facts the joins of one evaluation may look at.
    #[arg(long, value_name = "N")]
    pub max_work: Option<u64>,
    /// Most facts that could hold (atoms) for the rules to be ground
    /// (evaluated incrementally, the fast engine); a game with more is
    /// interpreted [default: 100000].
    #[arg(long, value_name = "N")]
    pub max_ground_atoms: Option<usize>,
    /// Largest rules file read, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_FILE_BYTES)]
    pub max_file_size: u64,
    /// Most memory the command may hold, in bytes or with a unit (`512M`,
    /// `2G`); reaching it stops the command with an error naming what was
    /// being computed [default: half the machine's memory, at most 4G].
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes)]
    pub max_memory: Option<usize>,
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

/// The largest rules file read unless `--max-file-size` says otherwise:
/// far above any real game (the largest of ours is 16 KB); a 50 MB file of
/// facts takes 20 s and 2 GB to load.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 16 << 20;

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
/// diagnostics. Problems in `;!` annotations are printed as warnings.
pub fn load(path: &Path, limits: &LimitArgs) -> Result<Loaded, Failure> {
    check_size(path, limits)?;
    let name = path.display().to_string();
    let game = load_game(path, limits).map_err(|e| match e {
        LoadError::Io { .. } => Failure::Io(
            e.render(false)
                .trim_start_matches("error: ")
                .trim_end()
                .to_string(),
        ),
        LoadError::Invalid {
            ref diagnostics, ..
        } => {
            let limits_only = diagnostics
                .iter()
                .filter(|d| d.is_error())
                .all(|d| matches!(d.code, "runaway" | "too-deep"));
            let why = if limits_only {
                "an evaluator limit stopped the loading".to_string()
            } else {
                format!("not a valid game description; see `gdl check {name}`")
            };
            Failure::Invalid(format!("{}{name}: {why}\n", e.render(color())))
        }
    })?;
    let (spec, problems) = BoardSpec::from_source(&game.source().text);
    for p in problems {
        eprintln!("warning: {name}: {p}");
    }
    Ok(Loaded { game, spec, name })
}

/// Refuses a rules file larger than `--max-file-size` (exit 1) before
/// reading it. A file that cannot be looked at is left to the reading,
/// which reports it.
pub fn check_size(path: &Path, limits: &LimitArgs) -> Result<(), Failure> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() && m.len() > limits.max_file_size => Err(Failure::Game(format!(
            "{} is {} bytes, more than the {}-byte limit on rules files; \
             raise it with --max-file-size",
            path.display(),
            m.len(),
            limits.max_file_size
        ))),
        _ => Ok(()),
    }
}

/// Loads with the limits given on the command line (the size is checked
/// by [`check_size`]), ready to play.
pub fn load_game(path: &Path, limits: &LimitArgs) -> Result<Game, LoadError> {
    load_game_with(path, limits, limits.to_limits())
}

impl LimitArgs {
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
        if let Some(n) = self.max_memory {
            l.max_memory = n;
        }
        l
    }
}

/// Loads with `l`, refusing the published-game allowances under `--strict`.
pub fn load_game_with(path: &Path, limits: &LimitArgs, l: Limits) -> Result<Game, LoadError> {
    let game = Game::load_with(path, l)?;
    if limits.strict && game.warnings().iter().any(|d| d.is_allowance()) {
        return Err(LoadError::Invalid {
            file: Box::new(game.source().clone()),
            diagnostics: strict(game.warnings()),
        });
    }
    Ok(game)
}

/// The diagnostics under `--strict`: the published-game allowances become
/// errors.
fn strict(diagnostics: &[Diagnostic]) -> Vec<Diagnostic> {
    diagnostics
        .iter()
        .map(|d| Diagnostic {
            severity: if d.is_allowance() {
                Severity::Error
            } else {
                d.severity
            },
            ..d.clone()
        })
        .collect()
}

/// Reads a file named on the command line (exit 2 when it cannot be read).
pub fn read_file(path: &Path) -> Result<String, Failure> {
    std::fs::read_to_string(path)
        .map_err(|e| Failure::Io(format!("cannot read {}: {e}", path.display())))
}

/// Writes a file atomically (a temporary file renamed over it), so that an
/// interrupt never leaves half a file.
pub fn write_file(path: &Path, text: &str) -> Result<(), Failure> {
    let mut tmp = PathBuf::from(path);
    let mut name = tmp.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    tmp.set_file_name(name);
    std::fs::write(&tmp, text)
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| Failure::Io(format!("cannot write {}: {e}", path.display())))
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
    use super::parse_bytes;

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
