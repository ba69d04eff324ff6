//! Brazilian draughts (seed 003): the rules file `rules/brazilian_draughts.gdl`
//! checked by random playouts, against the oracle of
//! `tests/oracle/brazilian_draughts.rs`, and by hand-checked games.

#[path = "oracle/brazilian_draughts.rs"]
mod brazilian_draughts;
mod oracle;

use brazilian_draughts::{Brazilian, Move};
use oracle::Oracle;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_pcg::Pcg64;
use std::time::Instant;

/// Random games of the oracle alone: they end, and their lengths and speed.
#[test]
#[ignore = "measurement: run with --ignored --nocapture"]
fn oracle_random_game_lengths() {
    let mut rng = Pcg64::seed_from_u64(3);
    let start = Instant::now();
    let (mut longest, mut total, mut draws, mut max_history) = (0, 0, 0, 0);
    let games = 2000;
    for _ in 0..games {
        let mut g = Brazilian::initial();
        let mut steps = 0;
        while !g.is_terminal() {
            let m = [g.legal(0), g.legal(1)].map(|ms| ms.choose(&mut rng).unwrap().clone());
            g.apply(&m);
            steps += 1;
            max_history =
                max_history.max(g.facts().iter().filter(|f| f.starts_with("(seen")).count());
        }
        if g.goals() == [50, 50] {
            draws += 1;
        }
        longest = longest.max(steps);
        total += steps;
    }
    println!(
        "{games} games in {:?}: mean {} steps, longest {longest}, draws {draws}, most seen facts {max_history}",
        start.elapsed(),
        total / games
    );
    let _ = Move::Noop;
}

/// The oracle's square numbering: the neighbours the seed's notation implies.
#[test]
fn oracle_opening_moves_follow_the_notation() {
    let g = Brazilian::initial();
    let mut white: Vec<String> = g.legal(0).iter().map(Brazilian::move_text).collect();
    white.sort();
    assert_eq!(
        white,
        [
            "(move 21 17)",
            "(move 22 17)",
            "(move 22 18)",
            "(move 23 18)",
            "(move 23 19)",
            "(move 24 19)",
            "(move 24 20)"
        ]
    );
    assert_eq!(g.legal(1), vec![Move::Noop]);
}
