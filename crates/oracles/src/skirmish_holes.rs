//! Skirmish with holes (seed 004), written directly from the text: chess
//! pieces without check, castling or en passant on an 8x8 board with four
//! holes; players score by their number of captures; the game stops at step
//! 100, or when either player has no piece or no move.

use crate::oracle::{Oracle, ROLES, turn_moves};

const PAWN: u8 = 1;
const KNIGHT: u8 = 2;
const BISHOP: u8 = 3;
const ROOK: u8 = 4;
const QUEEN: u8 = 5;
const KING: u8 = 6;
/// Added to a kind for a black piece; 0 is an empty cell.
const BLACK: u8 = 8;

/// The step at which the game is over.
const LAST_STEP: u32 = 100;

/// Goal by number of captures.
const SCORE: [u8; 17] = [
    0, 6, 12, 18, 24, 30, 36, 42, 48, 54, 60, 66, 72, 79, 86, 93, 100,
];

const ROOK_DIRS: [(i8, i8); 4] = [(0, 1), (0, -1), (1, 0), (-1, 0)];
const BISHOP_DIRS: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
const ALL_DIRS: [(i8, i8); 8] = [
    (0, 1),
    (0, -1),
    (1, 0),
    (-1, 0),
    (1, 1),
    (1, -1),
    (-1, 1),
    (-1, -1),
];
const KNIGHT_JUMPS: [(i8, i8); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];

/// A move of one role. Cells are (x, y), both 0-based.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// `(move x1 y1 x2 y2)`.
    Step { from: (i8, i8), to: (i8, i8) },
    /// `noop`.
    Noop,
}

/// The position: `board[x][y]` (0-based), whose turn, the step counter and
/// each role's number of captures.
#[derive(Clone, Debug)]
pub struct SkirmishHoles {
    board: [[u8; 8]; 8],
    /// 0 = white, 1 = black.
    control: usize,
    step: u32,
    captures: [u8; 2],
}

/// Whether (x, y), 0-based, is one of the four holes (3,3) (3,6) (6,3) (6,6).
fn is_hole(x: i8, y: i8) -> bool {
    (x == 2 || x == 5) && (y == 2 || y == 5)
}

/// Whether a piece may stand on (x, y): on the board and not a hole.
fn is_square(x: i8, y: i8) -> bool {
    (0..8).contains(&x) && (0..8).contains(&y) && !is_hole(x, y)
}

fn owner(piece: u8) -> Option<usize> {
    match piece {
        0 => None,
        p if p & BLACK != 0 => Some(1),
        _ => Some(0),
    }
}

impl SkirmishHoles {
    fn at(&self, x: i8, y: i8) -> u8 {
        self.board[x as usize][y as usize]
    }

    /// The moves of `role`'s pieces, whoever is in control: all of them, or
    /// those of the first pieces met once `enough` moves are found.
    fn piece_moves(&self, role: usize, enough: usize) -> Vec<Move> {
        let mut moves = Vec::new();
        for x in 0..8i8 {
            for y in 0..8i8 {
                let piece = self.at(x, y);
                if owner(piece) != Some(role) {
                    continue;
                }
                if moves.len() >= enough {
                    return moves;
                }
                let from = (x, y);
                // A target a piece may land on: a square not held by a friend.
                let open =
                    |tx: i8, ty: i8| is_square(tx, ty) && owner(self.at(tx, ty)) != Some(role);
                match piece & !BLACK {
                    PAWN => {
                        let (dy, start) = if role == 0 { (1, 1) } else { (-1, 6) };
                        let y1 = y + dy;
                        if is_square(x, y1) && self.at(x, y1) == 0 {
                            moves.push(Move::Step { from, to: (x, y1) });
                            let y2 = y1 + dy;
                            if y == start && is_square(x, y2) && self.at(x, y2) == 0 {
                                moves.push(Move::Step { from, to: (x, y2) });
                            }
                        }
                        for tx in [x - 1, x + 1] {
                            if is_square(tx, y1) && owner(self.at(tx, y1)) == Some(1 - role) {
                                moves.push(Move::Step { from, to: (tx, y1) });
                            }
                        }
                    }
                    KNIGHT | KING => {
                        let offsets = if piece & !BLACK == KNIGHT {
                            &KNIGHT_JUMPS
                        } else {
                            &ALL_DIRS
                        };
                        for &(dx, dy) in offsets {
                            if open(x + dx, y + dy) {
                                moves.push(Move::Step {
                                    from,
                                    to: (x + dx, y + dy),
                                });
                            }
                        }
                    }
                    kind => {
                        let dirs: &[(i8, i8)] = match kind {
                            ROOK => &ROOK_DIRS,
                            BISHOP => &BISHOP_DIRS,
                            _ => &ALL_DIRS,
                        };
                        for &(dx, dy) in dirs {
                            let (mut tx, mut ty) = (x + dx, y + dy);
                            while is_square(tx, ty) {
                                let target = self.at(tx, ty);
                                if owner(target) != Some(role) {
                                    moves.push(Move::Step { from, to: (tx, ty) });
                                }
                                if target != 0 {
                                    break;
                                }
                                tx += dx;
                                ty += dy;
                            }
                        }
                    }
                }
            }
        }
        moves
    }

    /// Whether `role` has a move, whoever is in control.
    pub fn has_move(&self, role: usize) -> bool {
        !self.piece_moves(role, 1).is_empty()
    }

    fn has_piece(&self, role: usize) -> bool {
        self.board.iter().flatten().any(|&p| owner(p) == Some(role))
    }
}

impl Oracle for SkirmishHoles {
    type Move = Move;

    fn initial() -> Self {
        let mut board = [[0u8; 8]; 8];
        let back = [ROOK, KNIGHT, BISHOP, QUEEN, KING, BISHOP, KNIGHT, ROOK];
        for x in 0..8 {
            board[x][0] = back[x];
            board[x][1] = PAWN;
            board[x][6] = PAWN | BLACK;
            board[x][7] = back[x] | BLACK;
        }
        SkirmishHoles {
            board,
            control: 0,
            step: 1,
            captures: [0, 0],
        }
    }

    fn legal(&self, role: usize) -> Vec<Move> {
        turn_moves(self.is_terminal(), role, self.control, Move::Noop, || {
            self.piece_moves(role, usize::MAX)
        })
    }

    fn apply(&mut self, joint: &[Move; 2]) {
        if let Move::Step { from, to } = joint[self.control] {
            let mut piece = self.at(from.0, from.1);
            if self.at(to.0, to.1) != 0 {
                self.captures[self.control] += 1;
            }
            let last_row = if self.control == 0 { 7 } else { 0 };
            if piece & !BLACK == PAWN && to.1 == last_row {
                piece = QUEEN | (piece & BLACK);
            }
            self.board[from.0 as usize][from.1 as usize] = 0;
            self.board[to.0 as usize][to.1 as usize] = piece;
        }
        self.control = 1 - self.control;
        self.step += 1;
    }

    fn is_terminal(&self) -> bool {
        self.step >= LAST_STEP || (0..2).any(|r| !self.has_piece(r) || !self.has_move(r))
    }

    fn goals(&self) -> [u8; 2] {
        [
            SCORE[self.captures[0] as usize],
            SCORE[self.captures[1] as usize],
        ]
    }

    fn move_text(m: &Move) -> String {
        match m {
            Move::Noop => "noop".to_string(),
            Move::Step { from, to } => format!(
                "(move {} {} {} {})",
                from.0 + 1,
                from.1 + 1,
                to.0 + 1,
                to.1 + 1
            ),
        }
    }

    fn facts(&self) -> Vec<String> {
        let mut facts = Vec::new();
        for (x, column) in self.board.iter().enumerate() {
            for (y, &piece) in column.iter().enumerate() {
                if piece == 0 {
                    continue;
                }
                let colour = if piece & BLACK != 0 { 'b' } else { 'w' };
                let kind = ['?', 'p', 'n', 'b', 'r', 'q', 'k'][(piece & !BLACK) as usize];
                facts.push(format!("(cell {} {} {colour}{kind})", x + 1, y + 1));
            }
        }
        for (role, name) in ROLES.iter().enumerate() {
            facts.push(format!("(captures {name} {})", self.captures[role]));
        }
        facts.push(format!("(control {})", ROLES[self.control]));
        facts.push(format!("(step {})", self.step));
        facts.sort();
        facts
    }
}
