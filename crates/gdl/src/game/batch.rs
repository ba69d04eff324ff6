//! Many games on threads: the one batch runner, behind `gdl random`, `gdl
//! analyse` and the Python module's bulk playouts.

use crate::game::Game;
use std::collections::VecDeque;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How many games past the first not yet handed on a thread may start, a
/// thread: what bounds the results held out of order. Well above
/// [`MOST_AT_ONCE`], so that a thread does not wait for its own results.
const AHEAD_PER_THREAD: usize = 4096;

/// How often the consumer hears that nothing came, and how long a thread
/// plays before it sends what it has: what Ctrl-C and a progress bar wait
/// at most (a game under way aside).
const TICK: Duration = Duration::from_millis(100);

/// The most games a thread plays before it sends their results: short
/// games go by the hundred between two messages (a message wakes the
/// consumer, which costs more than a playout of the smallest games).
const MOST_AT_ONCE: usize = 256;

/// Plays games `0..games` on `threads` threads (0: one per core), each
/// thread on its own clone of `game`: game `i` is `play(&mut clone, i,
/// cancel)`. Each result goes to `each` on the calling thread in game
/// order, as soon as the games before it have gone, so a run's results do
/// not depend on the number of threads and need not be held until it
/// ends; `each(None)` comes instead when nothing came for a tenth of a
/// second (for a progress bar, or to look at Ctrl-C). At most 4,096 games
/// a thread are held out of order.
///
/// `each` returning [`ControlFlow::Break`] ends the run: no game starts
/// after, and `cancel` is set for the games under way, whose results are
/// dropped (give it to their [`crate::Stop`] so that they end at once).
/// The first game of a run to fail is thus the first failure `each` sees,
/// whatever the threads. The threads run under the caller's
/// [`crate::Cancel`], if it runs under one: setting it stops a step under
/// way, which a `Stop` sees only between steps.
///
/// ```
/// use std::ops::ControlFlow;
/// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../rules/tictactoe.gdl");
/// let game = gdl::Game::load(path)?;
/// let start = game.initial_state();
/// let play = |game: &mut gdl::Game, i: usize, cancel: &_| {
///     let stop = gdl::Stop::steps(100).or_cancelled(cancel);
///     game.random_outcome(&start, &mut gdl::RandomPlayer::new(i as u64), stop)
/// };
/// let mut lengths = Vec::new();
/// gdl::play_games(&game, 50, 2, play, |result| {
///     if let Some((i, outcome)) = result {
///         assert_eq!(i, lengths.len()); // in game order
///         lengths.push(outcome.unwrap().steps);
///     }
///     ControlFlow::Continue(())
/// });
/// assert_eq!(lengths.len(), 50);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn play_games<T: Send>(
    game: &Game,
    games: usize,
    threads: usize,
    play: impl Fn(&mut Game, usize, &AtomicBool) -> T + Sync,
    mut each: impl FnMut(Option<(usize, T)>) -> ControlFlow<()>,
) {
    let threads = match threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        t => t,
    }
    .clamp(1, games.max(1));
    let ahead = AHEAD_PER_THREAD.saturating_mul(threads);
    let cancel = AtomicBool::new(false);
    let caller = crate::cancel::current();
    let next = AtomicUsize::new(0);
    // How many games have gone to `each`; a thread too far ahead of it
    // waits on `moved`.
    let handed = AtomicUsize::new(0);
    let (gate, moved) = (Mutex::new(()), Condvar::new());
    let (send, receive) = mpsc::channel::<Vec<(usize, T)>>();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let mut game = game.clone();
            let send = send.clone();
            let (play, cancel, next) = (&play, &cancel, &next);
            let (handed, gate, moved) = (&handed, &gate, &moved);
            let far = move |i: usize| i >= handed.load(Ordering::Acquire).saturating_add(ahead);
            let caller = caller.clone();
            // The thread runs under its caller's `Cancel`, if any, so that
            // setting it stops a step under way too.
            scope.spawn(move || {
                crate::cancel::under(caller.as_ref(), || {
                    // A thread that panics stops the others, which may wait
                    // for its game.
                    let _stop = CancelOnPanic(cancel);
                    let mut results = Vec::new();
                    let mut since = Instant::now();
                    while !cancel.load(Ordering::Relaxed) {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= games {
                            break;
                        }
                        if far(i) {
                            // The games the others wait for may be among ours.
                            if !results.is_empty() {
                                let _ = send.send(std::mem::take(&mut results));
                            }
                            let mut g = gate.lock().unwrap_or_else(PoisonError::into_inner);
                            while far(i) && !cancel.load(Ordering::Relaxed) {
                                g = match moved.wait_timeout(g, TICK) {
                                    Ok((g, _)) => g,
                                    Err(p) => p.into_inner().0,
                                };
                            }
                            drop(g);
                            since = Instant::now();
                            if cancel.load(Ordering::Relaxed) {
                                break;
                            }
                        }
                        results.push((i, play(&mut game, i, cancel)));
                        if results.len() >= MOST_AT_ONCE || since.elapsed() >= TICK / 10 {
                            if send.send(std::mem::take(&mut results)).is_err() {
                                break;
                            }
                            since = Instant::now();
                        }
                    }
                    if !results.is_empty() {
                        let _ = send.send(results);
                    }
                })
            });
        }
        drop(send);
        // The results come in any order, and go in game order.
        // Game `first + k` at `held[k]`.
        let mut held: VecDeque<Option<T>> = VecDeque::new();
        let mut first = 0;
        let mut last_said = Instant::now();
        let stopped = loop {
            let batch = match receive.recv_timeout(TICK) {
                Ok(batch) => batch,
                Err(RecvTimeoutError::Timeout) => {
                    last_said = Instant::now();
                    match each(None) {
                        ControlFlow::Continue(()) => continue,
                        ControlFlow::Break(()) => break true,
                    }
                }
                Err(RecvTimeoutError::Disconnected) => break false,
            };
            for (i, result) in batch {
                let k = i - first;
                if k >= held.len() {
                    held.resize_with(k + 1, || None);
                }
                held[k] = Some(result);
            }
            let before = first;
            let mut flow = ControlFlow::Continue(());
            while flow.is_continue() && held.front().is_some_and(Option::is_some) {
                let Some(Some(result)) = held.pop_front() else {
                    break;
                };
                flow = each(Some((first, result)));
                first += 1;
            }
            if first > before {
                last_said = Instant::now();
                handed.store(first, Ordering::Release);
                let _g = gate.lock().unwrap_or_else(PoisonError::into_inner);
                moved.notify_all();
            } else if flow.is_continue() && last_said.elapsed() >= TICK {
                last_said = Instant::now();
                flow = each(None);
            }
            if flow.is_break() {
                break true;
            }
        };
        if stopped {
            cancel.store(true, Ordering::Relaxed);
            let _g = gate.lock().unwrap_or_else(PoisonError::into_inner);
            moved.notify_all();
        }
        // Results still coming are dropped with the receiver.
        drop(receive);
    });
}

/// Sets its flag when dropped in a panic.
struct CancelOnPanic<'a>(&'a AtomicBool);

impl Drop for CancelOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.store(true, Ordering::Relaxed);
        }
    }
}
