//! Tic-tac-toe (a benchmark game, not from a seed): random playouts, and the
//! oracle side by side with the rules file.

mod oracle;
#[path = "oracle/tictactoe.rs"]
mod tictactoe;

use tictactoe::TicTacToe;

const RULES: &str = "rules/tictactoe.gdl";

#[test]
fn random_playouts_end_well() {
    let seen = oracle::random_playouts(RULES, 1000, 1, 10);
    assert_eq!(seen.games, 1000);
}

#[test]
fn agrees_with_oracle() {
    let seen = oracle::compare::<TicTacToe>(RULES, 500, 2, 10);
    assert_eq!(seen.games, 500);
}
