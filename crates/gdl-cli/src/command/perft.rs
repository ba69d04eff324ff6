//! `gdl perft FILE --depth D`: counts of the game tree, depth by depth, to
//! compare a rules file with known counts.
//!
//! At depth d: `positions`, the distinct states reached by exactly d joint
//! moves; `sequences`, the joint-move sequences of length d (paths from the
//! initial state that do not pass through a terminal state); `terminal`,
//! how many of the positions are terminal.

use super::{load, Failure, LimitArgs};
use gdl::State;
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `gdl perft`.
#[derive(clap::Args)]
pub struct PerftArgs {
    /// The rules file.
    pub file: PathBuf,
    /// The deepest level to count.
    #[arg(long)]
    pub depth: usize,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// The counts of one depth.
#[derive(Debug, PartialEq, Eq)]
struct Level {
    positions: usize,
    sequences: u128,
    terminal: usize,
}

/// Runs `gdl perft`.
pub fn perft(args: PerftArgs) -> Result<ExitCode, Failure> {
    let mut game = load(&args.file, &args.limits)?.game;
    let fail = |depth: usize, e: gdl::GameError| {
        Failure::Game(format!("depth {depth}: {}", super::describe(&e)))
    };
    // Each distinct state of the level with the number of paths reaching it.
    let mut level: HashMap<State, u128> = HashMap::from([(game.initial_state(), 1)]);
    println!(
        "{:>5} {:>12} {:>16} {:>10}",
        "depth", "positions", "sequences", "terminal"
    );
    for depth in 0..=args.depth {
        let mut counts = Level {
            positions: level.len(),
            sequences: level.values().sum(),
            terminal: 0,
        };
        let mut next: HashMap<State, u128> = HashMap::new();
        for (state, paths) in &level {
            if game.is_terminal(state).map_err(|e| fail(depth, e))? {
                counts.terminal += 1;
                continue;
            }
            if depth == args.depth {
                continue;
            }
            for joint in game.joint_moves(state).map_err(|e| fail(depth, e))? {
                let after = game.next_state(state, &joint).map_err(|e| fail(depth, e))?;
                *next.entry(after).or_default() += paths;
            }
        }
        println!(
            "{depth:>5} {:>12} {:>16} {:>10}",
            counts.positions, counts.sequences, counts.terminal
        );
        level = next;
    }
    Ok(ExitCode::SUCCESS)
}
