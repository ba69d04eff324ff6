//! Derivation on demand (`plan::demand`): a relation too large to derive
//! whole (over a million facts), of which the rules only ask bound
//! questions, is derived for the questions asked, and the game plays as
//! the rules say. Costs about a second in release mode (the million facts
//! derived before the relation is found too large).

use gdl::{Game, Limits};

/// A walk along 1,100 numbers whose legal step asks `(pair ?a ?b)`, the
/// 1,210,000 pairs of numbers, always with both places bound.
fn walk() -> String {
    let mut rules = String::from("(role p)\n(init (at 0))\n");
    for i in 0..1100 {
        rules.push_str(&format!("(n {i}) (succ {i} {})\n", i + 1));
    }
    rules.push_str(
        "(<= (pair ?a ?b) (n ?a) (n ?b))
         (<= (legal p (go ?b)) (true (at ?a)) (succ ?a ?b) (pair ?a ?b))
         (<= (next (at ?b)) (does p (go ?b)))
         (<= terminal (true (at 3)))
         (<= (goal p 100) (true (at 3)))
         (<= (goal p 0) (not (true (at 3))))",
    );
    rules
}

#[test]
fn a_huge_relation_asked_bound_is_derived_on_demand() {
    let mut game = Game::from_source("walk.gdl", &walk()).expect("loads");
    let plan = game.plan_text();
    assert!(
        plan.contains("pair?/2"),
        "pair is not derived on demand:\n{plan}"
    );
    // The questions first, as a top-down prover starts from them: not
    // every number, each then asked about.
    let rule = plan
        .lines()
        .skip_while(|l| l.trim() != "rule (pair/2 ?a ?b)")
        .nth(1)
        .unwrap_or_default();
    assert!(rule.trim().starts_with("scan (pair?/2 ?a ?b)"), "{plan}");
    let p = game.roles()[0];
    let mut state = game.initial_state();
    for step in 1..=3 {
        let moves = game.legal_moves(&state, p).expect("legal moves");
        let texts: Vec<String> = moves.iter().map(|&m| game.move_text(m)).collect();
        assert_eq!(texts, [format!("(go {step})")], "at step {step}");
        state = game.next_state(&state, &[moves[0]]).expect("next state");
    }
    assert!(game.is_terminal(&state).expect("terminal"));
}

/// A counter game whose goal asks `(far 1 2 3)` and `(far 4 5 6)` of a
/// relation of the state that pairs every three of 60 numbers, each apart
/// from the next, while a light is on: 208,860 facts a state derived
/// whole, too many atoms to ground. (Without the `distinct`s, no place
/// would decide whether `far` holds, and loading would drop them all:
/// `rewrite::domain_places`.)
fn lights() -> String {
    let mut rules = String::from("(role p)\n(init (count 0))\n(init on)\n");
    for i in 0..60 {
        rules.push_str(&format!("(n {i}) (succ {i} {})\n", i + 1));
    }
    rules.push_str(
        "(<= (far ?a ?b ?c) (true on) (n ?a) (n ?b) (n ?c)
             (distinct ?a ?b) (distinct ?b ?c))
         (legal p tick)
         (<= (next (count ?m)) (true (count ?k)) (succ ?k ?m))
         (next on)
         (<= terminal (true (count 5)))
         (<= (goal p 100) (far 1 2 3) (far 4 5 6))
         (<= (goal p 0) (not (goal p 100)))",
    );
    rules
}

/// A counter game whose goal asks `(chosen ?a)` for each of 60 numbers:
/// derived on demand, `chosen` would look at its 60 questions in every
/// state where the rules as written look at the one number picked.
fn pick() -> String {
    let mut rules = String::from("(role p)\n(init (count 0))\n(init (pick 7))\n");
    for i in 0..60 {
        rules.push_str(&format!("(n {i}) (succ {i} {})\n", i + 1));
    }
    rules.push_str(
        "(<= (chosen ?a) (true (pick ?a)) (n ?a))
         (legal p tick)
         (<= (next (count ?m)) (true (count ?k)) (succ ?k ?m))
         (<= (next (pick ?a)) (true (pick ?a)))
         (<= terminal (true (count 5)))
         (<= (goal p 100) (n ?a) (chosen ?a))
         (<= (goal p 0) (not (goal p 100)))",
    );
    rules
}

/// Plays `game` to its end by its only move, giving the goal.
fn play_out(game: &mut Game) -> u8 {
    let p = game.roles()[0];
    let mut state = game.initial_state();
    while !game.is_terminal(&state).expect("terminal") {
        let moves = game.legal_moves(&state, p).expect("legal moves");
        state = game.next_state(&state, &moves).expect("next state");
    }
    game.goals(&state).expect("goals")[0]
}

/// Where grounding fails (here on purpose), a relation of the state asked
/// fixed questions is derived for them when that costs less.
#[test]
fn a_relation_of_the_state_asked_fixed_questions_is_derived_for_them() {
    let mut game = Game::from_source("lights.gdl", &lights()).expect("loads");
    let plan = game.plan_text();
    assert!(
        plan.contains("far?/3"),
        "far is not derived on demand:\n{plan}"
    );
    assert_eq!(play_out(&mut game), 100);
}

/// The same transformation is measured against the rules as written and
/// dropped when it costs more.
#[test]
fn demand_that_costs_more_keeps_the_rules_as_written() {
    let limits = Limits {
        max_ground_atoms: 10,
        ..Limits::default()
    };
    let mut game = Game::from_source_with("pick.gdl", &pick(), limits).expect("loads");
    let plan = game.plan_text();
    assert!(
        !plan.contains("chosen?/1"),
        "a demand of every number costs more than it saves:\n{plan}"
    );
    assert_eq!(play_out(&mut game), 100);
    let limits = gdl::LoadOptions {
        limits,
        engine: gdl::EngineChoice::Interpreter,
    };
    let game = Game::from_source_with("lights.gdl", &lights(), limits).expect("loads");
    assert!(
        !game.plan_text().contains("?/"),
        "with grounding off (as `gdl check` loads) the rules are as written"
    );
}

/// Lists of up to 25 elements over 25 (`isList`, finite but some 25^25
/// facts), of which the rules ask only the list a state holds: derived on
/// demand, the demand being the state's list and its tails (as
/// laikLee_hex's `isList`, refused by earlier versions). Its name shows as
/// written. About 3 s in release mode: the probe derives a million facts
/// before `isList` is found too large.
#[test]
fn a_recursive_relation_over_lists_is_derived_for_the_lists_asked() {
    let mut rules = String::from("(role p)\n(init (path nil))\n");
    for i in 0..25 {
        rules.push_str(&format!("(elem e{i}) (succ {i} {})\n", i + 1));
    }
    rules.push_str(
        "(<= (isList nil 0))
         (<= (isList (cons ?h ?t) ?n) (succ ?m ?n) (elem ?h) (isList ?t ?m))
         (<= (legal p (add ?e)) (elem ?e) (true (path ?l)) (isList ?l ?n) (succ ?n ?k))
         (<= (next (path (cons ?e ?l))) (does p (add ?e)) (true (path ?l)))
         (<= terminal (true (path ?l)) (isList ?l 5))
         (goal p 100)",
    );
    let mut game = Game::from_source("lists.gdl", &rules).expect("loads");
    let plan = game.plan_text();
    // Asked left to right, as written: by the list alone, its length
    // derived (`(isList ?l ?n) (succ ?n ?k)` does not ask for each ?n).
    assert!(
        plan.contains("isList?/1"),
        "isList is not derived on demand:\n{plan}"
    );
    let p = game.roles()[0];
    let mut state = game.initial_state();
    for step in 0..5 {
        assert!(!game.is_terminal(&state).unwrap(), "step {step}");
        let moves = game.legal_moves(&state, p).expect("legal moves");
        assert_eq!(moves.len(), 25, "step {step}");
        state = game.next_state(&state, &moves[..1]).expect("next state");
    }
    assert!(game.is_terminal(&state).unwrap());
    assert_eq!(game.goals(&state).unwrap(), [100]);
}

/// A walk whose legal move asks `(reach ?a ?b)`, every pair of two of 60
/// numbers while the count runs (3,540 facts a state derived whole), only
/// from the square the state holds: derived on demand, 59 facts a state.
/// (Without the `distinct`, no place would decide whether `reach` holds,
/// and loading would drop them: `rewrite::domain_places`.)
fn reach() -> String {
    let mut rules = String::from("(role p)\n(init (at 0))\n(init (count 0))\n");
    for i in 0..60 {
        rules.push_str(&format!("(n {i}) (succ {i} {})\n", i + 1));
    }
    rules.push_str(
        "(<= (reach ?a ?b) (true (count ?c)) (n ?a) (n ?b) (distinct ?a ?b))
         (<= (legal p (go ?b)) (true (at ?a)) (reach ?a ?b) (succ ?a ?b))
         (<= (next (at ?b)) (does p (go ?b)))
         (<= (next (count ?m)) (true (count ?k)) (succ ?k ?m))
         (<= terminal (true (count 5)))
         (<= (goal p 100) (true (at 5)))
         (<= (goal p 0) (not (true (at 5))))",
    );
    rules
}

/// Where grounding fails (here on purpose), a relation of the state asked
/// questions that the state binds is derived for them when that costs
/// less, and plays as the rules as written do.
#[test]
fn a_relation_of_the_state_asked_what_the_state_binds_is_derived_for_it() {
    let limits = Limits {
        max_ground_atoms: 10,
        ..Limits::default()
    };
    let mut game = Game::from_source_with("reach.gdl", &reach(), limits).expect("loads");
    let plan = game.plan_text();
    assert!(
        plan.contains("reach?/1"),
        "reach is not derived on demand:\n{plan}"
    );
    let written = gdl::LoadOptions {
        limits,
        engine: gdl::EngineChoice::Interpreter,
    };
    let mut as_written = Game::from_source_with("reach.gdl", &reach(), written).expect("loads");
    assert!(!as_written.plan_text().contains("?/"));
    let p = game.roles()[0];
    let (mut state, mut other) = (game.initial_state(), as_written.initial_state());
    for step in 0..5 {
        let moves = game.legal_moves(&state, p).expect("legal moves");
        let texts: Vec<String> = moves.iter().map(|&m| game.move_text(m)).collect();
        let theirs = as_written.legal_moves(&other, p).expect("legal moves");
        let their_texts: Vec<String> = theirs.iter().map(|&m| as_written.move_text(m)).collect();
        assert_eq!(texts, their_texts, "step {step}");
        assert_eq!(texts, [format!("(go {})", step + 1)], "step {step}");
        state = game.next_state(&state, &moves).expect("next state");
        other = as_written.next_state(&other, &theirs).expect("next state");
    }
    assert!(game.is_terminal(&state).unwrap());
    assert_eq!(game.goals(&state).unwrap(), [100]);
}
