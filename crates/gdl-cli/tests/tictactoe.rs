//! Tic-tac-toe (a benchmark game, not from a seed): random playouts,
//! the oracle side by side with the rules file, and a few hand-checked games.

use gdl_oracles::games;
use gdl_oracles::oracle;
use gdl_oracles::tictactoe;

use games::{alternating, legal, play};
use tictactoe::TicTacToe;

const RULES: &str = "rules/tictactoe.gdl";

/// Three marks in a row win; the game ends there.
#[test]
fn a_row_wins() {
    let mut game = games::load(RULES);
    let moves = [
        "(mark 1 1)",
        "(mark 2 1)",
        "(mark 1 2)",
        "(mark 2 2)",
        "(mark 1 3)",
    ];
    let before = play(&mut game, &alternating(&moves[..4]));
    assert!(!game.is_terminal(&before).unwrap());
    assert_eq!(legal(&mut game, &before, 0).len(), 5);
    assert_eq!(legal(&mut game, &before, 1), ["noop"]);
    let end = play(&mut game, &alternating(&moves));
    assert!(game.is_terminal(&end).unwrap());
    assert_eq!(game.goals(&end).unwrap(), [100, 0]);
}

/// A full board without a line is a draw.
#[test]
fn a_full_board_draws() {
    let mut game = games::load(RULES);
    let moves = [
        "(mark 1 1)",
        "(mark 2 2)",
        "(mark 3 3)",
        "(mark 1 3)",
        "(mark 3 1)",
        "(mark 2 1)",
        "(mark 2 3)",
        "(mark 3 2)",
        "(mark 1 2)",
    ];
    let end = play(&mut game, &alternating(&moves));
    assert!(game.is_terminal(&end).unwrap());
    assert_eq!(game.goals(&end).unwrap(), [50, 50]);
    assert!(!game.state_facts(&end).iter().any(|f| f.ends_with(" b)")));
}

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
