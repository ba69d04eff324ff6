//! `gdl bench FILE`: random playouts from the initial state for a while,
//! on one thread or more (each on its own clone of the game); playouts and
//! states per second as the median of equal rounds, mean depth, peak
//! memory; `--json` for scripts.

use super::{load, threads, Failure, Format, LimitArgs, MAX_THREADS};
use crate::measure::{peak_rss_kib, run_until, Rate, Rounds, Summary};
use gdl::{Game, GameError};
use rand::SeedableRng;
use rand_pcg::Pcg64;
use std::path::PathBuf;
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
    /// The rules file.
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
    /// Seed of the random choices (thread t uses seed S+t).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Stop a playout after this many steps.
    #[arg(long, default_value_t = 10_000, value_name = "N")]
    pub max_steps: usize,
    /// Output format (the JSON on one line).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// The same as `--format json`.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// What one thread saw: its rounds, and how many of its playouts the step
/// limit cut short.
struct Thread {
    rounds: Rounds,
    cut: u64,
}

/// One thread's share of the run: the library's random playouts until the
/// deadline (the playout under way then is finished and counted).
fn play(
    game: &mut Game,
    seed: u64,
    mut rounds: Rounds,
    max_steps: usize,
) -> Result<Thread, GameError> {
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut cut = 0;
    run_until(&mut rounds, || {
        let playout = game.random_outcome(&mut rng, max_steps)?;
        if playout.goals.is_none() {
            cut += 1;
        }
        Ok(playout.steps)
    })?;
    Ok(Thread { rounds, cut })
}

/// Runs `gdl bench`.
pub fn bench(args: BenchArgs) -> Result<ExitCode, Failure> {
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
    let threads: Vec<std::io::Result<std::thread::Result<Result<Thread, GameError>>>> =
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..n)
                .map(|t| {
                    let mut game = loaded.game.clone();
                    let seed = args.seed.wrapping_add(t as u64);
                    let rounds = rounds.clone();
                    let max_steps = args.max_steps;
                    std::thread::Builder::new()
                        .spawn_scoped(scope, move || play(&mut game, seed, rounds, max_steps))
                })
                .collect();
            handles.into_iter().map(|h| h.map(|h| h.join())).collect()
        });
    let elapsed = start.elapsed().as_secs_f64();
    let mut all = rounds;
    let mut cut = 0;
    for thread in threads {
        let thread = thread
            .map_err(|e| Failure::Usage(format!("--threads {n}: cannot start a thread: {e}")))?
            .map_err(|_| Failure::Game("a playout thread panicked (a bug of gdl)".into()))?
            .map_err(|e| Failure::Game(super::describe(&e)))?;
        all.merge(&thread.rounds);
        cut += thread.cut;
    }
    let s = all.summary(elapsed);
    let report = Report {
        name: &loaded.name,
        engine: loaded.game.engine().to_string(),
        load_seconds,
        threads: n,
        summary: s,
        cut,
        max_steps: args.max_steps,
        peak_rss_kib: peak_rss_kib(),
    };
    if args.json || args.format == Format::Json {
        println!("{}", report.json());
    } else {
        print!("{}", report.text());
    }
    Ok(ExitCode::SUCCESS)
}

/// The figures `gdl bench` prints.
struct Report<'a> {
    name: &'a str,
    engine: String,
    load_seconds: f64,
    threads: usize,
    summary: Summary,
    cut: u64,
    max_steps: usize,
    peak_rss_kib: Option<u64>,
}

impl Report<'_> {
    fn text(&self) -> String {
        let s = &self.summary;
        let rate = |what: &str, count: u64, r: &Rate| {
            format!(
                "{what}: {count}, {:.1}/s (median of the rounds; {:.1} to {:.1}; overall {:.1})\n",
                r.median, r.low, r.high, r.overall
            )
        };
        let mut out = format!(
            "rules: {}\nengine: {}, loaded in {:.3} s\nthreads: {}, seconds: {:.2}, rounds: {}\n",
            self.name, self.engine, self.load_seconds, self.threads, s.seconds, s.rounds
        );
        out += &rate("playouts", s.total.playouts, &s.playouts);
        out += &rate("states", s.total.states, &s.states);
        out += &format!("mean depth: {:.1}\n", s.mean_depth);
        if self.cut > 0 {
            out += &format!(
                "cut short: {} playouts reached --max-steps {} before the end\n",
                self.cut, self.max_steps
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
            "seconds": s.seconds,
            "rounds": s.rounds,
            "playouts": s.total.playouts,
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
            "peak_rss_kib": self.peak_rss_kib,
        })
    }
}
