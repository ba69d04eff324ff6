//! Tic-tac-toe, written directly from its rules: xplayer and oplayer mark
//! blank cells in turn; three in a line wins; a full board is a draw.

use crate::oracle::{Oracle, turn_moves, winner_goals};

/// The role names of the rules file (not the white/black of `ROLES`).
const NAMES: [&str; 2] = ["xplayer", "oplayer"];
/// The marks: blank, then each role's mark.
const MARKS: [char; 3] = ['b', 'x', 'o'];

const LINES: [[usize; 3]; 8] = [
    [0, 1, 2],
    [3, 4, 5],
    [6, 7, 8],
    [0, 3, 6],
    [1, 4, 7],
    [2, 5, 8],
    [0, 4, 8],
    [2, 4, 6],
];

/// A move of one role.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// `(mark m n)`, as a cell index `3 * (m - 1) + (n - 1)`.
    Mark(u8),
    /// `noop`.
    Noop,
}

/// The position: each cell 0 (blank), 1 (x) or 2 (o), and whose turn.
#[derive(Clone, Debug)]
pub struct TicTacToe {
    cells: [u8; 9],
    /// 0 = xplayer, 1 = oplayer.
    control: usize,
}

impl TicTacToe {
    /// The role with three in a line, if any.
    fn winner(&self) -> Option<usize> {
        LINES.iter().find_map(|l| {
            let mark = self.cells[l[0]];
            (mark != 0 && self.cells[l[1]] == mark && self.cells[l[2]] == mark)
                .then(|| mark as usize - 1)
        })
    }
}

impl Oracle for TicTacToe {
    type Move = Move;

    fn initial() -> Self {
        TicTacToe {
            cells: [0; 9],
            control: 0,
        }
    }

    fn legal(&self, role: usize) -> Vec<Move> {
        turn_moves(self.is_terminal(), role, self.control, Move::Noop, || {
            (0..9u8)
                .filter(|&i| self.cells[i as usize] == 0)
                .map(Move::Mark)
                .collect()
        })
    }

    fn apply(&mut self, joint: &[Move; 2]) {
        if let Move::Mark(i) = joint[self.control] {
            self.cells[i as usize] = self.control as u8 + 1;
        }
        self.control = 1 - self.control;
    }

    fn is_terminal(&self) -> bool {
        self.winner().is_some() || self.cells.iter().all(|&c| c != 0)
    }

    fn goals(&self) -> [u8; 2] {
        winner_goals(self.winner(), [50, 50])
    }

    fn move_text(m: &Move) -> String {
        match m {
            Move::Noop => "noop".to_string(),
            Move::Mark(i) => format!("(mark {} {})", i / 3 + 1, i % 3 + 1),
        }
    }

    fn facts(&self) -> Vec<String> {
        let mut facts: Vec<String> = (0..9)
            .map(|i| {
                let mark = MARKS[self.cells[i] as usize];
                format!("(cell {} {} {mark})", i / 3 + 1, i % 3 + 1)
            })
            .collect();
        facts.push(format!("(control {})", NAMES[self.control]));
        facts.sort();
        facts
    }
}
