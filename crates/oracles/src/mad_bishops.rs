//! Mad Bishops (seed 002), written directly from the text: bishops on the 50
//! cells of one colour of a 10x10 board; a bishop captures an enemy piece it
//! threatens, or, when it threatens nothing, slides to an empty cell that an
//! enemy bishop could reach; a player with no pieces left has lost.

use crate::oracle::{Oracle, ROLES, cell_text, turn_moves};

/// The board's side.
const SIZE: i8 = 10;
/// The four diagonal directions (file step, rank step).
const DIAGONALS: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, -1), (-1, 1)];

/// A cell as (file, rank), both 0-based.
pub type Cell = (i8, i8);

/// A move of one role.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// `(move x1 y1 x2 y2)`: a capture or a slide.
    Slide { from: Cell, to: Cell },
    /// `noop`.
    Noop,
}

/// The position: `board[file][rank]` holds the owner of the bishop there
/// (`Some(0)` white, `Some(1)` black), and whose turn it is.
#[derive(Clone, Debug)]
pub struct MadBishops {
    board: [[Option<u8>; 10]; 10],
    control: usize,
}

fn on_board((x, y): Cell) -> bool {
    (0..SIZE).contains(&x) && (0..SIZE).contains(&y)
}

impl MadBishops {
    /// An empty board with `role` to move, to set positions up by hand.
    pub fn empty(control: usize) -> Self {
        MadBishops {
            board: [[None; 10]; 10],
            control,
        }
    }

    /// Puts a bishop of `role` on `cell`.
    pub fn put(&mut self, (x, y): Cell, role: u8) {
        self.board[x as usize][y as usize] = Some(role);
    }

    /// The owner of the bishop on `cell`, if any.
    pub fn owner(&self, (x, y): Cell) -> Option<u8> {
        self.board[x as usize][y as usize]
    }

    /// Walks the diagonal from `from` in direction `(dx, dy)`: calls `empty`
    /// on each empty cell and returns the first piece met, with its cell.
    fn walk(
        &self,
        from: Cell,
        (dx, dy): (i8, i8),
        mut empty: impl FnMut(Cell),
    ) -> Option<(Cell, u8)> {
        let mut cell = (from.0 + dx, from.1 + dy);
        while on_board(cell) {
            if let Some(owner) = self.owner(cell) {
                return Some((cell, owner));
            }
            empty(cell);
            cell = (cell.0 + dx, cell.1 + dy);
        }
        None
    }

    /// Whether a bishop of `role` could slide to the empty cell `cell`.
    fn reachable_by(&self, cell: Cell, role: u8) -> bool {
        DIAGONALS
            .iter()
            .any(|&d| matches!(self.walk(cell, d, |_| {}), Some((_, owner)) if owner == role))
    }

    /// The cells of the bishops of `role`.
    fn pieces(&self, role: u8) -> impl Iterator<Item = Cell> + '_ {
        (0..SIZE)
            .flat_map(|x| (0..SIZE).map(move |y| (x, y)))
            .filter(move |&c| self.owner(c) == Some(role))
    }

    fn wiped_out(&self, role: u8) -> bool {
        self.pieces(role).next().is_none()
    }

    /// The captures and slides of `role`, whether or not it is in control.
    pub fn piece_moves(&self, role: u8) -> Vec<Move> {
        let enemy = 1 - role;
        let mut moves = Vec::new();
        let mut empties = Vec::new();
        for from in self.pieces(role) {
            empties.clear();
            let before = moves.len();
            for d in DIAGONALS {
                if let Some((to, owner)) = self.walk(from, d, |c| empties.push(c))
                    && owner == enemy
                {
                    moves.push(Move::Slide { from, to });
                }
            }
            // A bishop that threatens something may only capture.
            if moves.len() == before {
                for &to in &empties {
                    if self.reachable_by(to, enemy) {
                        moves.push(Move::Slide { from, to });
                    }
                }
            }
        }
        moves
    }
}

impl Oracle for MadBishops {
    type Move = Move;

    fn initial() -> Self {
        let mut game = MadBishops::empty(0);
        for x in 0..SIZE {
            for y in 0..SIZE {
                match (x % 2, y % 2) {
                    (0, 0) => game.put((x, y), 0),
                    (1, 1) => game.put((x, y), 1),
                    _ => {}
                }
            }
        }
        game
    }

    fn legal(&self, role: usize) -> Vec<Move> {
        turn_moves(self.is_terminal(), role, self.control, Move::Noop, || {
            self.piece_moves(role as u8)
        })
    }

    fn apply(&mut self, joint: &[Move; 2]) {
        if let Move::Slide { from, to } = joint[self.control] {
            let piece = self.board[from.0 as usize][from.1 as usize].take();
            self.board[to.0 as usize][to.1 as usize] = piece;
        }
        self.control = 1 - self.control;
    }

    fn is_terminal(&self) -> bool {
        self.wiped_out(0) || self.wiped_out(1)
    }

    fn goals(&self) -> [u8; 2] {
        match (self.wiped_out(0), self.wiped_out(1)) {
            (true, false) => [0, 100],
            (false, true) => [100, 0],
            (true, true) => [0, 0],
            (false, false) => [50, 50],
        }
    }

    fn move_text(m: &Move) -> String {
        match m {
            Move::Noop => "noop".to_string(),
            Move::Slide { from, to } => format!(
                "(move {} {})",
                cell_text(from.0 as u8, from.1 as u8),
                cell_text(to.0 as u8, to.1 as u8)
            ),
        }
    }

    fn facts(&self) -> Vec<String> {
        let mut facts: Vec<String> = (0..2u8)
            .flat_map(|role| {
                self.pieces(role).map(move |(x, y)| {
                    format!(
                        "(cell {} {})",
                        cell_text(x as u8, y as u8),
                        ROLES[role as usize]
                    )
                })
            })
            .collect();
        facts.push(format!("(control {})", ROLES[self.control]));
        facts.sort();
        facts
    }
}
