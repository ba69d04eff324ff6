//! The order the planner gives a clause body (shown by `Game::plan_text`):
//! the one `does` fact first, no cross product while a literal joined on a
//! bound variable is left, and a recursive clause's own literal early; a
//! literal whose arguments are all bound (a 0-ary guard, say) before any of
//! those; and among the rest, the one whose lookup returns the fewest
//! rows, counted where its facts are known. Costs well under a second in
//! release mode.

use gdl::Game;

/// A game with one rule of each kind: a joint-move rule whose `does`
/// literal is written last, and a rule where, once `(step ?n ?m)` is
/// placed, `(home ?o ?a)` shares no variable with it but has fewer free
/// variables than `(reach ...)`, which joins on `?n` (so the older rule,
/// most bound positions and fewest free variables, made a cross product).
/// `reach` has more facts than `step` and `home`, so that the relation of
/// fewest facts is not the one a body starts from by chance.
const RULES: &str = "
(role p)
(init (at 1))
(step 1 2) (step 2 3)
(home 1 2) (home 2 3)
(reach 1 2 1 a b c d e) (reach 2 3 2 a b c d e) (reach 1 3 2 a b c d e)
(<= (legal p (go ?a)) (true (at ?o)) (home ?o ?a))
(<= (next (at ?a)) (true (at ?o)) (home ?o ?a) (does ?r (go ?a)))
(<= (far ?o ?m) (step ?n ?m) (home ?o ?a) (reach ?o ?a ?n ?v ?w ?x ?y ?z))
(<= (walk ?a ?b) (home ?a ?b))
(<= (walk ?a ?c) (home ?b ?c) (walk ?a ?b))
(<= ready (true (at 1)))
(<= (hop ?a ?c) (home ?a ?b) (reach ?a ?b ?a ?b ?a ?b ?c ?d) (step ?a ?b) ready)
(<= terminal (hop 1 2))
(<= terminal (far 1 3))
(<= terminal (walk 1 3))
(<= (goal p 100) terminal)
";

/// The step lines of the first rule whose head is `head`.
fn steps_of(plan: &str, head: &str) -> Vec<String> {
    plan.lines()
        .skip_while(|l| l.trim() != format!("rule {head}"))
        .skip(1)
        .take_while(|l| !l.trim_start().starts_with("rule") && !l.starts_with("stratum"))
        .map(|l| l.trim().to_string())
        .collect()
}

#[test]
fn does_first_then_joined_literals_then_the_recursive_one() {
    let game = Game::from_source("plan_order.gdl", RULES).expect("the rules load");
    let plan = game.plan_text();
    let next = steps_of(&plan, "(next/1 (at ?a))");
    assert!(next[0].starts_with("scan (does/2 ?r (go ?a))"), "{plan}");
    let far = steps_of(&plan, "(far/2 ?o ?m)");
    assert_eq!(far.len(), 3, "{plan}");
    assert!(far[0].starts_with("scan (step/2 ?n ?m)"), "{plan}");
    // reach shares ?n with step; home shares nothing until reach binds ?o ?a.
    assert!(far[1].starts_with("scan (reach/8 ?o ?a ?n "), "{plan}");
    assert!(
        far[2].starts_with("scan (home/2 ?o ?a) via index"),
        "{plan}"
    );
}

/// `hop` writes its 0-ary guard `ready` last, and `(step ?a ?b)`, all bound
/// once `home` is placed, after `reach`, which then has more bound
/// positions: the guard goes first, the test of one fact right after
/// `home`.
#[test]
fn literals_with_every_argument_bound_go_first() {
    let game = Game::from_source("plan_order.gdl", RULES).expect("the rules load");
    let plan = game.plan_text();
    let hop = steps_of(&plan, "(hop/2 ?a ?c)");
    assert_eq!(hop.len(), 4, "{plan}");
    assert!(hop[0].starts_with("scan (ready/0 )"), "{plan}");
    assert!(hop[1].starts_with("scan (home/2 ?a ?b)"), "{plan}");
    assert!(
        hop[2].starts_with("scan (step/2 ?a ?b) via index"),
        "{plan}"
    );
    assert!(hop[3].starts_with("scan (reach/8 ?a ?b "), "{plan}");
}

/// Chess's knights, in small: `(jump ?p ?u ?v ?x ?y ?r)`, bound on two
/// places once `piece` is placed, returns every jump of the board for the
/// piece (8 rows here), where `(true (cell ?u ?v ?p))`, bound on one,
/// returns the squares of the piece (1 row in the initial state, the
/// state's sample): the planner counts them and joins the cell first, then
/// the jumps from its square (2 rows). Ranked by bound places alone, the jumps came
/// first. `gdl plan` prints the rows it counted.
const KNIGHTS: &str = "
(role white)
(init (cell 1 1 wn)) (init (cell 3 1 bn))
(piece wn white knight)
(jump wn 1 1 2 3 white) (jump wn 1 1 3 2 white) (jump wn 2 2 3 1 white) (jump wn 2 2 1 3 white)
(jump wn 3 3 1 2 white) (jump wn 3 3 2 1 white) (jump wn 2 1 3 3 white) (jump wn 2 1 1 3 white)
(<= (legal ?r (go ?u ?v ?x ?y))
    (piece ?p ?r knight)
    (jump ?p ?u ?v ?x ?y ?r)
    (true (cell ?u ?v ?p)))
(<= (next (cell ?x ?y ?p)) (does ?r (go ?u ?v ?x ?y)) (true (cell ?u ?v ?p)))
(<= terminal (true (cell 3 3 wn)))
(<= (goal white 100) terminal)
(<= (goal white 0) (not terminal))
";

#[test]
fn the_literal_of_fewer_rows_counted_goes_first() {
    let game = Game::from_source("knights.gdl", KNIGHTS).expect("the rules load");
    let plan = game.plan_text();
    let legal = steps_of(&plan, "(legal/2 ?r (go ?u ?v ?x ?y))");
    assert_eq!(legal.len(), 3, "{plan}");
    assert!(
        legal[0].starts_with("scan (piece/3 ?p ?r knight)"),
        "{plan}"
    );
    assert!(
        legal[1].starts_with("scan (true/1 (cell ?u ?v ?p)) via index")
            && legal[1].ends_with(", ~1.0 rows"),
        "{plan}"
    );
    assert!(
        legal[2].starts_with("scan (jump/6 ?p ?u ?v ?x ?y ?r) via index")
            && legal[2].ends_with(", ~2.0 rows"),
        "{plan}"
    );
}
