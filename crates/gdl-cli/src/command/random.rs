//! `gdl random FILE --games N`: many random games, summarised.
//!
//! Game `i` is played with seed `S + i` exactly as `gdl trace --seed S+i`
//! plays it, so any game of the series can be looked at in full. Results do
//! not depend on the number of threads.

use super::ai::{AiArgs, Seats};
use super::{game_seed, load, print_json, threads, Failure, Format, LimitArgs};
use gdl::{Game, GameError, RandomPlayer};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Arguments of `gdl random`.
#[derive(clap::Args)]
#[command(after_long_help = "\
Examples:
  # 1000 random games: lengths, goals, wins and draws:
  gdl random rules/tictactoe.gdl --games 1000
  # The search player as oplayer, the other role at random:
  gdl random rules/tictactoe.gdl --games 20 --ai oplayer --iterations 200")]
pub struct RandomArgs {
    /// The rules file (`-`: standard input).
    pub file: PathBuf,
    /// How many games to play.
    #[arg(long, default_value_t = 100)]
    pub games: usize,
    /// Seed of the first game; game i uses seed S+i.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Threads to play on; 0 uses every core (at most 1024).
    #[arg(long, default_value_t = 1, value_parser = super::thread_count)]
    pub threads: usize,
    /// Give up on a game after this many steps.
    #[arg(long, default_value_t = 10_000, value_name = "N")]
    pub max_steps: usize,
    /// Go on past a game that reaches a fault of the rules (a role with no
    /// legal move, a terminal state without a goal value): such games are
    /// counted and the first named, and the figures are those of the
    /// others. Without it, the first fault stops the run.
    #[arg(long)]
    pub keep_going: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// The search player's seats and budget (1000 iterations a move
    /// unless `--think` or `--iterations` says otherwise); game i seeds
    /// it with S+i, as `gdl trace --seed S+i` with the same flags does.
    #[command(flatten)]
    pub ai: AiArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// How one game went: its length and goals, or `None` goals when it did not
/// end within the step limit.
type Outcome = (usize, Option<Vec<u8>>);

/// Plays one random game, the same one `gdl trace --seed SEED` plays.
fn play_one(game: &mut Game, seed: u64, max_steps: usize) -> Result<Outcome, (usize, GameError)> {
    let outcome = game.random_game(seed, max_steps)?;
    Ok((outcome.steps, outcome.goals))
}

/// Plays one game with the search player in `seats`' seats, the same one
/// `gdl trace --seed SEED` with the same `--ai` flags plays.
fn play_seated(
    game: &mut Game,
    seats: &mut Seats,
    seed: u64,
    max_steps: usize,
) -> Result<Outcome, (usize, GameError)> {
    let mut random = RandomPlayer::new(seed);
    let mut state = game.initial_state();
    let mut steps = 0;
    // One joint move a step, until the end or the step limit.
    while !game.is_terminal(&state).map_err(|e| (steps, e))? {
        if steps >= max_steps {
            return Ok((steps, None));
        }
        let joint = seats
            .joint(game, &state, &mut random)
            .map_err(|e| (steps, e))?;
        seats.observe(&joint);
        state = game.next_state(&state, &joint).map_err(|e| (steps, e))?;
        steps += 1;
    }
    Ok((steps, Some(game.goals(&state).map_err(|e| (steps, e))?)))
}

/// Runs `gdl random`.
pub fn random(args: RandomArgs) -> Result<ExitCode, Failure> {
    let loaded = load(&args.file, &args.limits)?;
    let game = loaded.game;
    let roles: Vec<String> = game
        .roles()
        .iter()
        .map(|&r| game.role_name(r).to_string())
        .collect();
    let n = args.games;
    let budget = args.ai.budget(super::trace_cmd::DEFAULT_BUDGET);
    // Checks the role names before any game starts.
    let ai_seats = args.ai.roles(&game)?;
    let seated = ai_seats.iter().any(|&ai| ai);
    let search: Mutex<(u64, f64)> = Mutex::new((0, 0.0));
    // Grown as games end: `--games` may ask for more than memory holds.
    let results: Mutex<Vec<Option<Outcome>>> = Mutex::new(Vec::new());
    let first_error: Mutex<Option<(usize, usize, GameError)>> = Mutex::new(None);
    // With `--keep-going`: how many games met a fault, and the first.
    let faults = AtomicUsize::new(0);
    let first_fault: Mutex<Option<(usize, usize, GameError)>> = Mutex::new(None);
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let start = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..threads(args.threads).min(n.max(1)) {
            let mut game = game.clone();
            let (results, first_error, next, done, stop, search) =
                (&results, &first_error, &next, &done, &stop, &search);
            let (faults, first_fault) = (&faults, &first_fault);
            let (ai, ai_seats) = (&args.ai, &ai_seats);
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n || stop.load(Ordering::Relaxed) {
                    break;
                }
                let seed = game_seed(args.seed, i);
                let played = if seated {
                    let mut seats = ai.seats_for(&game, ai_seats, budget, seed);
                    let played = play_seated(&mut game, &mut seats, seed, args.max_steps);
                    if let Ok(mut s) = search.lock() {
                        s.0 += seats.iterations;
                        s.1 += seats.elapsed.as_secs_f64();
                    }
                    played
                } else {
                    play_one(&mut game, seed, args.max_steps)
                };
                match played {
                    Ok(outcome) => {
                        if let Ok(mut r) = results.lock() {
                            if r.len() <= i {
                                r.resize(i + 1, None);
                            }
                            r[i] = Some(outcome);
                        }
                    }
                    Err((step, e)) => {
                        let slot = if args.keep_going && super::is_fault_of_the_rules(&e) {
                            faults.fetch_add(1, Ordering::Relaxed);
                            first_fault
                        } else {
                            stop.store(true, Ordering::Relaxed);
                            first_error
                        };
                        if let Ok(mut slot) = slot.lock() {
                            if slot.as_ref().is_none_or(|(g, _, _)| i < *g) {
                                *slot = Some((i, step, e));
                            }
                        }
                    }
                }
                done.fetch_add(1, Ordering::Relaxed);
            });
        }
        // A progress bar on a terminal, once the run has lasted a second.
        let mut bar: Option<ProgressBar> = None;
        while done.load(Ordering::Relaxed) < n && !stop.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(100));
            if bar.is_none()
                && start.elapsed() > Duration::from_secs(1)
                && std::io::stderr().is_terminal()
            {
                let b = ProgressBar::new(n as u64);
                if let Ok(style) =
                    ProgressStyle::with_template("{bar:30} {pos}/{len} games, {eta} left")
                {
                    b.set_style(style);
                }
                // Estimate the time left from now on, not from the jump to
                // the games already done.
                b.set_position(done.load(Ordering::Relaxed) as u64);
                b.reset_eta();
                bar = Some(b);
            }
            if let Some(b) = &bar {
                b.set_position(done.load(Ordering::Relaxed) as u64);
            }
        }
        if let Some(b) = bar {
            b.finish_and_clear();
        }
    });
    let located = |(g, step, e): (usize, usize, GameError)| {
        format!(
            "game {g} (gdl trace {} --seed {}): step {step}: {}",
            loaded.name,
            game_seed(args.seed, g),
            super::describe(&e)
        )
    };
    if let Some(error) = first_error.into_inner().ok().flatten() {
        return Err(Failure::Game(located(error)));
    }
    let outcomes: Vec<Outcome> = results
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .collect();
    let mut stats = Stats::of(&roles, &outcomes, args.seed, args.max_steps);
    stats.faults = faults.into_inner();
    // The games that met a fault are among the seeds, not in the figures.
    stats.last_seed = game_seed(args.seed, n.saturating_sub(1));
    stats.first_fault = first_fault.into_inner().ok().flatten().map(located);
    let seconds = start.elapsed().as_secs_f64();
    if seated {
        let (iterations, secs) = search.into_inner().unwrap_or_default();
        stats.search = Some(Search {
            roles: (ai_seats.iter().enumerate())
                .filter(|(_, &ai)| ai)
                .map(|(i, _)| roles[i].clone())
                .collect(),
            budget: match budget {
                gdl::Budget::Iterations(n) => format!("{n} iterations"),
                gdl::Budget::Time(t) => format!("{:.3}s", t.as_secs_f64()),
            },
            iterations,
            seconds: secs,
        });
    }
    match args.format {
        Format::Json => {
            let mut value = serde_json::json!({ "rules": loaded.name });
            if let (serde_json::Value::Object(v), Ok(serde_json::Value::Object(s))) =
                (&mut value, serde_json::to_value(&stats))
            {
                v.extend(s);
                v.insert("seconds".into(), seconds.into());
            }
            print_json(&value);
        }
        Format::Text => {
            print!("{}", stats.text());
            if let Some(search) = &stats.search {
                let rate = if search.seconds > 0.0 {
                    search.iterations as f64 / search.seconds
                } else {
                    0.0
                };
                eprintln!(
                    "search: {} iterations in {:.2}s ({rate:.0} per second)",
                    search.iterations, search.seconds
                );
            }
            eprintln!("time: {seconds:.2}s");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// What a series of games showed, in role order: what `gdl random` prints,
/// as text or JSON.
#[derive(Debug, Serialize)]
struct Stats {
    /// Games played.
    games: usize,
    /// The seed of the first game and of the last.
    first_seed: u64,
    last_seed: u64,
    /// Lengths in joint moves, when a game was played.
    #[serde(skip_serializing_if = "Option::is_none")]
    length: Option<Length>,
    /// Games the step limit stopped, and that limit.
    unfinished: usize,
    max_steps: usize,
    /// Each role's goals and wins, over the games that ended.
    roles: Vec<RoleStats>,
    /// Games that ended with the best goal shared.
    draws: usize,
    /// The search player's seats, budget and work, with `--ai`.
    #[serde(skip_serializing_if = "Option::is_none")]
    search: Option<Search>,
    /// Games that met a fault of the rules (`--keep-going`; not in the
    /// figures above), and the first of them.
    #[serde(skip_serializing_if = "is_zero")]
    faults: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    first_fault: Option<String>,
}

/// Whether a count is zero (left out of the JSON).
fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Game lengths: mean, least, most.
#[derive(Debug, Serialize)]
struct Length {
    mean: f64,
    min: usize,
    max: usize,
}

/// One role's results over the games that ended.
#[derive(Debug, Serialize)]
struct RoleStats {
    role: String,
    /// Its mean goal (0 when no game ended).
    mean_goal: f64,
    /// How many games ended with each goal value (keys in increasing
    /// order).
    goals: BTreeMap<u8, usize>,
    /// Games it ended alone with the best goal.
    wins: usize,
}

/// The search player's part in a series.
#[derive(Debug, Serialize)]
struct Search {
    roles: Vec<String>,
    budget: String,
    iterations: u64,
    seconds: f64,
}

impl Stats {
    /// The figures of `outcomes`, the games of seeds `seed` on.
    fn of(roles: &[String], outcomes: &[Outcome], seed: u64, max_steps: usize) -> Stats {
        let n = outcomes.len();
        let lengths = outcomes.iter().map(|o| o.0);
        let length = (n > 0).then(|| Length {
            mean: lengths.clone().sum::<usize>() as f64 / n as f64,
            min: lengths.clone().min().unwrap_or(0),
            max: lengths.max().unwrap_or(0),
        });
        let ended: Vec<&Vec<u8>> = outcomes.iter().filter_map(|o| o.1.as_ref()).collect();
        let mut stats: Vec<RoleStats> = (roles.iter().enumerate())
            .map(|(i, role)| {
                let mut goals: BTreeMap<u8, usize> = BTreeMap::new();
                for g in &ended {
                    *goals.entry(g[i]).or_default() += 1;
                }
                let sum: f64 = ended.iter().map(|g| g[i] as f64).sum();
                RoleStats {
                    role: role.clone(),
                    mean_goal: if ended.is_empty() {
                        0.0
                    } else {
                        sum / ended.len() as f64
                    },
                    goals,
                    wins: 0,
                }
            })
            .collect();
        let mut draws = 0;
        for goals in &ended {
            let best = goals.iter().max().copied().unwrap_or(0);
            let top: Vec<usize> = (0..goals.len()).filter(|&i| goals[i] == best).collect();
            match top[..] {
                [winner] => stats[winner].wins += 1,
                _ => draws += 1,
            }
        }
        Stats {
            games: n,
            first_seed: seed,
            last_seed: seed.wrapping_add(n.saturating_sub(1) as u64),
            length,
            unfinished: n - ended.len(),
            max_steps,
            roles: stats,
            draws,
            search: None,
            faults: 0,
            first_fault: None,
        }
    }

    /// The figures for people, a line each (the goals only when a game
    /// ended, the search player's line with `--ai`).
    fn text(&self) -> String {
        let mut out = format!(
            "games: {} (seeds {} to {})\n",
            self.games, self.first_seed, self.last_seed
        );
        if let Some(l) = &self.length {
            out.push_str(&format!(
                "length: mean {:.1}, min {}, max {}\n",
                l.mean, l.min, l.max
            ));
        }
        if self.unfinished > 0 {
            out.push_str(&format!(
                "unfinished: {} (no end after {} steps)\n",
                self.unfinished, self.max_steps
            ));
        }
        if self.unfinished < self.games {
            out.push_str("goals:\n");
            let width = self.roles.iter().map(|r| r.role.len()).max().unwrap_or(0);
            for r in &self.roles {
                let counts: Vec<String> =
                    r.goals.iter().map(|(v, c)| format!("{v}: {c}")).collect();
                out.push_str(&format!(
                    "  {:<width$}  mean {:.1}  ({})\n",
                    r.role,
                    r.mean_goal,
                    counts.join(", ")
                ));
            }
            let wins: Vec<String> = (self.roles.iter())
                .map(|r| format!("{} {}", r.role, r.wins))
                .collect();
            out.push_str(&format!(
                "wins: {}; draws: {}\n",
                wins.join(", "),
                self.draws
            ));
        }
        if let Some(fault) = &self.first_fault {
            out.push_str(&format!(
                "faults: {} of the games met a fault of the rules and are not counted above; \
                 the first: {fault}\n",
                self.faults
            ));
        }
        if let Some(s) = &self.search {
            out.push_str(&format!(
                "search player: {} ({} a move)\n",
                s.roles.join(", "),
                s.budget
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_counts_lengths_goals_wins_and_draws() {
        let roles = vec!["white".to_string(), "black".to_string()];
        let outcomes = vec![
            (10, Some(vec![100, 0])),
            (20, Some(vec![50, 50])),
            (30, Some(vec![0, 100])),
            (40, Some(vec![100, 0])),
            (50, None),
        ];
        let s = Stats::of(&roles, &outcomes, 7, 50).text();
        assert_eq!(
            s,
            "games: 5 (seeds 7 to 11)\nlength: mean 30.0, min 10, max 50\n\
             unfinished: 1 (no end after 50 steps)\ngoals:\n\
             \x20 white  mean 62.5  (0: 1, 50: 1, 100: 2)\n\
             \x20 black  mean 37.5  (0: 2, 50: 1, 100: 1)\n\
             wins: white 2, black 1; draws: 1\n"
        );
    }
}
