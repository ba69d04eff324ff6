//! Mad Bishops (seed 002): random playouts, the oracle side by side with the
//! rules file, and hand-checked games pinning each rule.

use gdl_oracles::games;
use gdl_oracles::mad_bishops;
use gdl_oracles::oracle;
use gdl_oracles::side_by_side;

use games::{alternating, legal, moves_from};
use mad_bishops::{MadBishops, Move};
use oracle::{Oracle, ROLES};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use side_by_side::{in_turn, play};

const RULES: &str = "rules/mad_bishops.gdl";

/// The text has no step limit; 100,000 random games of these rules ended
/// after 62 steps on average, 78 at most, far below this.
const MAX_STEPS: usize = 1000;

/// Whether `m` is a non-capturing slide (its target is empty).
fn is_slide(game: &MadBishops, m: &Move) -> bool {
    match m {
        Move::Slide { to, .. } => game.owner(*to).is_none(),
        Move::Noop => false,
    }
}

/// The role in control: the one whose moves are not just `noop`.
fn mover(game: &MadBishops) -> usize {
    usize::from(game.legal(0) == [Move::Noop])
}

/// Plays one move of the player in control on the oracle (the other plays
/// noop).
fn apply(game: &mut MadBishops, m: Move) {
    let mut joint = [Move::Noop; 2];
    joint[mover(game)] = m;
    game.apply(&joint);
}

#[test]
fn initial_position_and_moves() {
    let mut game = games::load(RULES);
    let state = game.initial_state();
    let facts = game.state_facts(&state);
    assert_eq!(facts.len(), 50 + 1);
    for fact in [
        "(cell a 1 white)",
        "(cell i 9 white)",
        "(cell b 2 black)",
        "(cell j 10 black)",
    ] {
        assert!(facts.contains(&fact.to_string()), "{fact}");
    }
    assert!(!facts.iter().any(|f| f.starts_with("(cell a 2 ")));
    assert!(facts.contains(&"(control white)".to_string()));
    // Every bishop touches enemies only, so every white move captures a
    // diagonal neighbour: 81 touching pairs of the 50 cells.
    let white = legal(&mut game, &state, 0);
    assert_eq!(white.len(), 81);
    assert_eq!(moves_from(&white, "a 1"), ["(move a 1 b 2)"]);
    assert_eq!(
        moves_from(&white, "e 5"),
        [
            "(move e 5 d 4)",
            "(move e 5 d 6)",
            "(move e 5 f 4)",
            "(move e 5 f 6)"
        ]
    );
    assert_eq!(legal(&mut game, &state, 1), ["noop"]);
}

/// Pins: capture of a threatened piece (over empty cells too); a bishop that
/// threatens something may not make a non-capturing move; a non-capturing
/// slide must end on a cell an enemy bishop could reach.
const OPENING: &[&str] = &[
    // g7 takes f6, h8 takes the bishop now on f6 over the emptied g7, i9
    // takes j8.
    "(move g 7 f 6)",
    "(move h 8 f 6)",
    "(move i 9 j 8)",
    // j10 threatens nothing (its one diagonal meets i9 h8 g7 empty, then
    // its own f6): it slides to h8, which the white g9 and i7 reach.
    "(move j 10 h 8)",
    // i7 takes it.
    "(move i 7 h 8)",
];

#[test]
fn capture_and_slide_rules() {
    let moves = in_turn(OPENING);
    let mut p = play::<MadBishops>(RULES, &moves);
    // After g7xf6: the black h8 reaches f6 over the empty g7.
    let black = legal(&mut p.game, &p.states[1], 1);
    assert!(black.contains(&"(move h 8 f 6)".to_string()), "{black:?}");
    // After i9xj8, black to move; the empty cells are g7, h8, i9.
    let black = legal(&mut p.game, &p.states[3], 1);
    // j10 threatens nothing. It sees i9 (reached by the white j8), h8
    // (reached by the white g9 and i7) and g7 (whose diagonals end on the
    // black f6 f8 h6 and, past h8 and i9, j10): it may slide to i9 and h8,
    // not to g7.
    assert_eq!(
        moves_from(&black, "j 10"),
        ["(move j 10 h 8)", "(move j 10 i 9)"]
    );
    // h10 threatens g9 and, over the empty i9, j8: it captures either but
    // may not stop on i9, although j8 reaches i9.
    assert_eq!(
        moves_from(&black, "h 10"),
        ["(move h 10 g 9)", "(move h 10 j 8)"]
    );
    // f6 threatens e5 e7 g5: it may not slide to g7, h8 or i9.
    assert_eq!(
        moves_from(&black, "f 6"),
        ["(move f 6 e 5)", "(move f 6 e 7)", "(move f 6 g 5)"]
    );
    // No other bishop may stop on an empty cell.
    let slides: Vec<&String> = black
        .iter()
        .filter(|m| ["g 7)", "h 8)", "i 9)"].iter().any(|c| m.ends_with(c)))
        .collect();
    assert_eq!(slides, ["(move j 10 h 8)", "(move j 10 i 9)"]);
    // After the slide, white's g9 and i7 both threaten h8.
    let white = legal(&mut p.game, &p.states[4], 0);
    assert!(white.contains(&"(move g 9 h 8)".to_string()));
    assert!(white.contains(&"(move i 7 h 8)".to_string()));
    insta::assert_snapshot!("capture_and_slide_rules", p.trace(&moves));
}

/// Pins: a slide goes any distance over empty cells, stops before a
/// friendly piece and never passes it; a slide ends in mutual threat, and
/// the enemy may take the bishop that slid.
const LONG_SLIDE: &[&str] = &[
    "(move i 9 h 10)",
    "(move h 8 g 9)",
    "(move g 7 h 6)",
    // j10's one diagonal: i9 h8 g7 empty, then its own f6. All three cells
    // are reached by white bishops (i9 by h10, h8 by i7, g7 by h6): it may
    // stop on any, here three cells away.
    "(move j 10 g 7)",
    "(move h 6 g 7)",
];

#[test]
fn long_slide_stops_before_a_friendly_piece() {
    let moves = in_turn(LONG_SLIDE);
    let mut p = play::<MadBishops>(RULES, &moves);
    let black = legal(&mut p.game, &p.states[3], 1);
    assert_eq!(
        moves_from(&black, "j 10"),
        ["(move j 10 g 7)", "(move j 10 h 8)", "(move j 10 i 9)"]
    );
    // The bishop on g7 and the white h6 threaten each other.
    let white = legal(&mut p.game, &p.states[4], 0);
    assert!(white.contains(&"(move h 6 g 7)".to_string()), "{white:?}");
    insta::assert_snapshot!("long_slide_stops_before_a_friendly_piece", p.trace(&moves));
}

/// A random game (oracle seed 2) to its end; the steps before are checked
/// against the oracle by `play`, the last three moves by hand.
const TO_THE_LAST_PIECE: &[&str] = &[
    "(move a 7 b 8)",
    "(move h 4 g 3)",
    "(move e 3 f 4)",
    "(move h 8 g 7)",
    "(move i 1 j 2)",
    "(move f 8 e 9)",
    "(move i 9 g 7)",
    "(move e 9 g 7)",
    "(move c 9 b 10)",
    "(move b 2 c 3)",
    "(move c 5 b 6)",
    "(move f 6 e 7)",
    "(move g 9 h 10)",
    "(move j 4 i 3)",
    "(move j 2 i 3)",
    "(move h 6 i 7)",
    "(move b 6 d 4)",
    "(move d 6 c 7)",
    "(move i 5 j 6)",
    "(move j 8 h 10)",
    "(move j 6 g 3)",
    "(move c 7 e 5)",
    "(move b 10 d 8)",
    "(move h 2 g 1)",
    "(move d 4 c 3)",
    "(move g 7 h 6)",
    "(move a 3 b 4)",
    "(move d 2 f 4)",
    "(move a 5 c 7)",
    "(move e 7 g 5)",
    "(move d 8 g 5)",
    "(move f 2 e 1)",
    "(move c 3 e 1)",
    "(move f 10 c 7)",
    "(move a 1 e 5)",
    "(move h 10 b 4)",
    "(move g 3 f 4)",
    "(move i 7 h 8)",
    "(move c 1 e 3)",
    "(move g 1 e 3)",
    "(move e 5 c 7)",
    "(move h 8 f 10)",
    "(move i 3 j 4)",
    "(move h 6 j 4)",
    "(move e 1 b 4)",
    "(move j 4 f 8)",
    "(move b 8 d 10)",
    "(move f 10 c 7)",
    "(move d 10 f 8)",
    "(move j 10 f 6)",
    "(move f 4 e 3)",
    "(move f 6 g 5)",
    "(move b 4 a 5)",
    "(move c 7 a 9)",
    "(move f 8 h 6)",
    "(move g 5 e 3)",
    "(move a 5 c 7)",
    "(move e 3 h 6)",
    "(move c 7 a 9)",
    "(move h 6 f 4)",
    "(move a 9 f 4)",
];

/// Pins: taking the last enemy piece ends the game, 100 to the winner and 0
/// to the player left with no pieces; a bishop that threatens nothing must
/// slide onto a cell an enemy reaches even when that loses it.
#[test]
fn last_piece_taken_ends_the_game() {
    let moves = in_turn(TO_THE_LAST_PIECE);
    let mut p = play::<MadBishops>(RULES, &moves);
    let n = TO_THE_LAST_PIECE.len();
    // Step 58: the white c7 threatens the black a9 (b8 between, empty) and
    // nothing else; the black h6 stands apart.
    assert_eq!(legal(&mut p.game, &p.states[n - 3], 0), ["(move c 7 a 9)"]);
    // Step 59: black's last bishop, h6, threatens nothing. Of the empty
    // cells on its diagonals only f4 is on a diagonal of the white a9 (its
    // only other cell, b10, is on none of h6's): h6 must go there.
    assert_eq!(legal(&mut p.game, &p.states[n - 2], 1), ["(move h 6 f 4)"]);
    // Step 60: a9 takes it over b8 c7 d6 e5.
    assert_eq!(legal(&mut p.game, &p.states[n - 1], 0), ["(move a 9 f 4)"]);
    for step in 0..n {
        assert!(!p.is_terminal(step));
    }
    assert!(p.is_terminal(n));
    assert_eq!(p.goals(n), [100, 0]);
    assert_eq!(p.facts(n), ["(cell f 4 white)", "(control black)"]);
    let trace = p.trace(&moves);
    // The snapshot keeps the last three boards before the end, and the end.
    let tail = trace.split("== step 58 ==").nth(1).unwrap();
    insta::assert_snapshot!(
        "last_piece_taken_ends_the_game",
        format!("== step 58 =={tail}")
    );
}

/// A random game of the oracle from `seed`: the moves of the player in
/// control, to the end.
fn random_game(seed: u64) -> Vec<String> {
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut game = MadBishops::initial();
    let mut moves = Vec::new();
    while !game.is_terminal() {
        let m = *game.legal(mover(&game)).choose(&mut rng).unwrap();
        moves.push(MadBishops::move_text(&m));
        apply(&mut game, m);
    }
    moves
}

/// Whether the second last move of a game did not capture.
fn ends_after_a_slide(moves: &[String]) -> bool {
    let mut game = MadBishops::initial();
    for (i, text) in moves.iter().enumerate() {
        let m = game.legal_move(mover(&game), text).unwrap();
        if i + 2 == moves.len() {
            return is_slide(&game, &m);
        }
        apply(&mut game, m);
    }
    false
}

/// Prints the end of the random game of seed `SEED` (default 0) as the
/// rules file traces it, for picking the ending checked by hand.
#[test]
#[ignore = "tool: run with --ignored --nocapture"]
fn show_random_game() {
    let mut seed = std::env::var("SEED").map_or(0, |s| s.parse().unwrap());
    // With FIND set: the first game from SEED on whose loser's last move
    // slid (did not capture).
    while std::env::var("FIND").is_ok() && !ends_after_a_slide(&random_game(seed)) {
        seed += 1;
    }
    let moves = random_game(seed);
    println!("seed {seed}");
    let texts: Vec<&str> = moves.iter().map(String::as_str).collect();
    let mut game = games::load(RULES);
    println!("{moves:?}");
    println!("{}", games::trace(&mut game, &alternating(&texts)));
}

/// About 1.7 s in release mode on a loaded machine.
#[test]
fn random_playouts_end_well() {
    let seen = oracle::random_playouts(RULES, 1000, 1, MAX_STEPS);
    assert_eq!(seen.games, 1000);
}

/// About 3.6 s in release mode on a loaded machine.
#[test]
fn agrees_with_oracle() {
    let seen = oracle::compare::<MadBishops>(RULES, 500, 7, MAX_STEPS);
    assert_eq!(seen.games, 500);
}

/// The claim of the rules file's header: while both players have pieces,
/// each has a capture or a slide (so the player in control never needs to
/// pass). Checked on random placements of the oracle, reachable or not
/// (0.1 s).
#[test]
fn a_player_with_pieces_always_has_a_move() {
    let mut rng = Pcg64::seed_from_u64(2);
    let cells: Vec<(i8, i8)> = (0..10)
        .flat_map(|x| (0..10).map(move |y| (x, y)))
        .filter(|(x, y)| (x + y) % 2 == 0)
        .collect();
    for _ in 0..20_000 {
        let mut position = MadBishops::empty(0);
        let (white, black) = (rng.gen_range(1..=25), rng.gen_range(1..=25));
        for (i, &cell) in cells.choose_multiple(&mut rng, white + black).enumerate() {
            position.put(cell, u8::from(i >= white));
        }
        for role in 0..2 {
            assert!(
                !position.piece_moves(role).is_empty(),
                "{} has no move in {position:?}",
                ROLES[role as usize]
            );
        }
    }
}

#[test]
fn rules_are_ground() {
    let game = games::load(RULES);
    let engine = game.engine();
    eprintln!("{engine}");
    assert!(matches!(engine, gdl::Engine::Ground { .. }), "{engine}");
}
