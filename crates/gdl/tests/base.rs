//! Ground rules bounded by `base`: where the rules declare the facts of
//! states, only those are fed back as `true` when grounding (as Sancho's
//! propnet does), and a state holding a fact `base` leaves out is answered
//! by the interpreter. `tests/games/base_bound.gdl` declares counts up to
//! 11 where twelve pushes of button 0 reach 12.

use crate::path;

use gdl::{Budget, Engine, RandomPlayer, SearchPlayer, Stop};
use gdl::{Game, Limits, Move, State};

const FILE: &str = "tests/games/base_bound.gdl";

fn text() -> String {
    std::fs::read_to_string(path(FILE)).unwrap()
}

/// The rules with their `base` and `input` left out.
fn without_base() -> String {
    let text = text();
    text[..text.find("(base (count 0))").unwrap()].to_string()
}

fn ground_atoms(game: &Game) -> usize {
    match game.engine() {
        Engine::Ground { atoms, .. } => atoms,
        other => panic!("not ground: {other}"),
    }
}

/// The same rules on the interpreter.
fn interpreted() -> Game {
    let limits = gdl::LoadOptions {
        limits: Limits::default(),
        engine: gdl::EngineChoice::Interpreter,
    };
    Game::from_source_with(FILE, &text(), limits).unwrap()
}

/// Every role's legal moves as sorted text.
fn moves(game: &mut Game, state: &State) -> Vec<String> {
    let role = game.roles()[0];
    let moves = game.legal_moves(state, role).unwrap();
    let mut texts: Vec<String> = moves.iter().map(|&m| game.move_text(m)).collect();
    texts.sort();
    texts
}

/// The state after twelve pushes of button 0: count 12, outside `base`.
fn past_the_base(game: &mut Game) -> State {
    let push = game.parse_move("(push 0)").unwrap();
    let mut state = game.initial_state();
    for _ in 0..12 {
        state = game.next_state(&state, &[push]).unwrap();
    }
    state
}

#[test]
fn a_base_bounds_the_ground_rules() {
    let bounded = Game::load(path(FILE)).unwrap();
    let whole = Game::from_source("whole.gdl", &without_base()).unwrap();
    // Counts 12 to 20 are no `true` atoms: 111 atoms without `base`.
    assert!(
        ground_atoms(&bounded) < ground_atoms(&whole),
        "{} and {}",
        bounded.engine(),
        whole.engine()
    );
}

#[test]
fn a_base_that_random_play_leaves_does_not_bound_them() {
    // Counts up to 1 only: random play pushes button 0 twice at once.
    let text = text().replace(
        "(base (count 0)) (base (count 1)) (base (count 2)) (base (count 3))",
        "(base (count 0)) (base (count 1))",
    );
    let text = ["(count 4)", "(count 5)", "(count 6)", "(count 7)"]
        .iter()
        .chain(&["(count 8)", "(count 9)", "(count 10)", "(count 11)"])
        .fold(text, |t, c| t.replace(&format!("(base {c})"), ""));
    let narrow = Game::from_source("narrow.gdl", &text).unwrap();
    let whole = Game::from_source("whole.gdl", &without_base()).unwrap();
    assert_eq!(ground_atoms(&narrow), ground_atoms(&whole));
}

#[test]
fn states_past_the_base_are_answered_by_the_interpreter() {
    let mut game = Game::load(path(FILE)).unwrap();
    let mut oracle = interpreted();
    let mut stepper = game.stepper().expect("a stepper");
    let (mut state, mut expected) = (game.initial_state(), oracle.initial_state());
    let texts = ["(push 0)"; 12].into_iter().chain(["(push 3)", "stop"]);
    for (step, text) in texts.enumerate() {
        assert_eq!(
            moves(&mut game, &state),
            moves(&mut oracle, &expected),
            "step {step}"
        );
        assert!(!game.is_terminal(&state).unwrap(), "step {step}");
        let m = game.parse_move(text).unwrap();
        state = game.next_state(&state, &[m]).unwrap();
        let same = oracle.parse_move(text).unwrap();
        expected = oracle.next_state(&expected, &[same]).unwrap();
        assert_eq!(game.state_facts(&state), oracle.state_facts(&expected));
        if step > 11 {
            assert_eq!(stepper.play(&[m]), Err(gdl::GameError::OffGround));
            continue;
        }
        stepper.play(&[m]).unwrap();
        assert_eq!(stepper.is_off(), step == 11, "step {step}");
        assert_eq!(stepper.state(), state, "step {step}");
        if step == 11 {
            // `stop` is legal at count 12 only.
            assert!(moves(&mut game, &state).contains(&"stop".to_string()));
            // Off the ground rules, the stepper plays nothing more.
            stepper.set_state(&state);
            assert!(stepper.is_off());
        }
    }
    assert!(game.is_terminal(&state).unwrap());
    assert_eq!(game.goals(&state).unwrap(), vec![100]);
    assert_eq!(oracle.goals(&expected).unwrap(), vec![100]);
    // Back within `base`, the stepper plays again.
    stepper.set_state(&game.initial_state());
    assert!(!stepper.is_off());
    assert_eq!(stepper.legal_count(0), 10);
}

#[test]
fn playouts_and_search_go_on_past_the_base() {
    let mut game = Game::load(path(FILE)).unwrap();
    let start = past_the_base(&mut game);
    for seed in 0..10 {
        // On the stepper, which is off from the start: the general API
        // plays the game, choice for choice as `random_playout` does.
        let fast = game
            .playout(
                &start,
                &mut RandomPlayer::in_engine_order(seed),
                Stop::steps(50),
            )
            .unwrap();
        let mut drawer = RandomPlayer::in_engine_order(seed);
        let (mut state, mut steps) = (start.clone(), 0);
        while !game.is_terminal(&state).unwrap() {
            let role = game.roles()[0];
            let legal = game.legal_moves(&state, role).unwrap();
            let joint: Vec<Move> = vec![drawer.choose(&game, &legal)];
            state = game.next_state(&state, &joint).unwrap();
            steps += 1;
        }
        assert_eq!((fast.steps, &fast.last), (steps, &state), "seed {seed}");
        assert_eq!(fast.goals, Some(vec![100]), "seed {seed}");
        let natural = game
            .playout(&start, &mut RandomPlayer::new(seed), Stop::steps(50))
            .unwrap();
        assert_eq!(natural.goals, Some(vec![100]), "seed {seed}");
        assert!(game.is_terminal(&natural.last).unwrap(), "seed {seed}");
    }
    let role = game.roles()[0];
    let mut player = SearchPlayer::new(&game, role, Budget::Iterations(200), 1);
    let chosen = player.choose(&mut game, &start).unwrap();
    assert!(game.legal_moves(&start, role).unwrap().contains(&chosen));
}

#[test]
fn playouts_that_leave_the_base_go_on_by_the_interpreter() {
    // From count 11, random play leaves `base` at the first push of
    // button 0: the stepper's playout goes on through the general API.
    let mut game = Game::load(path(FILE)).unwrap();
    let push = game.parse_move("(push 0)").unwrap();
    let mut start = game.initial_state();
    for _ in 0..11 {
        start = game.next_state(&start, &[push]).unwrap();
    }
    let mut left = 0;
    for seed in 0..40 {
        let p = game
            .playout(&start, &mut RandomPlayer::new(seed), Stop::steps(50))
            .unwrap();
        let (mut player, mut state, mut steps) = (RandomPlayer::new(seed), start.clone(), 0);
        while !game.is_terminal(&state).unwrap() {
            let joint = player.joint(&mut game, &state).unwrap();
            state = game.next_state(&state, &joint).unwrap();
            steps += 1;
        }
        assert_eq!((p.steps, &p.last), (steps, &state), "seed {seed}");
        assert_eq!(p.goals, Some(game.goals(&state).unwrap()), "seed {seed}");
        left += usize::from(p.goals == Some(vec![100]));
    }
    assert!(left > 0, "no playout left the base");
}
