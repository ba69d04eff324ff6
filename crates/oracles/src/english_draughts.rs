//! English draughts (seed 000), written directly from the text: men step and
//! jump diagonally forward, kings in all four directions; one jump per
//! action, the jumping player keeping control while the same piece can jump
//! again; jumps compulsory; a man crowned by a jump ends the chain; the game
//! stops when the player in control has no move (it loses) or when the step
//! counter reaches 20.

use crate::oracle::{Oracle, ROLES, cell_text, turn_moves};

/// The contents of a square.
pub const EMPTY: u8 = 0;
/// A white man.
pub const WM: u8 = 1;
/// A white king.
pub const WK: u8 = 2;
/// A black man.
pub const BM: u8 = 3;
/// A black king.
pub const BK: u8 = 4;

/// The step counter value that ends the game.
const LAST_STEP: u32 = 20;

/// A square as (file, rank), both 0-based: a1 is (0, 0).
pub type Square = (u8, u8);

/// A move of one role.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// `(move x1 y1 x2 y2)`: a step to a neighbouring empty square.
    Step { from: Square, to: Square },
    /// `(capture x1 y1 x3 y3)`: a jump over the enemy piece between.
    Jump { from: Square, to: Square },
    /// `noop`.
    Noop,
}

/// The position: `board[file][rank]`, who is in control, the piece that
/// must jump again (mid-chain), and the step counter.
#[derive(Clone, Debug)]
pub struct English {
    board: [[u8; 8]; 8],
    /// 0 = white, 1 = black.
    control: usize,
    capturing: Option<Square>,
    step: u32,
}

fn owner(piece: u8) -> Option<usize> {
    match piece {
        WM | WK => Some(0),
        BM | BK => Some(1),
        _ => None,
    }
}

fn is_man(piece: u8) -> bool {
    piece == WM || piece == BM
}

/// The (file, rank) steps a piece moves and jumps along.
fn directions(piece: u8) -> &'static [(i8, i8)] {
    match piece {
        WM => &[(-1, 1), (1, 1)],
        BM => &[(-1, -1), (1, -1)],
        _ => &[(-1, 1), (1, 1), (-1, -1), (1, -1)],
    }
}

/// The square `k` steps from `s` along `d`, if on the board.
fn offset(s: Square, d: (i8, i8), k: i8) -> Option<Square> {
    let x = s.0 as i8 + d.0 * k;
    let y = s.1 as i8 + d.1 * k;
    ((0..8).contains(&x) && (0..8).contains(&y)).then_some((x as u8, y as u8))
}

impl English {
    /// The piece on `s` (`EMPTY`, `WM`, `WK`, `BM` or `BK`).
    pub fn at(&self, s: Square) -> u8 {
        self.board[s.0 as usize][s.1 as usize]
    }

    /// The role in control (0 white, 1 black).
    pub fn control(&self) -> usize {
        self.control
    }

    fn put(&mut self, s: Square, piece: u8) {
        self.board[s.0 as usize][s.1 as usize] = piece;
    }

    /// Calls `visit` on each jump of the piece on `from` (owned by `role`)
    /// until it returns false; false if it did.
    fn each_jump_from(
        &self,
        from: Square,
        role: usize,
        visit: &mut impl FnMut(Move) -> bool,
    ) -> bool {
        for &d in directions(self.at(from)) {
            let (Some(over), Some(to)) = (offset(from, d, 1), offset(from, d, 2)) else {
                continue;
            };
            if owner(self.at(over)) == Some(1 - role)
                && self.at(to) == EMPTY
                && !visit(Move::Jump { from, to })
            {
                return false;
            }
        }
        true
    }

    /// The squares of `role`'s pieces.
    fn squares_of(&self, role: usize) -> impl Iterator<Item = Square> + '_ {
        (0..8u8)
            .flat_map(|x| (0..8u8).map(move |y| (x, y)))
            .filter(move |&s| owner(self.at(s)) == Some(role))
    }

    /// Every jump open to `role`'s pieces on this board, whoever is in
    /// control and whatever piece is mid-chain (for tests looking for
    /// positions).
    pub fn jumps_of(&self, role: usize) -> Vec<Move> {
        let mut moves = Vec::new();
        for s in self.squares_of(role) {
            self.each_jump_from(s, role, &mut |m| {
                moves.push(m);
                true
            });
        }
        moves
    }

    /// Calls `visit` on each move of the player in control until it returns
    /// false (false if it did): the capturing piece's jumps mid-chain;
    /// otherwise every jump, or every step when there is none.
    fn each_move(&self, visit: &mut impl FnMut(Move) -> bool) -> bool {
        let role = self.control;
        if let Some(from) = self.capturing {
            return self.each_jump_from(from, role, visit);
        }
        let mut jumped = false;
        for s in self.squares_of(role) {
            let go_on = self.each_jump_from(s, role, &mut |m| {
                jumped = true;
                visit(m)
            });
            if !go_on {
                return false;
            }
        }
        if jumped {
            return true;
        }
        for from in self.squares_of(role) {
            for &d in directions(self.at(from)) {
                let step = offset(from, d, 1).filter(|&to| self.at(to) == EMPTY);
                if let Some(to) = step
                    && !visit(Move::Step { from, to })
                {
                    return false;
                }
            }
        }
        true
    }

    /// The moves of the player in control.
    fn moves(&self) -> Vec<Move> {
        let mut moves = Vec::new();
        self.each_move(&mut |m| {
            moves.push(m);
            true
        });
        moves
    }

    /// The player in control has no move: it has lost. (A visit that stops
    /// at the first move.)
    fn control_is_stuck(&self) -> bool {
        self.each_move(&mut |_| false)
    }

    /// Moves the piece on `from` to `to`, crowning a man on its far rank;
    /// true if it was crowned.
    fn carry(&mut self, from: Square, to: Square) -> bool {
        let piece = self.at(from);
        self.put(from, EMPTY);
        let crowned = match piece {
            WM if to.1 == 7 => WK,
            BM if to.1 == 0 => BK,
            _ => piece,
        };
        self.put(to, crowned);
        crowned != piece
    }
}

impl Oracle for English {
    type Move = Move;

    fn initial() -> Self {
        let mut board = [[EMPTY; 8]; 8];
        for (x, column) in board.iter_mut().enumerate() {
            for (y, cell) in column.iter_mut().enumerate() {
                // The used squares: file index plus rank (both from 1) odd.
                if (x + y) % 2 == 1 {
                    *cell = match y {
                        0..=2 => WM,
                        5..=7 => BM,
                        _ => EMPTY,
                    };
                }
            }
        }
        English {
            board,
            control: 0,
            capturing: None,
            step: 0,
        }
    }

    fn legal(&self, role: usize) -> Vec<Move> {
        turn_moves(self.is_terminal(), role, self.control, Move::Noop, || {
            self.moves()
        })
    }

    fn apply(&mut self, joint: &[Move; 2]) {
        match joint[self.control] {
            Move::Step { from, to } => {
                let man = is_man(self.at(from));
                self.carry(from, to);
                self.step = if man { 0 } else { self.step + 1 };
                self.control = 1 - self.control;
            }
            Move::Jump { from, to } => {
                let over = ((from.0 + to.0) / 2, (from.1 + to.1) / 2);
                self.put(over, EMPTY);
                let crowned = self.carry(from, to);
                self.step = 0;
                // The same piece, uncrowned, goes on if it can jump again
                // (a visit that stops at the first jump).
                let again = !crowned && !self.each_jump_from(to, self.control, &mut |_| false);
                if !again {
                    self.capturing = None;
                    self.control = 1 - self.control;
                } else {
                    self.capturing = Some(to);
                }
            }
            Move::Noop => panic!("the player in control never plays noop"),
        }
    }

    fn is_terminal(&self) -> bool {
        self.step >= LAST_STEP || self.control_is_stuck()
    }

    fn goals(&self) -> [u8; 2] {
        if self.control_is_stuck() {
            let mut goals = [100, 100];
            goals[self.control] = 0;
            goals
        } else {
            [50, 50]
        }
    }

    fn move_text(m: &Move) -> String {
        let square = |s: &Square| cell_text(s.0, s.1);
        match m {
            Move::Noop => "noop".to_string(),
            Move::Step { from, to } => format!("(move {} {})", square(from), square(to)),
            Move::Jump { from, to } => format!("(capture {} {})", square(from), square(to)),
        }
    }

    fn facts(&self) -> Vec<String> {
        let mut facts = Vec::new();
        for (x, column) in self.board.iter().enumerate() {
            for (y, &piece) in column.iter().enumerate() {
                let name = match piece {
                    WM => "wm",
                    WK => "wk",
                    BM => "bm",
                    BK => "bk",
                    _ => continue,
                };
                facts.push(format!("(cell {} {name})", cell_text(x, y)));
            }
        }
        facts.push(format!("(control {})", ROLES[self.control]));
        if let Some((x, y)) = self.capturing {
            facts.push(format!("(capturing {})", cell_text(x, y)));
        }
        facts.push(format!("(step {})", self.step));
        facts.sort();
        facts
    }
}
