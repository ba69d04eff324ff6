//! English draughts (seed 000): the rules file `rules/english_draughts.gdl`
//! checked by random playouts, against the oracle of
//! `crates/oracles/src/english_draughts.rs`, and by hand-checked games.

use gdl_oracles::english_draughts;
use gdl_oracles::games;
use gdl_oracles::oracle;
use gdl_oracles::side_by_side;

use english_draughts::{English, Move};
use oracle::Oracle;
use side_by_side::play_written;

const RULES: &str = "rules/english_draughts.gdl";

/// Every random game of the rules file ends, every role always has a move,
/// and every end gives each role one goal. (About 1 s in release mode.)
#[test]
fn random_playouts_end_well() {
    let seen = oracle::random_playouts(RULES, 1000, 1, 1000);
    assert_eq!(seen.games, 1000);
}

/// The rules file and the oracle agree at every step of 500 random games:
/// legal moves, next state, end and goals. Counted once with the oracle,
/// these games hold 33982 states, 1134 jumps after which the same player
/// goes on, 134 crownings by a jump that end a chain the new king could have
/// continued, 60 draws by the step counter and 20 losses with pieces left.
/// (About 1 s in release mode.)
#[test]
fn rules_agree_with_the_oracle() {
    let seen = oracle::compare::<English>(RULES, 500, 7, 1000);
    assert_eq!(seen.games, 500);
}

/// The oracle's board: White's seven opening steps, Black idle.
#[test]
fn oracle_opening_moves() {
    let g = English::initial();
    assert_eq!(
        g.legal_texts(0),
        [
            "(move b 3 a 4)",
            "(move b 3 c 4)",
            "(move d 3 c 4)",
            "(move d 3 e 4)",
            "(move f 3 e 4)",
            "(move f 3 g 4)",
            "(move h 3 g 4)"
        ]
    );
    assert_eq!(g.legal(1), vec![Move::Noop]);
}

/// A move list as the hand-checked games write it: one line per action, `w`
/// or `b` (who acts) and the move.
fn line(side: usize, m: &Move) -> String {
    format!("{} {}", ["w", "b"][side], English::move_text(m))
}

/// Searches random games of the oracle for the shortest games showing each
/// rule the hand-checked games pin, and prints them move by move. It found
/// the games below.
#[test]
#[ignore = "search tool: run with --ignored --nocapture"]
fn find_fragments() {
    use english_draughts::{BK, BM, WK, WM};
    use rand::SeedableRng;
    use rand::seq::SliceRandom;
    let names = [
        "chain while another piece could jump",
        "man crowned by a jump that would jump on as a king",
        "king steps backward",
        "loss by no move, pieces left",
        "loss by no move, no pieces left",
        "20-step draw",
        "three jumps in a chain",
    ];
    let mut best: Vec<Option<(usize, u64, Vec<String>)>> = vec![None; names.len()];
    for seed in 0..100_000u64 {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
        let mut g = English::initial();
        let mut played: Vec<String> = Vec::new();
        let mut at: Vec<Option<usize>> = vec![None; names.len()];
        let mut chain = 0;
        while !g.is_terminal() {
            let step = played.len();
            let side = g.control();
            let mut found = |i: usize| {
                at[i].get_or_insert(step);
            };
            let legal = g.legal(side);
            // Fewer legal jumps than jumps on the board: mid-chain, with
            // another piece able to jump.
            let jumping = matches!(legal.first(), Some(Move::Jump { .. }));
            if jumping && legal.len() < g.jumps_of(side).len() {
                found(0);
            }
            let m = *legal.choose(&mut rng).unwrap();
            let mut joint = [Move::Noop; 2];
            joint[side] = m;
            played.push(line(side, &m));
            let before = g.clone();
            g.apply(&joint);
            match m {
                Move::Jump { from, to } => {
                    chain += 1;
                    if chain == 3 {
                        found(6);
                    }
                    let man = before.at(from);
                    if (man == WM || man == BM) && g.at(to) != man {
                        let again = g
                            .jumps_of(side)
                            .iter()
                            .any(|j| matches!(j, Move::Jump { from: f, .. } if *f == to));
                        if again {
                            found(1);
                        }
                    }
                }
                Move::Step { from, to } => {
                    let piece = before.at(from);
                    if (piece == WK && to.1 < from.1) || (piece == BK && to.1 > from.1) {
                        found(2);
                    }
                }
                Move::Noop => unreachable!(),
            }
            if g.control() != side {
                chain = 0;
            }
        }
        let end = played.len();
        if g.goals() == [50, 50] {
            at[5] = Some(end);
        } else {
            let loser = g.control();
            let pieces = if loser == 0 { [WM, WK] } else { [BM, BK] };
            let left = (0..8u8)
                .flat_map(|x| (0..8u8).map(move |y| (x, y)))
                .any(|s| pieces.contains(&g.at(s)));
            at[if left { 3 } else { 4 }] = Some(end);
        }
        for (i, a) in at.iter().enumerate() {
            if let Some(a) = *a
                && best[i].as_ref().is_none_or(|b| a < b.0)
            {
                best[i] = Some((a, seed, played.clone()));
            }
        }
    }
    for (i, b) in best.iter().enumerate() {
        if let Some((at, seed, played)) = b {
            println!("== {} at move {at} (seed {seed})", names[i]);
            for (n, m) in played.iter().enumerate().take(at + 2) {
                println!("{n:3}: {m}");
            }
        }
    }
}

/// Pins: jumps are compulsory; after a jump the same player keeps control
/// while the same piece can jump again; a man crowned by a jump ends the
/// chain (seed game 59 of `find_fragments`).
///
/// After 3 actions Black could step with any man but must take e4 (d5xf3);
/// White then must take back (e2xg4 or g2xe4). At action 8 the black man
/// takes g4 (h5xf3) and keeps control, White playing noop, to take e2
/// (f3xd1); crowned on d1, the new king could take c2 (to b3), but the
/// crowning ends the chain and White acts.
const CHAIN_ENDS_ON_CROWNING: &str = "
    w (move b 3 a 4)
    b (move e 6 d 5)
    w (move f 3 e 4)
    b (capture d 5 f 3)
    w (capture e 2 g 4)
    b (move g 6 h 5)
    w (move d 1 e 2)
    b (capture h 5 f 3)
    b (capture f 3 d 1)
    w (move d 3 c 4)
";

#[test]
fn forced_jump_chain_and_crowning_that_ends_it() {
    let (moves, mut p) = play_written::<English>(RULES, CHAIN_ENDS_ON_CROWNING);
    assert_eq!(p.legal[3], ["(capture d 5 f 3)"]);
    assert_eq!(p.legal[4], ["(capture e 2 g 4)", "(capture g 2 e 4)"]);
    assert!(p.has(8, "(capturing f 3)") && p.has(8, "(control black)"));
    assert_eq!(p.legal[8], ["(capture f 3 d 1)"]);
    assert!(p.has(9, "(cell d 1 bk)") && p.has(9, "(control white)"));
    assert!(!p.has(9, "(capturing d 1)"));
    let king_could_jump = English::jumps_of(&p.oracle[9], 1);
    assert_eq!(
        king_could_jump,
        [Move::Jump {
            from: (3, 0),
            to: (1, 2)
        }]
    );
    assert!(p.legal[9].iter().all(|m| m.starts_with("(move ")));
    assert_eq!(p.legal[10], ["(capture d 1 b 3)"]);
    insta::assert_snapshot!("english_chain_ends_on_crowning", p.trace(&moves));
}

/// Pins: mid-chain only the capturing piece may jump; a chain ends when the
/// piece has no jump left (seed game 18914).
///
/// After 5 actions Black has three jumps (a4xc2, e6xg4, g6xe4). After g6xe4
/// the man on e4 must go on (e4xc2) although a4xc2 is still on the board;
/// on c2 it has no jump left and White must take it (b1xd3).
const CHAIN_KEEPS_THE_PIECE: &str = "
    w (move d 3 e 4)
    b (move a 6 b 5)
    w (move c 2 d 3)
    b (move b 5 a 4)
    w (move e 4 f 5)
    b (capture g 6 e 4)
    b (capture e 4 c 2)
    w (capture b 1 d 3)
";

#[test]
fn mid_chain_only_the_capturing_piece_jumps() {
    let (moves, mut p) = play_written::<English>(RULES, CHAIN_KEEPS_THE_PIECE);
    assert_eq!(
        p.legal[5],
        [
            "(capture a 4 c 2)",
            "(capture e 6 g 4)",
            "(capture g 6 e 4)"
        ]
    );
    assert!(p.has(6, "(capturing e 4)"));
    assert_eq!(p.legal[6], ["(capture e 4 c 2)"]);
    assert_eq!(English::jumps_of(&p.oracle[6], 1).len(), 2);
    assert!(p.has(7, "(control white)") && !p.has(7, "(capturing c 2)"));
    assert_eq!(p.legal[7], ["(capture b 1 d 3)"]);
    insta::assert_snapshot!("english_chain_keeps_the_piece", p.trace(&moves));
}

/// Pins: a man crowned by a jump; a king steps and jumps backward; a king
/// step adds 1 to the step counter, a man's step sets it back to 0 (seed
/// game 1996).
///
/// White takes d5 and f7 (c4xe6xg8) and is crowned on g8. The king steps
/// back to f7 (step 1); a black man's step sets the counter to 0; then the
/// king may jump backward over g6 to h5.
const KING_STEPS_BACK: &str = "
    w (move f 3 g 4)
    b (move e 6 f 5)
    w (capture g 4 e 6)
    b (capture f 7 d 5)
    w (move d 3 c 4)
    b (move g 8 f 7)
    w (capture c 4 e 6)
    w (capture e 6 g 8)
    b (move a 6 b 5)
    w (move g 8 f 7)
    b (move b 5 c 4)
";

#[test]
fn king_steps_backward() {
    let (moves, mut p) = play_written::<English>(RULES, KING_STEPS_BACK);
    assert!(p.has(8, "(cell g 8 wk)") && p.has(8, "(control black)"));
    assert!(p.legal[9].contains(&"(move g 8 f 7)".to_string()));
    assert!(p.has(10, "(cell f 7 wk)") && p.has(10, "(step 1)"));
    assert!(p.has(11, "(step 0)"));
    assert_eq!(p.legal[11], ["(capture b 3 d 5)", "(capture f 7 h 5)"]);
    insta::assert_snapshot!("english_king_steps_backward", p.trace(&moves));
}

/// Pins: the player in control with no legal move loses, here with a piece
/// left (seed game 43532). Also a black man crowned by a jump on f1 (action
/// 24) that as a king could take e2: the chain ends there.
///
/// At the end White's only man, on a2, is blocked by the black king on b3
/// and cannot jump it (c4 is taken): White loses, 0 to 100.
const LOSS_BY_NO_MOVE: &str = "
    w (move b 3 a 4)
    b (move c 6 d 5)
    w (move h 3 g 4)
    b (move g 6 f 5)
    w (move c 2 b 3)
    b (capture f 5 h 3)
    w (move d 1 c 2)
    b (move h 7 g 6)
    w (move b 3 c 4)
    b (capture d 5 b 3)
    b (capture b 3 d 1)
    w (move d 3 c 4)
    b (move e 6 d 5)
    w (capture c 4 e 6)
    b (capture f 7 d 5)
    w (move a 4 b 5)
    b (capture a 6 c 4)
    w (move b 1 c 2)
    b (capture d 1 b 3)
    w (move f 3 e 4)
    b (capture d 5 f 3)
    b (capture f 3 d 1)
    w (move f 1 e 2)
    b (capture h 3 f 1)
    w (move h 1 g 2)
    b (capture d 1 f 3)
    b (capture f 3 h 1)
";

#[test]
fn player_with_no_move_loses() {
    let (moves, mut p) = play_written::<English>(RULES, LOSS_BY_NO_MOVE);
    assert!(p.has(24, "(cell f 1 bk)") && p.has(24, "(control white)"));
    assert!(!English::jumps_of(&p.oracle[24], 1).is_empty());
    let end = moves.len();
    assert!(p.has(end, "(cell a 2 wm)") && p.has(end, "(control white)"));
    assert!(p.is_terminal(end));
    assert_eq!(p.goals(end), [0, 100]);
    assert!(!p.is_terminal(end - 1));
    insta::assert_snapshot!("english_loss_by_no_move", p.trace(&moves));
}

/// Pins: the step counter; at 20 the game ends, 50 each (seed game 49897).
/// Kings step forward and backward.
///
/// Black's capture c2xa4 (action 43) sets the counter to 0; then both sides
/// only step with kings, the counter adding 1 each time, and after the
/// twentieth king step the game is over, a draw although both can move.
const TWENTY_KING_STEPS: &str = "
    w (move f 3 e 4)
    b (move c 6 d 5)
    w (capture e 4 c 6)
    b (capture d 7 b 5)
    w (move d 3 c 4)
    b (capture b 5 d 3)
    w (capture c 2 e 4)
    b (move e 8 d 7)
    w (move d 1 c 2)
    b (move g 6 f 5)
    w (capture e 4 g 6)
    w (capture g 6 e 8)
    b (move h 7 g 6)
    w (capture e 8 c 6)
    b (capture b 7 d 5)
    w (move b 3 a 4)
    b (move a 6 b 5)
    w (capture a 4 c 6)
    b (move g 8 h 7)
    w (move c 2 b 3)
    b (move g 6 h 5)
    w (move b 1 c 2)
    b (move c 8 b 7)
    w (move b 3 c 4)
    b (capture d 5 b 3)
    b (capture b 3 d 1)
    w (move g 2 f 3)
    b (capture b 7 d 5)
    w (move h 1 g 2)
    b (move h 5 g 4)
    w (capture h 3 f 5)
    w (capture f 5 d 7)
    b (move d 1 c 2)
    w (move f 3 e 4)
    b (capture d 5 f 3)
    b (capture f 3 h 1)
    w (move d 7 e 8)
    b (move a 8 b 7)
    w (move f 1 g 2)
    b (capture h 1 f 3)
    b (capture f 3 d 1)
    w (move a 2 b 3)
    b (capture c 2 a 4)
    w (move e 8 f 7)
    b (move d 1 c 2)
    w (move f 7 g 8)
    b (move a 4 b 3)
    w (move g 8 f 7)
    b (move c 2 d 1)
    w (move f 7 e 8)
    b (move b 3 c 2)
    w (move e 8 f 7)
    b (move c 2 b 1)
    w (move f 7 e 6)
    b (move b 1 a 2)
    w (move e 6 d 7)
    b (move d 1 c 2)
    w (move d 7 e 6)
    b (move c 2 d 1)
    w (move e 6 d 5)
    b (move a 2 b 3)
    w (move d 5 e 4)
    b (move b 3 c 2)
";

#[test]
fn twenty_king_steps_end_in_a_draw() {
    let (moves, mut p) = play_written::<English>(RULES, TWENTY_KING_STEPS);
    let end = moves.len();
    for k in 0..=20 {
        assert!(p.has(end - 20 + k, &format!("(step {k})")), "step {k}");
    }
    assert!(!p.is_terminal(end - 1));
    assert!(p.is_terminal(end));
    assert_eq!(p.goals(end), [50, 50]);
    // The rules still give White's king its four steps: the counter alone
    // ends the game.
    let white = p.game.roles()[0];
    let state = p.states[end].clone();
    assert_eq!(p.game.legal_moves(&state, white).unwrap().len(), 4);
    // The trace from two actions before the counter starts; the whole game
    // (63 actions) was read move by move.
    let trace = p.trace(&moves);
    let tail = &trace[trace.find("== step 41 ==").unwrap()..];
    insta::assert_snapshot!("english_twenty_king_steps_draw", tail);
}

/// `base` and `input` cover every state fact and every legal move met in
/// 200 random games. They are read through a copy of the rules in which
/// they are also legal moves of a role (`(listed_base f)`,
/// `(listed_input m)`), since play never derives them. (About 0.3 s in
/// release mode.)
#[test]
fn base_and_input_cover_the_games() {
    use rand::SeedableRng;
    use rand::seq::SliceRandom;
    use std::collections::HashSet;
    let text = std::fs::read_to_string(gdl_oracles::repo_path(RULES)).unwrap()
        + "(<= (legal ?r (listed_base ?f)) (role ?r) (base ?f))\n\
           (<= (legal ?r (listed_input ?m)) (input ?r ?m))\n";
    let mut listing = gdl::Game::from_source(RULES, &text).unwrap();
    let start = listing.initial_state();
    // The arguments of the listed moves of `role` named `name`.
    let mut listed = |role: usize, name: &str| -> HashSet<String> {
        let role = listing.roles()[role];
        let prefix = format!("({name} ");
        let moves = listing.legal_moves(&start, role).unwrap();
        moves
            .into_iter()
            .filter_map(|m| {
                let t = listing.move_text(m);
                t.strip_prefix(&prefix)
                    .map(|a| a[..a.len() - 1].to_string())
            })
            .collect()
    };
    let base = listed(0, "listed_base");
    let input = [listed(0, "listed_input"), listed(1, "listed_input")];
    // Men: 32 squares less the 4 of their far rank; kings: 32 squares; 32
    // capturing squares, 2 controls, 21 counter values.
    assert_eq!(base.len(), 2 * 28 + 2 * 32 + 32 + 2 + 21);
    let mut game = games::load(RULES);
    let mut rng = rand_pcg::Pcg64::seed_from_u64(3);
    for _ in 0..200 {
        let mut state = game.initial_state();
        while !game.is_terminal(&state).unwrap() {
            for f in game.state_facts(&state) {
                assert!(base.contains(&f), "{f} is not in base");
            }
            let mut joint = Vec::new();
            for (i, role) in game.roles().into_iter().enumerate() {
                let moves = game.legal_moves(&state, role).unwrap();
                for &m in &moves {
                    let t = game.move_text(m);
                    assert!(input[i].contains(&t), "{t} is not in input");
                }
                joint.push(*moves.choose(&mut rng).unwrap());
            }
            state = game.next_state(&state, &joint).unwrap();
        }
    }
}

/// The number of move sequences of `depth` turns from `g`, a turn being one
/// player's whole move (every jump of a chain), as the published checkers
/// perft counts them.
fn perft_by_turns(g: &English, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let side = g.control();
    let mut total = 0;
    for m in g.legal(side) {
        let mut next = g.clone();
        let mut joint = [Move::Noop; 2];
        joint[side] = m;
        next.apply(&joint);
        // Mid-chain the same player goes on: still the same turn.
        let left = if next.control() == side {
            depth
        } else {
            depth - 1
        };
        total += perft_by_turns(&next, left);
    }
    total
}

/// The oracle counts the published perft figures of checkers (a turn with
/// all its jumps as one move): 7, 49, 302, 1469, 7361, 36768, 179740,
/// 845931. (About 0.5 s in release mode.)
#[test]
fn oracle_perft_matches_the_published_figures() {
    let g = English::initial();
    let counts: Vec<u64> = (1..=8).map(|d| perft_by_turns(&g, d)).collect();
    assert_eq!(counts, [7, 49, 302, 1469, 7361, 36768, 179740, 845931]);
}

/// The rules file, through `gdl perft`, gives the same figures to depth 6.
/// `gdl perft` counts actions, one jump each, so from depth 7 on, where
/// chains of jumps come in, its figures differ (179255 sequences at depth 7).
#[test]
fn cli_perft_matches_the_published_figures() {
    let run = crate::common::gdl_in(
        &crate::common::root(),
        &["perft", RULES, "--depth", "6"],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.screen());
    insta::assert_snapshot!("english_perft_6", run.stdout);
}
