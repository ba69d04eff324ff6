//! Random playouts from the initial state (uniform random moves, one
//! thread), by gdl and by the game's direct Rust engine (its oracle in
//! crates/oracles/, the ceiling), side by side in one run.
//!
//! - `cargo bench -p gdl-bench --bench playouts`: criterion, one
//!   benchmark per game and engine (`playout/gdl/NAME`,
//!   `playout/oracle/NAME`), the time of one playout; the throughput it
//!   prints is playouts per second.
//! - `cargo build --release && cargo bench -p gdl-bench --bench playouts
//!   -- --table [--seconds S]`: the rows of docs/performance.md's table
//!   (`scripts/performance-table` writes them there): `gdl bench --json` on one thread and on every core for S
//!   seconds each (default 10), its peak memory, and the oracle for S
//!   seconds, all as medians of 5 rounds.
//!
//! A game whose rules file is not in rules/ yet is skipped with a note and
//! measured as soon as the file lands; an oracle is added with one line of
//! `games!` below.

use criterion::{BenchmarkId, Criterion, Throughput};
use gdl::{RandomPlayer, Stop};
use gdl_cli::measure::{Rounds, run_until};
use gdl_oracles::games;
use gdl_oracles::oracle::Oracle;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_pcg::Pcg64;
use std::hint::black_box;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

/// Longest playout, as in `gdl bench`.
const MAX_STEPS: usize = 10_000;

/// Rounds of a timed run; rates are their median.
const ROUNDS: usize = 5;

/// A random playout of a direct Rust engine: the joint moves it played.
type OraclePlayout = fn(&mut Pcg64) -> usize;

/// A benchmarked game.
struct Bench {
    /// Its rules file is rules/NAME.gdl.
    name: &'static str,
    /// Random playouts per second asked for, one thread (issue 5), if any.
    target: Option<u32>,
    /// A playout of its oracle, once it has one.
    oracle: Option<OraclePlayout>,
}

/// Declares the games, one a line: `NAME, TARGET;` or, with an oracle,
/// `NAME, TARGET, MODULE::TYPE;` (the oracle's module in `gdl_oracles`).
macro_rules! games {
    ($($name:literal, $target:expr $(, $module:ident :: $ty:ident)?;)*) => {
        /// The benchmarked games, in the table's order.
        const GAMES: &[Bench] = &[$(Bench {
            name: $name,
            target: $target,
            oracle: games!(@oracle $($module::$ty)?),
        }),*];
    };
    (@oracle) => { None };
    (@oracle $module:ident :: $ty:ident) => { Some(oracle_playout::<gdl_oracles::$module::$ty> as OraclePlayout) };
}

games! {
    "english_draughts", Some(20_000), english_draughts::English;
    "escort_breakthrough", Some(36_000), escort_breakthrough::EscortBreakthrough;
    "mad_bishops", Some(1_000), mad_bishops::MadBishops;
    "brazilian_draughts", Some(2_000), brazilian_draughts::Brazilian;
    "skirmish_holes", Some(3_000), skirmish_holes::SkirmishHoles;
    "breakthrough", Some(50_000), breakthrough::Breakthrough;
    "tictactoe", None, tictactoe::TicTacToe;
    "connect_four", None, connect_four::ConnectFour;
}

impl Bench {
    /// The rules file, if it is in rules/ yet.
    fn rules(&self) -> Option<PathBuf> {
        let path = gdl_oracles::repo_path(format!("rules/{}.gdl", self.name));
        path.exists().then_some(path)
    }

    /// Why the game is skipped.
    fn missing(&self) -> String {
        format!("rules/{}.gdl is not in rules/ yet", self.name)
    }
}

/// One random playout of `O` from its initial position, as
/// `gdl::Game::playout` plays one: each role's move uniformly at
/// random, the goals read at the end.
fn oracle_playout<O: Oracle>(rng: &mut Pcg64) -> usize {
    let mut game = O::initial();
    let mut steps = 0;
    while steps < MAX_STEPS && !game.is_terminal() {
        let joint = [0, 1].map(|role| {
            game.legal(role)
                .choose(rng)
                .expect("a role has a move in a position that is not terminal")
                .clone()
        });
        game.apply(&joint);
        steps += 1;
    }
    black_box(game.goals());
    steps
}

/// The criterion benchmarks: one playout an iteration.
fn criterion_benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("playout");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .throughput(Throughput::Elements(1));
    for bench in GAMES {
        let mut rng = Pcg64::seed_from_u64(0);
        match bench.rules() {
            Some(path) => {
                let mut game = games::load(&path);
                let initial = game.initial_state();
                let mut player = RandomPlayer::in_engine_order(0);
                group.bench_function(BenchmarkId::new("gdl", bench.name), |b| {
                    b.iter(|| {
                        game.playout(&initial, &mut player, Stop::steps(MAX_STEPS))
                            .expect("a random playout")
                            .steps
                    })
                });
            }
            None => eprintln!("skipped gdl/{}: {}", bench.name, bench.missing()),
        }
        if let Some(playout) = bench.oracle {
            group.bench_function(BenchmarkId::new("oracle", bench.name), |b| {
                b.iter(|| playout(&mut rng))
            });
        }
    }
    group.finish();
}

/// The `gdl` binary of this build: beside the benchmark's own directory
/// (`target/release/deps/playouts-HASH` beside `target/release/gdl`),
/// built by `cargo build --release` (a benchmark of another package
/// cannot have cargo build it).
fn gdl_binary() -> PathBuf {
    let exe = std::env::current_exe().expect("the benchmark knows its own path");
    let gdl = exe
        .parent()
        .and_then(|deps| deps.parent())
        .map(|dir| dir.join("gdl"))
        .filter(|gdl| gdl.exists());
    gdl.unwrap_or_else(|| {
        panic!(
            "no gdl binary beside {}: build it first with `cargo build --release`",
            exe.display()
        )
    })
}

/// What `gdl bench --json` printed.
fn gdl_bench(path: &PathBuf, seconds: f64, threads: usize) -> serde_json::Value {
    let out = Command::new(gdl_binary())
        .arg("bench")
        .arg(path)
        .args(["--seconds", &seconds.to_string()])
        .args(["--threads", &threads.to_string()])
        .args(["--rounds", &ROUNDS.to_string(), "--json"])
        .output()
        .expect("the gdl binary runs");
    assert!(
        out.status.success(),
        "gdl bench {}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("gdl bench --json prints JSON")
}

/// The oracle's playouts per second, the median of the rounds.
fn oracle_rate(playout: OraclePlayout, seconds: f64) -> f64 {
    let mut rng = Pcg64::seed_from_u64(0);
    let start = Instant::now();
    let mut rounds = Rounds::new(start, seconds, ROUNDS);
    run_until(&mut rounds, |_| Ok::<_, ()>(Some(playout(&mut rng))))
        .expect("an oracle cannot fail");
    rounds
        .summary(start.elapsed().as_secs_f64())
        .playouts
        .median
}

/// A rate for people: a whole number with thousands separated (one
/// decimal below 100).
fn rate(x: f64) -> String {
    if x < 100.0 {
        return format!("{x:.1}");
    }
    let digits = format!("{:.0}", x);
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// `part` as a percentage of `whole`.
fn percent(part: f64, whole: f64) -> String {
    format!("{:.1} %", 100.0 * part / whole)
}

/// Prints the table of docs/performance.md, measuring each game for
/// `seconds` per column.
fn table(seconds: f64) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "| game | engine | playouts/s | states/s | mean depth | playouts/s, {cores} threads \
         | peak memory | oracle playouts/s | gdl / oracle | target playouts/s | gdl / target |"
    );
    println!("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
    for bench in GAMES {
        let target = bench.target.map_or("—".into(), |t| rate(t.into()));
        let Some(path) = bench.rules() else {
            eprintln!("skipped {}: {}", bench.name, bench.missing());
            println!(
                "| {} | not in rules/ yet | | | | | | | | {target} | |",
                bench.name
            );
            continue;
        };
        eprintln!("measuring {} ({seconds} s a column)", bench.name);
        let one = gdl_bench(&path, seconds, 1);
        let all = gdl_bench(&path, seconds, 0);
        let number = |v: &serde_json::Value, key: &str| {
            v[key]
                .as_f64()
                .unwrap_or_else(|| panic!("gdl bench --json gives {key}: {v}"))
        };
        let playouts = number(&one, "playouts_per_second");
        let engine = one["engine"].as_str().unwrap_or("?");
        let engine = engine.split(" (").next().unwrap_or(engine);
        let oracle = bench.oracle.map(|o| oracle_rate(o, seconds));
        println!(
            "| {} | {engine} | {} | {} | {:.1} | {} | {:.1} MiB | {} | {} | {target} | {} |",
            bench.name,
            rate(playouts),
            rate(number(&one, "states_per_second")),
            number(&one, "mean_depth"),
            rate(number(&all, "playouts_per_second")),
            number(&one, "peak_rss_kib") / 1024.0,
            oracle.map_or("—".into(), rate),
            oracle.map_or("—".into(), |o| percent(playouts, o)),
            bench
                .target
                .map_or("—".into(), |t| percent(playouts, t.into())),
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--table") {
        let seconds = match args.iter().position(|a| a == "--seconds") {
            Some(i) => args
                .get(i + 1)
                .and_then(|s| s.parse::<f64>().ok())
                .filter(|s| *s > 0.0 && s.is_finite())
                .unwrap_or_else(|| panic!("--seconds needs a positive number of seconds")),
            None => 10.0,
        };
        table(seconds);
    } else {
        let mut c = Criterion::default().configure_from_args();
        criterion_benches(&mut c);
        c.final_summary();
    }
}
