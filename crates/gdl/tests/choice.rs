//! The engine is an input of loading, and `auto` chooses it by counting
//! work, not by the clock: the same file gets the same engine, with the
//! same estimates, however busy the machine is.

use crate::path;
use gdl::{Engine, EngineChoice, Game, Limits, LoadOptions};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Loads `file` with `options` twice while another thread keeps a core
/// busy, and returns the engine and the reasons, which must be the same
/// both times.
fn choice_under_load(file: &std::path::Path, options: LoadOptions) -> (Engine, String) {
    let stop = Arc::new(AtomicBool::new(false));
    let busy = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            let mut x = 0u64;
            while !stop.load(Ordering::Relaxed) {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
            }
            x
        })
    };
    let load = || {
        let game = Game::load_with(file, options).unwrap_or_else(|e| panic!("{}", e.render(false)));
        (game.engine(), game.engine_choice().to_string())
    };
    let first = load();
    assert_eq!(load(), first, "{} chose another way", file.display());
    stop.store(true, Ordering::Relaxed);
    busy.join().unwrap();
    first
}

/// Games whose choice weighs plans against each other (grounding is held
/// to ten atoms, so the rules are interpreted, with their relations of the
/// state derived on demand or not): the estimates, and so the choice, are
/// counts, the same every time.
#[test]
fn auto_weighs_plans_by_counts_not_time() {
    let options = LoadOptions {
        limits: Limits {
            max_ground_atoms: 10,
            ..Limits::default()
        },
        engine: EngineChoice::Auto,
    };
    for file in ["rules/connect_four.gdl", "rules/mad_bishops.gdl"] {
        let (engine, why) = choice_under_load(&path(file), options);
        assert_eq!(engine, Engine::Interpreter, "{file}: {why}");
        assert!(why.contains("estimated at"), "{file}: {why}");
    }
}

/// A sample of the published games whose choice weighs ground rules
/// against the interpreter (over 100,000 ground rules), when the corpus is
/// beside the repository.
#[test]
fn auto_chooses_the_same_engine_for_published_games_under_load() {
    let Some(dir) = crate::corpus::corpus() else {
        return;
    };
    for name in ["zombieAttack1PL6", "checkers-mustjump"] {
        let (_, why) = choice_under_load(&dir.join(format!("{name}.kif")), LoadOptions::default());
        assert!(why.contains("estimated at"), "{name}: {why}");
    }
}

/// A game that grounds only with its chains of conditions cut (the sum of
/// six guesses of gt_two_thirds_6p) is ground that way, and the reason
/// says so, when the corpus is beside the repository.
#[test]
fn the_reason_says_when_chains_of_conditions_were_cut() {
    let Some(dir) = crate::corpus::corpus() else {
        return;
    };
    let game = Game::load(dir.join("gt_two_thirds_6p.kif")).unwrap();
    let why = game.engine_choice();
    assert!(matches!(game.engine(), Engine::Ground { .. }), "{why}");
    assert!(
        why.contains("ground with their chains of conditions cut"),
        "{why}"
    );
}

/// Ground rules of many instances are weighed against the rules with
/// their variables eliminated, and kept where they play cheaper:
/// `tests/games/bids.gdl` (every instance of its scoring rule gated by a
/// pair of bids, so that one fires a step) keeps its 283,831 rules as
/// written; and where the corpus is beside the repository, so does
/// mummymaze1p, whose 71,139 rules as written, 3,755 of them guarded by
/// whose turn it is, estimate cheaper than the 59,942 with variables
/// eliminated (unguarded, those were 1.5x cheaper).
#[test]
fn many_ground_rules_are_weighed_against_their_variables_eliminated() {
    let game = Game::load(path("tests/games/bids.gdl")).unwrap();
    let why = game.engine_choice();
    assert!(
        why.contains("with their variables eliminated one join at a time, they ground"),
        "{why}"
    );
    assert!(why.contains("(the rules as written kept)"), "{why}");
    assert!(
        matches!(game.engine(), Engine::Ground { rules: 283_831, .. }),
        "{why}"
    );
    let Some(dir) = crate::corpus::corpus() else {
        return;
    };
    let game = Game::load(dir.join("mummymaze1p.kif")).unwrap();
    let why = game.engine_choice();
    assert!(
        why.contains("with their variables eliminated one join at a time, they ground")
            && why.contains("guarded rules:")
            && why.contains("(the rules as written kept)"),
        "{why}"
    );
}

/// The engine asked for is the engine given, and ground rules asked for
/// where they do not fit are an error that names the limit.
#[test]
fn the_engine_asked_for_is_given() {
    let file = path("rules/tictactoe.gdl");
    let with = |engine, limits| Game::load_with(&file, LoadOptions { limits, engine });
    let interpreted = with(EngineChoice::Interpreter, Limits::default()).unwrap();
    assert_eq!(interpreted.engine(), Engine::Interpreter);
    assert_eq!(interpreted.engine_choice(), "the interpreter was asked for");
    let ground = with(EngineChoice::Ground, Limits::default()).unwrap();
    assert!(matches!(ground.engine(), Engine::Ground { .. }));
    let tight = Limits {
        max_ground_work: 10,
        ..Limits::default()
    };
    let error = with(EngineChoice::Ground, tight)
        .err()
        .expect("does not ground");
    let d = &error.diagnostics()[0];
    assert_eq!(d.code, "not-ground");
    assert_eq!(d.limit, Some(gdl::LimitKind::GroundingWork));
    assert!(d.message.contains("`max_ground_work`"), "{}", d.message);
    // `auto` falls back on the interpreter under the same limits.
    assert_eq!(
        with(EngineChoice::Auto, tight).unwrap().engine(),
        Engine::Interpreter
    );
}
