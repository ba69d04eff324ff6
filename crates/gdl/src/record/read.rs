//! Recorded games as they are read back: gdl's JSON traces, ggp-base's
//! match records and plain moves files, all brought to one form
//! ([`Record`]) that says what was recorded at each step and what was not.
//!
//! A text trace ([`Trace::to_text`]) draws its states as boards, so its
//! facts cannot be read back: it is refused ([`RecordError::TextTrace`]),
//! and the caller says how to record JSON instead. Facts and moves are read as KIF and written back
//! with single spaces in lower case, so that `( cell 1 1 b )` as ggp-base
//! writes it and `(CELL 1 1 B)` compare equal to gdl's `(cell 1 1 b)`.

use super::trace::Trace;
use crate::limits::{LimitKind, Limits};
use crate::syntax::kif::Kif;
use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::cell::Cell;
use std::fmt;

/// Where a record came from, which decides what it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordFormat {
    /// A JSON trace of gdl ([`Trace::to_json`], [`record_file`]): states,
    /// legal moves, terminal flags, moves and goals.
    Trace,
    /// A match record of ggp-base's game server: states, moves and goals,
    /// but no legal moves.
    Match,
    /// A moves file (one joint move a line, as
    /// [`moves_file`](super::moves_file) writes it): moves only.
    Moves,
}

/// One recorded step: what the record says of one state, each part `None`
/// when the record does not say it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecordedStep {
    /// The step number as written in the record.
    pub number: Option<usize>,
    /// The facts of the state.
    pub state: Option<Vec<String>>,
    /// Whether the state is terminal.
    pub terminal: Option<bool>,
    /// Each role's legal moves, in role order.
    pub legal: Option<Vec<Vec<String>>>,
    /// The joint move played in the state, in role order.
    pub moves: Option<Vec<String>>,
}

/// A recorded game read back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// What kind of file it was.
    pub format: RecordFormat,
    /// The roles, in order, when the record names them.
    pub roles: Option<Vec<String>>,
    /// The steps, from the initial state.
    pub steps: Vec<RecordedStep>,
    /// The goals at the end, in role order, when recorded.
    pub goals: Option<Vec<u8>>,
    /// What made it, when the record says (gdl's records since they carry
    /// it).
    pub recorded: Option<super::Provenance>,
}

impl Record {
    /// The joint moves played, in order.
    pub fn moves(&self) -> Vec<Vec<String>> {
        self.steps.iter().filter_map(|s| s.moves.clone()).collect()
    }
}

/// A step of gdl's JSON trace, every field optional so that a missing one
/// is told apart from an empty one; facts and moves written back in gdl's
/// form as they are read.
#[derive(Deserialize)]
struct JsonStep {
    step: Option<usize>,
    state: Option<Bounded<Term>>,
    terminal: Option<bool>,
    legal: Option<Bounded<Bounded<Term>>>,
    moves: Option<Bounded<Term>>,
}

/// gdl's JSON trace.
#[derive(Deserialize)]
struct JsonTrace {
    recorded: Option<super::Provenance>,
    roles: Vec<String>,
    steps: Bounded<JsonStep>,
    goals: Option<Vec<u8>>,
}

/// The parts of ggp-base's match record that say what happened.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MatchRecord {
    states: Bounded<String>,
    moves: Bounded<Bounded<Term>>,
    goal_values: Option<Vec<u8>>,
    is_completed: Option<bool>,
}

thread_local! {
    /// The memory budget of the record being read on this thread (see
    /// [`Bounded`]): serde gives a deserializer no room for it.
    static BUDGET: Cell<usize> = const { Cell::new(usize::MAX) };
}

/// What a [`Bounded`] list says to serde when the budget is reached; told
/// apart from the other errors by [`over_budget`].
const OVER_BUDGET: &str = "the memory budget was reached";

/// Whether a JSON error is [`OVER_BUDGET`].
fn over_budget(e: &serde_json::Error) -> bool {
    e.to_string().starts_with(OVER_BUDGET)
}

/// A list of a JSON record, read element by element with the memory
/// budget looked at after each: a record of millions of facts stops at the
/// budget rather than take what the system has.
struct Bounded<T>(Vec<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Bounded<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Elements<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for Elements<T> {
            type Value = Bounded<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Bounded<T>, A::Error> {
                let budget = BUDGET.with(Cell::get);
                let mut out = Vec::new();
                while let Some(element) = seq.next_element()? {
                    if crate::memory::over(budget) {
                        return Err(de::Error::custom(OVER_BUDGET));
                    }
                    out.push(element);
                }
                Ok(Bounded(out))
            }
        }
        deserializer.deserialize_seq(Elements(std::marker::PhantomData))
    }
}

/// A fact or a move of a JSON record, written back in gdl's form
/// ([`normal`]) as it is read.
struct Term(String);

impl<'de> Deserialize<'de> for Term {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(|text| Term(normal(text)))
    }
}

/// The texts of a list of terms.
fn texts(terms: Bounded<Term>) -> Vec<String> {
    terms.0.into_iter().map(|t| t.0).collect()
}

/// Which kind of JSON record a text holds, from its top-level keys alone
/// (their values skipped, nothing kept): a first pass that finds the
/// errors of JSON itself.
#[derive(Default)]
struct Keys {
    steps: bool,
    states: bool,
}

impl<'de> Deserialize<'de> for Keys {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = Keys;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Keys, A::Error> {
                let mut keys = Keys::default();
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    match &*key {
                        "steps" => keys.steps = true,
                        "states" => keys.states = true,
                        _ => {}
                    }
                    map.next_value::<IgnoredAny>()?;
                }
                Ok(keys)
            }
        }
        deserializer.deserialize_map(Visit)
    }
}

/// Reads a recorded game: a JSON trace of gdl or a match record of
/// ggp-base (text starting with `{`), or a moves file with one joint move
/// per line, the moves in role order as KIF terms (`(move a 2 a 3) noop`);
/// blank lines and `;` comments are skipped. A text trace is refused, and
/// so is a record of nothing: an empty file (or blank lines), comments
/// without gdl's first line `; a game of ...` (which a game of no moves
/// keeps), a JSON trace without steps. Errors name the line and column.
///
/// What is read counts against the default memory budget
/// ([`Limits::max_memory`]); [`read_record_within`] takes another.
pub fn read_record(text: &str) -> Result<Record, RecordError> {
    read_record_within(text, Limits::default().max_memory)
}

/// [`read_record`] under a memory budget of `max_memory` bytes (the
/// process's heap, as [`crate::CountingAllocator`] counts it): a record
/// whose reading would take the heap past it stops with
/// [`RecordError::Memory`], located where it stopped.
pub fn read_record_within(text: &str, max_memory: usize) -> Result<Record, RecordError> {
    if text.trim_start().starts_with('{') {
        let previous = BUDGET.with(|b| b.replace(max_memory));
        let read = read_json(text, max_memory);
        BUDGET.with(|b| b.set(previous));
        return read;
    }
    if is_text_trace(text) {
        return Err(RecordError::TextTrace);
    }
    if text.trim().is_empty() {
        return Err(RecordError::Invalid(format!(
            "the file is empty: an empty record is not a game (a game of no moves, as gdl \
             saves it, still has its first line `{MOVES_FILE_HEAD}...`)"
        )));
    }
    if let Some(line) = rules_line(text) {
        return Err(RecordError::Invalid(format!(
            "line {line}: this is a rules file, not a recorded game (a line starts with `(<=` \
             or `(role`); a recorded game is a JSON trace (of `gdl record` or `gdl trace \
             --format json`), a match record, or a moves file of one joint move a line; the \
             rules file comes first: `gdl replay RULES GAME`"
        )));
    }
    let mut steps = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if crate::memory::over(max_memory) {
            return Err(RecordError::Memory {
                budget: max_memory,
                at: format!("line {}", n + 1),
            });
        }
        let terms = read_terms(line).map_err(|(column, e)| {
            RecordError::Invalid(format!("line {}, column {column}: {e}", n + 1))
        })?;
        if !terms.is_empty() {
            steps.push(RecordedStep {
                moves: Some(terms),
                ..RecordedStep::default()
            });
        }
    }
    // Comments alone are a game of no moves only under gdl's own first
    // line (a game saved before its first move has it).
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    if steps.is_empty() && !first.starts_with(MOVES_FILE_HEAD) {
        return Err(RecordError::Invalid(format!(
            "no moves, only comments: not a recorded game (a game of no moves, as gdl saves \
             it, begins with the line `{MOVES_FILE_HEAD}...`)"
        )));
    }
    Ok(Record {
        format: RecordFormat::Moves,
        roles: None,
        steps,
        goals: None,
        recorded: None,
    })
}

/// Why a text is not a recorded game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordError {
    /// A text trace: drawn for people, its facts cannot be read back; the
    /// game must be recorded as JSON.
    TextTrace,
    /// The memory budget ([`Limits::max_memory`], `budget` bytes) was
    /// reached while the record was read, at `at` (`line 12` or `line 12,
    /// column 5`).
    Memory {
        /// The budget, in bytes.
        budget: usize,
        /// Where the reading stopped.
        at: String,
    },
    /// Anything else: the message says what is wrong, and where.
    Invalid(String),
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordError::TextTrace => f.write_str(
                "a text trace is for people, and cannot be checked: record the game as JSON",
            ),
            RecordError::Memory { budget, at } => write!(
                f,
                "{at}: the memory limit (`{}`, {}) was reached while reading the record",
                LimitKind::Memory.field(),
                crate::memory::human_bytes(*budget)
            ),
            RecordError::Invalid(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for RecordError {}

/// True for a recorded game rather than moves typed by a person: a moves
/// file as [`moves_file`](super::moves_file) writes it (its first line is
/// the comment `; a game of ...`), a JSON record or a text trace.
pub fn is_recorded_game(text: &str) -> bool {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    first.starts_with(MOVES_FILE_HEAD) || first.trim_start().starts_with('{') || is_text_trace(text)
}

/// The first line (from 1) of a text that is a rules file rather than a
/// moves file: one that starts with a rule (`(<=`) or a role's
/// declaration (`(role`), which no joint move does.
fn rules_line(text: &str) -> Option<usize> {
    text.lines()
        .position(|line| {
            let line = line.trim_start();
            let head = line.get(..6).unwrap_or(line).to_ascii_lowercase();
            head.starts_with("(<=") || head.starts_with("(role ") || head == "(role"
        })
        .map(|n| n + 1)
}

/// How a moves file written by gdl begins ([`moves_file`](super::moves_file)).
pub(super) const MOVES_FILE_HEAD: &str = "; a game of ";

/// A text trace ([`Trace::to_text`]): its first line names the
/// roles, and its steps are headed `== step N ==`.
fn is_text_trace(text: &str) -> bool {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    first.starts_with("roles:") || text.lines().any(|l| l.starts_with("== step "))
}

/// The KIF terms of one line, each written back in gdl's form (single
/// spaces, names as written); on an error, its column (from 1) and message.
fn read_terms(line: &str) -> Result<Vec<String>, (usize, String)> {
    let column = |at: usize| line[..at].chars().count() + 1;
    let terms = Kif::read_all(line).map_err(|errors| {
        (
            column(errors[0].span.start as usize),
            errors[0].message.clone(),
        )
    })?;
    // Rules files may hold a comma inside a word (ggp-base reads it so, and
    // gdl warns `comma-in-name`), but no move of a game is written so: in
    // a moves file it is a slip for a blank, `(mark 1, 1)`.
    let code = line.split(';').next().unwrap_or_default();
    if let Some(at) = code.find(',') {
        return Err((
            column(at),
            "unexpected character `,` (KIF separates a move's arguments by blanks)".into(),
        ));
    }
    Ok(terms.iter().map(Kif::to_string).collect())
}

/// One term written back in gdl's form, or left as it is when it is not
/// one term of KIF (it then matches nothing the rules give).
fn normal(text: String) -> String {
    match read_terms(&text) {
        Ok(mut one) if one.len() == 1 => one.pop().unwrap_or(text),
        _ => text,
    }
}

/// A JSON record: gdl's trace (it has `steps`) or ggp-base's match record
/// (it has `states`), read within `max_memory` (already set in
/// [`BUDGET`]).
fn read_json(text: &str, max_memory: usize) -> Result<Record, RecordError> {
    let invalid = RecordError::Invalid;
    // Errors of JSON itself first, from a pass that keeps nothing.
    let keys: Keys = serde_json::from_str(text).map_err(|e| invalid(format!("bad JSON: {e}")))?;
    let budget = |e: &serde_json::Error| RecordError::Memory {
        budget: max_memory,
        at: format!("line {}, column {}", e.line(), e.column()),
    };
    // Read again as the kind it is, for errors that say where.
    if keys.states && !keys.steps {
        let m: MatchRecord = serde_json::from_str(text).map_err(|e| {
            if over_budget(&e) {
                budget(&e)
            } else {
                invalid(format!("bad ggp-base match record: {e}"))
            }
        })?;
        return from_match(m, max_memory);
    }
    let t: JsonTrace = serde_json::from_str(text).map_err(|e| {
        if over_budget(&e) {
            budget(&e)
        } else {
            invalid(format!("bad JSON trace: {e}"))
        }
    })?;
    if t.steps.0.is_empty() {
        return Err(invalid(
            "bad JSON trace: no steps; a trace has at least the initial state, step 0".to_string(),
        ));
    }
    Ok(Record {
        format: RecordFormat::Trace,
        roles: Some(t.roles),
        steps: (t.steps.0.into_iter())
            .map(|s| RecordedStep {
                number: s.step,
                state: s.state.map(texts),
                terminal: s.terminal,
                legal: s.legal.map(|l| l.0.into_iter().map(texts).collect()),
                moves: s.moves.map(texts),
            })
            .collect(),
        goals: t.goals,
        recorded: t.recorded,
    })
}

/// ggp-base's match record: `states[i]` is the state of step i, a KIF list
/// of facts; `moves[i]` the joint move played in it. The states before the
/// last are not terminal (the match went on); the last is when the match
/// completed, and `goalValues` are then its goals.
fn from_match(m: MatchRecord, max_memory: usize) -> Result<Record, RecordError> {
    let (states, moves) = (m.states.0, m.moves.0);
    if moves.len() + 1 != states.len() {
        return Err(RecordError::Invalid(format!(
            "bad ggp-base match record: {} states but {} moves; a record has one state more \
             than moves",
            states.len(),
            moves.len()
        )));
    }
    let completed = m.is_completed.unwrap_or(false);
    let last = states.len() - 1;
    let mut steps = Vec::new();
    let mut moves = moves.into_iter();
    for (i, state) in states.iter().enumerate() {
        if crate::memory::over(max_memory) {
            return Err(RecordError::Memory {
                budget: max_memory,
                at: format!("state {i}"),
            });
        }
        let facts = match Kif::read_all(state).as_deref() {
            Ok([Kif::List(facts)]) => facts.iter().map(Kif::to_string).collect(),
            _ => {
                return Err(RecordError::Invalid(format!(
                    "bad ggp-base match record: state {i} is not a list of facts"
                )));
            }
        };
        steps.push(RecordedStep {
            number: Some(i),
            state: Some(facts),
            terminal: Some(i == last && completed),
            legal: None,
            moves: moves.next().map(texts),
        });
    }
    Ok(Record {
        format: RecordFormat::Match,
        roles: None,
        steps,
        goals: if completed { m.goal_values } else { None },
        recorded: None,
    })
}

/// A trace as a recorded game to test rules against: JSON with one fact and one move a
/// line, so that a change of the rules shows as a few changed lines in a
/// diff.
pub fn record_file(trace: &Trace) -> String {
    let mut out = serde_json::to_string_pretty(trace).unwrap_or_default();
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_files_are_read_line_by_line_and_text_traces_are_refused() {
        let r =
            read_record("; a game\n(move a 2 a 3) noop\n\nnoop (MOVE b 7 b 6) ; reply\n").unwrap();
        assert_eq!(r.format, RecordFormat::Moves);
        assert_eq!(
            r.moves(),
            vec![
                vec!["(move a 2 a 3)".to_string(), "noop".to_string()],
                vec!["noop".to_string(), "(MOVE b 7 b 6)".to_string()],
            ]
        );
        let trace = "roles: a b\n\n== step 0 ==\n(cell 1 1 x)\nplayed: noop (mark 1 1)\n";
        assert_eq!(read_record(trace), Err(RecordError::TextTrace));
        assert_eq!(
            read_record("(move a").unwrap_err().to_string(),
            "line 1, column 1: unclosed `(`"
        );
    }

    #[test]
    fn a_rules_file_given_as_a_record_is_named_as_one() {
        for rules in [
            "(role x)\n(init (c 0))\n",
            "; tic-tac-toe\n(init (c 0))\n(<= (legal x go)\n    (true (c 0)))\n",
        ] {
            let e = read_record(rules).unwrap_err().to_string();
            assert!(
                e.contains("this is a rules file, not a recorded game"),
                "{e}"
            );
        }
        assert!(read_record("(mark 1 1) noop\n(roles x) noop\n").is_ok());
    }

    #[test]
    fn a_record_of_nothing_is_refused_but_a_saved_game_of_no_moves_is_read() {
        for nothing in [
            "",
            "\n \n",
            "; a comment\n",
            r#"{"roles":["a"],"steps":[]}"#,
        ] {
            assert!(read_record(nothing).is_err(), "{nothing:?}");
        }
        let none = read_record("; a game of x.gdl: one joint move per line (a)\n").unwrap();
        assert_eq!(none.format, RecordFormat::Moves);
        assert!(none.steps.is_empty());
    }

    #[test]
    fn json_traces_keep_what_is_missing_apart_from_what_is_empty() {
        let r = read_record(
            r#"{"roles":["a"],"steps":[{"step":0,"state":["( S  0 )"],"moves":["go"]},
                {"step":1,"state":[],"terminal":true,"legal":[]}],"goals":[100]}"#,
        )
        .unwrap();
        assert_eq!(r.steps[0].state, Some(vec!["(S 0)".to_string()]));
        assert_eq!(r.steps[0].legal, None);
        assert_eq!(r.steps[0].terminal, None);
        assert_eq!(r.steps[1].legal, Some(vec![]));
        assert_eq!(r.goals, Some(vec![100]));
        let err = |text: &str| read_record(text).unwrap_err().to_string();
        assert!(err("{ nope").starts_with("bad JSON"));
        assert!(err(r#"{"roles": 3}"#).starts_with("bad JSON trace"));
    }

    #[test]
    fn match_records_of_ggp_base_are_read_with_their_end() {
        let text = r#"{"states":["( ( c 0 ) )","( ( c 1 ) )"],"moves":[["( go )"]],
                       "goalValues":[100],"isCompleted":true}"#;
        let r = read_record(text).unwrap();
        assert_eq!(r.format, RecordFormat::Match);
        assert_eq!(r.steps[0].state, Some(vec!["(c 0)".to_string()]));
        assert_eq!(r.steps[0].moves, Some(vec!["(go)".to_string()]));
        assert_eq!(r.steps[0].terminal, Some(false));
        assert_eq!(r.steps[1].terminal, Some(true));
        assert_eq!(r.goals, Some(vec![100]));
        let short = r#"{"states":["( ( c 0 ) )"],"moves":[["go"]]}"#;
        assert!(
            read_record(short)
                .unwrap_err()
                .to_string()
                .contains("1 states but 1 moves")
        );
    }

    #[test]
    fn moves_files_refuse_characters_kif_does_not_allow() {
        let err = |text: &str| read_record(text).unwrap_err().to_string();
        assert_eq!(
            err("noop\nnoop \"mark 2 2\""),
            "line 2, column 6: unexpected character `\"`"
        );
        assert_eq!(
            err("(mark 1, 1) noop"),
            "line 1, column 8: unexpected character `,` (KIF separates a move's arguments by blanks)"
        );
        assert_eq!(
            err("(mark é) noop"),
            "line 1, column 7: unexpected character `é`"
        );
        // A comment may hold anything; symbol punctuation and `?` are KIF.
        let ok = read_record("(a_b-c+d.e'f<g>h=i!j#k$l%m&n*o/p:q@r^s~t) ?x ; \"quoted\", [x]\n");
        assert_eq!(ok.unwrap().moves()[0].len(), 2);
    }
}
