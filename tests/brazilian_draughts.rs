//! Brazilian draughts (seed 003): the rules file `rules/brazilian_draughts.gdl`
//! checked by random playouts, against the oracle of
//! `tests/oracle/brazilian_draughts.rs`, and by hand-checked games.

#[path = "oracle/brazilian_draughts.rs"]
mod brazilian_draughts;
mod oracle;

use brazilian_draughts::{Brazilian, Move};
use oracle::Oracle;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_pcg::Pcg64;
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
    let _ = Move::Noop;
}

/// The oracle's square numbering: the neighbours the seed's notation implies.
#[test]
fn oracle_opening_moves_follow_the_notation() {
    let g = Brazilian::initial();
    let mut white: Vec<String> = g.legal(0).iter().map(Brazilian::move_text).collect();
    white.sort();
    assert_eq!(
        white,
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
                let enemy =
                    |s: usize| board[s] != "e" && board[s].as_bytes()[0] != piece.as_bytes()[0];
                let _ = enemy;
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
                    let (f, _, _) = read_facts(&g);
                    let _ = f;
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
    let path = std::env::var("RULES_FILE").unwrap_or_else(|_| RULES.to_string());
    let start = Instant::now();
    let loaded = gdl::Game::load(&path);
    eprintln!("{path}: loaded {} in {:?}", loaded.is_ok(), start.elapsed());
    if let Err(e) = loaded {
        eprintln!("{}", e.render(false));
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
fn oracle_after(moves: &[(usize, &str)]) -> Brazilian {
    let mut g = Brazilian::initial();
    for &(side, text) in moves {
        let m = g
            .legal(side)
            .into_iter()
            .find(|m| Brazilian::move_text(m) == text)
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
    let text = std::env::var("FRAGMENT").unwrap_or_default();
    let moves: Vec<(usize, &str)> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| (usize::from(l.trim().starts_with('b')), l.trim()[2..].trim()))
        .collect();
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
