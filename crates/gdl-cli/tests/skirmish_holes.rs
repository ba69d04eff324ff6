//! Skirmish with holes (seed 004): random playouts, the oracle side by side
//! with the rules file, and hand-checked games pinning each rule.

use gdl_oracles::games;
use gdl_oracles::oracle;
use gdl_oracles::skirmish_holes;

use games::{alternating, has_fact, legal, moves_from, play};
use gdl::{Game, State};
use oracle::Oracle;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_pcg::Pcg64;
use skirmish_holes::SkirmishHoles;

const RULES: &str = "rules/skirmish_holes.gdl";

/// Goal by number of captures, as the text and docs/games.md give it.
const SCORE: [u8; 17] = [
    0, 6, 12, 18, 24, 30, 36, 42, 48, 54, 60, 66, 72, 79, 86, 93, 100,
];

/// Pins: holes stop rooks and queens (and no piece lands on one); knights
/// jump beside them. Also the initial moves: pawns on columns 3 and 6 face a
/// hole and cannot move; each knight has one jump.
const HOLES: &[[&str; 2]] = &[
    ["(move 1 2 1 4)", "noop"],
    ["noop", "(move 1 7 1 5)"],
    ["(move 1 1 1 3)", "noop"],
    ["noop", "(move 8 7 8 5)"],
    ["(move 7 1 8 3)", "noop"],
    ["noop", "(move 8 8 8 6)"],
    // The knight jumps from (8 3) to (6 4), past the hole at (6 3).
    ["(move 8 3 6 4)", "noop"],
    ["noop", "(move 8 6 7 6)"],
];

#[test]
fn holes_stop_sliders_not_knights() {
    let mut game = games::load(RULES);
    let start = game.initial_state();
    let white = legal(&mut game, &start, 0);
    // Knights: (2 1) -> (1 3) only ((3 3) is a hole, (4 2) a friend);
    // (7 1) -> (8 3) only. Pawns: two moves each on columns 1 2 4 5 7 8,
    // none on columns 3 and 6 (a hole ahead).
    assert_eq!(white.len(), 14, "{white:?}");
    assert_eq!(moves_from(&white, "2 1"), ["(move 2 1 1 3)"]);
    assert_eq!(moves_from(&white, "7 1"), ["(move 7 1 8 3)"]);
    assert!(moves_from(&white, "3 2").is_empty());
    assert!(moves_from(&white, "6 2").is_empty());
    assert_eq!(legal(&mut game, &start, 1), ["noop"]);

    // The rook on (1 3): down to (1 2) and (1 1), right to (2 3) and no
    // further: (3 3) is a hole. Up is its own pawn.
    let state = play(&mut game, &HOLES[..4]);
    let white = legal(&mut game, &state, 0);
    assert_eq!(
        moves_from(&white, "1 3"),
        ["(move 1 3 1 1)", "(move 1 3 1 2)", "(move 1 3 2 3)"]
    );
    // The knight on (8 3): (6 4), (7 5) and (7 1); (6 2) holds its own pawn.
    let state = play(&mut game, &HOLES[..6]);
    let white = legal(&mut game, &state, 0);
    assert_eq!(
        moves_from(&white, "8 3"),
        ["(move 8 3 6 4)", "(move 8 3 7 1)", "(move 8 3 7 5)"]
    );
    // The black rook on (8 6): left to (7 6) only ((6 6) is a hole), up to
    // (8 7) and (8 8); its own pawn below. The black knight on (7 8) has no
    // jump: (6 6) is a hole, (8 6) and (5 7) hold friends.
    let state = play(&mut game, &HOLES[..7]);
    let black = legal(&mut game, &state, 1);
    assert_eq!(
        moves_from(&black, "8 6"),
        ["(move 8 6 7 6)", "(move 8 6 8 7)", "(move 8 6 8 8)"]
    );
    assert!(moves_from(&black, "7 8").is_empty(), "{black:?}");
    let end = play(&mut game, HOLES);
    assert!(has_fact(&game, &end, "(cell 7 6 br)"));
    insta::assert_snapshot!(
        "holes_stop_sliders_not_knights",
        games::trace(&mut game, HOLES)
    );
}

/// Pins: the pawn double step from the starting row needs both cells empty;
/// a pawn captures diagonally forward; a capture scores 6.
const DOUBLE_STEP: &[[&str; 2]] = &[
    ["(move 2 1 1 3)", "noop"],
    ["noop", "(move 4 7 4 5)"],
    ["(move 8 2 8 3)", "noop"],
    ["noop", "(move 4 5 4 4)"],
    ["(move 5 2 5 3)", "noop"],
    // The black pawn on (4 4) takes the white pawn on (5 3).
    ["noop", "(move 4 4 5 3)"],
];

#[test]
fn pawn_double_step() {
    let mut game = games::load(RULES);
    let start = game.initial_state();
    let white = legal(&mut game, &start, 0);
    assert_eq!(
        moves_from(&white, "1 2"),
        ["(move 1 2 1 3)", "(move 1 2 1 4)"]
    );
    // The knight on (1 3) blocks the pawn on (1 2): no single, no double.
    let state = play(&mut game, &DOUBLE_STEP[..2]);
    let white = legal(&mut game, &state, 0);
    assert!(moves_from(&white, "1 2").is_empty(), "{white:?}");
    assert!(has_fact(&game, &state, "(cell 4 5 bp)"));
    // The black pawn on (4 4) blocks the double step of (4 2), not the
    // single.
    let state = play(&mut game, &DOUBLE_STEP[..4]);
    let white = legal(&mut game, &state, 0);
    assert_eq!(moves_from(&white, "4 2"), ["(move 4 2 4 3)"]);
    // The black pawn on (4 4): straight to (4 3), or take (5 3); (3 3) is a
    // hole.
    let state = play(&mut game, &DOUBLE_STEP[..5]);
    let black = legal(&mut game, &state, 1);
    assert_eq!(
        moves_from(&black, "4 4"),
        ["(move 4 4 4 3)", "(move 4 4 5 3)"]
    );
    let end = play(&mut game, DOUBLE_STEP);
    assert!(has_fact(&game, &end, "(captures black 1)"));
    assert!(has_fact(&game, &end, "(captures white 0)"));
    assert_eq!(game.goals(&end).unwrap(), [0, 6]);
    insta::assert_snapshot!("pawn_double_step", games::trace(&mut game, DOUBLE_STEP));
}

/// Pins: a pawn reaching the last row becomes a queen (by a capture here,
/// for both sides); captures count; the new queen slides and a hole stops it.
const PROMOTION: &[[&str; 2]] = &[
    ["(move 1 2 1 4)", "noop"],
    ["noop", "(move 8 7 8 5)"],
    ["(move 1 4 1 5)", "noop"],
    ["noop", "(move 8 5 8 4)"],
    ["(move 1 5 1 6)", "noop"],
    ["noop", "(move 8 4 8 3)"],
    ["(move 1 6 2 7)", "noop"],
    ["noop", "(move 8 3 7 2)"],
    ["(move 2 7 1 8)", "noop"],
    ["noop", "(move 7 2 8 1)"],
];

#[test]
fn pawn_promotes_to_queen() {
    let mut game = games::load(RULES);
    let state = play(&mut game, &PROMOTION[..8]);
    // The white pawn on (2 7): (2 8) holds a knight; it takes (1 8) or (3 8).
    let white = legal(&mut game, &state, 0);
    assert_eq!(
        moves_from(&white, "2 7"),
        ["(move 2 7 1 8)", "(move 2 7 3 8)"]
    );
    let state = play(&mut game, &PROMOTION[..9]);
    assert!(has_fact(&game, &state, "(cell 1 8 wq)"));
    assert!(
        !game
            .state_facts(&state)
            .iter()
            .any(|f| f.starts_with("(cell 1 8 ") && f != "(cell 1 8 wq)")
    );
    let end = play(&mut game, PROMOTION);
    assert!(has_fact(&game, &end, "(cell 8 1 bq)"));
    assert!(has_fact(&game, &end, "(captures white 2)"));
    assert!(has_fact(&game, &end, "(captures black 2)"));
    assert_eq!(game.goals(&end).unwrap(), [12, 12]);
    // The new queen on (1 8): takes (2 8) or (1 7); diagonally (2 7), then
    // the hole (3 6) stops it.
    let white = legal(&mut game, &end, 0);
    assert_eq!(
        moves_from(&white, "1 8"),
        ["(move 1 8 1 7)", "(move 1 8 2 7)", "(move 1 8 2 8)"]
    );
    insta::assert_snapshot!("pawn_promotes_to_queen", games::trace(&mut game, PROMOTION));
}

/// Pins: there is no check; a king is captured like any piece and play goes
/// on.
const KING_CAPTURE: &[[&str; 2]] = &[
    ["(move 2 1 1 3)", "noop"],
    ["noop", "(move 8 7 8 6)"],
    ["(move 1 3 2 5)", "noop"],
    ["noop", "(move 8 6 8 5)"],
    ["(move 2 5 4 6)", "noop"],
    ["noop", "(move 8 5 8 4)"],
    // The knight takes the black king.
    ["(move 4 6 5 8)", "noop"],
    ["noop", "(move 8 4 8 3)"],
    ["(move 5 8 7 7)", "noop"],
];

#[test]
fn king_capture_play_goes_on() {
    let mut game = games::load(RULES);
    // The knight on (4 6) gives "check"; Black may ignore it, and may take
    // the knight with either pawn beside (4 7).
    let state = play(&mut game, &KING_CAPTURE[..5]);
    let black = legal(&mut game, &state, 1);
    assert!(black.contains(&"(move 3 7 4 6)".to_string()), "{black:?}");
    assert!(black.contains(&"(move 5 7 4 6)".to_string()), "{black:?}");
    let state = play(&mut game, &KING_CAPTURE[..7]);
    assert!(!game.state_facts(&state).iter().any(|f| f.ends_with(" bk)")));
    assert!(!game.is_terminal(&state).unwrap());
    assert_eq!(game.goals(&state).unwrap(), [6, 0]);
    let end = play(&mut game, KING_CAPTURE);
    assert!(!game.is_terminal(&end).unwrap());
    assert!(has_fact(&game, &end, "(captures white 2)"));
    assert!(legal(&mut game, &end, 1).len() > 1);
    insta::assert_snapshot!(
        "king_capture_play_goes_on",
        games::trace(&mut game, KING_CAPTURE)
    );
}

/// A game found by a search over random games, checked move by move: at
/// step 32 Black is in control and has moves, but White's four pawns are
/// all stuck ((3 2) and (6 2) face holes with nothing to take, (7 5) and
/// (8 2) are blocked with nothing to take). Also: long slides, recaptures,
/// a king captured by a rook (move 22) with play going on.
const IDLE_PLAYER_STUCK: &[&str] = &[
    "(move 1 2 1 3)", // 1
    "(move 5 7 5 5)",
    "(move 4 2 4 4)",
    "(move 6 8 1 3)", // bishop takes the pawn on (1 3)
    "(move 4 4 5 5)", // 5
    "(move 1 3 2 2)",
    "(move 1 1 1 7)", // rook up the first column, takes (1 7)
    "(move 1 8 1 7)",
    "(move 3 1 2 2)",
    "(move 1 7 1 6)", // 10
    "(move 4 1 4 7)",
    "(move 3 8 4 7)",
    "(move 5 5 5 6)",
    "(move 6 7 5 6)",
    "(move 7 2 7 3)", // 15
    "(move 7 7 7 6)",
    "(move 2 2 1 1)",
    "(move 1 6 1 1)",
    "(move 5 1 4 1)",
    "(move 1 1 2 1)", // 20
    "(move 6 1 8 3)",
    "(move 2 1 4 1)", // the rook takes the white king; play goes on
    "(move 8 3 5 6)",
    "(move 4 7 5 6)",
    "(move 7 1 8 3)", // 25
    "(move 5 6 8 3)",
    "(move 8 1 4 1)",
    "(move 4 8 4 1)",
    "(move 7 3 7 4)",
    "(move 4 1 5 2)", // 30
    "(move 7 4 7 5)",
];

/// Pins: the game ends when either player has no move, judged for the
/// player not in control too; goals follow the capture counts.
#[test]
fn idle_player_without_moves_ends_the_game() {
    let mut game = games::load(RULES);
    let moves = alternating(IDLE_PLAYER_STUCK);
    let state = play(&mut game, &moves[..22]);
    assert!(!game.state_facts(&state).iter().any(|f| f.ends_with(" wk)")));
    assert!(!game.is_terminal(&state).unwrap());
    let before = play(&mut game, &moves[..30]);
    assert!(!game.is_terminal(&before).unwrap());
    // White's last move: only (7 4) can still move, straight to (7 5).
    assert_eq!(legal(&mut game, &before, 0), ["(move 7 4 7 5)"]);
    let end = play(&mut game, &moves);
    assert!(has_fact(&game, &end, "(control black)"));
    assert!(has_fact(&game, &end, "(step 32)"));
    assert!(game.is_terminal(&end).unwrap());
    assert!(has_fact(&game, &end, "(captures white 6)"));
    assert!(has_fact(&game, &end, "(captures black 12)"));
    assert_eq!(game.goals(&end).unwrap(), [36, 72]);
    let pawns: Vec<String> = game
        .state_facts(&end)
        .into_iter()
        .filter(|f| f.starts_with("(cell ") && f.ends_with(" wp)"))
        .collect();
    assert_eq!(
        pawns,
        [
            "(cell 3 2 wp)",
            "(cell 6 2 wp)",
            "(cell 7 5 wp)",
            "(cell 8 2 wp)"
        ]
    );
    assert!(
        !game
            .state_facts(&end)
            .iter()
            .any(|f| f.starts_with("(cell ") && f.contains(" w") && !f.ends_with(" wp)"))
    );
    insta::assert_snapshot!(
        "idle_player_without_moves_ends_the_game",
        games::trace(&mut game, &moves)
    );
}

/// Ninety-nine turns of the queen-side knights jumping out and back.
fn knight_shuffle() -> Vec<[&'static str; 2]> {
    (1..=99)
        .map(|turn| match turn % 4 {
            1 => ["(move 2 1 1 3)", "noop"],
            2 => ["noop", "(move 2 8 1 6)"],
            3 => ["(move 1 3 2 1)", "noop"],
            _ => ["noop", "(move 1 6 2 8)"],
        })
        .collect()
}

/// Pins: the step counter starts at 1 and the game ends at step 100; no
/// capture scores 0.
#[test]
fn step_100_ends_the_game() {
    let mut game = games::load(RULES);
    assert!(has_fact(&game, &game.initial_state(), "(step 1)"));
    let moves = knight_shuffle();
    let state = play(&mut game, &moves[..98]);
    assert!(has_fact(&game, &state, "(step 99)"));
    assert!(!game.is_terminal(&state).unwrap());
    let end = play(&mut game, &moves);
    assert!(has_fact(&game, &end, "(step 100)"));
    assert!(game.is_terminal(&end).unwrap());
    assert_eq!(game.goals(&end).unwrap(), [0, 0]);
    let trace = games::trace(&mut game, &moves);
    // The whole trace is a hundred boards alike; the snapshot keeps its end.
    let tail = games::last_lines(&trace, 40);
    insta::assert_snapshot!("step_100_ends_the_game", tail);
}

/// The capture count of `role` in `state`, read from its facts.
fn captures(game: &Game, state: &State, role: &str) -> usize {
    let prefix = format!("(captures {role} ");
    let fact = game
        .state_facts(state)
        .into_iter()
        .find(|f| f.starts_with(&prefix))
        .expect("a capture count");
    fact[prefix.len()..fact.len() - 1].parse().unwrap()
}

/// Pins the score table beyond 12 captures, which random play never
/// reaches: White takes whenever it can, Black plays at random; the rules
/// file and the oracle play side by side and the goals must follow the
/// table at every step. Also pins the end when a player has no piece left.
#[test]
fn score_table_with_a_greedy_white() {
    let mut game = games::load(RULES);
    let mut rng = Pcg64::seed_from_u64(4);
    let mut counts_seen = [false; 17];
    let mut black_wiped_out = 0;
    for g in 0..20 {
        let mut state = game.initial_state();
        let mut oracle = SkirmishHoles::initial();
        while !game.is_terminal(&state).unwrap() {
            let facts = game.state_facts(&state);
            let mut joint = Vec::new();
            let mut oracle_joint = Vec::new();
            for i in 0..2 {
                let moves = legal(&mut game, &state, i);
                assert_eq!(
                    moves,
                    oracle.legal_texts(i),
                    "game {g}: legal moves of role {i}"
                );
                // A move captures when its target cell holds a piece.
                let capturing: Vec<&String> = moves
                    .iter()
                    .filter(|m| {
                        let words: Vec<&str> = m.trim_end_matches(')').split(' ').collect();
                        words.len() == 5 && {
                            let target = format!("(cell {} {} ", words[3], words[4]);
                            facts.iter().any(|f| f.starts_with(&target))
                        }
                    })
                    .collect();
                let chosen = if i == 0 && !capturing.is_empty() {
                    capturing[0].clone()
                } else {
                    moves.choose(&mut rng).unwrap().clone()
                };
                joint.push(game.parse_move(&chosen).unwrap());
                oracle_joint.push(oracle.legal_move(i, &chosen).unwrap());
            }
            state = game.next_state(&state, &joint).unwrap();
            oracle.apply(&[oracle_joint[0], oracle_joint[1]]);
            let mut next_facts = game.state_facts(&state);
            next_facts.sort();
            assert_eq!(next_facts, oracle.facts(), "game {g}: states differ");
            let counts = [
                captures(&game, &state, "white"),
                captures(&game, &state, "black"),
            ];
            counts_seen[counts[0]] = true;
            counts_seen[counts[1]] = true;
            assert_eq!(
                game.goals(&state).unwrap(),
                [SCORE[counts[0]], SCORE[counts[1]]],
                "game {g}: goals"
            );
        }
        assert!(oracle.is_terminal());
        assert_eq!(game.goals(&state).unwrap(), oracle.goals().to_vec());
        let black_pieces = game
            .state_facts(&state)
            .iter()
            .filter(|f| f.starts_with("(cell ") && f.ends_with(')'))
            .filter(|f| f.rsplit(' ').next().is_some_and(|p| p.starts_with('b')))
            .count();
        if black_pieces == 0 {
            assert_eq!(captures(&game, &state, "white"), 16);
            black_wiped_out += 1;
        }
    }
    // Some games end early because Black has no piece left.
    assert!(black_wiped_out > 0);
    let missing: Vec<usize> = (0..17).filter(|&n| !counts_seen[n]).collect();
    assert!(
        missing.is_empty(),
        "capture counts never reached: {missing:?}"
    );
}

#[test]
fn random_playouts_end_well() {
    let seen = oracle::random_playouts(RULES, 1000, 4, 100);
    assert_eq!(seen.games, 1000);
    assert!(seen.longest <= 99);
}

#[test]
fn agrees_with_oracle() {
    let seen = oracle::compare::<SkirmishHoles>(RULES, 500, 44, 100);
    assert_eq!(seen.games, 500);
}
