//! Reference traces kept small enough for the repository: a *digest* of a
//! trace holds, for each step, a hash of what the reference found there
//! (the state's facts, terminal, each role's legal moves) and the moves
//! played, each as its place among its role's legal moves sorted as text.
//! Replaying a digest on gdl computes the same hash from gdl's own answers
//! at every step, so any difference in a fact, in terminal or in a legal
//! move shows at the step it appears, as the whole trace's replay would
//! show it; the digest only cannot say which fact differs (the whole trace,
//! which `scripts/more-games-traces` makes again, and `gdl replay` can).
//!
//! The published collection's traces (`scripts/more-games-traces`) take
//! some 170 MB as JSON; their digests, one line a trace in
//! `tests/more_games_traces.txt`, under a megabyte:
//!
//! ```text
//! FILE.kif <tab> TRACE <tab> GOALS <tab> STEP STEP ... STEP
//! ```
//!
//! with TRACE the trace's number, GOALS the reference's goals after its
//! last step (`100,0`), or `-` where the trace stops before the game ends,
//! and each STEP `HASH:I.J` (the step's hash, six hexadecimal digits, and
//! the place of each role's move among its legal moves), the last one
//! `HASH` alone.

use crate::corpus::{Replay, facts_of, legal_texts, next, texts};
use gdl::Game;
use serde_json::Value;
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// One step of a digest.
struct Step {
    /// [`step_hash`] of the reference's step.
    hash: u32,
    /// The place of each role's move among its legal moves sorted as text;
    /// `None` at the last step.
    moves: Option<Vec<usize>>,
}

/// A reference trace's digest, as one line of the digests' file holds it.
pub(crate) struct Digest {
    /// The rules file's name (`FILE.kif`).
    pub(crate) game: String,
    /// `FILE.N`: the trace's name in messages.
    name: String,
    steps: Vec<Step>,
    /// The goals after the last step, where the game ended there.
    goals: Option<Vec<u64>>,
}

/// The hash of one step: FNV-1a over the facts, terminal and (unless
/// terminal) each role's legal moves, all as sorted texts, folded to 24
/// bits (a difference goes unseen at a step once in 16 million).
fn step_hash(facts: &BTreeSet<String>, terminal: bool, legal: &[BTreeSet<String>]) -> u32 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes.iter().chain(b"\n") {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    };
    for fact in facts {
        eat(fact.as_bytes());
    }
    eat(if terminal { b"terminal" } else { b"playing" });
    if !terminal {
        for moves in legal {
            eat(b"legal");
            for m in moves {
                eat(m.as_bytes());
            }
        }
    }
    ((h ^ (h >> 24) ^ (h >> 48)) & 0xff_ffff) as u32
}

impl Digest {
    /// The digest of a reference trace (`reference-trace`'s JSON) of the
    /// rules file `game`, named `name` in messages.
    pub(crate) fn of_trace(game: &str, name: &str, trace: &Value) -> Result<Digest, String> {
        let recorded = trace["steps"].as_array().ok_or("no steps")?;
        let mut steps = Vec::new();
        for step in recorded {
            let terminal = step["terminal"].as_bool().ok_or("no terminal")?;
            let legal: Vec<BTreeSet<String>> = (step["legal"].as_array().into_iter().flatten())
                .map(texts)
                .collect();
            let hash = step_hash(&texts(&step["state"]), terminal, &legal);
            let moves = match step["moves"].as_array() {
                Some(played) if !terminal => Some(
                    (played.iter().zip(&legal))
                        .map(|(m, legal)| {
                            let m = m.as_str().unwrap_or_default().to_ascii_lowercase();
                            (legal.iter().position(|l| *l == m))
                                .ok_or_else(|| format!("{name}: {m} is not a legal move"))
                        })
                        .collect::<Result<Vec<_>, _>>()?,
                ),
                _ => None,
            };
            let last = moves.is_none();
            steps.push(Step { hash, moves });
            if last {
                break;
            }
        }
        let ended = recorded.last().is_some_and(|s| s["terminal"] == true);
        let goals = ended
            .then(|| (trace["goals"].as_array().into_iter().flatten()).filter_map(Value::as_u64))
            .map(Iterator::collect);
        Ok(Digest {
            game: game.to_string(),
            name: name.to_string(),
            steps,
            goals,
        })
    }

    /// The digest as a line of the digests' file (without its newline).
    pub(crate) fn line(&self) -> String {
        let number = self.name.rsplit('.').next().unwrap_or_default();
        let goals = match &self.goals {
            Some(goals) => (goals.iter().map(u64::to_string))
                .collect::<Vec<_>>()
                .join(","),
            None => "-".to_string(),
        };
        let mut line = format!("{}\t{number}\t{goals}\t", self.game);
        for (i, step) in self.steps.iter().enumerate() {
            if i > 0 {
                line.push(' ');
            }
            write!(line, "{:06x}", step.hash).unwrap();
            if let Some(moves) = &step.moves {
                let places: Vec<String> = moves.iter().map(usize::to_string).collect();
                write!(line, ":{}", places.join(".")).unwrap();
            }
        }
        line
    }

    /// Reads a line of the digests' file.
    pub(crate) fn parse(line: &str) -> Result<Digest, String> {
        let bad = || format!("a bad digest: {line:.80}");
        let mut fields = line.split('\t');
        let (Some(game), Some(number), Some(goals), Some(steps), None) = (
            fields.next(),
            fields.next(),
            fields.next(),
            fields.next(),
            fields.next(),
        ) else {
            return Err(bad());
        };
        let goals = match goals {
            "-" => None,
            goals => Some(
                (goals.split(',').map(str::parse))
                    .collect::<Result<Vec<u64>, _>>()
                    .map_err(|_| bad())?,
            ),
        };
        let steps = (steps.split(' '))
            .map(|step| {
                let (hash, moves) = match step.split_once(':') {
                    Some((hash, moves)) => (hash, Some(moves)),
                    None => (step, None),
                };
                let hash = u32::from_str_radix(hash, 16).map_err(|_| bad())?;
                let moves = (moves.map(|m| m.split('.').map(str::parse).collect()))
                    .transpose()
                    .map_err(|_| bad())?;
                Ok(Step { hash, moves })
            })
            .collect::<Result<Vec<_>, String>>()?;
        let stem = game.strip_suffix(".kif").unwrap_or(game);
        Ok(Digest {
            game: game.to_string(),
            name: format!("{stem}.{number}"),
            steps,
            goals,
        })
    }
}

impl Replay for Digest {
    fn name(&self) -> &str {
        &self.name
    }

    fn replay(&self, game: &mut Game, steps: usize) -> Result<(), String> {
        let roles = game.roles();
        let mut state = game.initial_state();
        let mut ended = false;
        for (n, step) in self.steps.iter().enumerate().take(steps) {
            let terminal = game.is_terminal(&state).map_err(|e| e.to_string())?;
            // Each role's legal moves sorted as text, with the moves.
            let mut legal: Vec<Vec<(String, gdl::Move)>> = Vec::new();
            if !terminal {
                for &r in &roles {
                    let moves = game.legal_moves(&state, r).map_err(|e| e.to_string())?;
                    let mut moves: Vec<_> = (moves.into_iter())
                        .map(|m| (game.move_text(m).to_ascii_lowercase(), m))
                        .collect();
                    moves.sort();
                    moves.dedup_by(|a, b| a.0 == b.0);
                    legal.push(moves);
                }
            }
            let sets: Vec<BTreeSet<String>> = (legal.iter())
                .map(|moves| moves.iter().map(|(text, _)| text.clone()).collect())
                .collect();
            debug_assert!(terminal || sets.len() == roles.len());
            if step_hash(&facts_of(game, &state), terminal, &sets) != step.hash {
                let role_moves = (roles.iter().zip(&sets))
                    .map(|(&r, moves)| format!("{} {}", game.role_name(r), moves.len()))
                    .collect::<Vec<_>>()
                    .join(", ");
                return Err(format!(
                    "step {n}: the state, terminal ({terminal}) or the legal moves ({role_moves}) \
                     differ from the reference's (`scripts/more-games-traces` with FILES={} \
                     makes the whole trace, and `gdl replay` shows the difference)",
                    self.game
                ));
            }
            ended = terminal;
            let Some(places) = (!terminal).then_some(()).and(step.moves.as_ref()) else {
                break;
            };
            let joint = (places.iter().zip(&legal))
                .map(|(&i, moves)| moves.get(i).map(|(_, m)| *m))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| format!("step {n}: a move's place is past the legal moves"))?;
            state = next(game, &state, &joint)?;
        }
        if steps == usize::MAX
            && ended
            && let Some(recorded) = &self.goals
        {
            let goals: Vec<u64> = (game.goals(&state).map_err(|e| e.to_string())?)
                .into_iter()
                .map(u64::from)
                .collect();
            if goals != *recorded {
                return Err(format!("goals {goals:?}, the reference's {recorded:?}"));
            }
        }
        Ok(())
    }
}

/// The digests of some example traces read back from their lines as
/// written, and a changed step found where it changed.
#[test]
fn a_digest_reads_back_and_finds_the_step_that_differs() {
    let trace: Value = serde_json::from_str(
        r#"{"roles": ["x", "o"], "steps": [
            {"step":0,"state":["(cell 1 b)","(control x)"],"terminal":false,
             "legal":[["(mark 1)","noop"],["noop"]],"moves":["(mark 1)","noop"]},
            {"step":1,"state":["(cell 1 x)","(control o)"],"terminal":true}
        ], "goals": [100, 0]}"#,
    )
    .unwrap();
    let digest = Digest::of_trace("tiny.kif", "tiny.0", &trace).unwrap();
    let line = digest.line();
    assert!(line.starts_with("tiny.kif\t0\t100,0\t"), "{line}");
    assert!(line.contains(":0.0 "), "the moves' places: {line}");
    let back = Digest::parse(&line).unwrap();
    assert_eq!(back.line(), line);
    assert_eq!(back.name, "tiny.0");
    // A fact changed changes the hash of its step alone.
    let mut changed = trace.clone();
    changed["steps"][1]["state"][0] = Value::from("(cell 1 o)");
    let other = Digest::of_trace("tiny.kif", "tiny.0", &changed).unwrap();
    assert_eq!(other.steps[0].hash, digest.steps[0].hash);
    assert_ne!(other.steps[1].hash, digest.steps[1].hash);
    assert!(Digest::parse("tiny.kif\t0\t100").is_err());
}

/// A game of tic-tac-toe traced from gdl's own answers agrees with its
/// digest, and a digest with one step's hash changed fails at that step.
#[test]
fn a_digest_replays_and_fails_at_a_changed_step() {
    let mut game = Game::load(crate::path("rules/tictactoe.gdl")).unwrap();
    let roles = game.roles();
    let mut state = game.initial_state();
    let mut steps = Vec::new();
    loop {
        let terminal = game.is_terminal(&state).unwrap();
        let facts: Vec<String> = facts_of(&game, &state).into_iter().collect();
        let mut step = serde_json::json!({"state": facts, "terminal": terminal});
        if terminal {
            steps.push(step);
            break;
        }
        let mut legal = Vec::new();
        let mut joint = Vec::new();
        for &r in &roles {
            let moves = game.legal_moves(&state, r).unwrap();
            legal.push(legal_texts(&mut game, &state, r).unwrap());
            joint.push(*moves.last().unwrap());
        }
        step["legal"] = serde_json::json!(legal);
        step["moves"] =
            serde_json::json!((joint.iter().map(|&m| game.move_text(m))).collect::<Vec<_>>());
        steps.push(step);
        state = next(&mut game, &state, &joint).unwrap();
    }
    let goals = game.goals(&state).unwrap();
    let trace = serde_json::json!({"steps": steps, "goals": goals});
    let digest = Digest::of_trace("tictactoe.gdl", "tictactoe.0", &trace).unwrap();
    assert!(digest.steps.len() > 5 && digest.goals.is_some());
    digest.replay(&mut game, usize::MAX).unwrap();
    let mut changed = Digest::parse(&digest.line()).unwrap();
    changed.steps[3].hash ^= 1;
    let error = changed.replay(&mut game, usize::MAX).unwrap_err();
    assert!(error.starts_with("step 3: "), "{error}");
    let mut goals = Digest::parse(&digest.line()).unwrap();
    goals.goals = Some(vec![1, 2]);
    let error = goals.replay(&mut game, usize::MAX).unwrap_err();
    assert!(error.contains("the reference's [1, 2]"), "{error}");
}
