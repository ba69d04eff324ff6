//! `gdl bench FILE`: random playouts from the initial state for a while,
//! on one thread or more (each on its own clone of the game); playouts and
//! states per second as the median of equal rounds, mean depth, peak
//! memory; `--json` for scripts; `--keep-going` past faults of the rules.
//! The time is a bound: a playout under way when it is up is stopped and
//! not counted, and the overall rates are over the time the finished
//! playouts took.

use super::stop::{self, Reason};
use super::{Failure, Format, LimitArgs, MAX_THREADS, load, threads};
use crate::measure::{Rate, Rounds, Summary, peak_rss_kib, run_until};
use gdl::{Game, GameError, RandomPlayer, Stop};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// The longest run accepted (a million seconds, about 11 days).
const MAX_SECONDS: f64 = 1e6;

/// The most rounds a run may be split into.
const MAX_ROUNDS: usize = 1000;

/// Arguments of `gdl bench`.
#[derive(clap::Args)]
#[command(after_long_help = "\
Examples:
  # Random playouts a second, for one second:
  gdl bench rules/tictactoe.gdl --seconds 1
  # On every core, as JSON:
  gdl bench rules/tictactoe.gdl --seconds 1 --threads 0 --format json")]
pub struct BenchArgs {
    /// The rules file (`-`: standard input).
    pub file: PathBuf,
    /// How long to play.
    #[arg(long, default_value_t = 5.0)]
    pub seconds: f64,
    /// Equal slices of the time; rates are the median over them.
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub rounds: usize,
    /// Threads to play on; 0 uses every core.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Seed of the first playout; the playouts use seeds S, S+1, S+2, ...
    /// (thread t of n plays S+t, S+t+n, ...).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Stop a playout after this many steps.
    #[arg(long, default_value_t = 10_000, value_name = "N")]
    pub max_steps: usize,
    /// Go on past a playout that reaches a fault of the rules (a role with
    /// no legal move, a terminal state without a goal value): it counts as
    /// ended where the fault is, and the faults are counted and the first
    /// one named. Without it, the first fault stops the run.
    #[arg(long)]
    pub keep_going: bool,
    /// Output format (the JSON on one line).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// The same as `--format json`.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// What one thread saw: its rounds, how many of its playouts the step
/// limit cut short, whether one was stopped at the deadline, how long its
/// finished playouts took, and (with `--keep-going`) how many ended at a
/// fault of the rules, the first of them named.
struct Thread {
    rounds: Rounds,
    cut: u64,
    stopped: bool,
    seconds: f64,
    faults: u64,
    first_fault: Option<PlayoutError>,
}

/// A playout that went wrong: its seed, the step, the error.
struct PlayoutError {
    seed: u64,
    step: usize,
    error: GameError,
}

impl PlayoutError {
    /// The error for people, with how to play the playout again (as `gdl
    /// random` names the game that went wrong).
    fn describe(&self, file: &Path) -> String {
        format!(
            "playout with seed {seed} (the first of gdl bench {} --seed {seed}): step {}: {}{}",
            file.display(),
            self.step,
            super::describe(&self.error),
            super::keep_going_hint(&self.error),
            seed = self.seed,
        )
    }
}

/// One thread's share of the run: the library's random playouts until the
/// deadline, playout `k` with seed `first + k * stride` (the playout
/// under way at the deadline is stopped and not counted). With
/// `keep_going`, a playout that reaches a fault of the rules ends there.
fn play(
    game: &mut Game,
    (first, stride): (u64, u64),
    mut rounds: Rounds,
    max_steps: usize,
    keep_going: bool,
) -> Result<Thread, PlayoutError> {
    let mut cut = 0;
    let mut faults = 0;
    let mut first_fault = None;
    let mut seed = first;
    let initial = game.initial_state();
    let run = run_until(&mut rounds, |deadline| {
        // Ctrl-C or --timeout: the run ends, the playout under way
        // stopped and not counted.
        if stop::flag().load(std::sync::atomic::Ordering::Relaxed) {
            return Ok(None);
        }
        let mut player = RandomPlayer::in_engine_order(seed);
        let played = seed;
        seed = seed.wrapping_add(stride);
        let stop = Stop::steps(max_steps)
            .until(deadline)
            .or_cancelled(stop::flag());
        let outcome = match game.random_outcome(&initial, &mut player, stop) {
            Ok(outcome) => outcome,
            // Stopped inside a step: as at the next one.
            Err((_, GameError::Cancelled)) if stop::reason().is_some() => return Ok(None),
            Err((step, error)) if keep_going && super::is_fault_of_the_rules(&error) => {
                faults += 1;
                first_fault.get_or_insert(PlayoutError {
                    seed: played,
                    step,
                    error,
                });
                return Ok(Some(step));
            }
            Err((step, error)) => {
                return Err(PlayoutError {
                    seed: played,
                    step,
                    error,
                });
            }
        };
        if outcome.stopped {
            return Ok(None);
        }
        if outcome.goals.is_none() {
            cut += 1;
        }
        Ok(Some(outcome.steps))
    })?;
    Ok(Thread {
        rounds,
        cut,
        stopped: run.stopped,
        seconds: run.seconds,
        faults,
        first_fault,
    })
}

/// Runs `gdl bench`.
///
/// The whole run keeps its work ([`stop::keeping_work`]): Ctrl-C or
/// `--timeout`, once the rules are loaded, prints what finished, marked
/// partial; during the loading, the process ends within [`stop::GRACE`].
pub fn bench(args: BenchArgs) -> Result<ExitCode, Failure> {
    stop::keeping_work(|| bench_keeping(args))
}

/// [`bench`], its work kept when it is stopped early.
fn bench_keeping(args: BenchArgs) -> Result<ExitCode, Failure> {
    if !(args.seconds > 0.0 && args.seconds <= MAX_SECONDS) {
        return Err(Failure::Usage(format!(
            "--seconds {}: must be a positive number up to {MAX_SECONDS}",
            args.seconds
        )));
    }
    if !(1..=MAX_ROUNDS).contains(&args.rounds) {
        return Err(Failure::Usage(format!(
            "--rounds {}: must be 1 to {MAX_ROUNDS}",
            args.rounds
        )));
    }
    if args.threads > MAX_THREADS {
        return Err(Failure::Usage(format!(
            "--threads {}: must be 0 (every core) to {MAX_THREADS}",
            args.threads
        )));
    }
    let loading = Instant::now();
    let loaded = load(&args.file, &args.limits)?;
    let load_seconds = loading.elapsed().as_secs_f64();
    let n = threads(args.threads);
    let start = Instant::now();
    let rounds = Rounds::new(start, args.seconds, args.rounds);
    let threads: Vec<std::io::Result<std::thread::Result<Result<Thread, PlayoutError>>>> =
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..n)
                .map(|t| {
                    let mut game = loaded.game.clone();
                    let seeds = (args.seed.wrapping_add(t as u64), n as u64);
                    let rounds = rounds.clone();
                    let (max_steps, keep_going) = (args.max_steps, args.keep_going);
                    std::thread::Builder::new().spawn_scoped(scope, move || {
                        stop::under_stop(|| play(&mut game, seeds, rounds, max_steps, keep_going))
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.map(|h| h.join())).collect()
        });
    let elapsed = start.elapsed().as_secs_f64();
    let early = stop::reason();
    let mut all = rounds.clone();
    let (mut cut, mut stopped, mut seconds, mut faults) = (0, 0, 0.0, 0);
    let mut first_error: Option<PlayoutError> = None;
    let mut first_fault: Option<PlayoutError> = None;
    for thread in threads {
        let thread = thread
            .map_err(|e| Failure::Usage(format!("--threads {n}: cannot start a thread: {e}")))?
            .map_err(|_| Failure::Game("a playout thread panicked (a bug of gdl)".into()))?;
        match thread {
            Ok(thread) => {
                all.merge(&thread.rounds);
                cut += thread.cut;
                stopped += u64::from(thread.stopped);
                seconds += thread.seconds / n as f64;
                faults += thread.faults;
                first_fault = first(first_fault, thread.first_fault);
            }
            Err(e) => first_error = first(first_error, Some(e)),
        }
    }
    if let Some(e) = first_error {
        return Err(Failure::Game(e.describe(&args.file)));
    }
    let mut covered = elapsed;
    if early.is_some() {
        let (whole, whole_seconds) = all.finished_by(Instant::now());
        all = whole;
        seconds = seconds.min(whole_seconds);
        covered = whole_seconds;
    }
    let report = Report {
        name: &loaded.name,
        engine: loaded.game.engine().to_string(),
        load_seconds,
        threads: n,
        elapsed,
        summary: all.summary(seconds),
        cut,
        stopped,
        max_steps: args.max_steps,
        faults,
        first_fault: first_fault.map(|e| e.describe(&args.file)),
        peak_rss_kib: peak_rss_kib(),
        partial: early,
        seconds_asked: args.seconds,
        covered,
    };
    if args.json || args.format == Format::Json {
        println!("{}", report.json());
    } else {
        print!("{}", report.text());
    }
    match early {
        Some(reason) => Err(stop::failure(reason)),
        None => Ok(ExitCode::SUCCESS),
    }
}

/// Of two playout errors, the one of the smaller seed (the one a run of
/// one thread would have met first).
fn first(a: Option<PlayoutError>, b: Option<PlayoutError>) -> Option<PlayoutError> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if b.seed < a.seed { b } else { a }),
        (a, b) => a.or(b),
    }
}

/// The figures `gdl bench` prints.
struct Report<'a> {
    name: &'a str,
    engine: String,
    load_seconds: f64,
    threads: usize,
    /// The run's wall-clock time (the summary's is that of the finished
    /// playouts).
    elapsed: f64,
    summary: Summary,
    cut: u64,
    /// Playouts stopped at the deadline (at most one a thread).
    stopped: u64,
    max_steps: usize,
    /// Playouts ended at a fault of the rules (`--keep-going`), and the
    /// first of them described.
    faults: u64,
    first_fault: Option<String>,
    peak_rss_kib: Option<u64>,
    /// What stopped the run early (Ctrl-C, `--timeout`), if anything: the
    /// figures are then of the rounds it played whole.
    partial: Option<Reason>,
    /// The `--seconds` asked for.
    seconds_asked: f64,
    /// The seconds the rates are of: the rounds played whole of a run
    /// stopped early.
    covered: f64,
}

impl Report<'_> {
    fn text(&self) -> String {
        let s = &self.summary;
        let rate = |what: &str, count: u64, r: &Rate| {
            if s.by_rounds {
                format!(
                    "{what}: {count}, {:.1}/s (median of the rounds; {:.1} to {:.1}; overall {:.1})\n",
                    r.median, r.low, r.high, r.overall
                )
            } else if what == "playouts" {
                format!(
                    "{what}: {count}, {:.1}/s (overall: a round ended no playout, so no median \
                     of the rounds; give more --seconds)\n",
                    r.overall
                )
            } else {
                format!("{what}: {count}, {:.1}/s (overall)\n", r.overall)
            }
        };
        let mut out = String::new();
        if let Some(reason) = self.partial {
            out += &format!(
                "partial: stopped by {} after {:.2} of the {} seconds asked for; the rates are \
                 of the first {:.2} seconds\n",
                reason.words(),
                self.elapsed,
                self.seconds_asked,
                self.covered
            );
        }
        out += &format!(
            "rules: {}\nengine: {}, loaded in {:.3} s\nthreads: {}, seconds: {:.2}, rounds: {}\n",
            self.name, self.engine, self.load_seconds, self.threads, self.elapsed, s.rounds
        );
        if s.total.playouts == 0 {
            // No rate can be given: say why rather than print zeros.
            out += &format!(
                "playouts: 0 finished: {} under way when the {:.2} s were up, stopped and not \
                 counted; a playout takes longer (give more --seconds, or fewer --max-steps)\n",
                self.stopped, self.elapsed
            );
        } else {
            out += &rate("playouts", s.total.playouts, &s.playouts);
            out += &rate("states", s.total.states, &s.states);
            out += &format!("mean depth: {:.1}\n", s.mean_depth);
        }
        if self.cut > 0 {
            out += &format!(
                "cut short: {} playouts reached --max-steps {} before the end\n",
                self.cut, self.max_steps
            );
        }
        if let Some(fault) = &self.first_fault {
            out += &format!(
                "faults: {} playouts ended at a fault of the rules, counted with the steps \
                 they played; the first: {fault}\n",
                self.faults
            );
        }
        if let Some(kib) = self.peak_rss_kib {
            out += &format!("peak memory: {:.1} MiB resident\n", kib as f64 / 1024.0);
        }
        out
    }

    fn json(&self) -> serde_json::Value {
        let s = &self.summary;
        serde_json::json!({
            "rules": self.name,
            "engine": self.engine,
            "load_seconds": self.load_seconds,
            "threads": self.threads,
            "seconds": self.elapsed,
            "playout_seconds": s.seconds,
            "rounds": s.rounds,
            "rate_of": if s.by_rounds { "rounds" } else { "whole run" },
            "playouts": s.total.playouts,
            "stopped": self.stopped,
            "states": s.total.states,
            "playouts_per_second": s.playouts.median,
            "playouts_per_second_low": s.playouts.low,
            "playouts_per_second_high": s.playouts.high,
            "playouts_per_second_overall": s.playouts.overall,
            "states_per_second": s.states.median,
            "states_per_second_low": s.states.low,
            "states_per_second_high": s.states.high,
            "states_per_second_overall": s.states.overall,
            "mean_depth": s.mean_depth,
            "cut_short": self.cut,
            "faults": self.faults,
            "first_fault": self.first_fault,
            "peak_rss_kib": self.peak_rss_kib,
            "partial": self.partial.is_some(),
            "stopped_by": self.partial.map(Reason::name),
        })
    }
}
