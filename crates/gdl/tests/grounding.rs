//! Grounding as propnet builders do it: what a game can reach found in one
//! semi-naive fixpoint, however many moves it takes to reach it, and rules
//! condensed so that their conditions on the move are ground once per cell
//! rather than once per piece and move; the ground game plays as the
//! interpreter does.

use gdl::{Engine, Game, Limits};
use rand::{Rng, SeedableRng};

/// Three walkers on a 6 by 6 board for 2,000 steps, each move one walker
/// to a free neighbouring cell; the frame rule keeps a walker where the
/// move neither leaves nor enters its cell (as skirmish's does), and the
/// step counter reaches its last value only after 2,000 rounds of the
/// relaxed fixpoint. Derived again from the start every round, the fixpoint
/// cost some 70 million rounds of joins and the game fell to the
/// interpreter after 7 s of load.
fn walkers() -> String {
    let (n, steps) = (6, 2000);
    let mut rules = String::from("(role r) (init (step 0))\n");
    rules.push_str("(init (at 1 1 a)) (init (at 3 3 b)) (init (at 6 6 c))\n");
    for i in 1..=n {
        rules.push_str(&format!("(index {i})\n"));
        if i < n {
            rules.push_str(&format!("(plus {i} {})\n", i + 1));
        }
    }
    for i in 0..steps {
        rules.push_str(&format!("(succ {i} {})\n", i + 1));
    }
    rules.push_str(
        "(<= (cell ?x ?y) (index ?x) (index ?y))
         (<= (adjacent ?x ?y ?x ?z) (index ?x) (plus ?y ?z))
         (<= (adjacent ?x ?y ?x ?z) (index ?x) (plus ?z ?y))
         (<= (adjacent ?x ?y ?z ?y) (index ?y) (plus ?x ?z))
         (<= (adjacent ?x ?y ?z ?y) (index ?y) (plus ?z ?x))
         (<= (apart ?x1 ?y1 ?x2 ?y2) (cell ?x1 ?y1) (cell ?x2 ?y2) (distinct ?x1 ?x2))
         (<= (apart ?x1 ?y1 ?x2 ?y2) (cell ?x1 ?y1) (cell ?x2 ?y2) (distinct ?y1 ?y2))
         (<= (occupied ?x ?y) (true (at ?x ?y ?p)))
         (<= (legal r (move ?a ?b ?c ?d))
             (true (at ?a ?b ?p)) (adjacent ?a ?b ?c ?d) (not (occupied ?c ?d)))
         (<= (next (at ?c ?d ?p)) (does r (move ?a ?b ?c ?d)) (true (at ?a ?b ?p)))
         (<= (next (at ?x ?y ?p)) (true (at ?x ?y ?p)) (does r (move ?a ?b ?c ?d))
             (apart ?x ?y ?a ?b) (apart ?x ?y ?c ?d))
         (<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))",
    );
    rules.push_str(&format!("(<= terminal (true (step {steps})))\n"));
    rules.push_str("(<= (goal r 100) (true (at 6 1 ?p)))\n(<= (goal r 0) (not (goal r 100)))\n");
    rules
}

#[test]
fn a_game_reaching_its_facts_over_thousands_of_moves_grounds_condensed() {
    let game = Game::from_source("walkers.gdl", &walkers()).expect("loads");
    let Engine::Ground { atoms, rules } = game.engine() else {
        panic!("walkers does not ground: {:?}", game.engine());
    };
    // 36 cells by 3 walkers, 2,001 steps, the 120 moves and the condensed
    // relation of the cells no move touches. As written, the frame rule
    // alone had one ground rule per walker on a cell and move, some 13,000
    // (108 by 120, less those touching the cell); condensed it has one per
    // cell and move and one per walker on a cell.
    assert!(atoms < 6_000, "{atoms} atoms");
    assert!(rules < 10_000, "{rules} ground rules");
    // `gdl plan` shows the rules as written.
    let plan = game.plan_text();
    assert!(!plan.contains("next.1/2"), "{plan}");
}

#[test]
fn the_condensed_ground_game_plays_as_the_interpreter() {
    let mut ground = Game::from_source("walkers.gdl", &walkers()).expect("loads");
    assert!(matches!(ground.engine(), Engine::Ground { .. }));
    let off = gdl::LoadOptions {
        limits: Limits::default(),
        engine: gdl::EngineChoice::Interpreter,
    };
    let mut interpreted = Game::from_source_with("walkers.gdl", &walkers(), off).expect("loads");
    assert_eq!(interpreted.engine(), Engine::Interpreter);
    let mut rng = rand_pcg::Pcg64::seed_from_u64(5);
    let (r, mut a, mut b) = (
        ground.roles()[0],
        ground.initial_state(),
        interpreted.initial_state(),
    );
    for step in 0..150 {
        let texts = |g: &mut Game, s| -> Vec<String> {
            let mut t: Vec<String> = (g.legal_moves(s, r).expect("legal").iter())
                .map(|&m| g.move_text(m))
                .collect();
            t.sort();
            t
        };
        let moves = texts(&mut ground, &a);
        assert_eq!(
            moves,
            texts(&mut interpreted, &b),
            "legal moves at step {step}"
        );
        let chosen = &moves[rng.gen_range(0..moves.len())];
        let pick = |g: &mut Game, s| {
            let all = g.legal_moves(s, r).expect("legal");
            *all.iter()
                .find(|&&m| &g.move_text(m) == chosen)
                .expect("the move")
        };
        let (ma, mb) = (pick(&mut ground, &a), pick(&mut interpreted, &b));
        a = ground.next_state(&a, &[ma]).expect("next");
        b = interpreted.next_state(&b, &[mb]).expect("next");
        assert_eq!(
            ground.state_facts(&a),
            interpreted.state_facts(&b),
            "state after step {step}"
        );
    }
}

/// Skirmish with holes (`rules/skirmish_holes.gdl`) on a 16 by 16 board:
/// 111,724 atoms, past the count of atoms loading first tries (100,000).
fn skirmish_16() -> String {
    let text = std::fs::read_to_string(crate::path("rules/skirmish_holes.gdl")).unwrap();
    let eight: String = (1..=8)
        .map(|i| format!("(index {i})"))
        .collect::<Vec<_>>()
        .join(" ");
    let sixteen: String = (1..=16)
        .map(|i| format!("(index {i})"))
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        text.contains(&eight),
        "the board's coordinates are one line"
    );
    text.replace(&eight, &sixteen)
}

#[test]
fn a_game_past_the_first_count_of_atoms_grounds_within_its_memory_share() {
    let mut ground = Game::from_source("skirmish16.gdl", &skirmish_16()).expect("loads");
    let Engine::Ground { atoms, .. } = ground.engine() else {
        panic!("a 16 by 16 skirmish does not ground: {:?}", ground.engine());
    };
    assert!(atoms > 100_000, "{atoms} atoms");
    // A count of atoms, where the caller sets one, still bounds it.
    let counted = Limits {
        max_ground_atoms: 100_000,
        ..Limits::default()
    };
    let game = Game::from_source_with("skirmish16.gdl", &skirmish_16(), counted).expect("loads");
    assert_eq!(game.engine(), Engine::Interpreter);
    // The ground game plays as the interpreter does.
    let off = gdl::LoadOptions {
        limits: Limits::default(),
        engine: gdl::EngineChoice::Interpreter,
    };
    let mut interpreted = Game::from_source_with("skirmish16.gdl", &skirmish_16(), off).unwrap();
    let mut rng = rand_pcg::Pcg64::seed_from_u64(16);
    let (mut a, mut b) = (ground.initial_state(), interpreted.initial_state());
    for step in 0..40 {
        if ground.is_terminal(&a).unwrap() {
            break;
        }
        let mut joint = Vec::new();
        for role in ground.roles() {
            let texts = |g: &mut Game, s| -> Vec<String> {
                let mut t: Vec<String> = (g.legal_moves(s, role).expect("legal").iter())
                    .map(|&m| g.move_text(m))
                    .collect();
                t.sort();
                t
            };
            let moves = texts(&mut ground, &a);
            assert_eq!(moves, texts(&mut interpreted, &b), "legal at step {step}");
            joint.push(moves[rng.gen_range(0..moves.len())].clone());
        }
        let parse = |g: &mut Game| -> Vec<_> {
            joint
                .iter()
                .map(|m| g.parse_move(m).expect("a move"))
                .collect()
        };
        let (ja, jb) = (parse(&mut ground), parse(&mut interpreted));
        a = ground.next_state(&a, &ja).expect("next");
        b = interpreted.next_state(&b, &jb).expect("next");
        assert_eq!(
            ground.state_facts(&a),
            interpreted.state_facts(&b),
            "step {step}"
        );
    }
}
