//! Connect four (7 columns, 6 rows), written directly from its rules: discs
//! drop to the lowest empty cell of a column; four in a line wins; a full
//! board is a draw.

use crate::oracle::{Oracle, ROLES, turn_moves, winner_goals};

const COLUMNS: usize = 7;
const ROWS: usize = 6;

/// A move of one role.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// `(drop c)`, with the column 0-based.
    Drop(u8),
    /// `noop`.
    Noop,
}

/// The position: `board[column][row]` (row 0 at the bottom) holds 0
/// (empty), 1 (white) or 2 (black); the height of each column; whose turn.
#[derive(Clone, Debug)]
pub struct ConnectFour {
    board: [[u8; ROWS]; COLUMNS],
    heights: [u8; COLUMNS],
    /// 0 = white, 1 = black.
    control: usize,
}

impl ConnectFour {
    /// The role with four discs in a line, if any.
    fn winner(&self) -> Option<usize> {
        const DIRECTIONS: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];
        for c in 0..COLUMNS as i32 {
            for r in 0..ROWS as i32 {
                let disc = self.board[c as usize][r as usize];
                if disc == 0 {
                    continue;
                }
                for (dc, dr) in DIRECTIONS {
                    let four = (1..4).all(|k| {
                        let (cc, rr) = (c + k * dc, r + k * dr);
                        (0..COLUMNS as i32).contains(&cc)
                            && (0..ROWS as i32).contains(&rr)
                            && self.board[cc as usize][rr as usize] == disc
                    });
                    if four {
                        return Some(disc as usize - 1);
                    }
                }
            }
        }
        None
    }
}

impl Oracle for ConnectFour {
    type Move = Move;

    fn initial() -> Self {
        ConnectFour {
            board: [[0; ROWS]; COLUMNS],
            heights: [0; COLUMNS],
            control: 0,
        }
    }

    fn legal(&self, role: usize) -> Vec<Move> {
        turn_moves(self.is_terminal(), role, self.control, Move::Noop, || {
            (0..COLUMNS as u8)
                .filter(|&c| (self.heights[c as usize] as usize) < ROWS)
                .map(Move::Drop)
                .collect()
        })
    }

    fn apply(&mut self, joint: &[Move; 2]) {
        if let Move::Drop(c) = joint[self.control] {
            let c = c as usize;
            self.board[c][self.heights[c] as usize] = self.control as u8 + 1;
            self.heights[c] += 1;
        }
        self.control = 1 - self.control;
    }

    fn is_terminal(&self) -> bool {
        self.winner().is_some() || self.heights.iter().all(|&h| h as usize == ROWS)
    }

    fn goals(&self) -> [u8; 2] {
        winner_goals(self.winner(), [50, 50])
    }

    fn move_text(m: &Move) -> String {
        match m {
            Move::Noop => "noop".to_string(),
            Move::Drop(c) => format!("(drop {})", c + 1),
        }
    }

    fn facts(&self) -> Vec<String> {
        let mut facts = Vec::new();
        for (c, column) in self.board.iter().enumerate() {
            for (r, &disc) in column.iter().enumerate() {
                if disc != 0 {
                    let role = ROLES[disc as usize - 1];
                    facts.push(format!("(cell {} {} {role})", c + 1, r + 1));
                }
            }
        }
        facts.push(format!("(control {})", ROLES[self.control]));
        facts.sort();
        facts
    }
}
