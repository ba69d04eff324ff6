//! Errors of loading a rules file and of playing a game.
//!
//! Diagnostics are values carrying spans; they are rendered to text once, at
//! the edge (the CLI or a test), by `codespan-reporting`.

use crate::limits::{LimitKind, Limits};
use crate::source::{SourceFile, Span};
use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, termcolor};
use std::fmt;

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The file is still valid; something looks unintended.
    Warning,
    /// The file is not a valid game description.
    Error,
}

/// The codes of the published-game allowances (see
/// [`Diagnostic::is_allowance`]): `no-init` (the game starts from the empty
/// state), `unknown-role-goal` (a goal of a role that does not play),
/// `unknown-role-move` (a move of one: never asked for, and its `does`
/// never holds), `zero-argument-term` (`(f)`, a term distinct from `f`),
/// `split-by-constants` (a relation stratified once split by the constants
/// of its heads), `never-fires-dropped` (a rule that can never apply,
/// dropped from the cycle through `not` it alone closed),
/// `does-before-moves` (`legal`, `terminal` or `goal` depending on `does`:
/// read before the moves, where `does` holds for nothing),
/// `several-arities` (a name written with several numbers
/// of arguments: one relation or function for each), `keyword-as-relation`
/// (a keyword written with another number of arguments: a relation of its
/// own), `unsafe-fact-dropped` (a fact with a variable that no rule reads),
/// `unsafe-rule-dropped` (a rule with a variable its body does not bind,
/// of a relation that no rule reads), `unsafe-rule-never-applies` (such a
/// rule with a literal that matches no fact of a relation that facts alone
/// define: it never applies), `unsafe-fact-caller-bound` (a fact
/// with a variable, of a relation whose uses bind it: it holds for the
/// values asked),
/// `empty-or` (`(or)`, which never holds), `dynamic-base-input` (`base`
/// or `input` defined through the state or the moves: not listed),
/// `unbound-role` (a role variable of `legal` or `goal` that the body does
/// not bind: it ranges over the roles), `negated-unbound` (a variable
/// only under `not`: no value of it makes the literal hold), `caller-bound`
/// (a head variable that only the questions asked of its relation bind,
/// the body's `distinct` and `not` read with their values) and
/// `unrestricted-recursion` (a recursion GDL's recursion restriction
/// forbids: evaluated within the limits) and `not-utf8` (text in another
/// encoding: each byte that is not UTF-8 read as U+FFFD), `comma-in-name`
/// (a comma inside a word, part of it), `variable-as-name` (`(?x a)`: `?x`
/// the name of the function) and `operator-fact-dropped` (a fact named
/// `distinct`, `not` or `or`, which no rule can read).
pub const ALLOWANCES: [&str; 23] = [
    "no-init",
    "unknown-role-goal",
    "unknown-role-move",
    "zero-argument-term",
    "split-by-constants",
    "never-fires-dropped",
    "does-before-moves",
    "several-arities",
    "keyword-as-relation",
    "unsafe-fact-dropped",
    "unsafe-rule-dropped",
    "unsafe-rule-never-applies",
    "unsafe-fact-caller-bound",
    "empty-or",
    "dynamic-base-input",
    "unbound-role",
    "negated-unbound",
    "caller-bound",
    "unrestricted-recursion",
    "not-utf8",
    "comma-in-name",
    "variable-as-name",
    "operator-fact-dropped",
];

/// One message about a rules file, pointing at the text it concerns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// A short stable name of the kind of problem, such as `unsafe-variable`.
    pub code: &'static str,
    /// What is wrong, in one sentence.
    pub message: String,
    /// The text at fault.
    pub span: Span,
    /// What to say under the primary span.
    pub label: String,
    /// Other places that explain the problem, with what to say there.
    pub secondary: Vec<(Span, String)>,
    /// Extra lines of explanation or advice.
    pub notes: Vec<String>,
    /// The limit the problem reached, where a limit stopped the reading
    /// (`runaway`, `too-deep`): each caller names its own way to raise it
    /// (a flag of the command, a keyword of Python).
    pub limit: Option<LimitKind>,
    /// The replacement the checker proposes, where it has one (its "did
    /// you mean ...?"): what an editor offers as a quick fix.
    pub suggestion: Option<Suggestion>,
}

/// A replacement a diagnostic proposes for a misspelt name: the name
/// `name`, written within `within` (the name itself, or a sentence that
/// holds it), replaced by `by`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suggestion {
    /// The text that holds the name.
    pub within: Span,
    /// The name as the checker knows it (GDL's names match without case).
    pub name: String,
    /// What to write instead.
    pub by: String,
}

impl Diagnostic {
    /// An error at `span`.
    pub(crate) fn error(code: &'static str, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            span,
            label: String::new(),
            secondary: Vec::new(),
            notes: Vec::new(),
            limit: None,
            suggestion: None,
        }
    }

    /// A warning at `span`.
    pub(crate) fn warning(
        code: &'static str,
        span: Span,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, span, message)
        }
    }

    /// Sets the text under the primary span.
    pub(crate) fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = label.into();
        self
    }

    /// Adds a secondary span with its text.
    pub(crate) fn with_secondary(mut self, span: Span, label: impl Into<String>) -> Diagnostic {
        self.secondary.push((span, label.into()));
        self
    }

    /// Adds a note line.
    pub(crate) fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    /// Proposes `by` for the name `name` written within `within`, saying
    /// so in a note "did you mean `by`?" followed by `more`, if any.
    pub(crate) fn with_suggestion(
        mut self,
        within: Span,
        name: &str,
        by: &str,
        more: &str,
    ) -> Diagnostic {
        self.notes.push(format!("did you mean `{by}`?{more}"));
        self.suggestion = Some(Suggestion {
            within,
            name: name.to_string(),
            by: by.to_string(),
        });
        self
    }

    /// The same, reached `limit`.
    pub(crate) fn with_limit(mut self, limit: LimitKind) -> Diagnostic {
        self.limit = Some(limit);
        self
    }

    /// Whether it is a published-game allowance: a warning for what GDL
    /// forbids or leaves unsaid but published games do and the reference
    /// engine (ggp-base) plays, so gdl plays it too (the `--strict` flag of
    /// the command refuses them). Its code is one of [`ALLOWANCES`].
    pub fn is_allowance(&self) -> bool {
        self.severity == Severity::Warning && ALLOWANCES.contains(&self.code)
    }

    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Renders diagnostics of one file as text, each headed by
/// `file:line:column: severity[code]: message`, then the source excerpt.
///
/// Whatever the file holds, the output stays readable: control characters
/// of the source are shown as spaces (a hostile file cannot drive the
/// terminal), a source line longer than `MAX_SHOWN_LINE` (400) bytes is not
/// shown (a note says so), and words of the messages longer than
/// `MAX_SHOWN_WORD` (80) characters are shortened (see [`shorten`]).
pub fn render(file: &SourceFile, diagnostics: &[Diagnostic], color: bool) -> String {
    let shown: String = file
        .text
        .chars()
        .map(|c| match c {
            '\n' | '\t' | '\r' => c,
            c if c.is_ascii_control() => ' ',
            c => c,
        })
        .collect();
    let files = SimpleFile::new(file.name.as_str(), shown.as_str());
    let config = term::Config::default();
    let mut buffer = if color {
        termcolor::Buffer::ansi()
    } else {
        termcolor::Buffer::no_color()
    };
    for d in diagnostics {
        let loc = file.location(d.span);
        let head = match d.severity {
            Severity::Error => CsDiagnostic::error(),
            Severity::Warning => CsDiagnostic::warning(),
        };
        let mut notes: Vec<String> = d.notes.iter().map(|n| shorten(n)).collect();
        let mut labels = Vec::new();
        let spans = std::iter::once((d.span, &d.label, true))
            .chain(d.secondary.iter().map(|(s, m)| (*s, m, false)));
        for (span, message, primary) in spans {
            if let Some(long) = long_line(file, span) {
                notes.push(long);
                continue;
            }
            let label = if primary {
                Label::primary((), range(file, span))
            } else {
                Label::secondary((), range(file, span))
            };
            labels.push(label.with_message(shorten(message)));
        }
        notes.dedup();
        let cs = head
            .with_code(d.code)
            .with_message(format!("{loc}: {}", shorten(&d.message)))
            .with_labels(labels)
            .with_notes(notes);
        // Writing to an in-memory buffer cannot fail for a valid span.
        let _ = term::emit(&mut buffer, &config, &files, &cs);
    }
    String::from_utf8_lossy(buffer.as_slice()).into_owned()
}

/// Source lines longer than this many bytes are not shown under a
/// diagnostic.
pub const MAX_SHOWN_LINE: usize = 400;

/// Words of a message longer than this many characters are shortened.
pub const MAX_SHOWN_WORD: usize = 80;

/// A note saying that a span's lines are too long to show, if they are.
fn long_line(file: &SourceFile, span: Span) -> Option<String> {
    let r = range(file, span);
    let text = &file.text;
    let start = text[..r.start].rfind('\n').map_or(0, |i| i + 1);
    let end = text[r.end..].find('\n').map_or(text.len(), |i| r.end + i);
    let longest = text[start..end].split('\n').map(str::len).max()?;
    (longest > MAX_SHOWN_LINE).then(|| {
        let line = file.line_col(r.start).line;
        format!("line {line} is too long to show ({longest} bytes)")
    })
}

/// `text` cut to its first `MAX_SHOWN_WORD` (80) characters (saying how many
/// were left out) when longer: for text a user typed, such as a move.
pub fn clip(text: &str) -> String {
    match text.char_indices().nth(MAX_SHOWN_WORD) {
        None => text.to_string(),
        Some((at, _)) => format!(
            "{}…({} more characters)",
            &text[..at],
            text[at..].chars().count()
        ),
    }
}

/// `text` with every word (a run of characters without white space) longer
/// than `MAX_SHOWN_WORD` (80) characters cut to its start and end with the
/// number of characters left out, so that a name of a megabyte cannot
/// flood a message.
pub fn shorten(text: &str) -> String {
    if text.len() <= MAX_SHOWN_WORD {
        return text.to_string();
    }
    let mut out = String::new();
    for (i, word) in text.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let n = word.chars().count();
        if n <= MAX_SHOWN_WORD {
            out.push_str(word);
            continue;
        }
        let head: String = word.chars().take(MAX_SHOWN_WORD / 2).collect();
        let tail: String = word.chars().skip(n - 8).collect();
        let left_out = n - MAX_SHOWN_WORD / 2 - 8;
        out.push_str(&format!("{head}…({left_out} more characters)…{tail}"));
    }
    out
}

/// The byte range of a span within the file, widened to whole characters.
fn range(file: &SourceFile, span: Span) -> std::ops::Range<usize> {
    let text = &file.text;
    let mut start = (span.start as usize).min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (span.end as usize).clamp(start, text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    start..end
}

/// Loading a rules file failed: it could not be read, or it has errors.
#[derive(Debug)]
pub enum LoadError {
    /// The file could not be read.
    Io {
        /// The path as given.
        path: String,
        /// What the operating system said.
        error: std::io::Error,
    },
    /// The file was read but is not a valid game description. Holds every
    /// diagnostic of the file, warnings included.
    Invalid {
        /// The file, for rendering.
        file: Box<SourceFile>,
        /// All errors and warnings found.
        diagnostics: Vec<Diagnostic>,
    },
    /// The load was cancelled before it ended (its [`crate::Cancel`] flag
    /// was set).
    Cancelled,
}

impl LoadError {
    /// The rendered diagnostics (or the I/O error), ready to print.
    pub fn render(&self, color: bool) -> String {
        match self {
            LoadError::Io { path, error } => format!("error: cannot read {path}: {error}\n"),
            LoadError::Invalid { file, diagnostics } => render(file, diagnostics, color),
            LoadError::Cancelled => "error: the load was cancelled\n".to_string(),
        }
    }

    /// The diagnostics, if the file was read.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        match self {
            LoadError::Io { .. } | LoadError::Cancelled => &[],
            LoadError::Invalid { diagnostics, .. } => diagnostics,
        }
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(false))
    }
}

impl std::error::Error for LoadError {}

/// Something went wrong while playing: a bad move, or rules that misbehave
/// in this state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GameError {
    /// A move that is not legal for its role in this state.
    IllegalMove {
        /// The role's name.
        role: String,
        /// The move as written.
        played: String,
        /// The legal moves of the role, as written.
        legal: Vec<String>,
    },
    /// A joint move with the wrong number of moves.
    WrongMoveCount {
        /// How many roles the game has.
        expected: usize,
        /// How many moves were given.
        given: usize,
    },
    /// Asked for the next state of a terminal state.
    Terminal,
    /// A role has no legal move in a non-terminal state.
    NoLegalMove {
        /// The role's name.
        role: String,
    },
    /// A state gives a role no goal value (GDL asks for one in terminal
    /// states only; this state may not be terminal).
    NoGoal {
        /// The role's name.
        role: String,
    },
    /// A state gives a role several goal values.
    SeveralGoals {
        /// The role's name.
        role: String,
        /// The values found, as written.
        values: Vec<String>,
    },
    /// A goal value that is not a whole number from 0 to 100.
    BadGoal {
        /// The role's name.
        role: String,
        /// The value as written.
        value: String,
    },
    /// Text that should be a move but is not a term.
    BadMoveText {
        /// The text typed.
        text: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A stepper asked to play from a state off its ground rules (see
    /// `Stepper::is_off`), which only the `Game` can answer.
    OffGround,
    /// The evaluation was cancelled before it ended (its [`crate::Cancel`]
    /// flag was set).
    Cancelled,
    /// A limit of the evaluator was reached: the rules derive too much.
    Limit {
        /// Which limit.
        kind: LimitKind,
        /// Its value.
        value: usize,
        /// The relation being derived when it was reached.
        relation: String,
    },
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameError::IllegalMove {
                role,
                played,
                legal,
            } => {
                write!(f, "illegal move {} for {role}; legal moves: ", clip(played))?;
                if legal.is_empty() {
                    f.write_str("none")
                } else {
                    f.write_str(&legal.join(" "))
                }
            }
            GameError::WrongMoveCount { expected, given } => {
                write!(
                    f,
                    "expected one move for each of {expected} roles, got {given}"
                )
            }
            GameError::Terminal => {
                f.write_str("the game is over: a terminal state has no next state")
            }
            GameError::NoLegalMove { role } => {
                write!(
                    f,
                    "{role} has no legal move in a state that is not terminal"
                )
            }
            GameError::NoGoal { role } => {
                write!(f, "the state gives {role} no goal value")
            }
            GameError::SeveralGoals { role, values } => {
                write!(
                    f,
                    "the state gives {role} several goal values: {}",
                    values.join(", ")
                )
            }
            GameError::BadGoal { role, value } => write!(
                f,
                "goal value {value} of {role} is not a whole number from 0 to 100"
            ),
            GameError::OffGround => f.write_str(
                "the stepper's state holds a fact that the rules' `base` leaves out, \
                 so its ground rules cannot play it: play it through the game",
            ),
            GameError::Cancelled => f.write_str("the evaluation was cancelled"),
            GameError::BadMoveText { text, reason } => {
                write!(f, "cannot read move {:?}: {reason}", clip(text))
            }
            GameError::Limit {
                kind: LimitKind::JoinWork,
                value,
                relation,
            } => write!(
                f,
                "a join of a rule deriving `{relation}` looked at more than {value} \
                 candidate facts, the join work limit (`{}`)",
                LimitKind::JoinWork.field()
            ),
            GameError::Limit {
                kind: LimitKind::Memory,
                value,
                relation,
            } => write!(
                f,
                "the memory limit (`{}`, {}) was reached while deriving `{relation}`",
                LimitKind::Memory.field(),
                crate::memory::human_bytes(*value),
            ),
            GameError::Limit {
                kind,
                value,
                relation,
            } => write!(
                f,
                "the {kind} limit (`{}`, {value}) was reached while deriving `{relation}`: \
                 the rules may derive without end",
                kind.field()
            ),
        }
    }
}

impl std::error::Error for GameError {}

/// `Ok` while the heap and `more` bytes about to be taken fit in the memory
/// budget (`limits.max_memory`), else the memory limit error, its relation
/// left for the caller to name. Structures that grow by doubling ask with
/// the growth before it happens, so that one doubling cannot take the
/// process far past the budget.
pub(crate) fn memory_room(limits: &Limits, more: usize) -> Result<(), GameError> {
    if crate::memory::over(limits.max_memory.saturating_sub(more)) {
        return Err(GameError::Limit {
            kind: LimitKind::Memory,
            value: limits.max_memory,
            relation: String::new(),
        });
    }
    Ok(())
}
