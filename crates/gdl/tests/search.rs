//! The search player (decoupled UCT): it never loses tic-tac-toe to the
//! random player, takes a win in one, beats random play at connect four,
//! handles simultaneous moves, the interpreter, its node cap and its tree
//! reuse, and a seed with an iteration budget gives one game.

use crate::path;

use gdl::{Budget, Game, Limits, Move, RandomPlayer, Role, SearchPlayer, State};

fn load(file: &str) -> Game {
    Game::load(path(file)).unwrap_or_else(|e| panic!("{}", e.render(false)))
}

/// Plays one game: the search player in `seat`, the random player in the
/// others; returns the final goals and the moves played.
fn versus_random(
    game: &mut Game,
    seat: usize,
    iterations: u64,
    seed: u64,
) -> (Vec<u8>, Vec<Vec<Move>>) {
    let role = game.roles()[seat];
    let mut ai = SearchPlayer::new(game, role, Budget::Iterations(iterations), seed);
    let mut random = RandomPlayer::new(seed);
    let mut state = game.initial_state();
    let mut moves = Vec::new();
    // One joint move per step: random moves, the searcher's in its seat.
    while !game.is_terminal(&state).unwrap() {
        let mut joint = random.joint(game, &state).unwrap();
        joint[seat] = ai.choose(game, &state).unwrap();
        ai.observe(&joint);
        state = game.next_state(&state, &joint).unwrap();
        moves.push(joint);
    }
    (game.goals(&state).unwrap(), moves)
}

/// The state after the moves written as text, each role's move in order.
fn after(game: &mut Game, joints: &[[&str; 2]]) -> State {
    let mut state = game.initial_state();
    for joint in joints {
        let joint: Vec<Move> = joint.iter().map(|m| game.parse_move(m).unwrap()).collect();
        state = game.next_state(&state, &joint).unwrap();
    }
    state
}

#[test]
fn never_loses_tictactoe_to_random() {
    let mut game = load("rules/tictactoe.gdl");
    for seat in 0..2 {
        let mut tally = [0; 3];
        for seed in 0..50 {
            let (goals, moves) = versus_random(&mut game, seat, 2_000, seed);
            let mine = goals[seat];
            assert!(
                mine >= 50,
                "seat {seat}, seed {seed}: lost {goals:?} after {moves:?}"
            );
            tally[(mine / 50) as usize] += 1;
        }
        // Against random play most games are won, not drawn.
        assert!(
            tally[2] >= 35,
            "seat {seat}: {tally:?} (losses, draws, wins)"
        );
    }
}

#[test]
fn takes_a_win_in_one() {
    let mut game = load("rules/tictactoe.gdl");
    // x holds (1 1) and (1 2); o holds (2 1) and (2 2); x to play.
    let state = after(
        &mut game,
        &[
            ["(mark 1 1)", "noop"],
            ["noop", "(mark 2 1)"],
            ["(mark 1 2)", "noop"],
            ["noop", "(mark 2 2)"],
        ],
    );
    let win = game.parse_move("(mark 1 3)").unwrap();
    for seed in 0..5 {
        let mut ai = SearchPlayer::new(&game, Role(0), Budget::Iterations(300), seed);
        assert_eq!(ai.choose(&mut game, &state).unwrap(), win, "seed {seed}");
    }
}

#[test]
fn blocks_a_win_in_one() {
    let mut game = load("rules/tictactoe.gdl");
    // x holds (1 1) and (1 2), o (2 2); o must take (1 3).
    let state = after(
        &mut game,
        &[
            ["(mark 1 1)", "noop"],
            ["noop", "(mark 2 2)"],
            ["(mark 1 2)", "noop"],
        ],
    );
    let block = game.parse_move("(mark 1 3)").unwrap();
    let mut ai = SearchPlayer::new(&game, Role(1), Budget::Iterations(2_000), 3);
    assert_eq!(ai.choose(&mut game, &state).unwrap(), block);
}

#[test]
fn wins_most_connect_four_games_against_random() {
    let mut game = load("rules/connect_four.gdl");
    for seat in 0..2 {
        let wins = (0..6)
            .filter(|&seed| versus_random(&mut game, seat, 300, seed).0[seat] == 100)
            .count();
        assert!(wins >= 5, "seat {seat}: {wins} of 6 won");
    }
}

#[test]
fn a_seed_and_an_iteration_budget_give_one_game() {
    let mut game = load("rules/tictactoe.gdl");
    let a = versus_random(&mut game, 1, 200, 9).1;
    let b = versus_random(&mut game, 1, 200, 9).1;
    assert_eq!(a, b);
}

#[test]
fn searches_through_the_interpreter() {
    let limits = gdl::LoadOptions {
        limits: Limits::default(),
        engine: gdl::EngineChoice::Interpreter,
    };
    let mut game = Game::load_with(path("rules/tictactoe.gdl"), limits).unwrap();
    assert_eq!(game.engine(), gdl::Engine::Interpreter);
    let state = after(
        &mut game,
        &[
            ["(mark 1 1)", "noop"],
            ["noop", "(mark 2 1)"],
            ["(mark 1 2)", "noop"],
            ["noop", "(mark 2 2)"],
        ],
    );
    let win = game.parse_move("(mark 1 3)").unwrap();
    let mut ai = SearchPlayer::new(&game, Role(0), Budget::Iterations(300), 1);
    assert_eq!(ai.choose(&mut game, &state).unwrap(), win);
}

/// Both roles move at once: `a` always scores more for its player, so each
/// role's own statistics must find it whatever the other plays.
const SIMULTANEOUS: &str = "
    (role left) (role right)
    (init (round 0))
    (<= (legal ?r a) (role ?r)) (<= (legal ?r b) (role ?r)) (<= (legal ?r c) (role ?r))
    (<= (next (round 1)) (true (round 0)))
    (<= (next (played ?r ?m)) (does ?r ?m))
    (<= terminal (true (round 1)))
    (<= (goal ?r 100) (true (played ?r a)) (other ?r ?o) (true (played ?o a)))
    (<= (goal ?r 70) (true (played ?r a)) (other ?r ?o) (not (true (played ?o a))))
    (<= (goal ?r 30) (true (played ?r ?m)) (distinct ?m a) (other ?r ?o) (true (played ?o a)))
    (<= (goal ?r 0) (true (played ?r ?m)) (distinct ?m a) (other ?r ?o) (not (true (played ?o a))))
    (other left right) (other right left)
";

#[test]
fn each_role_finds_its_best_simultaneous_move() {
    let mut game = Game::from_source("simultaneous.gdl", SIMULTANEOUS).unwrap();
    let state = game.initial_state();
    let a = game.parse_move("a").unwrap();
    for role in game.roles() {
        let mut ai = SearchPlayer::new(&game, role, Budget::Iterations(500), 2);
        assert_eq!(ai.choose(&mut game, &state).unwrap(), a);
    }
}

#[test]
fn the_tree_is_reused_and_bounded() {
    let mut game = load("rules/connect_four.gdl");
    let mut ai = SearchPlayer::new(&game, Role(0), Budget::Iterations(400), 5).max_nodes(100);
    let mut state = game.initial_state();
    let mine = ai.choose(&mut game, &state).unwrap();
    assert!(ai.stats().nodes <= 100, "{:?}", ai.stats().nodes);
    assert_eq!(ai.stats().iterations, 400);
    // The opponent's reply, then x again: the subtree below is kept.
    let noop = game.legal_moves(&state, Role(1)).unwrap()[0];
    let joint = vec![mine, noop];
    ai.observe(&joint);
    state = game.next_state(&state, &joint).unwrap();
    let reply = vec![
        game.legal_moves(&state, Role(0)).unwrap()[0],
        game.legal_moves(&state, Role(1)).unwrap()[0],
    ];
    assert_eq!(
        ai.choose(&mut game, &state).unwrap(),
        reply[0],
        "one legal move: played at once"
    );
    ai.observe(&reply);
    state = game.next_state(&state, &reply).unwrap();
    ai.choose(&mut game, &state).unwrap();
    assert!(ai.stats().reused > 0, "{:?}", ai.stats());
}

#[test]
fn threads_search_trees_of_their_own() {
    let mut game = load("rules/tictactoe.gdl");
    let state = after(
        &mut game,
        &[
            ["(mark 1 1)", "noop"],
            ["noop", "(mark 2 1)"],
            ["(mark 1 2)", "noop"],
            ["noop", "(mark 2 2)"],
        ],
    );
    let win = game.parse_move("(mark 1 3)").unwrap();
    let mut ai = SearchPlayer::new(&game, Role(0), Budget::Iterations(200), 1).threads(2);
    assert_eq!(ai.choose(&mut game, &state).unwrap(), win);
    assert_eq!(ai.stats().iterations, 400);
}

#[test]
fn a_terminal_state_is_an_error() {
    let mut game = load("rules/tictactoe.gdl");
    let state = after(
        &mut game,
        &[
            ["(mark 1 1)", "noop"],
            ["noop", "(mark 2 1)"],
            ["(mark 1 2)", "noop"],
            ["noop", "(mark 2 2)"],
            ["(mark 1 3)", "noop"],
        ],
    );
    let mut ai = SearchPlayer::new(&game, Role(1), Budget::Iterations(10), 1);
    assert!(ai.choose(&mut game, &state).is_err());
}
