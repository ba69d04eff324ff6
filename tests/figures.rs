//! Figures known independently of this code, reproduced by the evaluator.

use gdl::{Game, State};
use std::collections::HashSet;

fn load(name: &str) -> Game {
    let path = format!("{}/tests/games/{name}", env!("CARGO_MANIFEST_DIR"));
    Game::load(&path).unwrap_or_else(|e| panic!("{}", e.render(false)))
}

/// Counts complete games (sequences of joint moves from the initial state to
/// a terminal state) and collects every reachable state.
fn explore(game: &mut Game, state: &State, seen: &mut HashSet<State>) -> u64 {
    seen.insert(state.clone());
    if game.is_terminal(state).unwrap() {
        game.goals(state).unwrap();
        return 1;
    }
    let mut total = 0;
    for joint in game.joint_moves(state).unwrap() {
        let next = game.next_state(state, &joint).unwrap();
        total += explore(game, &next, seen);
    }
    total
}

#[test]
fn tictactoe_has_255168_games_and_5478_positions() {
    let mut game = load("tictactoe.gdl");
    let mut seen = HashSet::new();
    let initial = game.initial_state();
    let games = explore(&mut game, &initial, &mut seen);
    assert_eq!(games, 255_168);
    assert_eq!(seen.len(), 5_478);
}
