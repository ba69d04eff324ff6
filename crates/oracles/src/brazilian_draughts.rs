//! Brazilian draughts (seed 003) written directly in Rust, without GDL.
//!
//! The 32 dark squares are numbered 1-32 row by row from Black's side
//! (b8 d8 f8 h8 = 1-4, ..., a1 c1 e1 g1 = 29-32). A step is one action,
//! `(move 22 18)`; a capture sequence `22x15x6` is one action per jump,
//! `(jump 22 15)` then `(jump 15 6)`, the capturing side keeping the move
//! until the sequence is over. Every jump must begin or continue a sequence
//! that captures the most pieces. Jumped pieces stay on the board (and block)
//! until the sequence ends. The position met for the third time with the same
//! side to move is a draw; the side to move with no move loses.

use crate::oracle::{Oracle, ROLES, turn_moves};

/// An empty square.
const EMPTY: u8 = 0;
/// A white man.
const WM: u8 = 1;
/// A white king.
const WK: u8 = 2;
/// A black man.
const BM: u8 = 3;
/// A black king.
const BK: u8 = 4;

/// The name of each square content in the rules file's facts.
const NAMES: [&str; 5] = ["e", "wm", "wk", "bm", "bk"];

/// The four diagonal directions as (file, rank) steps; rank grows toward
/// Black's side.
const DIRECTIONS: [(i32, i32); 4] = [(-1, 1), (1, 1), (-1, -1), (1, -1)];

/// File (0 = a) and rank (1-8) of a square number.
fn coordinates(square: u8) -> (i32, i32) {
    let row = (i32::from(square) - 1) / 4; // 0 is rank 8
    let index = (i32::from(square) - 1) % 4;
    let file = 2 * index + if row % 2 == 0 { 1 } else { 0 };
    (file, 8 - row)
}

/// The square number at a file and rank, if it is a dark square on the board.
fn square_at(file: i32, rank: i32) -> Option<u8> {
    if !(0..8).contains(&file) || !(1..=8).contains(&rank) || (file + rank) % 2 == 0 {
        return None;
    }
    let row = 8 - rank;
    Some((row * 4 + file / 2 + 1) as u8)
}

/// The neighbour of `square` in direction `d` (index into `DIRECTIONS`).
fn neighbour(square: u8, d: usize) -> Option<u8> {
    let (file, rank) = coordinates(square);
    let (df, dr) = DIRECTIONS[d];
    square_at(file + df, rank + dr)
}

/// Whether the content of a square is a white piece.
fn is_white(piece: u8) -> bool {
    piece == WM || piece == WK
}

fn is_king(piece: u8) -> bool {
    piece == WK || piece == BK
}

fn owner(piece: u8) -> usize {
    if is_white(piece) { 0 } else { 1 }
}

/// A move of one role.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// The idle role's move.
    Noop,
    /// A step (a man one square forward, a king any distance): `from-to`.
    Step(u8, u8),
    /// One jump of a capture sequence, from the square the piece stands on to
    /// the square it lands on.
    Jump(u8, u8),
}

/// A position of Brazilian draughts with everything the rules need.
#[derive(Clone, Debug)]
pub struct Brazilian {
    /// Content of squares 1-32 (index 0 unused).
    board: [u8; 33],
    /// 0 = white, 1 = black.
    to_move: usize,
    /// Mid-sequence: the square of the capturing piece.
    capturing: Option<u8>,
    /// Mid-sequence: bit `s` is set when the piece on `s` was jumped.
    jumped: u64,
    /// The positions (side to move, board) met at the start of each turn
    /// since the last man step or capture, oldest first, the current one
    /// excluded; duplicates kept.
    history: Vec<(usize, [u8; 33])>,
}

/// Precomputed neighbours: `next[s][d]`, 0 for none.
struct Geometry {
    next: [[u8; 4]; 33],
}

impl Geometry {
    fn new() -> Geometry {
        let mut next = [[0u8; 4]; 33];
        for s in 1..=32u8 {
            for (d, slot) in next[s as usize].iter_mut().enumerate() {
                *slot = neighbour(s, d).unwrap_or(0);
            }
        }
        Geometry { next }
    }
}

thread_local! {
    static GEOMETRY: Geometry = Geometry::new();
}

fn step(s: u8, d: usize) -> u8 {
    GEOMETRY.with(|g| g.next[s as usize][d])
}

impl Brazilian {
    fn enemy_of(&self, square: u8, side: usize) -> bool {
        let p = self.board[square as usize];
        p != EMPTY && owner(p) != side
    }

    /// The jumps open to the piece of `kind` (of side `side`) on `from`, with
    /// the board as it is (the origin must already be vacated by the caller)
    /// and `jumped` pieces not takeable: (jumped square, landing square).
    fn jumps_from(&self, from: u8, piece: u8, jumped: u64) -> Vec<(u8, u8)> {
        let side = owner(piece);
        let mut out = Vec::new();
        for d in 0..4 {
            if is_king(piece) {
                let mut s = step(from, d);
                while s != 0 && self.board[s as usize] == EMPTY {
                    s = step(s, d);
                }
                if s == 0 || !self.enemy_of(s, side) || jumped & (1 << s) != 0 {
                    continue;
                }
                let mut land = step(s, d);
                while land != 0 && self.board[land as usize] == EMPTY {
                    out.push((s, land));
                    land = step(land, d);
                }
            } else {
                let over = step(from, d);
                if over == 0 || !self.enemy_of(over, side) || jumped & (1 << over) != 0 {
                    continue;
                }
                let land = step(over, d);
                if land != 0 && self.board[land as usize] == EMPTY {
                    out.push((over, land));
                }
            }
        }
        out
    }

    /// The most pieces the piece can still capture from `from`.
    fn longest(&self, from: u8, piece: u8, jumped: u64) -> u32 {
        self.jumps_from(from, piece, jumped)
            .into_iter()
            .map(|(over, land)| 1 + self.longest(land, piece, jumped | (1 << over)))
            .max()
            .unwrap_or(0)
    }

    /// Every first jump (origin, landing) open to the side to move, with the
    /// number of pieces the best sequence starting with it captures (before
    /// the maximum-capture rule keeps only the best).
    pub fn capture_options(&self) -> Vec<(u8, u8, u32)> {
        let origins: Vec<u8> = match self.capturing {
            Some(s) => vec![s],
            None => (1..=32u8)
                .filter(|&s| {
                    let p = self.board[s as usize];
                    p != EMPTY && owner(p) == self.to_move
                })
                .collect(),
        };
        let mut scratch = self.clone();
        let mut out = Vec::new();
        for o in origins {
            let piece = self.board[o as usize];
            // The capturing piece has left its square: it counts as empty.
            scratch.board[o as usize] = EMPTY;
            for (over, land) in scratch.jumps_from(o, piece, self.jumped) {
                let n = 1 + scratch.longest(land, piece, self.jumped | (1 << over));
                out.push((o, land, n));
            }
            scratch.board[o as usize] = piece;
        }
        out
    }

    /// The same position with the pieces jumped so far taken off the board
    /// at once (not the rules: tests use it to show that jumped pieces block).
    pub fn remove_jumped_for_test(&mut self) {
        for x in 1..=32u8 {
            if self.jumped & (1 << x) != 0 {
                self.board[x as usize] = EMPTY;
            }
        }
        self.jumped = 0;
    }

    fn legal_for_mover(&self) -> Vec<Move> {
        let captures = self.capture_options();
        if let Some(best) = captures.iter().map(|c| c.2).max() {
            return captures
                .into_iter()
                .filter(|c| c.2 == best)
                .map(|(o, l, _)| Move::Jump(o, l))
                .collect();
        }
        let mut moves = Vec::new();
        for s in 1..=32u8 {
            let p = self.board[s as usize];
            if p == EMPTY || owner(p) != self.to_move {
                continue;
            }
            for d in 0..4 {
                if is_king(p) {
                    let mut t = step(s, d);
                    while t != 0 && self.board[t as usize] == EMPTY {
                        moves.push(Move::Step(s, t));
                        t = step(t, d);
                    }
                } else {
                    let forward = if self.to_move == 0 { d < 2 } else { d >= 2 };
                    let t = step(s, d);
                    if forward && t != 0 && self.board[t as usize] == EMPTY {
                        moves.push(Move::Step(s, t));
                    }
                }
            }
        }
        moves
    }

    /// How many times the current position was met before with the same side
    /// to move.
    fn met_before(&self) -> usize {
        self.history
            .iter()
            .filter(|(side, board)| *side == self.to_move && *board == self.board)
            .count()
    }

    fn crown_if_on_far_rank(&mut self, square: u8) {
        let p = self.board[square as usize];
        let (_, rank) = coordinates(square);
        if p == WM && rank == 8 {
            self.board[square as usize] = WK;
        } else if p == BM && rank == 1 {
            self.board[square as usize] = BK;
        }
    }

    fn end_turn(&mut self) {
        self.to_move = 1 - self.to_move;
    }

    /// A board as the rules file writes it in `seen` facts:
    /// `(sq c1 (sq c2 ... (sq c32 nil)))`.
    fn position_term(board: &[u8; 33]) -> String {
        let mut text = String::from("nil");
        for s in (1..=32).rev() {
            text = format!("(sq {} {text})", NAMES[board[s] as usize]);
        }
        text
    }
}

impl Oracle for Brazilian {
    type Move = Move;

    fn initial() -> Self {
        let mut board = [EMPTY; 33];
        board[1..=12].fill(BM);
        board[21..=32].fill(WM);
        Brazilian {
            board,
            to_move: 0,
            capturing: None,
            jumped: 0,
            history: Vec::new(),
        }
    }

    fn legal(&self, role: usize) -> Vec<Move> {
        turn_moves(self.is_terminal(), role, self.to_move, Move::Noop, || {
            self.legal_for_mover()
        })
    }

    fn apply(&mut self, joint: &[Move; 2]) {
        match joint[self.to_move] {
            Move::Noop => panic!("the side to move played noop"),
            Move::Step(from, to) => {
                let piece = self.board[from as usize];
                if is_king(piece) {
                    self.history.push((self.to_move, self.board));
                } else {
                    self.history.clear();
                }
                self.board[from as usize] = EMPTY;
                self.board[to as usize] = piece;
                self.crown_if_on_far_rank(to);
                self.end_turn();
            }
            Move::Jump(from, to) => {
                self.history.clear();
                let piece = self.board[from as usize];
                let (f0, r0) = coordinates(from);
                let (f1, r1) = coordinates(to);
                let (df, dr) = ((f1 - f0).signum(), (r1 - r0).signum());
                let mut s = square_at(f0 + df, r0 + dr).expect("jump along a diagonal");
                while self.board[s as usize] == EMPTY {
                    let (f, r) = coordinates(s);
                    s = square_at(f + df, r + dr).expect("a piece to jump");
                }
                self.jumped |= 1 << s;
                // The piece stays lifted while we look for a further jump.
                self.board[from as usize] = EMPTY;
                if self.longest(to, piece, self.jumped) > 0 {
                    self.board[to as usize] = piece;
                    self.capturing = Some(to);
                } else {
                    for x in 1..=32u8 {
                        if self.jumped & (1 << x) != 0 {
                            self.board[x as usize] = EMPTY;
                        }
                    }
                    self.jumped = 0;
                    self.capturing = None;
                    self.board[to as usize] = piece;
                    self.crown_if_on_far_rank(to);
                    self.end_turn();
                }
            }
        }
    }

    fn is_terminal(&self) -> bool {
        self.capturing.is_none() && (self.met_before() >= 2 || self.legal_for_mover().is_empty())
    }

    fn goals(&self) -> [u8; 2] {
        if self.met_before() >= 2 {
            [50, 50]
        } else if self.to_move == 0 {
            [0, 100]
        } else {
            [100, 0]
        }
    }

    fn move_text(m: &Move) -> String {
        match m {
            Move::Noop => "noop".to_string(),
            Move::Step(a, b) => format!("(move {a} {b})"),
            Move::Jump(a, b) => format!("(jump {a} {b})"),
        }
    }

    fn facts(&self) -> Vec<String> {
        let mut facts = Vec::new();
        for s in 1..=32 {
            let p = self.board[s];
            if p != EMPTY {
                facts.push(format!("(cell {s} {})", NAMES[p as usize]));
            }
        }
        facts.push(format!("(control {})", ROLES[self.to_move]));
        if let Some(s) = self.capturing {
            facts.push(format!("(capturing {s})"));
        }
        for s in 1..=32u8 {
            if self.jumped & (1 << s) != 0 {
                facts.push(format!("(jumped {s})"));
            }
        }
        let mut counted: Vec<(usize, [u8; 33], usize)> = Vec::new();
        for (side, board) in &self.history {
            match counted.iter_mut().find(|c| c.0 == *side && c.1 == *board) {
                Some(c) => c.2 += 1,
                None => counted.push((*side, *board, 1)),
            }
        }
        for (side, board, n) in counted {
            facts.push(format!(
                "(seen {} {n} {})",
                ROLES[side],
                Brazilian::position_term(&board)
            ));
        }
        facts.sort();
        facts
    }
}
