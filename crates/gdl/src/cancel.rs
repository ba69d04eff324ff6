//! Stopping a long evaluation from another thread: a [`Cancel`] flag that
//! whoever stops waiting for the result sets (a game manager's ABORT, a
//! new match, Ctrl-C), and that the library looks at where it may run
//! long: between the stages of loading, inside the joins (every few
//! thousand candidate facts, so in grounding and in the derivation of
//! static facts too), at every state the engine choice visits, and at
//! every iteration and playout step of a search.
//!
//! The flag reaches the stages through the thread that runs them:
//! [`Cancel::scope`] makes it the calling thread's flag while a closure
//! runs, and the library's own threads (a search on several threads) take
//! their caller's. So no signature of the API carries it, and a caller who
//! never cancels pays one thread-local look per join.

use crate::error::GameError;
use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

thread_local! {
    /// The flag of the [`Cancel::scope`] this thread runs in, if any.
    static CURRENT: RefCell<Option<Cancel>> = const { RefCell::new(None) };
}

/// A flag that stops the library's evaluations run under it (see
/// [`Cancel::scope`]) once set: a load ends with
/// [`crate::LoadError::Cancelled`], a query or a search with
/// [`GameError::Cancelled`]. Clones share the flag.
///
/// ```
/// let cancel = gdl::Cancel::new();
/// cancel.cancel(); // from any thread, at any time
/// let loaded = cancel.scope(|| {
///     gdl::Game::from_source("nim.gdl", "(role p) (init (c 0)) (<= (legal p go) (true (c 0)))
///         (<= (next (c 1)) (does p go)) (<= terminal (true (c 1))) (goal p 100)")
/// });
/// assert!(matches!(loaded, Err(gdl::LoadError::Cancelled)));
/// ```
#[derive(Clone, Debug, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    /// A flag not set.
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Sets the flag: what runs under it stops at its next look.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether the flag is set.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// The flag itself, for [`crate::Stop::or_cancelled`] and
    /// [`crate::SearchPlayer::ponder`].
    pub fn flag(&self) -> &AtomicBool {
        &self.0
    }

    /// Runs `f` on the calling thread under this flag: the library's
    /// evaluations in it stop once the flag is set. The thread's flag
    /// before is back when `f` returns (or panics).
    pub fn scope<T>(&self, f: impl FnOnce() -> T) -> T {
        let before = CURRENT.with(|c| c.replace(Some(self.clone())));
        let _restore = Restore(before);
        f()
    }
}

/// Puts a thread's flag back when dropped.
struct Restore(Option<Cancel>);

impl Drop for Restore {
    fn drop(&mut self) {
        let before = self.0.take();
        let _ = CURRENT.try_with(|c| c.replace(before));
    }
}

/// The calling thread's flag, to run another thread under it.
pub(crate) fn current() -> Option<Cancel> {
    CURRENT.try_with(|c| c.borrow().clone()).ok().flatten()
}

/// Runs `f` under `cancel` when there is one (a thread of the library
/// taking its caller's flag).
pub(crate) fn under<T>(cancel: Option<&Cancel>, f: impl FnOnce() -> T) -> T {
    match cancel {
        Some(c) => c.scope(f),
        None => f(),
    }
}

/// Whether the calling thread's flag is set.
#[inline]
pub(crate) fn requested() -> bool {
    CURRENT
        .try_with(|c| c.borrow().as_ref().is_some_and(Cancel::is_cancelled))
        .unwrap_or(false)
}

/// [`GameError::Cancelled`] when the calling thread's flag is set.
#[inline]
pub(crate) fn check() -> Result<(), GameError> {
    if requested() {
        Err(GameError::Cancelled)
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scope_sets_the_flag_of_its_thread_only_while_it_runs() {
        let outer = Cancel::new();
        let inner = Cancel::new();
        inner.cancel();
        assert!(!requested());
        outer.scope(|| {
            assert!(!requested());
            inner.scope(|| assert!(requested() && check().is_err()));
            assert!(!requested());
            let other = std::thread::spawn(requested).join().unwrap();
            assert!(!other, "another thread has its own flag");
        });
        assert!(current().is_none());
    }
}
