//! Escort breakthrough (seed 001), written directly from the text: Breakthrough
//! pawns plus one king a side; capturing the enemy king or bringing one's own
//! king to the far rank wins; the game stops at step 61.

pub use crate::oracle::CellMove as Move;
use crate::oracle::{Oracle, ROLES, cell_text, turn_moves, winner_goals};

const EMPTY: u8 = 0;
const WP: u8 = 1;
const WK: u8 = 2;
const BP: u8 = 3;
const BK: u8 = 4;

/// The step at which the game is over.
const LAST_STEP: u32 = 61;

/// The position: `board[file][rank]`, whose turn, and the step counter.
#[derive(Clone, Debug)]
pub struct EscortBreakthrough {
    board: [[u8; 8]; 8],
    /// 0 = white, 1 = black.
    control: usize,
    step: u32,
}

fn owner(piece: u8) -> Option<usize> {
    match piece {
        WP | WK => Some(0),
        BP | BK => Some(1),
        _ => None,
    }
}

impl EscortBreakthrough {
    fn king_cell(&self, role: usize) -> Option<(usize, usize)> {
        let king = if role == 0 { WK } else { BK };
        (0..8)
            .flat_map(|x| (0..8).map(move |y| (x, y)))
            .find(|&(x, y)| self.board[x][y] == king)
    }

    /// The role that has won, if any.
    fn winner(&self) -> Option<usize> {
        for role in 0..2 {
            let far = if role == 0 { 7 } else { 0 };
            let home = matches!(self.king_cell(role), Some((_, y)) if y == far);
            if home || self.king_cell(1 - role).is_none() {
                return Some(role);
            }
        }
        None
    }

    fn piece_moves(&self, role: usize) -> Vec<Move> {
        let mut moves = Vec::new();
        let dy: i32 = if role == 0 { 1 } else { -1 };
        let friendly = |x: i32, y: i32| owner(self.board[x as usize][y as usize]) == Some(role);
        for x in 0..8i32 {
            for y in 0..8i32 {
                let piece = self.board[x as usize][y as usize];
                if owner(piece) != Some(role) {
                    continue;
                }
                let mut push = |tx: i32, ty: i32| {
                    moves.push(Move::Step {
                        from: (x as u8, y as u8),
                        to: (tx as u8, ty as u8),
                    })
                };
                let ty = y + dy;
                let on_board = |v: i32| (0..8).contains(&v);
                if piece == WP || piece == BP {
                    if !on_board(ty) {
                        continue;
                    }
                    if self.board[x as usize][ty as usize] == EMPTY {
                        push(x, ty);
                    }
                    for tx in [x - 1, x + 1] {
                        if on_board(tx) && !friendly(tx, ty) {
                            push(tx, ty);
                        }
                    }
                } else {
                    // A king: forward, diagonally forward and sideways.
                    for (ddx, ddy) in [(-1, dy), (0, dy), (1, dy), (-1, 0), (1, 0)] {
                        let (tx, ty) = (x + ddx, y + ddy);
                        if on_board(tx) && on_board(ty) && !friendly(tx, ty) {
                            push(tx, ty);
                        }
                    }
                }
            }
        }
        moves
    }
}

impl Oracle for EscortBreakthrough {
    type Move = Move;

    fn initial() -> Self {
        let mut board = [[EMPTY; 8]; 8];
        for column in board.iter_mut() {
            column[1] = WP;
            column[6] = BP;
        }
        board[3][0] = WK;
        board[3][7] = BK;
        EscortBreakthrough {
            board,
            control: 0,
            step: 1,
        }
    }

    fn legal(&self, role: usize) -> Vec<Move> {
        turn_moves(self.is_terminal(), role, self.control, Move::Noop, || {
            let moves = self.piece_moves(role);
            if moves.is_empty() {
                vec![Move::Noop]
            } else {
                moves
            }
        })
    }

    fn apply(&mut self, joint: &[Move; 2]) {
        if let Move::Step { from, to } = joint[self.control] {
            let piece = self.board[from.0 as usize][from.1 as usize];
            self.board[from.0 as usize][from.1 as usize] = EMPTY;
            self.board[to.0 as usize][to.1 as usize] = piece;
        }
        self.control = 1 - self.control;
        self.step += 1;
    }

    fn is_terminal(&self) -> bool {
        self.winner().is_some() || self.step >= LAST_STEP
    }

    fn goals(&self) -> [u8; 2] {
        winner_goals(self.winner(), [50, 50])
    }

    fn move_text(m: &Move) -> String {
        m.text()
    }

    fn facts(&self) -> Vec<String> {
        let mut facts = Vec::new();
        for (x, column) in self.board.iter().enumerate() {
            for (y, &piece) in column.iter().enumerate() {
                let name = match piece {
                    WP => "wp",
                    WK => "wk",
                    BP => "bp",
                    BK => "bk",
                    _ => continue,
                };
                facts.push(format!("(cell {} {name})", cell_text(x, y)));
            }
        }
        facts.push(format!("(control {})", ROLES[self.control]));
        facts.push(format!("(step {})", self.step));
        facts.sort();
        facts
    }
}
