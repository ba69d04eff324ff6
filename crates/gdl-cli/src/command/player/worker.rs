//! The thread that plays a match: it holds the game (the early one on the
//! interpreter, then the one on its engine), follows the moves the
//! manager sends, chooses the player's moves, and between messages
//! thinks about the current state (the opponent's turn, a forced move's
//! turn, the rest of the start clock), growing the tree that the moves
//! played then lead into.
//!
//! The player's thread only sends it what to do and waits for the answer
//! until its deadline: a state that takes longer than the clock to
//! evaluate (a large game on the interpreter) delays the worker, never
//! the reply, which then says what the player could not compute in time.

use super::playing::{Playing, describe};
use gdl::Cancel;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long one stretch of thinking between messages runs before its
/// iterations are counted (and thinking goes on).
const SLICE: Duration = Duration::from_millis(200);

/// How much before the player's deadline the worker aims (at most a
/// tenth of the time left): the time to hand its answer over.
const HANDOVER: Duration = Duration::from_millis(50);

/// What the worker is asked.
enum Command {
    /// Play with this game from now on, once it has caught up with the
    /// moves played (`true`: it is the game on its engine).
    Take(Box<Playing>, bool),
    /// The joint move played (`None` at the first step); then the
    /// player's move by `deadline`.
    Play {
        joint: Option<Vec<String>>,
        deadline: Instant,
        answer: Sender<Turn>,
    },
    /// The last joint move: the goals in words.
    Stop {
        joint: Option<Vec<String>>,
        answer: Sender<Turn>,
    },
}

/// The worker's answer.
#[derive(Debug)]
pub struct Turn {
    /// The move (or `done`'s note for STOP, the goals); `None` when there
    /// is none: why is in `note`.
    pub played: Option<String>,
    /// What the log says of it.
    pub note: String,
}

/// The worker of one match; dropped, it stops (its thinking cancelled,
/// its thread ending on its own).
pub struct Worker {
    commands: Sender<Command>,
    /// The flag of the thread: set when the match is over, it stops
    /// whatever the thread evaluates.
    over: Cancel,
    /// The flag of the thinking under way: set when a command comes, it
    /// stops the search between playout steps.
    thinking: Arc<Mutex<Cancel>>,
    /// Iterations thought between messages since the last answer.
    thought: Arc<AtomicU64>,
    /// The best move known for the player at a step of the match (the
    /// number of joint moves played): what goes back when the worker does
    /// not answer by the deadline.
    best: Best,
}

/// The best move known at a step: the step and the move.
type Best = Arc<Mutex<Option<(usize, String)>>>;

impl Drop for Worker {
    fn drop(&mut self) {
        self.over.cancel();
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Worker {
    /// A worker for the match `id`, with nothing to play with yet.
    pub fn start(id: &str) -> std::io::Result<Worker> {
        let (commands, receive) = mpsc::channel();
        let thinking = Arc::new(Mutex::new(Cancel::new()));
        let thought = Arc::new(AtomicU64::new(0));
        let best: Best = Arc::default();
        let over = Cancel::new();
        let mut state = State {
            over: over.clone(),
            id: id.to_string(),
            playing: None,
            full: false,
            history: Vec::new(),
            lost: None,
            thinking: Arc::clone(&thinking),
            thought: Arc::clone(&thought),
            best: Arc::clone(&best),
        };
        let scope = over.clone();
        std::thread::Builder::new()
            .name("match".into())
            .stack_size(crate::command::STACK_BYTES)
            .spawn(move || scope.scope(|| state.run(&receive)))?;
        Ok(Worker {
            commands,
            over,
            thinking,
            thought,
            best,
        })
    }

    /// Sends a command and stops the thinking under way so that the
    /// worker takes it.
    fn send(&self, command: Command) {
        let _ = self.commands.send(command);
        lock(&self.thinking).cancel();
    }

    /// Hands the worker a game to play with.
    pub fn take(&self, p: Box<Playing>, full: bool) {
        self.send(Command::Take(p, full));
    }

    /// Iterations thought between messages since the last answer.
    pub fn thought(&self) -> u64 {
        self.thought.load(Ordering::Relaxed)
    }

    /// The joint move played, and the player's move by `deadline`, at
    /// `step` (the joint moves played so far, this one included): `None`
    /// when the worker did not answer by then; the best move it knew for
    /// the step then, if any.
    pub fn play(
        &self,
        joint: Option<Vec<String>>,
        step: usize,
        deadline: Instant,
    ) -> Result<Turn, Option<String>> {
        let (answer, receive) = mpsc::channel();
        // The worker aims a little before the deadline, so that its answer
        // is back by then.
        let left = crate::http::left(deadline);
        self.send(Command::Play {
            joint,
            deadline: deadline - (left / 10).min(HANDOVER),
            answer,
        });
        wait(&receive, deadline).ok_or_else(|| {
            let best = lock(&self.best);
            best.as_ref().filter(|b| b.0 == step).map(|b| b.1.clone())
        })
    }

    /// The last joint move and the goals, by `deadline`.
    pub fn stop(&self, joint: Option<Vec<String>>, deadline: Instant) -> Option<Turn> {
        let (answer, receive) = mpsc::channel();
        self.send(Command::Stop { joint, answer });
        wait(&receive, deadline)
    }
}

/// The answer on `receive` by `deadline`.
fn wait(receive: &Receiver<Turn>, deadline: Instant) -> Option<Turn> {
    receive.recv_timeout(crate::http::left(deadline)).ok()
}

/// What the worker's thread holds.
struct State {
    id: String,
    playing: Option<Box<Playing>>,
    /// Whether `playing` is the game on its engine.
    full: bool,
    /// The joint moves played, for a game that comes late to catch up.
    history: Vec<Vec<String>>,
    /// Why the match is lost, when it is.
    lost: Option<String>,
    thinking: Arc<Mutex<Cancel>>,
    thought: Arc<AtomicU64>,
    /// See [`Worker::best`].
    best: Best,
    /// The worker's flag of the match over.
    over: Cancel,
}

impl State {
    /// Takes commands until the player drops the worker; thinks between
    /// them.
    fn run(&mut self, commands: &Receiver<Command>) {
        loop {
            // A new flag first, then a look for a command: a command sent
            // before the flag was new is seen here, one sent after
            // cancels the thinking below.
            let cancel = Cancel::new();
            *lock(&self.thinking) = cancel.clone();
            let command = match commands.try_recv() {
                Ok(c) => c,
                Err(TryRecvError::Disconnected) => return,
                Err(TryRecvError::Empty) if self.think(&cancel) => continue,
                // Nothing to think about: wait for a command.
                Err(TryRecvError::Empty) => match commands.recv() {
                    Ok(c) => c,
                    Err(_) => return,
                },
            };
            self.obey(command);
        }
    }

    /// Thinks one stretch about the current state; whether there is
    /// anything to think about.
    fn think(&mut self, cancel: &Cancel) -> bool {
        let Some(p) = self.playing.as_mut().filter(|_| self.lost.is_none()) else {
            return false;
        };
        if p.is_over() {
            return false;
        }
        match p.ponder(cancel.flag(), SLICE) {
            Ok(n) => {
                self.thought.fetch_add(n, Ordering::Relaxed);
                true
            }
            // The match is over.
            Err(_) if self.over.is_cancelled() => false,
            Err(why) => {
                crate::log_line!("match {}: thinking stopped: {why}", self.id);
                false
            }
        }
    }

    fn obey(&mut self, command: Command) {
        match command {
            Command::Take(p, full) => self.take(p, full),
            Command::Play {
                joint,
                deadline,
                answer,
            } => {
                let turn = self.play(joint, deadline);
                self.thought.store(0, Ordering::Relaxed);
                let _ = answer.send(turn);
            }
            Command::Stop { joint, answer } => {
                let note = match self.follow(joint) {
                    Err(why) => format!("cannot follow the last moves: {why}"),
                    Ok(()) => match &mut self.playing {
                        Some(p) => p.goals(),
                        None => "the match is over".to_string(),
                    },
                };
                let _ = answer.send(Turn { played: None, note });
                self.playing = None;
            }
        }
    }

    /// Plays with `p` from now on, once it has caught up with the match.
    fn take(&mut self, mut p: Box<Playing>, full: bool) {
        if self.lost.is_some() || (self.full && !full) {
            return;
        }
        match p.catch_up(&self.history) {
            Ok(()) => {
                self.playing = Some(p);
                self.full = full;
            }
            Err(why) if self.playing.is_some() => crate::log_line!(
                "match {}: the rules loaded cannot follow the moves played ({why}); \
                 the interpreter plays on",
                self.id
            ),
            Err(why) => self.lost = Some(format!("cannot follow the moves: {why}")),
        }
    }

    /// Follows the joint move (if any) in the game, if there is one yet.
    fn follow(&mut self, joint: Option<Vec<String>>) -> Result<(), String> {
        let Some(joint) = joint else {
            return Ok(());
        };
        if let Some(p) = &mut self.playing
            && let Err(why) = p.follow(&joint)
        {
            self.playing = None;
            self.lost = Some(format!("cannot follow the moves: {why}"));
            return Err(why);
        }
        self.history.push(joint);
        Ok(())
    }

    /// The joint move followed, and the player's move by `deadline`.
    fn play(&mut self, joint: Option<Vec<String>>, deadline: Instant) -> Turn {
        let followed = self.follow(joint);
        let thought = self.thought.load(Ordering::Relaxed);
        let noop = |note: String| Turn { played: None, note };
        if let Err(why) = followed {
            return noop(format!("cannot follow the moves: {why}"));
        }
        if let Some(why) = &self.lost {
            return noop(why.clone());
        }
        let Some(p) = &mut self.playing else {
            return noop("still loading the rules: no legal move known yet".into());
        };
        // A legal move for the step at once, in case the search of the
        // state takes past the deadline.
        if let Ok(m) = p.random_move() {
            *lock(&self.best) = Some((self.history.len(), p.game.move_text(m)));
        }
        let between = format!("{thought} iterations between messages");
        let on = match self.full {
            true => "",
            false => " on the interpreter while the engine is chosen",
        };

        match p.search_until(deadline) {
            Ok(c) if c.forced => Turn {
                played: Some(p.game.move_text(c.played)),
                note: format!("its only legal move; {between}"),
            },
            Ok(c) => Turn {
                played: Some(p.game.move_text(c.played)),
                note: format!(
                    "{} iterations{on}, {} nodes kept; {between}",
                    c.iterations, c.reused
                ),
            },
            Err(why) => match p.random_move() {
                Ok(m) => Turn {
                    played: Some(p.game.move_text(m)),
                    note: format!("a random legal move: the search failed: {why}"),
                },
                Err(e) => {
                    let why = format!("no legal move found: {}", describe(&e));
                    self.playing = None;
                    self.lost = Some(why.clone());
                    noop(why)
                }
            },
        }
    }
}
