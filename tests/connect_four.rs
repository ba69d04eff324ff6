//! Connect four (7x6) (a benchmark game, not from a seed): random playouts,
//! the oracle side by side with the rules file, and a few hand-checked games.

#[path = "oracle/connect_four.rs"]
mod connect_four;
mod oracle;

use connect_four::ConnectFour;
use gdl::{Game, State};

const RULES: &str = "rules/connect_four.gdl";

fn load() -> Game {
    Game::load(RULES).unwrap_or_else(|e| panic!("{}", e.render(false)))
}

/// Plays the moves in turn order (the first role first), the other role
/// playing noop, checking each move is legal; returns the state reached.
fn play(game: &mut Game, moves: &[&str]) -> State {
    let roles = game.roles();
    let mut state = game.initial_state();
    for (i, text) in moves.iter().enumerate() {
        assert!(
            !game.is_terminal(&state).unwrap(),
            "terminal before move {}",
            i + 1
        );
        let mover = i % 2;
        let mut joint = Vec::new();
        for r in 0..roles.len() {
            let want = if r == mover { *text } else { "noop" };
            let legal = legal(game, &state, r);
            assert!(
                legal.iter().any(|m| m == want),
                "move {}: {want} is not legal; legal: {legal:?}",
                i + 1
            );
            joint.push(game.parse_move(want).unwrap());
        }
        state = game.next_state(&state, &joint).unwrap();
    }
    state
}

/// The legal moves of role number `role` as sorted texts.
fn legal(game: &mut Game, state: &State, role: usize) -> Vec<String> {
    let role = game.roles()[role];
    let mut moves: Vec<String> = game
        .legal_moves(state, role)
        .unwrap()
        .into_iter()
        .map(|m| game.move_text(m))
        .collect();
    moves.sort();
    moves
}

/// Four discs in a column win.
#[test]
fn a_column_of_four_wins() {
    let mut game = load();
    let moves = [
        "(drop 1)", "(drop 2)", "(drop 1)", "(drop 2)", "(drop 1)", "(drop 2)", "(drop 1)",
    ];
    let end = play(&mut game, &moves);
    assert!(game.is_terminal(&end).unwrap());
    assert_eq!(game.goals(&end).unwrap(), [100, 0]);
    assert!(game
        .state_facts(&end)
        .contains(&"(cell 1 4 white)".to_string()));
}

/// Discs fall onto the lowest empty cell; four on a diagonal win.
#[test]
fn a_diagonal_of_four_wins() {
    let mut game = load();
    let moves = [
        "(drop 1)", "(drop 2)", "(drop 2)", "(drop 3)", "(drop 3)", "(drop 4)", "(drop 3)",
        "(drop 4)", "(drop 4)", "(drop 7)", "(drop 4)",
    ];
    let before = play(&mut game, &moves[..10]);
    assert!(!game.is_terminal(&before).unwrap());
    let end = play(&mut game, &moves);
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
    let mut game = load();
    let moves = ["(drop 1)"; 6];
    let state = play(&mut game, &moves);
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
