//! `gdl bench FILE`: random playouts per second, states per second, mean
//! depth; `--json` for scripts. Each thread plays on its own clone of the
//! game.

use super::{load, threads, Failure, LimitArgs};
use gdl::playout::random_playout;
use gdl::{Game, GameError};
use rand::SeedableRng;
use rand_pcg::Pcg64;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Arguments of `gdl bench`.
#[derive(clap::Args)]
pub struct BenchArgs {
    /// The rules file.
    pub file: PathBuf,
    /// How long to play.
    #[arg(long, default_value_t = 5.0)]
    pub seconds: f64,
    /// Threads to play on; 0 uses every core (at most 1024).
    #[arg(long, default_value_t = 1, value_parser = super::thread_count)]
    pub threads: usize,
    /// Seed of the random choices (thread t uses seed S+t).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Stop a playout after this many steps.
    #[arg(long, default_value_t = 10_000, value_name = "N")]
    pub max_steps: usize,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// What one thread did: playouts, and the states they went through (next
/// states computed).
#[derive(Default)]
struct Count {
    playouts: u64,
    states: u64,
}

/// Plays the library's random playouts until `deadline` (the playout
/// under way at the deadline is finished and counted).
fn run(
    game: &mut Game,
    seed: u64,
    deadline: Instant,
    max_steps: usize,
) -> Result<Count, GameError> {
    let mut rng = Pcg64::seed_from_u64(seed);
    let initial = game.initial_state();
    let mut count = Count::default();
    while Instant::now() < deadline {
        let playout = random_playout(game, &initial, &mut rng, max_steps)?;
        count.playouts += 1;
        count.states += playout.steps as u64;
    }
    Ok(count)
}

/// Runs `gdl bench`.
pub fn bench(args: BenchArgs) -> Result<ExitCode, Failure> {
    if !(args.seconds > 0.0 && args.seconds.is_finite()) {
        return Err(Failure::Usage(format!(
            "--seconds {}: must be a positive number",
            args.seconds
        )));
    }
    let loaded = load(&args.file, &args.limits)?;
    let n = threads(args.threads);
    let start = Instant::now();
    let deadline = start + Duration::from_secs_f64(args.seconds);
    let results: Vec<Result<Count, GameError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..n)
            .map(|t| {
                let mut game = loaded.game.clone();
                let seed = args.seed.wrapping_add(t as u64);
                let max_steps = args.max_steps;
                scope.spawn(move || run(&mut game, seed, deadline, max_steps))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or(Ok(Count::default())))
            .collect()
    });
    let elapsed = start.elapsed().as_secs_f64();
    let mut total = Count::default();
    for r in results {
        let c = r.map_err(|e| Failure::Game(super::describe(&e)))?;
        total.playouts += c.playouts;
        total.states += c.states;
    }
    let playouts_per_second = total.playouts as f64 / elapsed;
    let states_per_second = total.states as f64 / elapsed;
    let mean_depth = total.states as f64 / total.playouts.max(1) as f64;
    if args.json {
        let json = serde_json::json!({
            "rules": loaded.name,
            "threads": n,
            "seconds": elapsed,
            "playouts": total.playouts,
            "states": total.states,
            "playouts_per_second": playouts_per_second,
            "states_per_second": states_per_second,
            "mean_depth": mean_depth,
        });
        println!("{json}");
    } else {
        println!("rules: {}", loaded.name);
        println!("threads: {n}, seconds: {elapsed:.2}");
        println!("playouts: {} ({playouts_per_second:.1}/s)", total.playouts);
        println!("states: {} ({states_per_second:.1}/s)", total.states);
        println!("mean depth: {mean_depth:.1}");
    }
    Ok(ExitCode::SUCCESS)
}
