//! Long work beside the server: an analysis, or a run of the recorded
//! games. A [`Job`] runs on a thread of its own under a [`Cancel`], counts
//! what it has done of its total for the page's progress bar, and ends
//! done, cancelled (its figures those of what finished) or failed.
//! [`Jobs`] keeps them by number for `GET /api/jobs/ID`; a new job of a
//! kind stops the last of that kind.

use super::session::{ApiError, lock};
use gdl::Cancel;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// How far a job is.
#[derive(Debug, Default)]
struct Progress {
    /// Done, of `total` (games played, recorded games replayed).
    done: usize,
    total: usize,
    /// `running`, `done`, `cancelled` or `failed`.
    state: &'static str,
    /// The figures, once done (or cancelled: of what finished).
    result: Option<Value>,
    /// What went wrong, when it failed.
    error: Option<String>,
}

/// A job under way or finished.
pub struct Job {
    /// What it is: `analysis`, `tests`.
    kind: &'static str,
    cancel: Cancel,
    progress: Mutex<Progress>,
}

impl Job {
    /// Asks the job to stop; its figures are of what finished.
    pub fn cancel(&self) {
        self.cancel.cancel();
    }

    /// Whether it was asked to stop.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// The cancel the job's work runs under.
    pub fn canceller(&self) -> &Cancel {
        &self.cancel
    }

    /// One more of the total done.
    pub fn advance(&self) {
        lock(&self.progress).done += 1;
    }

    /// How far it is, for the page.
    pub fn status(&self) -> Value {
        let p = lock(&self.progress);
        json!({
            "kind": self.kind,
            "state": p.state,
            "done": p.done,
            "total": p.total,
            "result": p.result,
            "error": p.error,
        })
    }
}

/// Starts `work` (a job of `kind`, `total` long) on a thread of its own,
/// under the job's [`Cancel`]. What it returns is the job's result, done
/// or, when the job was cancelled meanwhile, cancelled; an error fails it.
pub fn start(
    kind: &'static str,
    total: usize,
    work: impl FnOnce(&Job) -> Result<Value, String> + Send + 'static,
) -> Result<Arc<Job>, ApiError> {
    let job = Arc::new(Job {
        kind,
        cancel: Cancel::new(),
        progress: Mutex::new(Progress {
            total,
            state: "running",
            ..Progress::default()
        }),
    });
    let running = Arc::clone(&job);
    std::thread::Builder::new()
        .name(kind.into())
        .stack_size(crate::command::STACK_BYTES)
        .spawn(move || {
            let outcome = running.cancel.scope(|| work(&running));
            let mut p = lock(&running.progress);
            match outcome {
                Ok(result) => {
                    p.state = if running.cancel.is_cancelled() {
                        "cancelled"
                    } else {
                        "done"
                    };
                    p.result = Some(result);
                }
                Err(e) => {
                    p.state = "failed";
                    p.error = Some(e);
                }
            }
        })
        .map_err(|e| ApiError {
            status: 500,
            message: format!("cannot start the {kind}: {e}"),
        })?;
    Ok(job)
}

/// The jobs started, by number.
#[derive(Default)]
pub struct Jobs(Mutex<BTreeMap<u64, Arc<Job>>>);

/// The most jobs kept (the oldest are forgotten).
const MOST_JOBS: usize = 16;

impl Jobs {
    /// Keeps `job` and gives its number; the job of the same kind still
    /// running, if any, is stopped (one analysis, one run of the recorded
    /// games at a time).
    pub fn add(&self, job: Arc<Job>) -> u64 {
        let mut jobs = lock(&self.0);
        for old in jobs.values().filter(|old| old.kind == job.kind) {
            old.cancel();
        }
        let id = jobs.keys().next_back().map_or(1, |n| n + 1);
        jobs.insert(id, job);
        while jobs.len() > MOST_JOBS {
            let oldest = *jobs.keys().next().unwrap_or(&id);
            jobs.remove(&oldest);
        }
        id
    }

    /// The job of number `id` (as the page writes it).
    pub fn find(&self, id: &str) -> Result<Arc<Job>, ApiError> {
        id.parse::<u64>()
            .ok()
            .and_then(|id| lock(&self.0).get(&id).cloned())
            .ok_or_else(|| ApiError {
                status: 404,
                message: format!("no job {id}"),
            })
    }
}
