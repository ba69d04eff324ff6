//! Escort breakthrough (seed 001): random playouts, the oracle side by side
//! with the rules file, and hand-checked games pinning each rule.

use gdl_oracles::escort_breakthrough;
use gdl_oracles::games;
use gdl_oracles::oracle;

use escort_breakthrough::EscortBreakthrough;
use games::{legal, moves_from, play};

const RULES: &str = "rules/escort_breakthrough.gdl";

#[test]
fn initial_position_and_moves() {
    let mut game = games::load(RULES);
    let state = game.initial_state();
    let facts = game.state_facts(&state);
    assert!(facts.contains(&"(cell d 1 wk)".to_string()));
    assert!(facts.contains(&"(cell d 8 bk)".to_string()));
    assert!(facts.contains(&"(step 1)".to_string()));
    assert!(facts.contains(&"(control white)".to_string()));
    assert_eq!(facts.len(), 8 + 8 + 2 + 2);
    // Eight pawns: straight plus one or two diagonals (all empty) = 22.
    // The king on d1 is boxed in by its pawns on c2 d2 e2 but may go to c1
    // or e1 sideways.
    let white = legal(&mut game, &state, 0);
    assert_eq!(white.len(), 22 + 2, "{white:?}");
    assert_eq!(
        moves_from(&white, "d 1"),
        ["(move d 1 c 1)", "(move d 1 e 1)"]
    );
    assert_eq!(legal(&mut game, &state, 1), ["noop"]);
}

/// Pins: a pawn moves straight only into an empty cell; it moves diagonally
/// onto an empty cell or captures diagonally.
const PAWN_BLOCKED_AND_CAPTURE: &[[&str; 2]] = &[
    ["(move e 2 e 3)", "noop"],
    ["noop", "(move e 7 e 6)"],
    ["(move e 3 e 4)", "noop"],
    ["noop", "(move e 6 e 5)"],
    ["(move d 2 d 3)", "noop"],
    ["noop", "(move a 7 a 6)"],
    ["(move d 3 d 4)", "noop"],
    // The black pawn on e5 captures the white pawn on d4 diagonally.
    ["noop", "(move e 5 d 4)"],
];

#[test]
fn pawn_straight_blocked_diagonal_capture() {
    let mut game = games::load(RULES);
    // After e2-e3 e7-e6 e3-e4 e6-e5 the pawns on e4 and e5 face each other:
    // neither may step straight, both may step diagonally.
    let state = play(&mut game, &PAWN_BLOCKED_AND_CAPTURE[..4]);
    let white = legal(&mut game, &state, 0);
    assert_eq!(
        moves_from(&white, "e 4"),
        ["(move e 4 d 5)", "(move e 4 f 5)"]
    );
    // Before the capture: the black pawn on e5 sees d4 (a white pawn), f4
    // (empty), and not e4.
    let state = play(&mut game, &PAWN_BLOCKED_AND_CAPTURE[..7]);
    let black = legal(&mut game, &state, 1);
    assert_eq!(
        moves_from(&black, "e 5"),
        ["(move e 5 d 4)", "(move e 5 f 4)"]
    );
    let state = play(&mut game, PAWN_BLOCKED_AND_CAPTURE);
    let facts = game.state_facts(&state);
    assert!(facts.contains(&"(cell d 4 bp)".to_string()));
    assert!(!facts.contains(&"(cell e 5 bp)".to_string()));
    assert_eq!(facts.iter().filter(|f| f.ends_with(" wp)")).count(), 7);
    assert!(!game.is_terminal(&state).unwrap());
    insta::assert_snapshot!(
        "pawn_straight_blocked_diagonal_capture",
        games::trace(&mut game, PAWN_BLOCKED_AND_CAPTURE)
    );
}

/// Pins: capturing the enemy king ends the game and the capturer wins; the
/// king moves sideways and forward, not backward; a king may capture.
const KING_CAPTURE: &[[&str; 2]] = &[
    ["(move e 2 e 3)", "noop"],
    ["noop", "(move a 7 a 6)"],
    ["(move e 3 e 4)", "noop"],
    ["noop", "(move a 6 a 5)"],
    ["(move e 4 e 5)", "noop"],
    ["noop", "(move a 5 a 4)"],
    ["(move e 5 e 6)", "noop"],
    ["noop", "(move a 4 a 3)"],
    ["(move e 6 d 7)", "noop"],
    // The black king steps aside instead of taking the pawn on d7...
    ["noop", "(move d 8 e 8)"],
    // ...and the pawn captures it.
    ["(move d 7 e 8)", "noop"],
];

#[test]
fn king_capture_wins() {
    let mut game = games::load(RULES);
    let state = play(&mut game, &KING_CAPTURE[..9]);
    // Black's king on d8: sideways c8 and e8, forward d7 (the white pawn,
    // captured); c7 and e7 hold its own pawns; nothing backward.
    let black = legal(&mut game, &state, 1);
    assert_eq!(
        moves_from(&black, "d 8"),
        ["(move d 8 c 8)", "(move d 8 d 7)", "(move d 8 e 8)"]
    );
    let before = play(&mut game, &KING_CAPTURE[..10]);
    assert!(!game.is_terminal(&before).unwrap());
    let white = legal(&mut game, &before, 0);
    // The pawn on d7 may now also step straight to the emptied d8.
    assert_eq!(
        moves_from(&white, "d 7"),
        ["(move d 7 c 8)", "(move d 7 d 8)", "(move d 7 e 8)"]
    );
    let end = play(&mut game, KING_CAPTURE);
    assert!(game.is_terminal(&end).unwrap());
    assert_eq!(game.goals(&end).unwrap(), [100, 0]);
    assert!(!game.state_facts(&end).iter().any(|f| f.ends_with(" bk)")));
    insta::assert_snapshot!("king_capture_wins", games::trace(&mut game, KING_CAPTURE));
}

/// Pins: a king on the far rank wins; kings capture straight ahead (pawns
/// cannot); the king never steps backward.
const KING_REACHES_FAR_RANK: &[[&str; 2]] = &[
    ["(move d 2 d 3)", "noop"],
    ["noop", "(move a 7 a 6)"],
    ["(move d 3 d 4)", "noop"],
    ["noop", "(move a 6 a 5)"],
    ["(move d 1 d 2)", "noop"],
    ["noop", "(move a 5 a 4)"],
    ["(move d 2 d 3)", "noop"],
    ["noop", "(move a 4 a 3)"],
    ["(move d 3 e 4)", "noop"],
    ["noop", "(move b 7 b 6)"],
    ["(move e 4 e 5)", "noop"],
    ["noop", "(move b 6 b 5)"],
    ["(move e 5 e 6)", "noop"],
    ["noop", "(move b 5 b 4)"],
    // The king captures the pawn straight ahead on e7.
    ["(move e 6 e 7)", "noop"],
    // Black could take the king with its own (d8-e7); it does not.
    ["noop", "(move h 7 h 6)"],
    ["(move e 7 e 8)", "noop"],
];

#[test]
fn king_on_far_rank_wins() {
    let mut game = games::load(RULES);
    // The white king on e4: forward d5 e5 f5, sideways f4 (d4 holds its own
    // pawn), nothing on rank 3 behind it.
    let state = play(&mut game, &KING_REACHES_FAR_RANK[..10]);
    let white = legal(&mut game, &state, 0);
    assert_eq!(
        moves_from(&white, "e 4"),
        [
            "(move e 4 d 5)",
            "(move e 4 e 5)",
            "(move e 4 f 4)",
            "(move e 4 f 5)"
        ]
    );
    let state = play(&mut game, &KING_REACHES_FAR_RANK[..14]);
    let white = legal(&mut game, &state, 0);
    assert!(white.contains(&"(move e 6 e 7)".to_string()));
    let state = play(&mut game, &KING_REACHES_FAR_RANK[..15]);
    let black = legal(&mut game, &state, 1);
    assert!(black.contains(&"(move d 8 e 7)".to_string()), "{black:?}");
    let end = play(&mut game, KING_REACHES_FAR_RANK);
    assert!(game.is_terminal(&end).unwrap());
    assert_eq!(game.goals(&end).unwrap(), [100, 0]);
    assert!(
        game.state_facts(&end)
            .contains(&"(cell e 8 wk)".to_string())
    );
    insta::assert_snapshot!(
        "king_on_far_rank_wins",
        games::trace(&mut game, KING_REACHES_FAR_RANK)
    );
}

/// Sixty turns of the kings stepping sideways and back.
fn king_shuffle() -> Vec<[&'static str; 2]> {
    (1..=60)
        .map(|turn| match turn % 4 {
            1 => ["(move d 1 e 1)", "noop"],
            2 => ["noop", "(move d 8 e 8)"],
            3 => ["(move e 1 d 1)", "noop"],
            _ => ["noop", "(move e 8 d 8)"],
        })
        .collect()
}

/// Pins: the step counter starts at 1 and the game ends at step 61, a draw
/// when nobody has won; kings step sideways.
#[test]
fn step_61_ends_in_a_draw() {
    let mut game = games::load(RULES);
    let moves = king_shuffle();
    let state = play(&mut game, &moves[..59]);
    assert!(game.state_facts(&state).contains(&"(step 60)".to_string()));
    assert!(!game.is_terminal(&state).unwrap());
    assert_eq!(game.goals(&state).unwrap(), [50, 50]);
    let end = play(&mut game, &moves);
    assert!(game.state_facts(&end).contains(&"(step 61)".to_string()));
    assert!(game.is_terminal(&end).unwrap());
    assert_eq!(game.goals(&end).unwrap(), [50, 50]);
    let trace = games::trace(&mut game, &moves);
    // The whole trace is sixty boards alike; the snapshot keeps its end.
    let tail = games::last_lines(&trace, 40);
    insta::assert_snapshot!("step_61_ends_in_a_draw", tail);
}

#[test]
fn random_playouts_end_well() {
    let seen = oracle::random_playouts(RULES, 1000, 1, 61);
    assert_eq!(seen.games, 1000);
    assert!(seen.longest <= 60);
}

#[test]
fn agrees_with_oracle() {
    let seen = oracle::compare::<EscortBreakthrough>(RULES, 500, 7, 61);
    assert_eq!(seen.games, 500);
}
