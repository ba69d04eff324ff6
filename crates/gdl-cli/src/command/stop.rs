//! Stopping a long command early without losing what it did: Ctrl-C and
//! `--timeout` ask the commands that add up many games (`random`,
//! `analyse`, `bench`) to stop, and they print the summary of what
//! finished, marked partial, before the process ends.
//!
//! The binary's signal and time-limit threads call [`request`]. While a
//! command runs its work under [`keeping_work`], the request only cancels
//! a [`gdl::Cancel`] that the work runs under: the command's loops look at
//! its [`flag`], the games under way stop at their next step (through
//! their [`gdl::Stop`]) or inside a long one (the library looks at the
//! flag within its joins), and a load under way ends cancelled. The
//! thread then gives the command [`GRACE`] to print and return before it
//! ends the process itself. Any other time (a command without a summary)
//! the process ends at once, as before.

use super::Failure;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{LazyLock, Mutex};
use std::time::Duration;

/// Why a command was asked to stop.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Reason {
    /// Ctrl-C (SIGINT).
    Interrupted,
    /// `--timeout`, of this many seconds, was reached.
    TimedOut(f64),
}

impl Reason {
    /// How the JSON summaries name it: `interrupt` or `timeout`.
    pub fn name(self) -> &'static str {
        match self {
            Reason::Interrupted => "interrupt",
            Reason::TimedOut(_) => "timeout",
        }
    }

    /// In words, for the text summaries: `Ctrl-C`, `the time limit`.
    pub fn words(self) -> &'static str {
        match self {
            Reason::Interrupted => "Ctrl-C",
            Reason::TimedOut(_) => "the time limit",
        }
    }
}

/// How long a command keeping its work has, once asked to stop, to print
/// its summary and return before the process ends without it. Its loops
/// look at [`flag`] every tenth of a second at most (a game's step aside).
pub const GRACE: Duration = Duration::from_secs(1);

/// Cancelled once a stop is asked for: the work of a command that keeps
/// its work runs under it, and its loops look at its flag.
static STOPPING: LazyLock<gdl::Cancel> = LazyLock::new(gdl::Cancel::new);

/// Whether the command is running work it can stop and summarise.
static KEEPING: AtomicBool = AtomicBool::new(false);

/// Why the stop was asked for (the first request's reason).
static REASON: Mutex<Option<Reason>> = Mutex::new(None);

/// The flag the command's loops and games look at: set once Ctrl-C or
/// `--timeout` asked the command to stop.
pub fn flag() -> &'static AtomicBool {
    STOPPING.flag()
}

/// Why the command was asked to stop, if it was.
pub fn reason() -> Option<Reason> {
    if STOPPING.is_cancelled() {
        *REASON.lock().unwrap_or_else(|e| e.into_inner())
    } else {
        None
    }
}

/// Runs `f`, work that stops early when asked (looking at [`flag`]) and
/// then summarises what finished: a request during it cancels the work
/// (see [`under_stop`]) rather than ending the process at once.
pub fn keeping_work<T>(f: impl FnOnce() -> T) -> T {
    /// Clears [`KEEPING`] however `f` ends.
    struct Done;
    impl Drop for Done {
        fn drop(&mut self) {
            KEEPING.store(false, Ordering::SeqCst);
        }
    }
    KEEPING.store(true, Ordering::SeqCst);
    let _done = Done;
    under_stop(f)
}

/// Runs `f` on the calling thread under the stop's [`gdl::Cancel`]: the
/// library's evaluations in it (a load, a long step, a search) end
/// cancelled once a stop is asked for. For the threads a command starts
/// itself; the library's own threads take their caller's.
pub fn under_stop<T>(f: impl FnOnce() -> T) -> T {
    STOPPING.scope(f)
}

/// Asks the command to stop, for `reason`: true when it keeps its work (it
/// will print what finished and return; the caller waits [`GRACE`] before
/// ending the process anyway), false when the caller should end the
/// process now.
pub fn request(reason: Reason) -> bool {
    REASON
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get_or_insert(reason);
    STOPPING.cancel();
    KEEPING.load(Ordering::SeqCst)
}

/// The failure a command stopped early returns once its partial summary
/// is printed: for Ctrl-C exit status 130 and `interrupted (Ctrl-C)`; for
/// the time limit exit status 1 and the error that names `--timeout`, as
/// when the process is ended by it.
pub fn failure(reason: Reason) -> Failure {
    match reason {
        Reason::Interrupted => Failure::Interrupted(
            "interrupted (Ctrl-C): the summary above is of what finished".into(),
        ),
        Reason::TimedOut(seconds) => Failure::Game(timed_out(seconds)),
    }
}

/// The error of the time limit reached.
pub fn timed_out(seconds: f64) -> String {
    format!("the time limit ({seconds} seconds) was reached; raise it with --timeout")
}
