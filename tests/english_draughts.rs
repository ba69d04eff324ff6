//! English draughts (seed 000): the rules file `rules/english_draughts.gdl`
//! checked by random playouts, against the oracle of
//! `tests/oracle/english_draughts.rs`, and by hand-checked games.

#[path = "oracle/english_draughts.rs"]
mod english_draughts;
mod oracle;

use english_draughts::{English, Move};
use oracle::Oracle;

const RULES: &str = "rules/english_draughts.gdl";

/// Every random game of the rules file ends, every role always has a move,
/// and every end gives each role one goal. (About 1 s in release mode.)
#[test]
fn random_playouts_end_well() {
    let seen = oracle::random_playouts(RULES, 1000, 1, 1000);
    assert_eq!(seen.games, 1000);
}

/// The rules file and the oracle agree at every step of 500 random games:
/// legal moves, next state, end and goals. (About 1 s in release mode.)
#[test]
fn rules_agree_with_the_oracle() {
    let seen = oracle::compare::<English>(RULES, 500, 7, 1000);
    assert_eq!(seen.games, 500);
}

#[test]
fn oracle_opening_moves() {
    let g = English::initial();
    let mut white: Vec<String> = g.legal(0).iter().map(English::move_text).collect();
    white.sort();
    assert_eq!(
        white,
        [
            "(move b 3 a 4)",
            "(move b 3 c 4)",
            "(move d 3 c 4)",
            "(move d 3 e 4)",
            "(move f 3 e 4)",
            "(move f 3 g 4)",
            "(move h 3 g 4)"
        ]
    );
    assert_eq!(g.legal(1), vec![Move::Noop]);
}
