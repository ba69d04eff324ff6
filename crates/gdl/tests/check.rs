//! The checker on example files: valid files under `tests/check/valid/` give
//! no error, and each file under `tests/check/invalid/` gives the errors it
//! was written to show. The rendered messages are pinned with insta.

use gdl::{Severity, check_source, render};
use std::collections::BTreeSet;
use std::path::Path;

/// Checks `tests/check/{dir}/{name}.gdl` and returns the rendered diagnostics
/// (no colour) and the codes of the errors and of the warnings.
fn run(dir: &str, name: &str) -> (String, BTreeSet<&'static str>, BTreeSet<&'static str>) {
    let path = format!("tests/check/{dir}/{name}.gdl");
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(&path))
        .unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    let (file, diagnostics) = check_source(&path, &text);
    let positions: Vec<u32> = diagnostics.iter().map(|d| d.span.start).collect();
    assert!(
        positions.windows(2).all(|w| w[0] <= w[1]),
        "diagnostics of {path} are not sorted by position: {positions:?}"
    );
    let codes = |severity| {
        diagnostics
            .iter()
            .filter(|d| d.severity == severity)
            .map(|d| d.code)
            .collect()
    };
    (
        render(&file, &diagnostics, false),
        codes(Severity::Error),
        codes(Severity::Warning),
    )
}

/// A valid file: no error; its warnings are exactly `warnings`.
fn valid(name: &str, warnings: &[&str]) {
    let (rendered, errors, found) = run("valid", name);
    assert!(errors.is_empty(), "errors in a valid file:\n{rendered}");
    let expected: BTreeSet<&str> = warnings.iter().copied().collect();
    assert_eq!(found, expected, "warnings:\n{rendered}");
    insta::assert_snapshot!(format!("valid_{name}"), rendered);
}

/// An invalid file: its errors have exactly the codes `codes`.
fn invalid(name: &str, codes: &[&str]) {
    let (rendered, errors, _) = run("invalid", name);
    let expected: BTreeSet<&str> = codes.iter().copied().collect();
    assert_eq!(errors, expected, "errors:\n{rendered}");
    insta::assert_snapshot!(format!("invalid_{name}"), rendered);
}

/// One test per valid file, with the warnings it must give, and the list of
/// names for `every_example_is_tested`.
macro_rules! valid_files {
    ($($name:ident: [$($code:literal),*],)*) => {
        $(#[test] fn $name() { valid(stringify!($name), &[$($code),*]); })*
        const VALID: &[&str] = &[$(stringify!($name)),*];
    };
}

/// One test per invalid file, with the error codes it must give.
macro_rules! invalid_files {
    ($($name:ident: [$($code:literal),*],)*) => {
        $(#[test] fn $name() { invalid(stringify!($name), &[$($code),*]); })*
        const INVALID: &[&str] = &[$(stringify!($name)),*];
    };
}

valid_files! {
    allowances: ["never-true", "no-init", "unknown-role-goal", "zero-argument-term"],
    tictactoe: [],
    race: ["case-variant"],
    split_by_constants: ["split-by-constants"],
    never_fires_dropped: ["never-fires-dropped", "undefined-relation"],
    does_before_moves: ["does-before-moves"],
    unknown_role_move: ["unknown-role-goal", "unknown-role-move"],
    several_arities: ["several-arities", "unused-relation", "no-base-input"],
    keyword_as_relation: ["keyword-as-relation", "unused-relation", "no-base-input"],
    unsafe_fact_dropped: ["unsafe-fact-dropped", "unused-relation", "no-base-input"],
    unsafe_rule_dropped: ["unsafe-rule-dropped", "no-base-input"],
    comma_in_name: ["comma-in-name", "keyword-as-relation", "unused-relation", "no-base-input"],
    variable_as_name: ["variable-as-name", "no-base-input"],
    operator_fact_dropped: ["operator-fact-dropped", "unused-relation", "no-base-input"],
    unsafe_rule_never_applies: ["unsafe-rule-never-applies", "no-base-input"],
    empty_or: ["empty-or", "no-base-input"],
    dynamic_base_input: ["dynamic-base-input"],
    negated_unbound: ["negated-unbound", "no-base-input"],
    caller_bound: ["caller-bound", "no-base-input"],
    caller_bound_patterns: ["caller-bound", "no-base-input"],
    caller_bound_some_value: ["caller-bound", "no-base-input"],
    caller_bound_distinct: ["caller-bound", "no-base-input"],
    unsafe_fact_caller_bound: ["unsafe-fact-caller-bound", "no-base-input"],
    domain_places: ["no-base-input"],
    unbound_role: ["unbound-role", "no-base-input"],
    unrestricted_recursion: ["unrestricted-recursion"],
    warnings: ["no-base-input", "undefined-relation", "unused-relation"],
    mistakes: [
        "impossible-constant",
        "never-true",
        "undefined-relation",
        "unused-relation"
    ],
}

invalid_files! {
    unsafe_variable: ["unsafe-variable"],
    unsafe_or: ["unsafe-variable"],
    unsafe_fact: ["unsafe-fact"],
    rule_arrow: ["unsafe-fact"],
    negation_cycle: ["negation-cycle"],
    role_rule: ["role-rule"],
    keyword_in_head: ["keyword-in-head"],
    next_in_body: ["next-in-body"],
    init_dependency: ["keyword-dependency"],
    does_dependency: ["keyword-dependency"],
    keyword_arity: ["keyword-arity"],
    reserved_name: ["reserved-name"],
    duplicate_role: ["duplicate-role"],
    goal_value: ["goal-value"],
    gdl_ii: ["gdl-ii"],
    missing_keywords: ["missing-keyword"],
    empty: ["missing-keyword"],
    syntax: ["syntax"],
    several_errors: [
        "duplicate-role",
        "goal-value",
        "keyword-dependency",
        "negation-cycle",
        "next-in-body",
        "unsafe-variable"
    ],
}

/// Every example file has its test, and every test its file.
#[test]
fn every_example_is_tested() {
    for (dir, listed) in [("valid", VALID), ("invalid", INVALID)] {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/check")
            .join(dir);
        let mut files: Vec<String> = std::fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "gdl"))
            .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
            .collect();
        files.sort();
        let mut listed: Vec<String> = listed.iter().map(|s| s.to_string()).collect();
        listed.sort();
        assert_eq!(files, listed, "files under tests/check/{dir}/ vs tests");
    }
}

/// A minimal complete game, for tests that add rules to it.
const GAME: &str = "(role you) (base (count 0)) (input you go) (init (count 0)) \
                    (legal you go) (<= (next (count 0)) (does you go)) \
                    (<= terminal (true (count 0))) (goal you 100)\n";

/// A cycle through many `not`s is reported at ten of them, the last saying
/// how many more there are.
#[test]
fn negation_cycle_reports_are_capped() {
    let mut text = GAME.to_string();
    for _ in 0..13 {
        text.push_str("(<= loop (not spin))\n");
    }
    text.push_str("(<= spin loop)\n(<= terminal loop)\n");
    let (_, diagnostics) = check_source("cap.gdl", &text);
    let codes: Vec<&str> = diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, vec!["negation-cycle"; 10]);
    let last = diagnostics.last().unwrap();
    assert!(
        last.notes
            .iter()
            .any(|n| n.starts_with("3 more `not`s inside the same cycle")),
        "{:?}",
        last.notes
    );
}

/// The games of the project (`rules/` and `tests/games/`) pass the checker:
/// no error, so the loader accepts them. Warnings are printed, not refused.
#[test]
fn project_games_have_no_errors() {
    let mut checked = 0;
    for dir in ["rules", "tests/games"] {
        let Ok(entries) = std::fs::read_dir(crate::path(dir)) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|x| x != "gdl") {
                continue;
            }
            let name = format!("{dir}/{}", path.file_name().unwrap().to_string_lossy());
            let text = std::fs::read_to_string(&path).unwrap();
            let (file, diagnostics) = check_source(&name, &text);
            let rendered = render(&file, &diagnostics, false);
            assert!(
                !diagnostics.iter().any(|d| d.is_error()),
                "errors in {name}:\n{rendered}"
            );
            eprint!("{rendered}");
            checked += 1;
        }
    }
    assert!(checked > 0, "no game found under rules/ or tests/games/");
}

/// One goal-value parser: a value the checker refuses written in a `goal`
/// fact (`+5`) is refused as well when a rule derives it, by both engines.
#[test]
fn a_derived_goal_value_is_judged_as_a_written_one() {
    let written = GAME.replace("(goal you 100)", "(goal you +5)");
    let (_, diagnostics) = check_source("t.gdl", &written);
    assert!(diagnostics.iter().any(|d| d.is_error()), "{diagnostics:?}");
    let derived =
        format!("{GAME}(val +5)\n").replace("(goal you 100)", "(<= (goal you ?v) (val ?v))");
    for mut game in on_both_engines(&derived) {
        let start = game.initial_state();
        assert!(game.is_terminal(&start).unwrap());
        let error = game.goals(&start).unwrap_err();
        assert!(
            matches!(&error, gdl::GameError::BadGoal { value, .. } if value == "+5"),
            "{} ({error})",
            game.engine()
        );
    }
}

/// The example of `does-before-moves` plays as ggp-base reads it, on both
/// engines: `terminal` and `goal` see no move (`moved` holds for nothing
/// before the moves, so `still` holds), and `next` sees the move played.
#[test]
fn keywords_that_depend_on_does_are_judged_before_the_moves() {
    let text = std::fs::read_to_string(crate::path("tests/check/valid/does_before_moves.gdl"));
    let text = text.unwrap();
    for mut game in on_both_engines(&text) {
        let start = game.initial_state();
        assert!(!game.is_terminal(&start).unwrap(), "{}", game.engine());
        assert_eq!(game.goals(&start).unwrap(), [0], "{}", game.engine());
        let wait = game.parse_move("wait").unwrap();
        let go = game.parse_move("go").unwrap();
        let waited = game.next_state(&start, &[wait]).unwrap();
        assert!(!game.is_terminal(&waited).unwrap(), "{}", game.engine());
        let gone = game.next_state(&start, &[go]).unwrap();
        assert!(game.is_terminal(&gone).unwrap(), "{}", game.engine());
        assert_eq!(game.goals(&gone).unwrap(), [100], "{}", game.engine());
    }
}

/// The example of `never-fires-dropped` plays as its rules say once the
/// rule that never applies is gone: `clear` holds wherever `at` does.
#[test]
fn a_rule_that_never_applies_is_dropped_from_its_cycle() {
    let text = std::fs::read_to_string(crate::path("tests/check/valid/never_fires_dropped.gdl"));
    let text = text.unwrap();
    for mut game in on_both_engines(&text) {
        let start = game.initial_state();
        assert!(!game.is_terminal(&start).unwrap(), "{}", game.engine());
        let go = game.parse_move("go").unwrap();
        let end = game.next_state(&start, &[go]).unwrap();
        assert!(game.is_terminal(&end).unwrap(), "{}", game.engine());
        assert_eq!(game.goals(&end).unwrap(), [100], "{}", game.engine());
    }
}

/// GDL asks for goal values in terminal states only: the error of a state
/// without one does not call it terminal, whether it is or not.
#[test]
fn a_missing_goal_value_is_told_of_the_state_as_it_is() {
    let rules = "(role you) (init (count 0)) (legal you go) \
                 (<= (next (count 1)) (does you go)) \
                 (<= terminal (true (count 1))) (<= (goal you 100) (true (count 2)))\n";
    for mut game in on_both_engines(rules) {
        let start = game.initial_state();
        let you = game.roles()[0];
        let go = game.legal_moves(&start, you).unwrap();
        let end = game.next_state(&start, &go).unwrap();
        for (state, terminal) in [(start, false), (end, true)] {
            assert_eq!(game.is_terminal(&state).unwrap(), terminal);
            let error = game.goals(&state).unwrap_err();
            assert!(matches!(&error, gdl::GameError::NoGoal { role } if role == "you"));
            assert_eq!(error.to_string(), "the state gives you no goal value");
        }
    }
}

/// A game without `init` starts from the empty state and plays (the
/// `no-init` allowance), `(over)` is a fact distinct from `over`, and the
/// allowances are marked as such.
#[test]
fn a_game_without_init_starts_from_the_empty_state() {
    let mut game = gdl::Game::load(crate::path("tests/check/valid/allowances.gdl")).unwrap();
    let allowances: Vec<&str> = (game.warnings().iter())
        .filter(|d| d.is_allowance())
        .map(|d| d.code)
        .collect();
    assert_eq!(
        allowances,
        ["no-init", "unknown-role-goal", "zero-argument-term"]
    );
    let mut state = game.initial_state();
    assert!(state.is_empty());
    let solver = game.roles()[0];
    for _ in 0..2 {
        let moves = game.legal_moves(&state, solver).unwrap();
        state = game.next_state(&state, &moves[..1]).unwrap();
    }
    assert!(game.is_terminal(&state).unwrap());
    assert_eq!(game.goals(&state).unwrap(), [100]);
    // `(over)` came with the last move, and `over` never did.
    assert!(game.state_facts(&state).contains(&"(over)".to_string()));
    assert!(!game.state_facts(&state).contains(&"over".to_string()));
}

/// A relation stratified once split by the constants of its heads plays as
/// its rules say, with both engines: every role scores 0 until one has won,
/// and the values a role does not score are the claims it may make.
#[test]
fn a_relation_split_by_constants_plays_as_written() {
    for max_ground_work in [gdl::Limits::default().max_ground_work, 0] {
        let limits = gdl::Limits {
            max_ground_work,
            ..gdl::Limits::default()
        };
        let path = crate::path("tests/check/valid/split_by_constants.gdl");
        let mut game = gdl::Game::load_with(path, limits).unwrap();
        let a = game.roles()[0];
        let start = game.initial_state();
        let mut legal: Vec<String> = (game.legal_moves(&start, a).unwrap().into_iter())
            .map(|m| game.move_text(m))
            .collect();
        legal.sort();
        assert_eq!(legal, ["(claim 100)", "(claim 50)", "(claim 7)", "noop"]);
        assert_eq!(game.goals(&start).unwrap(), [0, 0], "{}", game.engine());
        let noop = game.parse_move("noop").unwrap();
        let end = game.next_state(&start, &[noop, noop]).unwrap();
        assert!(game.is_terminal(&end).unwrap());
        assert_eq!(game.goals(&end).unwrap(), [100, 0], "{}", game.engine());
    }
}

/// The states of the game of `tests/check/valid/{name}.gdl` when its one
/// role plays its first legal move (in the order of their texts) until the end (at most 5 moves), each
/// as its sorted facts, with the legal moves of the first state and the
/// goals at the end; on the engine `max_ground_work` picks.
fn play_first_moves(name: &str, max_ground_work: u64) -> (Vec<Vec<String>>, Vec<String>, Vec<u8>) {
    let limits = gdl::Limits {
        max_ground_work,
        ..gdl::Limits::default()
    };
    let path = crate::path(&format!("tests/check/valid/{name}.gdl"));
    let mut game = gdl::Game::load_with(path, limits).unwrap();
    let you = game.roles()[0];
    let mut state = game.initial_state();
    let mut legal: Vec<String> = (game.legal_moves(&state, you).unwrap().into_iter())
        .map(|m| game.move_text(m))
        .collect();
    legal.sort();
    let mut states = Vec::new();
    for _ in 0..5 {
        let mut facts = game.state_facts(&state);
        facts.sort();
        states.push(facts);
        if game.is_terminal(&state).unwrap() {
            break;
        }
        let mut moves = game.legal_moves(&state, you).unwrap();
        moves.sort_by_key(|&m| game.move_text(m));
        state = game.next_state(&state, &moves[..1]).unwrap();
    }
    assert!(
        game.is_terminal(&state).unwrap(),
        "{name} on {}",
        game.engine()
    );
    (states, legal, game.goals(&state).unwrap())
}

/// Places that only carry a domain are dropped before planning
/// (`rewrite::domain_places`), and the game plays as written on both
/// engines: `(ready1 ?b)` holds until the last step, whatever the bit;
/// the goal reads the bit from `bit`.
#[test]
fn places_that_only_carry_a_domain_are_dropped() {
    let facts = |fs: &[&str]| fs.iter().map(|f| f.to_string()).collect::<Vec<_>>();
    for max_ground_work in [gdl::Limits::default().max_ground_work, 0] {
        let (states, legal, goals) = play_first_moves("domain_places", max_ground_work);
        assert_eq!(
            states,
            ["(step 1)", "(step 2)", "(step 3)", "(step 4)"].map(|s| facts(&[s]))
        );
        assert_eq!(legal, ["go", "stop"]);
        assert_eq!(goals, [0]);
    }
    let path = crate::path("tests/check/valid/domain_places.gdl");
    let mut game = gdl::Game::load(&path).unwrap();
    let why = game.engine_choice().to_string();
    assert!(
        why.contains("6 places that only carry a domain dropped, of 3 relations"),
        "{why}"
    );
    let plan = game.plan_text();
    assert!(plan.contains("ready2~dom/0"), "{plan}");
    assert!(!plan.contains("ready2/2"), "{plan}");
    // Stopped at step 2, the goal is `score`'s for the bit 1.
    let mut state = game.initial_state();
    for m in ["go", "stop"] {
        let m = game.parse_move(m).unwrap();
        state = game.next_state(&state, &[m]).unwrap();
    }
    assert!(game.is_terminal(&state).unwrap());
    assert_eq!(game.goals(&state).unwrap(), [50]);
}

/// The readings of loose rules play as ggp-base plays them, on both
/// engines: each arity of a name is a relation or a term of its own, a
/// keyword of another arity is an ordinary relation, a `does` of a role
/// that does not play never holds, `(or)` never holds, `base` and
/// `input` defined through the state are not listed, a variable only
/// under `not` is any value, a role variable any role, a head variable
/// only the questions bind is derived for them (one copy of the relation
/// for each way it is asked; a use with a variable read nowhere else asks
/// for some value; its `distinct` and `not` read with the values asked,
/// where ggp-base leaves them out), a fact with a variable holds for the
/// values asked, and a recursion the restriction forbids is evaluated as
/// written.
#[test]
fn loose_rules_play_as_the_reference_reads_them() {
    let facts = |fs: &[&str]| fs.iter().map(|f| f.to_string()).collect::<Vec<_>>();
    for max_ground_work in [gdl::Limits::default().max_ground_work, 0] {
        let (states, _, goals) = play_first_moves("several_arities", max_ground_work);
        assert_eq!(
            states,
            [
                facts(&["(count 0)", "(pos 1 2)"]),
                facts(&["(count 1)", "(pos 1 2 3)"]),
                facts(&["(count 2)", "(mark 1)", "(pos 1 2)"]),
            ]
        );
        assert_eq!(goals, [100]);
        let (states, _, _) = play_first_moves("keyword_as_relation", max_ground_work);
        let counts: Vec<Vec<String>> = ["(count 0)", "(count 1)", "(count 2)"]
            .iter()
            .map(|c| facts(&[c]))
            .collect();
        assert_eq!(states, counts);
        let (states, _, _) = play_first_moves("unknown_role_move", max_ground_work);
        assert_eq!(states, counts[..2]);
        let (_, legal, _) = play_first_moves("empty_or", max_ground_work);
        assert_eq!(legal, ["go"]);
        let (states, _, _) = play_first_moves("unsafe_fact_dropped", max_ground_work);
        assert_eq!(states, counts[..2]);
        let (states, _, _) = play_first_moves("unsafe_rule_never_applies", max_ground_work);
        assert_eq!(states, counts);
        let (states, _, _) = play_first_moves("dynamic_base_input", max_ground_work);
        assert_eq!(states, counts[..2]);
        let (_, legal, _) = play_first_moves("negated_unbound", max_ground_work);
        assert_eq!(legal, ["(mark 1)", "(mark 2)", "go"]);
        let (states, _, _) = play_first_moves("caller_bound", max_ground_work);
        assert_eq!(
            states,
            [
                facts(&["(count 0)"]),
                facts(&["(count 1)"]),
                facts(&["(count 1)", "(mark 1)"])
            ]
        );
        // The goal asks `marked` for some value of its second place.
        let (states, _, goals) = play_first_moves("caller_bound_some_value", max_ground_work);
        assert_eq!(
            states,
            [
                facts(&["(count 0)"]),
                facts(&["(count 1)"]),
                facts(&["(count 1)", "(mark 1)"])
            ]
        );
        assert_eq!(goals, [100]);
        // `sum` subtracts for the legal moves and the count, adds for the
        // bank: each way through a copy of its own.
        let (states, legal, goals) = play_first_moves("caller_bound_patterns", max_ground_work);
        assert_eq!(
            states,
            [
                facts(&["(bank 0)", "(count 3)"]),
                facts(&["(bank 1)", "(count 2)"]),
                facts(&["(bank 2)", "(count 1)"]),
                facts(&["(bank 3)", "(count 0)"]),
            ]
        );
        assert_eq!(legal, ["(take 1)", "(take 2)"]);
        assert_eq!(goals, [100]);
        // `other` reads its `distinct` and `not` with the values asked:
        // once marked, 1 is no longer a legal mark.
        let (states, legal, goals) = play_first_moves("caller_bound_distinct", max_ground_work);
        assert_eq!(
            states,
            [
                facts(&["(count 0)"]),
                facts(&["(count 1)", "(mark 1)"]),
                facts(&["(count 2)", "(mark 1)", "(mark 2)"]),
            ]
        );
        assert_eq!(legal, ["(mark 1)", "(mark 2)"]);
        assert_eq!(goals, [100]);
        // `(same ?x ?x)` holds for the values each question gives.
        let (states, legal, goals) = play_first_moves("unsafe_fact_caller_bound", max_ground_work);
        assert_eq!(
            states,
            [
                facts(&["(count 0)"]),
                facts(&["(count 1)"]),
                facts(&["(count 2)"])
            ]
        );
        assert_eq!(legal, ["(step 1)"]);
        assert_eq!(goals, [100]);
        let (_, legal, _) = play_first_moves("unrestricted_recursion", max_ground_work);
        assert_eq!(legal, ["go", "mark"]);
        // Each role's `legal` and `goal` as if the role were bound.
        let limits = gdl::Limits {
            max_ground_work,
            ..gdl::Limits::default()
        };
        let path = crate::path("tests/check/valid/unbound_role.gdl");
        let mut game = gdl::Game::load_with(path, limits).unwrap();
        let mut state = game.initial_state();
        for turn in [["go", "noop"], ["noop", "go"]] {
            let mut moves = Vec::new();
            for (&role, expected) in game.roles().to_vec().iter().zip(turn) {
                let legal = game.legal_moves(&state, role).unwrap();
                let mut texts: Vec<String> = legal.iter().map(|&m| game.move_text(m)).collect();
                texts.sort();
                assert_eq!(texts, [expected, "wait"], "{}", game.engine());
                moves.push(game.parse_move(expected).unwrap());
            }
            state = game.next_state(&state, &moves).unwrap();
        }
        assert!(game.is_terminal(&state).unwrap());
        assert_eq!(game.goals(&state).unwrap(), [50, 50]);
    }
    let mut game =
        gdl::Game::load(crate::path("tests/check/valid/dynamic_base_input.gdl")).unwrap();
    assert_eq!(game.base_facts().unwrap(), None);
    let you = game.roles()[0];
    assert_eq!(game.input_moves(you).unwrap(), None);
    let mut game =
        gdl::Game::load(crate::path("tests/check/valid/unsafe_fact_dropped.gdl")).unwrap();
    assert_eq!(game.base_facts().unwrap(), None);
}

/// The game of `rules` on both engines: ground where the rules ground,
/// then interpreted (no grounding work allowed).
fn on_both_engines(rules: &str) -> Vec<gdl::Game> {
    let load = |max_ground_work| {
        let limits = gdl::Limits {
            max_ground_work,
            ..gdl::Limits::default()
        };
        gdl::Game::from_source_with("t.gdl", rules, limits).unwrap()
    };
    vec![load(gdl::Limits::default().max_ground_work), load(0)]
}
