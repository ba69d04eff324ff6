//! Tic-tac-toe (a benchmark game, not from a seed): random playouts,
//! the oracle side by side with the rules file, and a few hand-checked games.

mod oracle;
#[path = "oracle/tictactoe.rs"]
mod tictactoe;

use gdl::{Game, State};
use tictactoe::TicTacToe;

const RULES: &str = "rules/tictactoe.gdl";

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

/// Three marks in a row win; the game ends there.
#[test]
fn a_row_wins() {
    let mut game = load();
    let moves = [
        "(mark 1 1)",
        "(mark 2 1)",
        "(mark 1 2)",
        "(mark 2 2)",
        "(mark 1 3)",
    ];
    let before = play(&mut game, &moves[..4]);
    assert!(!game.is_terminal(&before).unwrap());
    assert_eq!(legal(&mut game, &before, 0).len(), 5);
    assert_eq!(legal(&mut game, &before, 1), ["noop"]);
    let end = play(&mut game, &moves);
    assert!(game.is_terminal(&end).unwrap());
    assert_eq!(game.goals(&end).unwrap(), [100, 0]);
}

/// A full board without a line is a draw.
#[test]
fn a_full_board_draws() {
    let mut game = load();
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
    let end = play(&mut game, &moves);
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
