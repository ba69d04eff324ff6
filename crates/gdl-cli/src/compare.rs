//! A recorded game compared with the rules, for `gdl replay` and `gdl test`.
//!
//! The moves of the record are played from the rules' initial state as far
//! as they stay legal; at every step what the record says (the state's
//! facts, each role's legal moves, terminal, the step number, and the goals
//! at the end) is compared with what the rules give. States and legal moves
//! are sets: their order in the record does not matter, nor the case of
//! their names (GDL compares names without case: a record of ggp-base,
//! which writes names in lower case, agrees with rules that write
//! `isList`). Every step that
//! differs is kept, with what changed; a difference that leaves no way on
//! (an illegal move, a move after the end) ends the comparison.

use gdl::record::{Record, RecordedStep, Step, Trace, legal_move, observe};
use gdl::{Game, GameError, State};
use serde::Serialize;
use std::collections::BTreeSet;
use std::fmt::Write;

/// One way in which the record and the rules differ at a step.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Difference {
    /// The record names other roles than the rules.
    Roles {
        /// As recorded.
        recorded: Vec<String>,
        /// As the rules declare them.
        rules: Vec<String>,
    },
    /// The step is numbered otherwise in the record.
    StepNumber {
        /// The number written in the record.
        recorded: usize,
    },
    /// The state's facts differ.
    State {
        /// Facts the rules give and the record does not have.
        added: Vec<String>,
        /// Facts of the record the rules do not give.
        removed: Vec<String>,
    },
    /// Whether the state is terminal differs.
    Terminal {
        /// As recorded.
        recorded: bool,
        /// As the rules say.
        rules: bool,
    },
    /// A role's legal moves differ.
    Legal {
        /// The role.
        role: String,
        /// Moves the rules allow and the record does not list.
        added: Vec<String>,
        /// Moves of the record the rules do not allow.
        removed: Vec<String>,
    },
    /// The goals at the end differ (`None`: no goals, the state is not
    /// terminal or none were recorded).
    Goals {
        /// As recorded.
        recorded: Option<Vec<u8>>,
        /// As the rules give them.
        rules: Option<Vec<u8>>,
    },
    /// A recorded move the rules do not allow: the game cannot be followed
    /// further.
    IllegalMove {
        /// The role that played it.
        role: String,
        /// The move.
        played: String,
        /// The role's legal moves, as the rules give them.
        legal: Vec<String>,
    },
    /// Something else stops the game here: moves after a terminal state, a
    /// joint move of the wrong size, an error of the rules.
    Stopped {
        /// What happened.
        reason: String,
    },
}

impl Difference {
    /// True for the differences past which the moves cannot be followed.
    pub fn stops(&self) -> bool {
        matches!(
            self,
            Difference::Roles { .. } | Difference::IllegalMove { .. } | Difference::Stopped { .. }
        )
    }
}

/// The differences found at one step.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StepDifferences {
    /// The step (its place in the game, from 0).
    pub step: usize,
    /// What differs there.
    pub differences: Vec<Difference>,
}

/// A record compared with the rules.
#[derive(Debug)]
pub struct Comparison {
    /// The game as the rules play the record's moves, as far as they could
    /// be followed.
    pub trace: Trace,
    /// Every step that differs, in order.
    pub steps: Vec<StepDifferences>,
}

impl Comparison {
    /// True when the record and the rules agree everywhere.
    pub fn passed(&self) -> bool {
        self.steps.is_empty()
    }

    /// True when every recorded move was followed (none was illegal and
    /// nothing stopped the game): the game can be recorded again.
    pub fn followed(&self) -> bool {
        self.stopped_at().is_none()
    }

    /// The step past which the recorded moves could not be followed.
    pub fn stopped_at(&self) -> Option<usize> {
        self.steps
            .iter()
            .find(|s| s.differences.iter().any(Difference::stops))
            .map(|s| s.step)
    }
}

/// Plays the record's moves under the rules and compares every step.
pub fn compare(game: &mut Game, record: &Record) -> Comparison {
    let mut c = Comparing {
        trace: Trace::new(game),
        steps: Vec::new(),
    };
    if let Some(recorded) = &record.roles {
        let same = |a: &String, b: &String| a.eq_ignore_ascii_case(b);
        if recorded.len() != c.trace.roles.len()
            || !recorded.iter().zip(&c.trace.roles).all(|(a, b)| same(a, b))
        {
            let rules = c.trace.roles.clone();
            c.differ(
                0,
                Difference::Roles {
                    recorded: recorded.clone(),
                    rules,
                },
            );
            return c.done();
        }
    }
    let mut state = game.initial_state();
    for (i, recorded) in record.steps.iter().enumerate() {
        let Some(rules) = c.observe(game, &state, i) else {
            return c.done();
        };
        c.compare_step(i, recorded, &rules);
        let Some(joint) = &recorded.moves else {
            if i + 1 < record.steps.len() {
                c.stop(
                    i,
                    "the record has no moves here, yet it goes on".to_string(),
                );
                return c.done();
            }
            c.compare_goals(game, &state, i, &rules, record.goals.as_ref());
            return c.done();
        };
        match c.play(game, &state, i, &rules, joint) {
            Some(next) => state = next,
            None => return c.done(),
        }
    }
    // A record that ends with a move (a moves file): the state it leads to
    // is shown, not compared.
    let end = record.steps.len();
    if let Some(rules) = c.observe(game, &state, end)
        && rules.terminal
    {
        match game.goals(&state) {
            Ok(goals) => c.trace.goals = Some(goals),
            Err(e) => c.stop(end, e.to_string()),
        }
    }
    c.done()
}

/// A comparison under way.
struct Comparing {
    trace: Trace,
    steps: Vec<StepDifferences>,
}

impl Comparing {
    fn done(self) -> Comparison {
        Comparison {
            trace: self.trace,
            steps: self.steps,
        }
    }

    /// Adds a difference at `step`.
    fn differ(&mut self, step: usize, d: Difference) {
        match self.steps.last_mut() {
            Some(last) if last.step == step => last.differences.push(d),
            _ => self.steps.push(StepDifferences {
                step,
                differences: vec![d],
            }),
        }
    }

    fn stop(&mut self, step: usize, reason: String) {
        self.differ(step, Difference::Stopped { reason });
    }

    /// The rules' view of the state at `step`, added to the trace; `None`
    /// (and the game stopped) on an error of the rules.
    fn observe(&mut self, game: &mut Game, state: &State, step: usize) -> Option<Step> {
        match observe(game, state, step) {
            Ok(s) => {
                self.trace.steps.push(s.clone());
                Some(s)
            }
            Err(e) => {
                self.stop(step, e.to_string());
                None
            }
        }
    }

    /// Compares what the record says of one state with what the rules give.
    fn compare_step(&mut self, i: usize, recorded: &RecordedStep, rules: &Step) {
        if let Some(n) = recorded.number.filter(|&n| n != i) {
            self.differ(i, Difference::StepNumber { recorded: n });
        }
        if let Some(facts) = &recorded.state {
            let (added, removed) = set_difference(&rules.state, facts);
            if !added.is_empty() || !removed.is_empty() {
                self.differ(i, Difference::State { added, removed });
            }
        }
        if let Some(t) = recorded.terminal.filter(|&t| t != rules.terminal) {
            self.differ(
                i,
                Difference::Terminal {
                    recorded: t,
                    rules: rules.terminal,
                },
            );
        }
        if let Some(legal) = &recorded.legal {
            for (r, role) in self.trace.roles.clone().iter().enumerate() {
                let empty = Vec::new();
                let (added, removed) = set_difference(
                    rules.legal.get(r).unwrap_or(&empty),
                    legal.get(r).unwrap_or(&empty),
                );
                if !added.is_empty() || !removed.is_empty() {
                    let role = role.clone();
                    self.differ(
                        i,
                        Difference::Legal {
                            role,
                            added,
                            removed,
                        },
                    );
                }
            }
        }
    }

    /// The goals at the recorded end: the rules' goals when their state is
    /// terminal, else none.
    fn compare_goals(
        &mut self,
        game: &mut Game,
        state: &State,
        i: usize,
        rules: &Step,
        recorded: Option<&Vec<u8>>,
    ) {
        let goals = if rules.terminal {
            match game.goals(state) {
                Ok(g) => Some(g),
                Err(e) => return self.stop(i, e.to_string()),
            }
        } else {
            None
        };
        self.trace.goals.clone_from(&goals);
        if recorded != goals.as_ref() {
            self.differ(
                i,
                Difference::Goals {
                    recorded: recorded.cloned(),
                    rules: goals,
                },
            );
        }
    }

    /// Plays the recorded joint move at step `i`, checking each move; the
    /// next state, or `None` when the game cannot go on.
    fn play(
        &mut self,
        game: &mut Game,
        state: &State,
        i: usize,
        rules: &Step,
        joint: &[String],
    ) -> Option<State> {
        let roles = game.roles();
        if rules.terminal {
            self.stop(
                i,
                "the record plays moves here, but the rules' state is terminal".to_string(),
            );
            return None;
        }
        if joint.len() != roles.len() {
            let e = GameError::WrongMoveCount {
                expected: roles.len(),
                given: joint.len(),
            };
            self.stop(i, e.to_string());
            return None;
        }
        let mut played = Vec::new();
        for (&role, text) in roles.iter().zip(joint) {
            match legal_move(game, state, role, text) {
                Ok(m) => played.push(m),
                Err(GameError::IllegalMove {
                    role,
                    played,
                    legal,
                }) => {
                    self.differ(
                        i,
                        Difference::IllegalMove {
                            role,
                            played,
                            legal,
                        },
                    );
                    return None;
                }
                Err(e) => {
                    self.stop(i, e.to_string());
                    return None;
                }
            }
        }
        match game.next_state(state, &played) {
            Ok(next) => {
                self.trace.steps[i].moves =
                    Some(played.iter().map(|&m| game.move_text(m)).collect());
                Some(next)
            }
            Err(e) => {
                self.stop(i, e.to_string());
                None
            }
        }
    }
}

/// What `rules` has that `recorded` has not, and the other way round, each
/// in the order of its list; texts that differ only in case are the same.
fn set_difference(rules: &[String], recorded: &[String]) -> (Vec<String>, Vec<String>) {
    let set = |texts: &[String]| -> BTreeSet<String> {
        texts.iter().map(|t| t.to_ascii_lowercase()).collect()
    };
    let (rules_set, recorded_set) = (set(rules), set(recorded));
    let added = rules
        .iter()
        .filter(|f| !recorded_set.contains(&f.to_ascii_lowercase()))
        .cloned()
        .collect();
    let mut removed: Vec<String> = recorded
        .iter()
        .filter(|f| !rules_set.contains(&f.to_ascii_lowercase()))
        .cloned()
        .collect();
    removed.sort_by(|a, b| gdl::natural_cmp(a, b));
    removed.dedup_by(|a, b| a.eq_ignore_ascii_case(b));
    (added, removed)
}

/// The differences of one step for people: a line naming the step, then
/// what changed, one fact or move a line, `+` for what the rules give and
/// the record has not, `-` for what the record has and the rules do not:
/// the first [`SHOWN_LINES`] of each list and how many more, or with
/// `all` every one (a renamed fact changes every state of a large game).
pub fn describe_step(s: &StepDifferences, roles: &[String], all: bool) -> String {
    let mut out = String::new();
    if let [d] = s.differences.as_slice() {
        if let (Difference::Roles { .. }, Some(line)) = (d, one_line(d, roles)) {
            let _ = writeln!(out, "{line}");
            return out;
        }
        if let Some(line) = one_line(d, roles) {
            let _ = writeln!(out, "step {}: {line}", s.step);
            return out;
        }
    }
    let _ = writeln!(
        out,
        "step {}: the rules differ from the record (+ the rules only, - the record only)",
        s.step
    );
    for d in &s.differences {
        match one_line(d, roles) {
            Some(text) => {
                for line in text.lines() {
                    let _ = writeln!(out, "  {line}");
                }
            }
            None => out.push_str(&lines(d, all)),
        }
    }
    out
}

/// The line that says how many more steps differ than were shown.
pub fn more_steps(n: usize) -> String {
    format!(
        "({n} more step{} differ{}; --all lists them)\n",
        if n == 1 { "" } else { "s" },
        if n == 1 { "s" } else { "" }
    )
}

/// A difference said in a line (or, for an illegal move, a line and the
/// legal moves), when it is not a list of facts or moves.
fn one_line(d: &Difference, roles: &[String]) -> Option<String> {
    let goals = |g: &Option<Vec<u8>>| match g {
        Some(g) => roles
            .iter()
            .zip(g)
            .map(|(r, v)| format!("{r} {v}"))
            .collect::<Vec<_>>()
            .join(", "),
        None => "none".to_string(),
    };
    let yes = |t: bool| if t { "terminal" } else { "not terminal" };
    Some(match d {
        Difference::Roles { recorded, rules } => format!(
            "recorded for the roles {}, but the rules have {}",
            recorded.join(" "),
            rules.join(" ")
        ),
        Difference::StepNumber { recorded } => format!("numbered {recorded} in the record"),
        Difference::Terminal { recorded, rules } => {
            format!(
                "recorded {}, but the rules' state is {}",
                yes(*recorded),
                yes(*rules)
            )
        }
        Difference::Goals { recorded, rules } => format!(
            "goals recorded: {}; goals of the rules: {}",
            goals(recorded),
            goals(rules)
        ),
        Difference::IllegalMove {
            role,
            played,
            legal,
        } => illegal_move(role, played, legal),
        Difference::Stopped { reason } => reason.clone(),
        Difference::State { .. } | Difference::Legal { .. } => return None,
    })
}

/// How many facts or moves of each side of a list difference are shown
/// (without `--all`).
pub const SHOWN_LINES: usize = 20;

/// A list difference, one fact or move a line (each side cut at
/// [`SHOWN_LINES`] unless `all`).
fn lines(d: &Difference, all: bool) -> String {
    let (head, added, removed) = match d {
        Difference::State { added, removed } => ("state".to_string(), added, removed),
        Difference::Legal {
            role,
            added,
            removed,
        } => (format!("legal moves of {role}"), added, removed),
        _ => return String::new(),
    };
    let mut out = format!("  {head}:\n");
    let shown = if all { usize::MAX } else { SHOWN_LINES };
    for (sign, list) in [('+', added), ('-', removed)] {
        for f in list.iter().take(shown) {
            let _ = writeln!(out, "    {sign} {f}");
        }
        if list.len() > shown {
            let _ = writeln!(
                out,
                "    {sign} ... and {} more (--all lists them)",
                list.len() - shown
            );
        }
    }
    out
}

/// An illegal move for people, the legal ones on a line of their own.
pub fn illegal_move(role: &str, played: &str, legal: &[String]) -> String {
    format!(
        "illegal move {} for {role}\n  legal moves of {role}: {}",
        gdl::clip(played),
        if legal.is_empty() {
            "none".to_string()
        } else {
            legal.join(" ")
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use gdl::record::read_record;

    const GAME: &str = "(role a) (role b) (init (c 0)) (init (d 0))
        (legal a go) (legal a wait) (legal b go)
        (<= (next (c 1)) (does a go)) (<= (next (c 2)) (does a wait)) (<= (next (d 0)) (true (d 0)))
        (<= terminal (true (c 1))) (<= terminal (true (c 2)))
        (goal a 100) (goal b 0)";

    fn compared(record: &str) -> Comparison {
        let mut game = Game::from_source("t.gdl", GAME).unwrap();
        compare(&mut game, &read_record(record).unwrap())
    }

    #[test]
    fn a_record_in_another_order_agrees() {
        let c = compared(
            r#"{"roles":["a","b"],"steps":[
            {"step":0,"state":["(d 0)","(c 0)"],"terminal":false,"legal":[["wait","go"],["go"]],"moves":["go","go"]},
            {"step":1,"state":["(d 0)","(c 1)"],"terminal":true,"legal":[]}],"goals":[100,0]}"#,
        );
        assert!(c.passed(), "{:?}", c.steps);
        assert_eq!(c.trace.goals, Some(vec![100, 0]));
    }

    #[test]
    fn a_record_in_another_case_agrees() {
        let c = compared(
            r#"{"roles":["A","b"],"steps":[
            {"step":0,"state":["(D 0)","(c 0)"],"terminal":false,"legal":[["WAIT","go"],["Go"]],"moves":["GO","go"]},
            {"step":1,"state":["(d 0)","(C 1)"],"terminal":true,"legal":[]}],"goals":[100,0]}"#,
        );
        assert!(c.passed(), "{:?}", c.steps);
        let c = compared(r#"{"roles":["a","b"],"steps":[{"step":0,"state":["(D 1)","(c 0)"]}]}"#);
        assert_eq!(
            c.steps[0].differences[0],
            Difference::State {
                added: vec!["(d 0)".into()],
                removed: vec!["(D 1)".into()]
            }
        );
    }

    #[test]
    fn every_difference_of_a_step_is_named() {
        let c = compared(
            r#"{"roles":["a","b"],"steps":[
            {"step":0,"state":["(c 0)","(e 0)"],"terminal":false,"legal":[["go"],["go","stop"]],"moves":["go","go"]},
            {"step":2,"state":["(d 0)","(c 1)"],"terminal":false,"legal":[]}],"goals":[0,0]}"#,
        );
        assert!(!c.passed());
        assert!(c.followed());
        let d0 = &c.steps[0].differences;
        assert_eq!(
            d0[0],
            Difference::State {
                added: vec!["(d 0)".into()],
                removed: vec!["(e 0)".into()]
            }
        );
        assert_eq!(
            d0[1],
            Difference::Legal {
                role: "a".into(),
                added: vec!["wait".into()],
                removed: vec![]
            }
        );
        assert_eq!(
            d0[2],
            Difference::Legal {
                role: "b".into(),
                added: vec![],
                removed: vec!["stop".into()]
            }
        );
        let d1 = &c.steps[1].differences;
        assert_eq!(d1[0], Difference::StepNumber { recorded: 2 });
        assert_eq!(
            d1[1],
            Difference::Terminal {
                recorded: false,
                rules: true
            }
        );
        assert_eq!(
            d1[2],
            Difference::Goals {
                recorded: Some(vec![0, 0]),
                rules: Some(vec![100, 0])
            }
        );
        let text = describe_step(&c.steps[0], &c.trace.roles, false);
        assert_eq!(
            text,
            "step 0: the rules differ from the record (+ the rules only, - the record only)\n  \
             state:\n    + (d 0)\n    - (e 0)\n  legal moves of a:\n    + wait\n  \
             legal moves of b:\n    - stop\n"
        );
    }

    /// A long list of facts is cut at [`SHOWN_LINES`] a side, saying how
    /// many more there are; `all` lists them all.
    #[test]
    fn a_long_difference_is_cut_unless_all_is_asked() {
        let facts = |k: &str, n: usize| (0..n).map(|i| format!("({k} {i})")).collect();
        let step = StepDifferences {
            step: 4,
            differences: vec![Difference::State {
                added: facts("new", SHOWN_LINES + 5),
                removed: facts("old", 3),
            }],
        };
        let roles = ["a".to_string()];
        let cut = describe_step(&step, &roles, false);
        let plus = cut.lines().filter(|l| l.starts_with("    + (new")).count();
        assert_eq!(plus, SHOWN_LINES, "{cut}");
        assert!(
            cut.contains("    + ... and 5 more (--all lists them)\n    - (old 0)"),
            "{cut}"
        );
        assert_eq!(cut.matches("(old ").count(), 3, "{cut}");
        let all = describe_step(&step, &roles, true);
        assert_eq!(all.matches("(new ").count(), SHOWN_LINES + 5, "{all}");
        assert!(!all.contains("more"), "{all}");
    }

    #[test]
    fn illegal_moves_and_moves_after_the_end_stop_the_comparison() {
        let c = compared("go jump\n");
        assert!(!c.followed());
        assert_eq!(
            describe_step(&c.steps[0], &c.trace.roles, false),
            "step 0: illegal move jump for b\n  legal moves of b: go\n"
        );
        let c = compared("go go\ngo go\n");
        assert_eq!(c.steps[0].step, 1);
        assert!(!c.followed());
        // A moves file ends with a move: the state it leads to is shown.
        let c = compared("wait go\n");
        assert!(c.passed());
        assert_eq!(c.trace.steps.len(), 2);
    }
}
