//! Detached games: games played inside the library that hand out nothing
//! but their outcome, so that the terms they intern can be forgotten.
//!
//! The interpreter interns every fact and move it derives, and a term is
//! never freed while a `State` or `Move` may refer to it. A game played
//! out by [`Game::random_outcome`] returns only
//! its length and goals: the terms interned from the first such game on
//! refer to nothing outside, and once they outgrow their share of the
//! memory budget they are forgotten (with the memo of models, which holds
//! them). A series of millions of games of a game whose states are always
//! new (a random walk over 2^40 states) then stays in bounded memory.
//!
//! The terms are forgotten back to a mark: the number of terms when the
//! first detached game of a series began. Any other query ends the series
//! (it may hand out a term interned after the mark), and so does any term
//! interned between two detached games.
//!
//! The search player (`crate::search`) forgets in the same way the terms
//! of its walks down the tree and its playouts, which it keeps nothing of
//! but the moves of new nodes: while it searches once they outgrow their
//! share, and all of them when it has chosen its move (`Game::term_mark`,
//! `Game::forget_terms`).

use super::{Game, Move};

/// The share of the memory budget the terms of detached games may take
/// before they are forgotten: a sixteenth (256 MiB of the default 4 GiB).
const TERM_SHARE: usize = 16;

impl Game {
    /// Runs `play`, which must hand out nothing that refers to the terms it
    /// interns (no `State`, no `Move`), first forgetting the terms of the
    /// detached games before it when they are over their share.
    pub(super) fn detached<T>(&mut self, play: impl FnOnce(&mut Game) -> T) -> T {
        let len = self.terms.len();
        let mark = match self.detached {
            Some((mark, end)) if end == len => mark,
            _ => len,
        };
        self.forget_terms_over_share(mark);
        self.detaching = true;
        let out = play(self);
        self.detaching = false;
        self.detached = Some((mark, self.terms.len()));
        out
    }

    /// A mark for [`Game::forget_terms`]: the terms interned from now on
    /// are after it.
    pub(crate) fn term_mark(&self) -> usize {
        self.terms.len()
    }

    /// `mark` moved past the terms of `moves`, so that forgetting back to
    /// it keeps them.
    pub(crate) fn mark_past(&self, mark: usize, moves: &[Move]) -> usize {
        (moves.iter())
            .map(|m| m.0.0 as usize + 1)
            .fold(mark, usize::max)
    }

    /// Forgets the terms interned after `mark` once they outgrow their
    /// share of the memory budget (see [`Game::forget_terms`]).
    pub(crate) fn forget_terms_over_share(&mut self, mark: usize) {
        if self.terms.bytes_since(mark) > self.limits.max_memory / TERM_SHARE {
            self.forget_terms(mark);
        }
    }

    /// Forgets the terms interned after `mark`, with the memo of models
    /// (which holds them). Nothing may refer to them any more: no `State`
    /// or `Move` the caller keeps, nor one handed out.
    pub(crate) fn forget_terms(&mut self, mark: usize) {
        if self.terms.len() <= mark {
            return;
        }
        self.terms.truncate(mark);
        self.memo.clear();
        if self.detached.is_some_and(|(start, _)| start > mark) {
            self.detached = None;
        }
    }

    /// Ends a series of detached games: called by every query that may
    /// hand out a term.
    pub(super) fn attached(&mut self) {
        if !self.detaching {
            self.detached = None;
        }
    }
}
