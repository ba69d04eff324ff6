//! The player's loads of rules: each on a thread of its own, under a
//! [`gdl::Cancel`] flag that the match sets when it is over (ABORT, STOP,
//! a new START, a match forgotten, a preview past its clock), so that a
//! load of a match that is over stops at the library's next look (within
//! a fraction of a second) rather than running on for minutes.
//!
//! A load for a match comes in two parts: first the rules on the
//! interpreter alone (parsing, the checks and the static facts: chess in
//! a fraction of a second), sent as soon as it is ready, so that the
//! player can answer PLAY with a legal move while the engine is still
//! being chosen; then the rules on the engine `--engine` asks for (`auto`
//! grounds them where it pays), which replaces it.
//!
//! At most [`MAX_LOADS`] run at once (a safety net: a stage that looks at
//! its flag late still ends); past it, the load of a new match waits for
//! one to end.

use super::playing::Playing;
use crate::command::{LimitArgs, load_game_with};
use crate::http::left;
use gdl::{Cancel, EngineChoice, LoadError};
use std::path::Path;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

/// The most loads of rules running at once.
pub const MAX_LOADS: usize = 2;

/// The loads of rules running.
#[derive(Default)]
pub struct Loads {
    /// How many.
    running: Mutex<usize>,
    /// Signalled when one ends.
    ended: Condvar,
}

/// What a load needs.
pub struct Load {
    /// The rules, one sentence a line.
    pub rules: String,
    /// `the rules of ID`, as errors and the log name them.
    pub name: String,
    /// The role to play; `None` for a preview (no early game then).
    pub role: Option<String>,
    /// The seed of the search player.
    pub seed: u64,
    /// The threads the search player searches on.
    pub threads: usize,
    /// The limits and the engine of `gdl player`'s command line.
    pub limits: LimitArgs,
}

/// What a load sends.
pub enum Loaded {
    /// The rules on the interpreter alone, ready to play while the engine
    /// is chosen.
    Early(Box<Playing>),
    /// The rules on their engine: the load is done.
    Full(Box<Playing>),
    /// The rules do not load (why, in one line): the load is done.
    Failed(String),
}

/// A load running on a thread of its own; dropping it cancels it.
pub struct Loading {
    /// Where its results come.
    pub results: Receiver<Loaded>,
    /// Whether its last result came.
    pub done: bool,
    /// Its flag.
    cancel: Cancel,
}

impl Drop for Loading {
    fn drop(&mut self) {
        if !self.done {
            self.cancel.cancel();
        }
    }
}

impl Loads {
    /// Starts `load` on a thread of its own once fewer than [`MAX_LOADS`]
    /// run, waiting for one to end until `until`; past it, `load` back.
    pub fn start(self: &Arc<Self>, load: Box<Load>, until: Instant) -> Result<Loading, Box<Load>> {
        let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        while *running >= MAX_LOADS {
            let wait = left(until);
            if wait.is_zero() {
                return Err(load);
            }
            running = (self.ended.wait_timeout(running, wait))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        *running += 1;
        drop(running);
        let (send, results) = mpsc::channel();
        let cancel = Cancel::new();
        let mut loading = Loading {
            results,
            done: false,
            cancel: cancel.clone(),
        };
        // Counts the load as ended when its thread ends (or cannot start).
        let ended = Ended(Arc::clone(self));
        let spawned = std::thread::Builder::new()
            .name("load".into())
            .stack_size(crate::command::STACK_BYTES)
            .spawn(move || {
                let _ended = ended;
                cancel.scope(|| run(*load, &send));
            });
        if let Err(e) = spawned {
            let (send, results) = mpsc::channel();
            let _ = send.send(Loaded::Failed(format!("cannot start loading: {e}")));
            loading.results = results;
        }
        Ok(loading)
    }
}

/// Loads the rules and gets ready to play, sending what is ready: the
/// early game first (for a match, unless the interpreter was asked for),
/// then the game on its engine. A cancelled load sends nothing more and
/// says so in the log.
fn run(load: Load, send: &Sender<Loaded>) {
    let start = Instant::now();
    let ready = |game: gdl::Game| {
        let about = format!(
            "{} roles, {}, loaded in {:.3} s",
            game.roles().len(),
            engine_name(&game),
            start.elapsed().as_secs_f64()
        );
        Playing::new(game, load.role.as_deref(), load.seed, load.threads, about).map(Box::new)
    };
    let bytes = || load.rules.clone().into_bytes();
    let path = Path::new(&load.name);
    if load.role.is_some() && load.limits.engine != EngineChoice::Interpreter {
        let options = gdl::LoadOptions {
            engine: EngineChoice::Interpreter,
            ..load.limits.to_options()
        };
        match load_game_with(path, bytes(), &load.limits, options) {
            Ok(game) => match ready(game) {
                Ok(p) => {
                    let _ = send.send(Loaded::Early(p));
                }
                Err(why) => {
                    let _ = send.send(Loaded::Failed(why));
                    return;
                }
            },
            Err(LoadError::Cancelled) => return cancelled(&load.name, start),
            // Whatever fails on the interpreter fails on every engine
            // (a limit of the static facts, say): said once.
            Err(e) => {
                let _ = send.send(Loaded::Failed(cannot_load(&e)));
                return;
            }
        }
    }
    let loaded = load_game_with(path, bytes(), &load.limits, load.limits.to_options());
    let sent = match loaded {
        Ok(game) => match ready(game) {
            Ok(p) => Loaded::Full(p),
            Err(why) => Loaded::Failed(why),
        },
        Err(LoadError::Cancelled) => return cancelled(&load.name, start),
        Err(e) => Loaded::Failed(cannot_load(&e)),
    };
    let _ = send.send(sent);
}

/// Logs a load cancelled.
fn cancelled(name: &str, start: Instant) {
    crate::log_line!(
        "{name}: the load was cancelled after {:.3} s (its match is over)",
        start.elapsed().as_secs_f64()
    );
}

/// Counts a load as ended when dropped.
struct Ended(Arc<Loads>);

impl Drop for Ended {
    fn drop(&mut self) {
        let mut running = self.0.running.lock().unwrap_or_else(|e| e.into_inner());
        *running = running.saturating_sub(1);
        self.0.ended.notify_all();
    }
}

/// `ground rules` or `interpreted`.
fn engine_name(game: &gdl::Game) -> &'static str {
    match game.engine() {
        gdl::Engine::Ground { .. } => "ground rules",
        _ => "interpreted",
    }
}

/// Why rules did not load, in one line: the first error, located.
fn cannot_load(e: &LoadError) -> String {
    match e {
        LoadError::Io { error, .. } => format!("cannot load the rules: {error}"),
        LoadError::Cancelled => "the load was cancelled".to_string(),
        LoadError::Invalid { file, diagnostics } => {
            let errors: Vec<_> = diagnostics.iter().filter(|d| d.is_error()).collect();
            match errors.first() {
                Some(d) => {
                    let more = match errors.len() {
                        1 => String::new(),
                        n => format!(" ({n} errors in all)"),
                    };
                    format!(
                        "cannot load the rules: {}: {}{more}",
                        file.location(d.span),
                        d.message
                    )
                }
                None => "cannot load the rules".to_string(),
            }
        }
    }
}
