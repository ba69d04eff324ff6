//! Traces of played games as people read them: at each step the board, each
//! role's legal moves and the moves played; at the end the goals.
//!
//! A [`Trace`] is written as text ([`Trace::to_text`], the form the snapshot
//! tests use) or as JSON ([`Trace::to_json`]). Legal moves are listed in
//! natural order ([`natural_cmp`]), never in the evaluator's
//! internal order, so that traces stay the same when the evaluator changes;
//! random games ([`RandomPlayer`]) pick from that order too, so a seed always
//! gives the same game.
//!
//! A moves file ([`moves_file`]) holds the moves alone, one joint move a
//! line; [`read_record`](super::read_record) reads every kind of recorded
//! game back.

use super::board::{Board, BoardSpec};
use crate::error::GameError;
use crate::game::random::{Players, RandomPlayer};
use crate::game::{Game, Move, Role, State, Stop};
use crate::limits::LimitKind;
use crate::memory::heap_bytes;
use crate::syntax::natural::natural_cmp;
use serde::{Deserialize, Serialize};
use std::fmt::Write;

/// One step of a game: a state, and the joint move played in it, if any.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    /// The step number, from 0 for the initial state.
    pub step: usize,
    /// The facts of the state, in natural order.
    pub state: Vec<String>,
    /// Whether the state is terminal.
    #[serde(default)]
    pub terminal: bool,
    /// Each role's legal moves, in role order, each list in natural order.
    /// Empty when the state is terminal.
    #[serde(default)]
    pub legal: Vec<Vec<String>>,
    /// The moves played in this state, one per role in role order; absent
    /// for the last state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moves: Option<Vec<String>>,
}

/// A played game, step by step.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trace {
    /// What made the game, when it is a recorded one (`gdl record`): the
    /// rules file and its hash, the seed, the version of gdl.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorded: Option<super::Provenance>,
    /// The roles, in the order of the rules file.
    pub roles: Vec<String>,
    /// Every state met, from the initial state.
    pub steps: Vec<Step>,
    /// The goal values, in role order, when the last state is terminal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goals: Option<Vec<u8>>,
}

/// Moves in natural order of their text, with their text.
pub fn sorted_moves(game: &Game, moves: &[Move]) -> Vec<(Move, String)> {
    let mut v: Vec<(Move, String)> = moves.iter().map(|&m| (m, game.move_text(m))).collect();
    v.sort_by(|a, b| natural_cmp(&a.1, &b.1));
    v
}

/// Looks at one state: its facts, whether it is terminal, the legal moves.
pub fn observe(game: &mut Game, state: &State, step: usize) -> Result<Step, GameError> {
    let mut facts = game.state_facts(state);
    facts.sort_by(|a, b| natural_cmp(a, b));
    let terminal = game.is_terminal(state)?;
    let mut legal = Vec::new();
    if !terminal {
        for role in game.roles() {
            let moves = game.legal_moves(state, role)?;
            if moves.is_empty() {
                return Err(GameError::NoLegalMove {
                    role: game.role_name(role).to_string(),
                });
            }
            legal.push(
                sorted_moves(game, &moves)
                    .into_iter()
                    .map(|(_, t)| t)
                    .collect(),
            );
        }
    }
    Ok(Step {
        step,
        state: facts,
        terminal,
        legal,
        moves: None,
    })
}

/// Reads one role's move text and checks it is legal in `state`. The error
/// lists the legal moves in natural order.
pub fn legal_move(
    game: &mut Game,
    state: &State,
    role: Role,
    text: &str,
) -> Result<Move, GameError> {
    let m = game.parse_move(text)?;
    let legal = game.legal_moves(state, role)?;
    if legal.contains(&m) {
        return Ok(m);
    }
    Err(GameError::IllegalMove {
        role: game.role_name(role).to_string(),
        played: game.move_text(m),
        legal: sorted_moves(game, &legal)
            .into_iter()
            .map(|(_, t)| t)
            .collect(),
    })
}

/// The outcome of replaying moves: the trace as far as it went, and the
/// error that stopped it with the step where it happened.
#[derive(Debug)]
pub struct Replay {
    /// The game up to the last state reached.
    pub trace: Trace,
    /// The step number and error that stopped the replay, if any.
    pub error: Option<(usize, GameError)>,
    /// The facts of the state where a fault of the rules stopped the game
    /// (no legal move for a role, a terminal state without goals), in
    /// natural order: that state is not a step of the trace, which holds
    /// only states observed whole.
    pub fault: Option<Vec<String>>,
}

impl Trace {
    /// An empty trace of `game`.
    pub fn new(game: &Game) -> Trace {
        Trace {
            recorded: None,
            roles: game
                .roles()
                .iter()
                .map(|&r| game.role_name(r).to_string())
                .collect(),
            steps: Vec::new(),
            goals: None,
        }
    }

    /// The joint moves played, in order.
    pub fn moves(&self) -> Vec<Vec<String>> {
        self.steps.iter().filter_map(|s| s.moves.clone()).collect()
    }

    /// Records `state` as the next step; at a terminal state records the
    /// goals too.
    pub fn push(&mut self, game: &mut Game, state: &State) -> Result<(), GameError> {
        // The trace is printed when it ends: a game of millions of steps
        // stops at the memory budget, which the steps kept count in.
        let max_memory = game.limits().max_memory;
        if heap_bytes().is_some_and(|held| held > max_memory) {
            return Err(GameError::Limit {
                kind: LimitKind::Memory,
                value: max_memory,
                relation: "the trace".into(),
            });
        }
        let step = observe(game, state, self.steps.len())?;
        if step.terminal {
            self.goals = Some(game.goals(state)?);
        }
        self.steps.push(step);
        Ok(())
    }

    /// Plays the joint moves given as text (one per role, role order) from
    /// the initial state, checking each against the legal moves.
    pub fn replay(game: &mut Game, moves: &[Vec<String>]) -> Replay {
        let mut given = moves.iter();
        let mut replay = Trace::play(game, moves.len(), |game, state| {
            let joint = given.next().expect("the game stops after the last move");
            let roles = game.roles();
            if joint.len() != roles.len() {
                return Err(GameError::WrongMoveCount {
                    expected: roles.len(),
                    given: joint.len(),
                });
            }
            (roles.iter().zip(joint))
                .map(|(&role, text)| legal_move(game, state, role, text))
                .collect()
        });
        // The game ended before the moves did: the next one is refused.
        let last = replay.trace.steps.len() - 1;
        if replay.error.is_none() && last < moves.len() {
            replay.error = Some((last, GameError::Terminal));
        }
        replay
    }

    /// Plays a random game: each role picks uniformly among its legal moves
    /// in natural order, with `player`'s generator. Stops at a terminal
    /// state or after `max_steps` joint moves, or at an error of the rules.
    pub fn random(game: &mut Game, player: &mut RandomPlayer, max_steps: usize) -> Replay {
        Trace::play(game, max_steps, |game, state| player.joint(game, state))
    }

    /// Plays a game whose joint moves `choose` gives (a move per role, in
    /// role order, legal in the state it is given). Stops at a terminal
    /// state or after `max_steps` joint moves, or at an error.
    pub fn play(
        game: &mut Game,
        max_steps: usize,
        choose: impl FnMut(&mut Game, &State) -> Result<Vec<Move>, GameError>,
    ) -> Replay {
        let mut trace = Trace::new(game);
        let start = game.initial_state();
        let mut traced = Traced {
            trace: &mut trace,
            choose,
            fault: None,
        };
        let error = game.play(&start, &mut traced, Stop::steps(max_steps)).err();
        let fault = traced.fault.take().filter(|_| error.is_some());
        Replay {
            trace,
            error,
            fault,
        }
    }

    /// The trace as text: a header naming the roles, then for each step its
    /// number, the board (drawn as `spec` says), each role's legal moves and
    /// the moves played (`played:` in role order); at the end the goals.
    pub fn to_text(&self, spec: &BoardSpec) -> String {
        let mut out = Vec::new();
        let _ = self.write_text(spec, &mut out);
        String::from_utf8(out).unwrap_or_default()
    }

    /// [`Trace::to_text`] written to `out` a step at a time, so that a long
    /// trace is never held twice.
    pub fn write_text(
        &self,
        spec: &BoardSpec,
        out: &mut dyn std::io::Write,
    ) -> std::io::Result<()> {
        let mut board = Board::new(spec.clone());
        writeln!(out, "roles: {}", self.roles.join(" "))?;
        let mut text = String::new();
        for s in &self.steps {
            text.clear();
            board.observe(&s.state);
            let _ = writeln!(
                text,
                "\n== step {}{} ==",
                s.step,
                if s.terminal { ": terminal" } else { "" }
            );
            text.push_str(&board.draw(&s.state));
            for (role, legal) in self.roles.iter().zip(&s.legal) {
                let head = format!("legal {role} ({}):", legal.len());
                text.push_str(&wrap_moves(&head, legal));
            }
            if let Some(moves) = &s.moves {
                let _ = writeln!(text, "played: {}", moves.join(" "));
            }
            out.write_all(text.as_bytes())?;
        }
        match (&self.goals, self.steps.last()) {
            (Some(goals), _) => writeln!(out, "goals: {}", self.goals_text(goals))?,
            (None, Some(last)) if !last.terminal && last.moves.is_none() => {
                writeln!(out, "not terminal at step {}", last.step)?
            }
            _ => {}
        }
        Ok(())
    }

    /// `white 100, black 0`.
    pub fn goals_text(&self, goals: &[u8]) -> String {
        let parts: Vec<String> = self
            .roles
            .iter()
            .zip(goals)
            .map(|(r, g)| format!("{r} {g}"))
            .collect();
        parts.join(", ")
    }

    /// The trace as JSON, one step a line:
    /// `{"roles": [...], "steps": [{...}, ...], "goals": [...]}`.
    pub fn to_json(&self) -> String {
        let mut out = Vec::new();
        let _ = self.write_json(&mut out);
        String::from_utf8(out).unwrap_or_default()
    }

    /// [`Trace::to_json`] written to `out` a step at a time, so that a long
    /// trace is never held twice.
    pub fn write_json(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        write!(
            out,
            "{{\n  \"roles\": {},\n  \"steps\": [\n",
            compact(&self.roles)
        )?;
        for (i, s) in self.steps.iter().enumerate() {
            let comma = if i + 1 < self.steps.len() { "," } else { "" };
            out.write_all(b"    ")?;
            serde_json::to_writer(&mut *out, s).map_err(std::io::Error::other)?;
            writeln!(out, "{comma}")?;
        }
        if self.steps.is_empty() {
            out.write_all(b"\n")?;
        }
        out.write_all(b"  ]")?;
        if let Some(goals) = &self.goals {
            write!(out, ",\n  \"goals\": {}", compact(goals))?;
        }
        out.write_all(b"\n}\n")
    }
}

/// A part of a trace as compact JSON. Serialising plain strings and
/// numbers cannot fail.
fn compact<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

fn wrap_moves(head: &str, moves: &[String]) -> String {
    let mut out = String::new();
    let mut line = head.to_string();
    for m in moves {
        if line.len() + 1 + m.len() > 100 && line.len() > 2 {
            out.push_str(&line);
            out.push('\n');
            line = " ".to_string();
        }
        line.push(' ');
        line.push_str(m);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

/// Writes joint moves as a moves file that
/// [`read_record`](super::read_record) reads back: a first comment line
/// naming the rules file `rules` and the `roles`, then one joint move a
/// line.
pub fn moves_file(rules: &str, roles: &[String], moves: &[Vec<String>]) -> String {
    let mut out = format!(
        "{}{rules}: one joint move per line ({})\n",
        super::read::MOVES_FILE_HEAD,
        roles.join(" ")
    );
    for joint in moves {
        out.push_str(&joint.join(" "));
        out.push('\n');
    }
    out
}

/// Plays the given joint moves (one move text per role, in role order) from
/// the initial state and returns the trace as text. Stops with the error of
/// the first illegal move.
pub fn replay_text(game: &mut Game, moves: &[Vec<String>]) -> Result<String, GameError> {
    let replay = Trace::replay(game, moves);
    match replay.error {
        Some((_, e)) => Err(e),
        None => {
            let (spec, _) = BoardSpec::from_source(&game.source().text);
            Ok(replay.trace.to_text(&spec))
        }
    }
}

/// The players of a traced game: `choose`'s joint moves, each state the
/// game reaches pushed on the trace with the moves that led to it.
struct Traced<'t, C> {
    trace: &'t mut Trace,
    choose: C,
    /// The facts of the state the trace could not take (a fault of the
    /// rules met there).
    fault: Option<Vec<String>>,
}

impl<C> Players for Traced<'_, C>
where
    C: FnMut(&mut Game, &State) -> Result<Vec<Move>, GameError>,
{
    fn joint(&mut self, game: &mut Game, state: &State) -> Result<Vec<Move>, GameError> {
        (self.choose)(game, state)
    }

    fn reached(
        &mut self,
        game: &mut Game,
        state: &State,
        joint: Option<&[Move]>,
    ) -> Result<(), GameError> {
        if let (Some(joint), Some(step)) = (joint, self.trace.steps.last_mut()) {
            step.moves = Some(joint.iter().map(|&m| game.move_text(m)).collect());
        }
        let pushed = self.trace.push(game, state);
        if let Err(e) = &pushed
            && !matches!(e, GameError::Limit { .. })
        {
            let mut facts = game.state_facts(state);
            facts.sort_by(|a, b| natural_cmp(a, b));
            self.fault = Some(facts);
        }
        pushed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_trace_shows_steps_moves_and_goals() {
        let t = Trace {
            recorded: None,
            roles: vec!["a".into(), "b".into()],
            steps: vec![Step {
                step: 0,
                state: vec!["(s 0)".into()],
                terminal: true,
                legal: vec![],
                moves: None,
            }],
            goals: Some(vec![100, 0]),
        };
        assert_eq!(
            t.to_text(&BoardSpec::default()),
            "roles: a b\n\n== step 0: terminal ==\n(s 0)\ngoals: a 100, b 0\n"
        );
        let long: Vec<String> = (0..30).map(|i| format!("(mark {i} {i})")).collect();
        let wrapped = wrap_moves("legal a (30):", &long);
        assert!(wrapped.lines().all(|l| l.len() <= 100), "{wrapped}");
        assert_eq!(wrapped.matches("(mark").count(), 30);
    }
}
