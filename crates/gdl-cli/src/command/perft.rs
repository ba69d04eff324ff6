//! `gdl perft FILE --depth D`: counts of the game tree, depth by depth, to
//! compare a rules file with known counts.
//!
//! At depth d: `positions`, the distinct states reached by exactly d joint
//! moves; `sequences`, the joint-move sequences of length d (paths from the
//! initial state that do not pass through a terminal state); `terminal`,
//! how many of the positions are terminal. The counting stops early, and
//! says so, when every position of a depth is terminal, or when a depth
//! repeats the one before it exactly (as it then does for ever).

use super::{Failure, Format, LimitArgs, load};
use gdl::{Game, GameError, Move, State};
use serde::Serialize;
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `gdl perft`.
#[derive(clap::Args)]
#[command(after_long_help = "\
Examples:
  # Positions and move sequences of tic-tac-toe, to depth 9:
  gdl perft rules/tictactoe.gdl --depth 9")]
pub struct PerftArgs {
    /// The rules file (`-`: standard input).
    pub file: PathBuf,
    /// The deepest level to count.
    #[arg(long)]
    pub depth: usize,
    /// Output format (the JSON is printed once the counting is done).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// The counts of one depth.
#[derive(Debug, PartialEq, Eq, Serialize)]
struct Level {
    depth: usize,
    positions: usize,
    sequences: u128,
    terminal: usize,
}

/// What `gdl perft --format json` prints.
#[derive(Serialize)]
struct Report<'a> {
    /// The rules file as named.
    rules: &'a str,
    /// The counts of each depth, from 0.
    depths: &'a [Level],
    /// Why the counting stopped before `--depth`: `terminal` (every
    /// position of the last depth is) or `repeats` (the next depth would
    /// repeat the last); `null` when it reached `--depth`.
    stopped: Option<&'static str>,
}

/// Every joint move of a state, one at a time: an odometer over each
/// role's legal moves (the last role's turning fastest), so that a state
/// with millions of joint moves never holds them all at once.
struct JointMoves {
    /// Each role's legal moves, in role order; none is empty.
    legal: Vec<Vec<Move>>,
    /// The position of each role's move in its list, for the next joint
    /// move; `None` after the last.
    digits: Option<Vec<usize>>,
}

impl JointMoves {
    /// The joint moves of `state`; a role without a legal move is an error.
    fn of(game: &mut Game, state: &State) -> Result<JointMoves, GameError> {
        let mut legal = Vec::new();
        for role in game.roles() {
            let moves = game.legal_moves(state, role)?;
            if moves.is_empty() {
                return Err(GameError::NoLegalMove {
                    role: game.role_name(role).to_string(),
                });
            }
            legal.push(moves);
        }
        Ok(JointMoves::new(legal))
    }

    /// The joint moves of these legal moves (none of them empty).
    fn new(legal: Vec<Vec<Move>>) -> JointMoves {
        let digits = Some(vec![0; legal.len()]);
        JointMoves { legal, digits }
    }

    /// How many joint moves there are (from the first), or `None` past
    /// 2^128 - 1: the product of the roles' counts of legal moves.
    fn total(&self) -> Option<u128> {
        (self.legal.iter()).try_fold(1u128, |n, moves| n.checked_mul(moves.len() as u128))
    }
}

impl Iterator for JointMoves {
    type Item = Vec<Move>;

    fn next(&mut self) -> Option<Vec<Move>> {
        let digits = self.digits.as_mut()?;
        let joint = digits.iter().zip(&self.legal).map(|(&d, m)| m[d]).collect();
        // Turn the odometer: the last digit that is not at its end moves
        // on, the ones after it go back to 0; none left means done.
        match (0..digits.len())
            .rev()
            .find(|&r| digits[r] + 1 < self.legal[r].len())
        {
            Some(r) => {
                digits[r] += 1;
                digits[r + 1..].fill(0);
            }
            None => self.digits = None,
        }
        Some(joint)
    }
}

/// `a + b`, or an error when the count of sequences at `depth` no longer
/// fits.
fn add(a: u128, b: u128, depth: usize) -> Result<u128, Failure> {
    a.checked_add(b).ok_or_else(|| too_many(depth))
}

/// The count of sequences at `depth` does not fit.
fn too_many(depth: usize) -> Failure {
    Failure::Game(format!(
        "depth {depth}: the number of sequences exceeds {} (2^128 - 1), the most perft can count",
        u128::MAX
    ))
}

/// Runs `gdl perft`.
pub fn perft(args: PerftArgs) -> Result<ExitCode, Failure> {
    let loaded = load(&args.file, &args.limits)?;
    let mut game = loaded.game;
    let text = args.format == Format::Text;
    // Every depth counted, and why the counting stopped before `--depth`.
    let mut levels = Vec::new();
    let mut stopped = None;
    let fail = |depth: usize, e: GameError| {
        Failure::Game(format!("depth {depth}: {}", super::describe(&e)))
    };
    // Each distinct state of the level with the number of paths reaching it.
    let mut level: HashMap<State, u128> = HashMap::from([(game.initial_state(), 1)]);
    if text {
        println!(
            "{:>5} {:>12} {:>16} {:>10}",
            "depth", "positions", "sequences", "terminal"
        );
    }
    for depth in 0..=args.depth {
        let mut counts = Level {
            depth,
            positions: level.len(),
            sequences: 0,
            terminal: 0,
        };
        // The positions the game goes on from, with their paths.
        let mut open = Vec::new();
        for (state, &paths) in &level {
            counts.sequences = add(counts.sequences, paths, depth)?;
            if game.is_terminal(state).map_err(|e| fail(depth, e))? {
                counts.terminal += 1;
            } else {
                open.push((state, paths));
            }
        }
        if text {
            println!(
                "{depth:>5} {:>12} {:>16} {:>10}",
                counts.positions, counts.sequences, counts.terminal
            );
        }
        levels.push(counts);
        if depth == args.depth {
            break;
        }
        if open.is_empty() {
            if text {
                println!("every position at depth {depth} is terminal: the game tree ends there");
            }
            stopped = Some("terminal");
            break;
        }
        let mut next: HashMap<State, u128> = HashMap::new();
        // The sequences of the next depth so far, counted before the joint
        // moves are played one by one: a count past what perft can hold
        // (1000 roles of two moves each have 2^1000 joint moves) is told
        // at once, not after enumerating them.
        let mut sequences = 0u128;
        for (state, paths) in open {
            let joints = JointMoves::of(&mut game, state).map_err(|e| fail(depth, e))?;
            let more = (joints.total().and_then(|n| n.checked_mul(paths)))
                .ok_or_else(|| too_many(depth + 1))?;
            sequences = add(sequences, more, depth + 1)?;
            for joint in joints {
                let after = game.next_state(state, &joint).map_err(|e| fail(depth, e))?;
                let reached = next.entry(after).or_default();
                *reached = add(*reached, paths, depth + 1)?;
            }
        }
        // The next level is a function of this one: the same positions with
        // the same counts repeat at every depth from here on.
        if next == level {
            if text {
                println!(
                    "depth {} has the positions and counts of depth {depth}: so has every depth after it",
                    depth + 1
                );
            }
            stopped = Some("repeats");
            break;
        }
        level = next;
    }
    if !text {
        // Serialized straight to text, not through a `serde_json::Value`,
        // which holds no number past 2^64 (a count of sequences may be).
        let report = Report {
            rules: &loaded.name,
            depths: &levels,
            stopped,
        };
        println!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joint_moves_are_every_combination_once_the_last_role_fastest() {
        let mut game = Game::from_source(
            "m.gdl",
            "(role a)\n(role b)\n(init s)\n(legal a x)\n(legal a y)\n(legal b 1)\n\
             (legal b 2)\n(legal b 3)\n(<= (next s) (true s))\n(<= terminal (true t))\n\
             (goal a 0)\n(goal b 0)\n",
        )
        .unwrap();
        let mut m = |text: &str| game.parse_move(text).unwrap();
        let legal = vec![vec![m("x"), m("y")], vec![m("1"), m("2"), m("3")]];
        let joints: Vec<Vec<Move>> = JointMoves::new(legal).collect();
        let expected: Vec<Vec<Move>> = ["x 1", "x 2", "x 3", "y 1", "y 2", "y 3"]
            .iter()
            .map(|j| j.split(' ').map(&mut m).collect())
            .collect();
        assert_eq!(joints, expected);
        // One role with one move: one joint move.
        assert_eq!(JointMoves::new(vec![vec![m("x")]]).count(), 1);
    }
}
