//! Classic 8x8 Breakthrough (a benchmark game, not from a seed): random playouts,
//! the oracle side by side with the rules file, and a few hand-checked games.

use gdl_oracles::breakthrough;
use gdl_oracles::games;
use gdl_oracles::oracle;

use breakthrough::Breakthrough;
use games::{alternating, legal, play};

const RULES: &str = "rules/breakthrough.gdl";

/// A pawn moves straight only into an empty cell, diagonally onto an empty
/// or enemy cell; reaching the far rank wins.
#[test]
fn capture_and_far_rank_win() {
    let mut game = games::load(RULES);
    let moves = [
        "(move e 2 e 3)",
        "(move h 7 h 6)",
        "(move e 3 e 4)",
        "(move h 6 h 5)",
        "(move e 4 e 5)",
        "(move h 5 h 4)",
        "(move e 5 e 6)",
        "(move a 7 a 6)",
        "(move e 6 d 7)",
        "(move a 6 a 5)",
        "(move d 7 e 8)",
    ];
    // The pawn on e6 faces e7 (blocked) and may take d7 or f7.
    let state = play(&mut game, &alternating(&moves[..8]));
    let from_e6: Vec<String> = legal(&mut game, &state, 0)
        .into_iter()
        .filter(|m| m.starts_with("(move e 6 "))
        .collect();
    assert_eq!(from_e6, ["(move e 6 d 7)", "(move e 6 f 7)"]);
    let state = play(&mut game, &alternating(&moves[..10]));
    assert_eq!(
        game.state_facts(&state)
            .iter()
            .filter(|f| f.ends_with(" black)"))
            .count(),
        15
    );
    let end = play(&mut game, &alternating(&moves));
    assert!(game.is_terminal(&end).unwrap());
    assert_eq!(game.goals(&end).unwrap(), [100, 0]);
}

#[test]
fn random_playouts_end_well() {
    let seen = oracle::random_playouts(RULES, 1000, 1, 200);
    assert_eq!(seen.games, 1000);
}

#[test]
fn agrees_with_oracle() {
    let seen = oracle::compare::<Breakthrough>(RULES, 500, 2, 200);
    assert_eq!(seen.games, 500);
}
