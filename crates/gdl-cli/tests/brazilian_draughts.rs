//! Brazilian draughts (seed 003): the rules file `rules/brazilian_draughts.gdl`
//! checked by random playouts, against the oracle of
//! `crates/oracles/src/brazilian_draughts.rs`, and by hand-checked games.

use gdl_oracles::brazilian_draughts;
use gdl_oracles::oracle;
use gdl_oracles::side_by_side;

use brazilian_draughts::{Brazilian, Move};
use oracle::Oracle;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_pcg::Pcg64;
use side_by_side::{moves_of, play, play_written};
use std::time::Instant;

/// Random games of the oracle alone: they end, and their lengths and speed.
#[test]
#[ignore = "measurement: run with --ignored --nocapture"]
fn oracle_random_game_lengths() {
    let mut rng = Pcg64::seed_from_u64(3);
    let start = Instant::now();
    let (mut longest, mut total, mut draws, mut max_history) = (0, 0, 0, 0);
    let games = 2000;
    for _ in 0..games {
        let mut g = Brazilian::initial();
        let mut steps = 0;
        while !g.is_terminal() {
            let m = [g.legal(0), g.legal(1)].map(|ms| ms.choose(&mut rng).unwrap().clone());
            g.apply(&m);
            steps += 1;
            max_history =
                max_history.max(g.facts().iter().filter(|f| f.starts_with("(seen")).count());
        }
        if g.goals() == [50, 50] {
            draws += 1;
        }
        longest = longest.max(steps);
        total += steps;
    }
    println!(
        "{games} games in {:?}: mean {} steps, longest {longest}, draws {draws}, most seen facts {max_history}",
        start.elapsed(),
        total / games
    );
}

/// The oracle's square numbering: the neighbours the seed's notation implies.
#[test]
fn oracle_opening_moves_follow_the_notation() {
    let g = Brazilian::initial();
    assert_eq!(
        g.legal_texts(0),
        [
            "(move 21 17)",
            "(move 22 17)",
            "(move 22 18)",
            "(move 23 18)",
            "(move 23 19)",
            "(move 24 19)",
            "(move 24 20)"
        ]
    );
    assert_eq!(g.legal(1), vec![Move::Noop]);
}

/// The facts of a position, read back into (board, capturing, jumped).
fn read_facts(g: &Brazilian) -> (Vec<String>, Option<u32>, Vec<u32>) {
    let mut board = vec![String::from("e"); 33];
    let (mut capturing, mut jumped) = (None, Vec::new());
    for f in g.facts() {
        let words: Vec<&str> = f
            .trim_matches(|c| c == '(' || c == ')')
            .split(' ')
            .collect();
        match words[0] {
            "cell" => board[words[1].parse::<usize>().unwrap()] = words[2].to_string(),
            "capturing" => capturing = Some(words[1].parse().unwrap()),
            "jumped" => jumped.push(words[1].parse().unwrap()),
            _ => {}
        }
    }
    (board, capturing, jumped)
}

/// File (0 = a) and rank of a square number, for the fragment search.
fn coords(s: u8) -> (i32, i32) {
    let row = (i32::from(s) - 1) / 4;
    (2 * ((i32::from(s) - 1) % 4) + (row + 1) % 2, 8 - row)
}

/// The square number of a file and rank (dark squares only).
fn square_of(file: i32, rank: i32) -> u8 {
    ((8 - rank) * 4 + file / 2 + 1) as u8
}

/// Searches random oracle games for short games that show each rule the
/// snapshot tests must pin, and prints their moves. Used to pick the
/// hand-checked fragments below.
#[test]
#[ignore = "search tool: run with --ignored --nocapture"]
fn find_fragments() {
    let names = [
        "king must take the most",
        "jumped piece blocks",
        "man passes far rank mid-capture",
        "man captures backward",
        "draw by third repetition",
        "loss with blocked pieces",
        "king crosses its starting square",
    ];
    let mut best: Vec<Option<(usize, u64, Vec<String>)>> = vec![None; names.len()];
    for seed in 0..40000u64 {
        let mut rng = Pcg64::seed_from_u64(seed);
        let mut g = Brazilian::initial();
        let mut played: Vec<String> = Vec::new();
        let mut found = [false; 7];
        let mut turn_start = 0u8;
        let mut at = [0usize; 7];
        while !g.is_terminal() {
            let step = played.len();
            let (board, capturing, jumped) = read_facts(&g);
            let mover = g.legal(0) != vec![Move::Noop];
            let mover = if mover { 0 } else { 1 };
            let options = g.capture_options();
            if capturing.is_none() {
                let top = options.iter().map(|o| o.2).max().unwrap_or(0);
                let king = |o: u8| board[o as usize].ends_with('k');
                if options.iter().any(|o| king(o.0) && o.2 == top && top >= 2)
                    && options.iter().any(|o| king(o.0) && o.2 < top)
                    && !found[0]
                {
                    found[0] = true;
                    at[0] = step;
                }
            }
            if let Some(c) = capturing {
                let piece = &board[c as usize];
                // A man on its far rank mid-sequence.
                if piece.ends_with('m')
                    && ((piece == "wm" && c <= 4) || (piece == "bm" && c >= 29))
                    && !found[2]
                {
                    found[2] = true;
                    at[2] = step;
                }
                if !jumped.is_empty() && !found[1] {
                    // Would the piece have more jumps if jumped pieces vanished?
                    let mut lifted = g.clone();
                    lifted.remove_jumped_for_test();
                    let more = lifted
                        .capture_options()
                        .iter()
                        .map(|o| o.2)
                        .max()
                        .unwrap_or(0);
                    let now = options.iter().map(|o| o.2).max().unwrap_or(0);
                    if more > now {
                        found[1] = true;
                        at[1] = step;
                    }
                }
            }
            let m = [g.legal(0), g.legal(1)].map(|ms| ms.choose(&mut rng).unwrap().clone());
            if let Move::Jump(a, b) = m[mover] {
                if capturing.is_none() {
                    turn_start = a;
                } else if board[a as usize].ends_with('k') && !found[6] {
                    // Squares from a to b, b included.
                    let (fa, ra) = coords(a);
                    let (fb, rb) = coords(b);
                    let (df, dr) = ((fb - fa).signum(), (rb - ra).signum());
                    let crosses = (1..=(fb - fa).abs())
                        .any(|k| square_of(fa + k * df, ra + k * dr) == turn_start);
                    if crosses {
                        found[6] = true;
                        at[6] = step;
                    }
                }
                let piece = &board[a as usize];
                let backward = if piece == "wm" {
                    b > a
                } else {
                    piece == "bm" && b < a
                };
                if backward && !found[3] {
                    found[3] = true;
                    at[3] = step;
                }
            }
            played.push(if mover == 0 {
                format!("{} noop", Brazilian::move_text(&m[0]))
            } else {
                format!("noop {}", Brazilian::move_text(&m[1]))
            });
            g.apply(&m);
        }
        if g.goals() == [50, 50] {
            found[4] = true;
            at[4] = played.len();
        } else {
            let (board, _, _) = read_facts(&g);
            let loser = if g.goals()[0] == 0 { 'w' } else { 'b' };
            if board.iter().any(|p| p.starts_with(loser)) {
                found[5] = true;
                at[5] = played.len();
            }
        }
        for i in 0..7 {
            if found[i] && best[i].as_ref().is_none_or(|b| at[i] < b.0) {
                best[i] = Some((at[i], seed, played.clone()));
            }
        }
    }
    for (i, b) in best.iter().enumerate() {
        if let Some((at, seed, played)) = b {
            println!("== {} at step {at} (seed {seed})", names[i]);
            for (n, m) in played.iter().enumerate().take(at + 6) {
                println!("{n}: {m}");
            }
        }
    }
}

const RULES: &str = "rules/brazilian_draughts.gdl";

/// Every random game of the rules file ends, every role always has a move,
/// and every end gives each role one goal.
#[test]
fn random_playouts_end_well() {
    let start = Instant::now();
    let seen = oracle::random_playouts(RULES, PLAYOUTS, 2003, 2000);
    eprintln!("{seen:?} in {:?}", start.elapsed());
    assert_eq!(seen.games, PLAYOUTS);
}

/// The rules file and the oracle agree move for move over random games.
#[test]
fn rules_agree_with_the_oracle() {
    let start = Instant::now();
    let seen = oracle::compare::<Brazilian>(RULES, ORACLE_GAMES, 3003, 2000);
    eprintln!("{seen:?} in {:?}", start.elapsed());
    assert_eq!(seen.games, ORACLE_GAMES);
}

/// Random playouts of the rules file run in CI.
const PLAYOUTS: usize = 1000;
/// Random games compared with the oracle in CI.
const ORACLE_GAMES: usize = 500;

/// A longer comparison with the oracle than CI runs.
#[test]
#[ignore = "long: run with --ignored"]
fn rules_agree_with_the_oracle_long() {
    let start = Instant::now();
    let seen = oracle::compare::<Brazilian>(RULES, 5000, 4003, 2000);
    eprintln!("{seen:?} in {:?}", start.elapsed());
}

/// Time per random game of the rules file (prints it).
#[test]
#[ignore = "measurement: run with --ignored --nocapture"]
fn time_per_random_game() {
    let games = 50;
    let start = Instant::now();
    let seen = oracle::random_playouts(RULES, games, 5003, 2000);
    let elapsed = start.elapsed();
    eprintln!(
        "{seen:?}: {:?} per game, {:?} per state",
        elapsed / games as u32,
        elapsed / seen.states as u32
    );
}

/// Load time of a rules file named by `RULES_FILE` (default: ours).
#[test]
#[ignore = "measurement: run with --ignored --nocapture"]
fn load_time() {
    let path = std::env::var("RULES_FILE")
        .unwrap_or_else(|_| gdl_oracles::repo_path(RULES).display().to_string());
    let start = Instant::now();
    let loaded = gdl::Game::load(&path);
    eprintln!("{path}: loaded {} in {:?}", loaded.is_ok(), start.elapsed());
    match loaded {
        Ok(game) => eprintln!("{} warnings: {:?}", game.warnings().len(), game.warnings()),
        Err(e) => eprintln!("{}", e.render(false)),
    }
}

/// The board of an oracle position as text, rank 8 on top; dark squares show
/// their number and content, for reading fragments by hand.
fn board_text(g: &Brazilian) -> String {
    let (board, capturing, jumped) = read_facts(g);
    let mut out = String::new();
    for rank in (1..=8).rev() {
        for file in 0..8 {
            if (file + rank) % 2 == 0 {
                out.push_str("  .   ");
            } else {
                let s = square_of(file, rank);
                out.push_str(&format!("{s:>2}:{:<3}", board[s as usize]));
            }
        }
        out.push('\n');
    }
    out.push_str(&format!("capturing {capturing:?} jumped {jumped:?}\n"));
    out
}

/// Plays one side's moves (the other plays noop) on the oracle.
fn oracle_after(moves: &[(usize, String)]) -> Brazilian {
    let mut g = Brazilian::initial();
    for (side, text) in moves {
        let side = *side;
        let m = g
            .legal_move(side, text)
            .unwrap_or_else(|| panic!("{text} is not legal in\n{}", board_text(&g)));
        let mut joint = [Move::Noop, Move::Noop];
        joint[side] = m;
        g.apply(&joint);
    }
    g
}

/// Prints the positions of a move list given in `FRAGMENT` as lines
/// `w (move 22 18)` / `b (jump 9 18)`.
#[test]
#[ignore = "tool: run with --ignored --nocapture"]
fn show_fragment() {
    let moves = moves_of(&std::env::var("FRAGMENT").unwrap_or_default());
    for n in 0..=moves.len() {
        let g = oracle_after(&moves[..n]);
        let mut legal: Vec<String> = [g.legal(0), g.legal(1)]
            .concat()
            .iter()
            .map(Brazilian::move_text)
            .collect();
        legal.sort();
        println!(
            "after {n} moves:\n{}legal {legal:?} terminal {}\n",
            board_text(&g),
            g.is_terminal()
        );
    }
}

/// Flying king, maximum capture, jumped pieces blocking (seed game 9245).
/// After 17 moves the white king on 1 can take 6 landing on 10, 15 or 19;
/// only 15 leads on (x18 to 22, x17 to 13) to three captures, so
/// `(jump 1 15)` is the only legal move. On 13 the king would take 9 next
/// if the jumped man on 6 were gone, but jumped pieces stay until the
/// sequence ends, so 6 blocks the landing square and the sequence ends with
/// three pieces taken, all removed together.
const FLYING_KING_MAXIMUM: &str = "
    w (move 23 18)
    b (move 9 14)
    w (jump 18 9)
    b (jump 5 14)
    w (move 27 23)
    b (move 1 5)
    w (move 23 19)
    b (move 5 9)
    w (move 31 27)
    b (move 11 15)
    w (move 22 17)
    b (move 14 18)
    w (move 17 14)
    b (jump 10 17)
    w (jump 19 10)
    w (jump 10 1)
    b (move 2 6)
    w (jump 1 15)
    w (jump 15 22)
    w (jump 22 13)
";

#[test]
fn flying_king_takes_the_most_and_jumped_pieces_block() {
    let (moves, mut p) = play_written::<Brazilian>(RULES, FLYING_KING_MAXIMUM);
    // 19x10x1: the man crowned on 1 at the end of its capture.
    assert!(p.has(16, "(cell 1 wk)"));
    // The king must land on 15, not 10 or 19.
    assert_eq!(p.legal[17], ["(jump 1 15)"]);
    // Mid-sequence the jumped men stay on the board, marked.
    assert!(p.has(19, "(cell 6 bm)"));
    assert!(p.has(19, "(jumped 6)"));
    assert!(p.has(19, "(jumped 18)"));
    assert!(p.has(19, "(capturing 22)"));
    assert_eq!(p.legal[19], ["(jump 22 13)"]);
    // The sequence ends on 13 (6 blocks 13x9); 6, 18 and 17 go at once and
    // black is to move.
    let end = 20;
    assert!(p.has(end, "(cell 13 wk)"));
    assert!(p.has(end, "(cell 9 bm)"));
    for gone in ["(cell 6 bm)", "(cell 18 bm)", "(cell 17 bm)"] {
        assert!(!p.has(end, gone), "{gone} should be gone");
    }
    assert!(p.has(end, "(control black)"));
    // The whole game as a trace, read move by move against the rules.
    let trace = p.trace(&moves);
    insta::assert_snapshot!(
        "brazilian_flying_king_maximum_capture_and_jumped_pieces_block",
        trace
    );
}

/// Men capture backward; no crowning in passing (seed game 6869). Black's
/// man goes 14x21x30x23x16, taking 17, 25, 26 and 19: it stands on 30, on
/// black's crowning rank, mid-sequence, then jumps back up the board
/// (30x23x16 are backward jumps) and ends on 16 still a man.
const MAN_BACKWARD_NO_CROWNING_IN_PASSING: &str = "
    w (move 21 17)
    b (move 12 16)
    w (move 23 19)
    b (jump 16 23)
    w (jump 26 19)
    b (move 9 14)
    w (move 30 26)
    b (jump 14 21)
    b (jump 21 30)
    b (jump 30 23)
    b (jump 23 16)
";

#[test]
fn man_captures_backward_and_is_not_crowned_in_passing() {
    let (moves, mut p) = play_written::<Brazilian>(RULES, MAN_BACKWARD_NO_CROWNING_IN_PASSING);
    assert_eq!(p.legal[7], ["(jump 14 21)"]);
    assert!(p.has(9, "(cell 30 bm)"));
    assert!(p.has(9, "(capturing 30)"));
    assert_eq!(p.legal[9], ["(jump 30 23)"]);
    assert_eq!(p.legal[10], ["(jump 23 16)"]);
    let end = 11;
    assert!(p.has(end, "(cell 16 bm)"));
    assert!(!p.has(end, "(cell 30 bk)"));
    for gone in [17, 25, 26, 19] {
        assert!(
            !p.facts(end)
                .iter()
                .any(|f| f.starts_with(&format!("(cell {gone} ")))
        );
    }
    assert!(p.has(end, "(control white)"));
    // The whole game as a trace, read move by move against the rules.
    let trace = p.trace(&moves);
    insta::assert_snapshot!(
        "brazilian_man_captures_backward_no_crowning_in_passing",
        trace
    );
}

/// Loss by no move (seed game 7622): after 20x27 white's last man, on 12,
/// is blocked by 8 (and 3 behind it) and has nowhere to step: white loses.
/// Also: at move 30 black has two captures of one piece each (19x28, 20x27)
/// and may choose either; 30x21 is a king's capture at a distance.
const LOSS_BY_NO_MOVE: &str = "
    w (move 21 17)
    b (move 9 14)
    w (move 24 20)
    b (jump 14 21)
    w (move 28 24)
    b (move 12 16)
    w (move 32 28)
    b (move 10 14)
    w (move 24 19)
    b (move 5 9)
    w (jump 19 12)
    b (move 7 10)
    w (move 23 18)
    b (jump 14 23)
    b (jump 23 32)
    w (move 20 16)
    b (jump 11 20)
    w (move 26 23)
    b (jump 32 18)
    w (jump 22 15)
    b (jump 10 19)
    w (move 30 26)
    b (jump 21 30)
    b (jump 30 23)
    w (move 31 26)
    b (jump 23 30)
    w (move 29 25)
    b (jump 30 21)
    w (move 28 24)
    b (jump 20 27)
";

#[test]
fn player_with_no_move_loses() {
    let (moves, mut p) = play_written::<Brazilian>(RULES, LOSS_BY_NO_MOVE);
    assert_eq!(p.legal[29], ["(jump 19 28)", "(jump 20 27)"]);
    let end = moves.len();
    assert!(p.has(end, "(cell 12 wm)"));
    assert!(p.is_terminal(end));
    assert_eq!(p.goals(end), vec![0, 100]);
    assert!(!p.is_terminal(29));
    // The whole game as a trace, read move by move against the rules.
    let trace = p.trace(&moves);
    insta::assert_snapshot!("brazilian_loss_by_no_move", trace);
}

/// Draw by the third repetition. The first 63 moves (seed game 15195) leave
/// a white king on 29 against a black king just crowned on 32, white to
/// move. The kings then go 29-25 32-28 25-29 28-32 twice: the position comes
/// back after 67 moves (second time) and after 71 (third time: draw).
fn repetition_moves() -> Vec<(usize, String)> {
    let mut moves = moves_of(DRAW_PREFIX);
    for _ in 0..2 {
        moves.extend(moves_of(
            "w (move 29 25)\nb (move 32 28)\nw (move 25 29)\nb (move 28 32)",
        ));
    }
    moves
}

const DRAW_PREFIX: &str = "
    w (move 21 17)
    b (move 11 16)
    w (move 17 14)
    b (jump 9 18)
    w (jump 23 14)
    b (jump 10 17)
    w (jump 22 13)
    b (move 7 11)
    w (move 13 9)
    b (jump 5 14)
    w (move 24 20)
    b (move 3 7)
    w (move 25 21)
    b (move 6 9)
    w (move 26 22)
    b (move 14 18)
    w (jump 22 15)
    b (jump 11 18)
    w (jump 20 11)
    b (jump 8 15)
    w (move 21 17)
    b (move 4 8)
    w (move 27 23)
    b (jump 18 27)
    w (jump 32 23)
    b (move 7 11)
    w (move 23 18)
    b (jump 15 22)
    b (jump 22 13)
    w (move 30 26)
    b (move 1 5)
    w (move 26 23)
    b (move 11 15)
    w (move 29 25)
    b (move 15 18)
    w (jump 23 14)
    b (jump 9 18)
    w (move 31 26)
    b (move 18 23)
    w (jump 26 19)
    b (move 8 11)
    w (move 25 22)
    b (move 12 16)
    w (jump 19 12)
    b (move 2 6)
    w (move 28 24)
    b (move 13 17)
    w (jump 22 13)
    b (move 6 10)
    w (move 24 19)
    b (move 11 15)
    w (move 12 8)
    b (jump 15 24)
    w (move 13 9)
    b (jump 5 14)
    w (move 8 4)
    b (move 24 28)
    w (move 4 22)
    b (move 10 15)
    w (jump 22 11)
    b (move 14 18)
    w (jump 11 29)
    b (move 28 32)
";

#[test]
fn third_repetition_is_a_draw() {
    let moves = repetition_moves();
    let mut p = play::<Brazilian>(RULES, &moves);
    let start = 63;
    assert!(p.has(start, "(cell 29 wk)"));
    assert!(p.has(start, "(cell 32 bk)"));
    // A man move just happened: no position is remembered.
    assert!(!p.facts(start).iter().any(|f| f.starts_with("(seen")));
    // Second occurrence: remembered once, play goes on.
    assert!(!p.is_terminal(67));
    let seen_once = p
        .facts(67)
        .iter()
        .filter(|f| f.starts_with("(seen white 1 "))
        .count();
    assert_eq!(seen_once, 2);
    for step in 0..71 {
        assert!(!p.is_terminal(step));
    }
    // Third occurrence: a draw.
    let end = 71;
    assert!(
        p.facts(end)
            .iter()
            .any(|f| f.starts_with("(seen white 2 (sq e "))
    );
    assert!(p.is_terminal(end));
    assert_eq!(p.goals(end), vec![50, 50]);
    // The whole game as a trace, read move by move against the rules.
    let trace = p.trace(&moves);
    insta::assert_snapshot!("brazilian_draw_by_third_repetition", trace);
}

/// A king may pass over, or land on, the square it started from: that square
/// is empty once the king has left it (seed game 20200). The white king on 2
/// takes four men in a loop, 2x11x18x9x2, and ends on 2 again (2x9x18x11x2,
/// the other way round, takes as many and is legal too).
const KING_RETURNS_HOME: &str = "
    w (move 24 20)
    b (move 12 16)
    w (move 22 17)
    b (move 9 14)
    w (move 17 13)
    b (move 5 9)
    w (move 23 18)
    b (jump 14 23)
    w (jump 26 19)
    w (jump 19 12)
    b (move 10 14)
    w (move 27 24)
    b (move 11 16)
    w (jump 20 11)
    b (jump 8 15)
    w (move 25 22)
    b (move 7 10)
    w (move 30 25)
    b (move 14 18)
    w (move 31 27)
    b (move 9 14)
    w (move 12 8)
    b (jump 3 12)
    w (move 22 17)
    b (move 2 7)
    w (move 25 22)
    b (jump 18 25)
    w (jump 29 22)
    b (move 6 9)
    w (jump 13 6)
    b (move 12 16)
    w (move 6 2)
    b (move 1 6)
    w (jump 2 11)
    w (jump 11 18)
    w (jump 18 9)
    w (jump 9 2)
";

#[test]
fn king_may_land_on_its_starting_square() {
    let (moves, mut p) = play_written::<Brazilian>(RULES, KING_RETURNS_HOME);
    assert!(p.has(33, "(cell 2 wk)"));
    // The loop may go either way round (four men each): both are legal.
    assert_eq!(p.legal[33], ["(jump 2 11)", "(jump 2 9)"]);
    // Mid-sequence, 2 is empty and the king's last jump lands there.
    assert!(!p.facts(36).iter().any(|f| f.starts_with("(cell 2 ")));
    assert_eq!(p.legal[36], ["(jump 9 2)"]);
    let end = 37;
    assert!(p.has(end, "(cell 2 wk)"));
    for gone in [7, 15, 14, 6] {
        assert!(
            !p.facts(end)
                .iter()
                .any(|f| f.starts_with(&format!("(cell {gone} ")))
        );
    }
    assert!(p.has(end, "(control black)"));
    // The whole game as a trace, read move by move against the rules.
    let trace = p.trace(&moves);
    insta::assert_snapshot!("brazilian_king_lands_on_its_starting_square", trace);
}

/// Load time and time per random game with grounding turned off (the
/// interpreter only), to compare with `time_per_random_game`.
#[test]
#[ignore = "measurement: run with --ignored --nocapture"]
fn time_per_random_game_interpreted() {
    let start = Instant::now();
    let limits = gdl::LoadOptions {
        limits: gdl::Limits::default(),
        engine: gdl::EngineChoice::Interpreter,
    };
    let mut game = gdl::Game::load_with(gdl_oracles::repo_path(RULES), limits).unwrap();
    let loaded = start.elapsed();
    let mut rng = Pcg64::seed_from_u64(5003);
    let games = 50;
    let start = Instant::now();
    for _ in 0..games {
        let mut state = game.initial_state();
        while !game.is_terminal(&state).unwrap() {
            let joint: Vec<gdl::Move> = game
                .roles()
                .into_iter()
                .map(|r| {
                    *game
                        .legal_moves(&state, r)
                        .unwrap()
                        .choose(&mut rng)
                        .unwrap()
                })
                .collect();
            state = game.next_state(&state, &joint).unwrap();
        }
    }
    eprintln!(
        "loaded in {loaded:?}; {:?} per game",
        start.elapsed() / games
    );
}
