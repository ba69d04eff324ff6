//! Relations of the state that no move changes, read as `init` gives them
//! (`rewrite::fixed`): `tests/games/fixed_walls.gdl` keeps its walls by a
//! frame rule alone. A state built with other walls must be answered by
//! the rules as written, on both engines and on the stepper: compared
//! here with the same rules given one more `next` rule for walls that
//! never applies, which the rewrite leaves as written.

use crate::path;

use gdl::{EngineChoice, Game, LoadOptions, State};

const FILE: &str = "tests/games/fixed_walls.gdl";

fn text() -> String {
    std::fs::read_to_string(path(FILE)).unwrap()
}

fn load(text: &str, engine: EngineChoice) -> Game {
    let options = LoadOptions {
        engine,
        ..LoadOptions::default()
    };
    Game::from_source_with(FILE, text, options).unwrap()
}

/// The rules with a `next` rule for walls that never applies (no state
/// has step 9): walls may change as far as the rewrite can tell.
fn as_written() -> Game {
    let text = text() + "(<= (next (wall 1 2)) (true (step 9)))\n";
    let game = load(&text, EngineChoice::Auto);
    assert!(!game.engine_choice().contains("no move changes"));
    game
}

/// What a state answers: terminal, the legal moves sorted, the goals, and
/// the state after each legal move (its facts sorted).
fn answers(game: &mut Game, facts: &[&str]) -> String {
    let state = game.state_from_facts(facts).unwrap();
    let role = game.roles()[0];
    let mut out = format!("terminal {}", game.is_terminal(&state).unwrap());
    let mut moves = game.legal_moves(&state, role).unwrap();
    moves.sort_by_key(|&m| game.move_text(m));
    for m in moves {
        let next = game.next_state(&state, &[m]).unwrap();
        let mut facts = game.state_facts(&next);
        facts.sort();
        out += &format!("\n{} -> {}", game.move_text(m), facts.join(" "));
    }
    out + &format!("\ngoals {:?}", game.goals(&state).unwrap())
}

/// States with the walls of `init`, with one fewer, with one more.
const STATES: [&[&str]; 4] = [
    &["(at 2)", "(step 1)", "(wall 2 3)", "(wall 4 5)"],
    &["(at 2)", "(step 1)", "(wall 4 5)"],
    &[
        "(at 2)",
        "(step 1)",
        "(wall 2 3)",
        "(wall 4 5)",
        "(wall 1 2)",
    ],
    &["(at 4)", "(step 1)", "(wall 2 3)"],
];

#[test]
fn the_rules_read_the_walls_as_init_gives_them() {
    let game = load(&text(), EngineChoice::Auto);
    assert!(
        game.engine_choice().contains("no move changes") && game.engine_choice().contains("wall/2"),
        "{}",
        game.engine_choice()
    );
    assert!(matches!(game.engine(), gdl::Engine::Ground { .. }));
}

#[test]
fn a_state_with_other_walls_is_answered_by_the_rules_as_written() {
    let mut written = as_written();
    for engine in [EngineChoice::Auto, EngineChoice::Interpreter] {
        let mut game = load(&text(), engine);
        for facts in STATES {
            assert_eq!(
                answers(&mut game, facts),
                answers(&mut written, facts),
                "{engine:?}, {facts:?}"
            );
        }
    }
    // Without the wall between 2 and 3, the walker may step onto 3.
    let open = answers(&mut written, STATES[1]);
    assert!(open.contains("(go 3) -> (at 3)"), "{open}");
}

#[test]
fn a_stepper_set_to_other_walls_is_off_its_ground_rules() {
    let mut game = load(&text(), EngineChoice::Auto);
    let mut stepper = game.stepper().expect("the walk grounds");
    let states: Vec<State> = (STATES.iter())
        .map(|f| game.state_from_facts(f).unwrap())
        .collect();
    stepper.set_state(&states[0]);
    assert!(!stepper.is_off());
    for state in &states[1..] {
        stepper.set_state(state);
        assert!(stepper.is_off(), "{:?}", game.state_facts(state));
    }
    stepper.set_state(&states[0]);
    assert!(!stepper.is_off());
}

/// Random outcomes (on the stepper of the cone, which leaves the walls
/// out: no rule reads them but through their static copy) from states with
/// other walls end as the rules as written play them.
#[test]
fn random_outcomes_from_other_walls_are_those_of_the_rules_as_written() {
    let mut game = load(&text(), EngineChoice::Auto);
    assert!(
        game.engine_choice().contains("random outcomes"),
        "{}",
        game.engine_choice()
    );
    let mut written = as_written();
    for facts in STATES {
        for seed in 0..20 {
            let outcome = |g: &mut Game| {
                let state = g.state_from_facts(facts).unwrap();
                let mut player = gdl::RandomPlayer::new(seed);
                let o = g.random_outcome(&state, &mut player, gdl::Stop::steps(50));
                let o = o.unwrap();
                (o.steps, o.goals)
            };
            assert_eq!(
                outcome(&mut game),
                outcome(&mut written),
                "{facts:?}, seed {seed}"
            );
        }
    }
}
