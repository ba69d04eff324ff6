//! Classic 8x8 Breakthrough, written directly from its rules: pawns only, two
//! rows each; a pawn steps one rank forward, straight into an empty cell or
//! diagonally onto an empty or enemy cell; reaching the far rank or capturing
//! every enemy pawn wins.

pub use crate::oracle::CellMove as Move;
use crate::oracle::{Oracle, ROLES, cell_text, turn_moves, winner_goals};

/// The position: `board[file][rank]` holds 0 (empty), 1 (white) or 2
/// (black), and whose turn it is.
#[derive(Clone, Debug)]
pub struct Breakthrough {
    board: [[u8; 8]; 8],
    /// 0 = white, 1 = black.
    control: usize,
}

impl Breakthrough {
    /// The role that has won, if any.
    fn winner(&self) -> Option<usize> {
        let mut count = [0; 2];
        for (rank, far) in [(7, 0), (0, 1)] {
            if self
                .board
                .iter()
                .any(|column| column[rank] == far as u8 + 1)
            {
                return Some(far);
            }
        }
        for &cell in self.board.iter().flatten() {
            if cell != 0 {
                count[cell as usize - 1] += 1;
            }
        }
        (0..2).find(|&r| count[1 - r] == 0)
    }

    /// The pawn moves of `role`: one rank forward, straight into an empty
    /// cell or diagonally onto an empty or enemy cell.
    fn pawn_moves(&self, role: usize) -> Vec<Move> {
        let mine = role as u8 + 1;
        let dy: i32 = if role == 0 { 1 } else { -1 };
        let mut moves = Vec::new();
        for x in 0..8i32 {
            for y in 0..8i32 {
                if self.board[x as usize][y as usize] != mine {
                    continue;
                }
                let ty = y + dy;
                if !(0..8).contains(&ty) {
                    continue;
                }
                for tx in [x - 1, x, x + 1] {
                    if !(0..8).contains(&tx) {
                        continue;
                    }
                    let target = self.board[tx as usize][ty as usize];
                    let ok = if tx == x { target == 0 } else { target != mine };
                    if ok {
                        moves.push(Move::Step {
                            from: (x as u8, y as u8),
                            to: (tx as u8, ty as u8),
                        });
                    }
                }
            }
        }
        moves
    }
}

impl Oracle for Breakthrough {
    type Move = Move;

    fn initial() -> Self {
        let mut board = [[0u8; 8]; 8];
        for column in board.iter_mut() {
            column[0] = 1;
            column[1] = 1;
            column[6] = 2;
            column[7] = 2;
        }
        Breakthrough { board, control: 0 }
    }

    fn legal(&self, role: usize) -> Vec<Move> {
        turn_moves(self.is_terminal(), role, self.control, Move::Noop, || {
            self.pawn_moves(role)
        })
    }

    fn apply(&mut self, joint: &[Move; 2]) {
        if let Move::Step { from, to } = joint[self.control] {
            let pawn = self.board[from.0 as usize][from.1 as usize];
            self.board[from.0 as usize][from.1 as usize] = 0;
            self.board[to.0 as usize][to.1 as usize] = pawn;
        }
        self.control = 1 - self.control;
    }

    fn is_terminal(&self) -> bool {
        self.winner().is_some()
    }

    fn goals(&self) -> [u8; 2] {
        winner_goals(self.winner(), [0, 0])
    }

    fn move_text(m: &Move) -> String {
        m.text()
    }

    fn facts(&self) -> Vec<String> {
        let mut facts = Vec::new();
        for (x, column) in self.board.iter().enumerate() {
            for (y, &cell) in column.iter().enumerate() {
                if cell != 0 {
                    let role = ROLES[cell as usize - 1];
                    facts.push(format!("(cell {} {role})", cell_text(x, y)));
                }
            }
        }
        facts.push(format!("(control {})", ROLES[self.control]));
        facts.sort();
        facts
    }
}
