//! Connect four (7x6) (a benchmark game, not from a seed): random playouts,
//! the oracle side by side with the rules file, and a few hand-checked games.

use gdl_oracles::connect_four;
use gdl_oracles::games;
use gdl_oracles::oracle;

use connect_four::ConnectFour;
use games::{alternating, legal, play};

const RULES: &str = "rules/connect_four.gdl";

/// Four discs in a column win.
#[test]
fn a_column_of_four_wins() {
    let mut game = games::load(RULES);
    let moves = [
        "(drop 1)", "(drop 2)", "(drop 1)", "(drop 2)", "(drop 1)", "(drop 2)", "(drop 1)",
    ];
    let end = play(&mut game, &alternating(&moves));
    assert!(game.is_terminal(&end).unwrap());
    assert_eq!(game.goals(&end).unwrap(), [100, 0]);
    assert!(
        game.state_facts(&end)
            .contains(&"(cell 1 4 white)".to_string())
    );
}

/// Discs fall onto the lowest empty cell; four on a diagonal win.
#[test]
fn a_diagonal_of_four_wins() {
    let mut game = games::load(RULES);
    let moves = [
        "(drop 1)", "(drop 2)", "(drop 2)", "(drop 3)", "(drop 3)", "(drop 4)", "(drop 3)",
        "(drop 4)", "(drop 4)", "(drop 7)", "(drop 4)",
    ];
    let before = play(&mut game, &alternating(&moves[..10]));
    assert!(!game.is_terminal(&before).unwrap());
    let end = play(&mut game, &alternating(&moves));
    let facts = game.state_facts(&end);
    for cell in [
        "(cell 1 1 white)",
        "(cell 2 2 white)",
        "(cell 3 3 white)",
        "(cell 4 4 white)",
    ] {
        assert!(
            facts.contains(&cell.to_string()),
            "{cell} missing: {facts:?}"
        );
    }
    assert!(game.is_terminal(&end).unwrap());
    assert_eq!(game.goals(&end).unwrap(), [100, 0]);
}

/// A full column takes no more discs.
#[test]
fn a_full_column_is_closed() {
    let mut game = games::load(RULES);
    let moves = ["(drop 1)"; 6];
    let state = play(&mut game, &alternating(&moves));
    assert!(!game.is_terminal(&state).unwrap());
    let white = legal(&mut game, &state, 0);
    assert_eq!(white.len(), 6);
    assert!(!white.contains(&"(drop 1)".to_string()));
}

#[test]
fn random_playouts_end_well() {
    let seen = oracle::random_playouts(RULES, 1000, 1, 43);
    assert_eq!(seen.games, 1000);
}

#[test]
fn agrees_with_oracle() {
    let seen = oracle::compare::<ConnectFour>(RULES, 500, 2, 43);
    assert_eq!(seen.games, 500);
}
