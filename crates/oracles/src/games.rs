//! Playing a rules file by hand in the game tests: loading it, playing a
//! written list of joint moves with each move checked legal, and reading the
//! legal moves and state facts met as texts.

use gdl::{Game, State};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// Loads the rules file `rules` (a path from the repository's root, such as
/// `rules/tictactoe.gdl`), panicking with the rendered error.
///
/// Each file is loaded once per process and each caller gets a clone (a
/// game of the same rules, its caches empty): the tests of one game load
/// it once between them, where brazilian draughts' load of many seconds,
/// paid by each of its tests, was a good part of the suite's time.
pub fn load(rules: impl AsRef<Path>) -> Game {
    type Loaded = Mutex<BTreeMap<PathBuf, Arc<OnceLock<Game>>>>;
    static LOADED: Loaded = Mutex::new(BTreeMap::new());
    let path = crate::repo_path(rules);
    // The table's lock is held only to find the file's cell, so that two
    // files load side by side; a second caller of one file waits for the
    // first's load.
    let cell = {
        let mut loaded = LOADED.lock().unwrap_or_else(|e| e.into_inner());
        Arc::clone(loaded.entry(path.clone()).or_default())
    };
    cell.get_or_init(|| Game::load(&path).unwrap_or_else(|e| panic!("{}", e.render(false))))
        .clone()
}

/// The legal moves of role number `role` (0 the first role) as sorted texts.
pub fn legal(game: &mut Game, state: &State, role: usize) -> Vec<String> {
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

/// Plays the joint moves (one text per role, in role order) from the initial
/// state, checking that no state before a move is terminal and that each
/// move is legal, and returns the state reached.
pub fn play(game: &mut Game, moves: &[[&str; 2]]) -> State {
    let roles = game.roles();
    let mut state = game.initial_state();
    for (step, joint) in moves.iter().enumerate() {
        assert!(
            !game.is_terminal(&state).unwrap(),
            "terminal before step {}",
            step + 1
        );
        let mut chosen = Vec::new();
        for (r, text) in joint.iter().enumerate() {
            let legal = legal(game, &state, r);
            assert!(
                legal.iter().any(|m| m == text),
                "step {}: {text} is not legal for {}; legal: {legal:?}",
                step + 1,
                game.role_name(roles[r])
            );
            chosen.push(game.parse_move(text).unwrap());
        }
        state = game.next_state(&state, &chosen).unwrap();
    }
    state
}

/// The moves of a turn-taking game in turn order, the first role first, as
/// joint moves: the role not moving plays `noop`.
pub fn alternating<'a>(moves: &[&'a str]) -> Vec<[&'a str; 2]> {
    moves
        .iter()
        .enumerate()
        .map(|(i, &m)| if i % 2 == 0 { [m, "noop"] } else { ["noop", m] })
        .collect()
}

/// The joint moves as owned texts, as `gdl::record::replay_text` takes them.
pub fn joint_strings(joints: &[[&str; 2]]) -> Vec<Vec<String>> {
    joints
        .iter()
        .map(|j| j.iter().map(|m| m.to_string()).collect())
        .collect()
}

/// The whole game of the joint moves as `gdl trace` prints it.
pub fn trace(game: &mut Game, moves: &[[&str; 2]]) -> String {
    gdl::record::replay_text(game, &joint_strings(moves)).unwrap()
}

/// The last `n` lines of `text` (all of it when shorter), for a snapshot of
/// the end of a long trace.
pub fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// The moves `(move FROM ...)` of the piece on `from` (such as `e 4`) among
/// `moves`, in their order.
pub fn moves_from(moves: &[String], from: &str) -> Vec<String> {
    let prefix = format!("(move {from} ");
    moves
        .iter()
        .filter(|m| m.starts_with(&prefix))
        .cloned()
        .collect()
}

/// Whether `state` holds the fact `fact`, such as `(cell d 1 bk)`.
pub fn has_fact(game: &Game, state: &State, fact: &str) -> bool {
    game.state_facts(state).iter().any(|f| f == fact)
}
