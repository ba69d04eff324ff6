//! `gdl bench FILE`: random playouts per second, states per second, mean
//! depth; `--json` for scripts.

use super::{load, threads, Failure, LimitArgs};
use gdl::{Game, GameError};
use rand::{Rng, SeedableRng};
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
    /// Threads to play on; 0 uses every core.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Seed of the random choices (thread t uses seed S+t).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// What one thread did: finished playouts, every next state computed (the
/// unfinished playout at the deadline included), and the steps of the
/// finished playouts.
#[derive(Default)]
struct Count {
    playouts: u64,
    states: u64,
    depth: u64,
}

/// Plays random playouts until `deadline`. Moves are picked from the
/// evaluator's own order (no sorting), which is all a benchmark needs.
fn run(game: &mut Game, seed: u64, deadline: Instant) -> Result<Count, GameError> {
    let mut rng = Pcg64::seed_from_u64(seed);
    let roles = game.roles();
    let mut count = Count::default();
    loop {
        let mut state = game.initial_state();
        let mut depth = 0;
        while !game.is_terminal(&state)? {
            if Instant::now() >= deadline {
                return Ok(count);
            }
            let mut joint = Vec::with_capacity(roles.len());
            for &role in &roles {
                let moves = game.legal_moves(&state, role)?;
                if moves.is_empty() {
                    return Err(GameError::NoLegalMove {
                        role: game.role_name(role).to_string(),
                    });
                }
                joint.push(moves[rng.gen_range(0..moves.len())]);
            }
            state = game.next_state(&state, &joint)?;
            count.states += 1;
            depth += 1;
        }
        game.goals(&state)?;
        count.playouts += 1;
        count.depth += depth;
        if Instant::now() >= deadline {
            return Ok(count);
        }
    }
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
                scope.spawn(move || run(&mut game, seed, deadline))
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
        total.depth += c.depth;
    }
    let playouts_per_second = total.playouts as f64 / elapsed;
    let states_per_second = total.states as f64 / elapsed;
    let mean_depth = total.depth as f64 / total.playouts.max(1) as f64;
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
