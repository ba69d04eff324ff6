//! Long work off the GIL that Ctrl-C interrupts: the engine runs on a
//! thread of its own while the calling thread, without the GIL, looks at
//! Python's signals every tenth of a second.

use gdl::Cancel;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

/// How often the calling thread looks at Python's signals.
pub const SIGNALS: Duration = Duration::from_millis(100);

/// Runs `work` on a thread of its own, under a `Cancel` that it is given,
/// with the GIL released. Ctrl-C (or any signal handler that raises)
/// cancels it, so the engine stops at its next look (within an evaluation
/// too; a playout looks where its `Stop` has the flag), and is returned as
/// the error; the work's result is then dropped.
///
/// The work may hold a game's lock: the calling thread never does while
/// it takes the GIL, so another Python thread waiting for that lock with
/// the GIL held only waits until the work ends. A panic of the work is
/// raised again when its thread is joined (see `guard`).
pub fn interruptible<T: Send>(
    py: Python<'_>,
    work: impl FnOnce(&Cancel) -> T + Send,
) -> PyResult<T> {
    let cancel = Cancel::new();
    let mut interrupted = None;
    let done = py.detach(|| {
        let (send, receive) = mpsc::channel();
        std::thread::scope(|scope| {
            let cancel = &cancel;
            scope.spawn(move || {
                let _ = send.send(cancel.scope(|| work(cancel)));
            });
            loop {
                match receive.recv_timeout(SIGNALS) {
                    Ok(done) => break Some(done),
                    Err(RecvTimeoutError::Timeout) if interrupted.is_none() => {
                        if let Err(e) = Python::attach(|py| py.check_signals()) {
                            interrupted = Some(e);
                            cancel.cancel();
                        }
                    }
                    Err(RecvTimeoutError::Timeout) => {}
                    // The work panicked: the scope raises it again.
                    Err(RecvTimeoutError::Disconnected) => break None,
                }
            }
        })
    });
    match (interrupted, done) {
        (Some(e), _) => Err(e),
        (None, Some(done)) => Ok(done),
        (None, None) => Err(PyRuntimeError::new_err(
            "the engine stopped without a result",
        )),
    }
}
