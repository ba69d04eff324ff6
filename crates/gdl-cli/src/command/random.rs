//! `gdl random FILE --games N`: many random games, summarised.
//!
//! Game `i` is played with seed `S + i` exactly as `gdl trace --seed S+i`
//! plays it, so any game of the series can be looked at in full. Results do
//! not depend on the number of threads.

use super::ai::AiArgs;
use super::stop::{self, Reason};
use super::{Failure, Format, LimitArgs, game_seed, load, print_json, threads};
use gdl::record::Trace;
use gdl::{Budget, Game, GameError, RandomPlayer, State, Stop};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
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

/// How one game went: its length and goals (`None` when it did not end
/// within the step limit), or the error that stopped it with its step;
/// and with `--ai`, the search player's iterations and time.
type Played = (
    Result<(usize, Option<Vec<u8>>), (usize, GameError)>,
    Option<(u64, Duration)>,
);

/// Plays game `i` of the series: with seed S+i the game `gdl trace --seed
/// S+i` plays, with the same `--ai` flags.
fn play_one(
    game: &mut Game,
    args: &RandomArgs,
    seats: &Option<(Vec<bool>, Budget)>,
    i: usize,
    cancel: &AtomicBool,
) -> Played {
    let seed = game_seed(args.seed, i);
    let stop = Stop::steps(args.max_steps).or_cancelled(cancel);
    let start = game.initial_state();
    let mut random = RandomPlayer::new(seed);
    let Some((ai_seats, budget)) = seats else {
        let played = game.random_outcome(&start, &mut random, stop);
        return (played.map(|o| (o.steps, o.goals.map(Vec::from))), None);
    };
    let mut seats = args.ai.seats_for(game, ai_seats, *budget, seed);
    let mut players = |game: &mut Game, state: &State| seats.play_joint(game, state, &mut random);
    let played = game.play(&start, &mut players, stop);
    let searched = (seats.iterations, seats.elapsed);
    (played.map(|p| (p.steps, p.goals)), Some(searched))
}

/// Runs `gdl random`.
///
/// The whole run keeps its work ([`stop::keeping_work`]): Ctrl-C or
/// `--timeout`, once the rules are loaded, prints what finished, marked
/// partial; during the loading, the process ends within [`stop::GRACE`].
pub fn random(args: RandomArgs) -> Result<ExitCode, Failure> {
    stop::keeping_work(|| random_keeping(args))
}

/// [`random`], its work kept when it is stopped early.
fn random_keeping(args: RandomArgs) -> Result<ExitCode, Failure> {
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
    let seats = seated.then(|| (ai_seats.clone(), budget));
    // The figures grow as games end, in game order: `--games` may ask for
    // more than memory would hold.
    let mut stats = Stats::new(&roles, args.seed, args.max_steps);
    let (mut iterations, mut search_seconds) = (0, 0.0);
    let mut first_error: Option<(usize, usize, GameError)> = None;
    // With `--keep-going`: the first game that met a fault.
    let mut first_fault: Option<(usize, usize, GameError)> = None;
    let start = Instant::now();
    // A progress bar on a terminal, once the run has lasted a second.
    let mut bar: Option<ProgressBar> = None;
    let mut done = 0;
    let play = |game: &mut Game, i, cancel: &AtomicBool| play_one(game, &args, &seats, i, cancel);
    // Ctrl-C or --timeout: the games that finished are summarised.
    let mut stopped: Option<Reason> = None;
    gdl::play_games(&game, n, threads(args.threads), play, |result| {
        if let Some(reason) = stop::reason() {
            stopped = Some(reason);
            return ControlFlow::Break(());
        }
        if let Some((i, (played, searched))) = result {
            done = i + 1;
            if let Some((n, t)) = searched {
                iterations += n;
                search_seconds += t.as_secs_f64();
            }
            match played {
                Ok((steps, goals)) => stats.add(steps, goals),
                Err((step, e)) if args.keep_going && super::is_fault_of_the_rules(&e) => {
                    stats.faults += 1;
                    first_fault.get_or_insert((i, step, e));
                }
                Err((step, e)) => {
                    first_error = Some((i, step, e));
                    return ControlFlow::Break(());
                }
            }
        }
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
            b.set_position(done as u64);
            b.reset_eta();
            bar = Some(b);
        }
        if let Some(b) = &bar {
            b.set_position(done as u64);
        }
        ControlFlow::Continue(())
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let located = |(g, step, e): (usize, usize, GameError)| {
        format!(
            "game {g} (gdl trace {} --seed {}): step {step}: {}",
            loaded.name,
            game_seed(args.seed, g),
            super::describe(&e)
        )
    };
    if let Some(error) = first_error {
        let (g, step) = (error.0, error.1);
        let hint = super::keep_going_hint(&error.2);
        let mut message = located(error);
        if let Some(facts) = fault_of(&game, &args, &seats, g) {
            message.push_str(&super::fault_state(step, &facts));
        }
        message.push_str(hint);
        return Err(Failure::Game(message));
    }
    // The games that met a fault are among the seeds, not in the figures.
    let played = if stopped.is_some() { done } else { n };
    stats.last_seed = game_seed(args.seed, played.saturating_sub(1));
    stats.partial = stopped.map(|reason| Partial { reason, asked: n });
    stats.first_fault = first_fault.map(located);
    let seconds = start.elapsed().as_secs_f64();
    if seated {
        stats.search = Some(Search {
            roles: (ai_seats.iter().enumerate())
                .filter(|&(_, &ai)| ai)
                .map(|(i, _)| roles[i].clone())
                .collect(),
            budget: match budget {
                gdl::Budget::Iterations(n) => format!("{n} iterations"),
                gdl::Budget::Time(t) => format!("{:.3}s", t.as_secs_f64()),
            },
            iterations,
            seconds: search_seconds,
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
                v.insert("partial".into(), stopped.is_some().into());
                if let Some(p) = &stats.partial {
                    v.insert("stopped_by".into(), p.reason.name().into());
                    v.insert("games_asked".into(), p.asked.into());
                }
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
    match stopped {
        Some(reason) => Err(stop::failure(reason)),
        None => Ok(ExitCode::SUCCESS),
    }
}

/// The facts of the state where game `i` of the series met a fault of the
/// rules: the game played again, as `gdl trace --seed S+i` plays it, its
/// states kept this time.
fn fault_of(
    game: &Game,
    args: &RandomArgs,
    seats: &Option<(Vec<bool>, Budget)>,
    i: usize,
) -> Option<Vec<String>> {
    let mut game = game.clone();
    let seed = game_seed(args.seed, i);
    let mut random = RandomPlayer::new(seed);
    let replay = match seats {
        None => Trace::random(&mut game, &mut random, args.max_steps),
        Some((ai_seats, budget)) => {
            let mut seats = args.ai.seats_for(&game, ai_seats, *budget, seed);
            Trace::play(&mut game, args.max_steps, |game, state| {
                seats.play_joint(game, state, &mut random)
            })
        }
    };
    replay.fault
}

/// A series stopped early: why, and how many games were asked for.
#[derive(Debug)]
struct Partial {
    reason: Reason,
    asked: usize,
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
    /// Games that ended with the best goal shared (none in a game of one
    /// role).
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
    /// Set when Ctrl-C or `--timeout` stopped the series early (said in
    /// the JSON by the command).
    #[serde(skip)]
    partial: Option<Partial>,
    /// The sum of the lengths, and the games that ended.
    #[serde(skip)]
    length_sum: u128,
    #[serde(skip)]
    ended: usize,
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
    /// Games it ended alone with the best goal; in a game of one role,
    /// those it ended with 100 (alone, it would always be best).
    wins: usize,
    /// The sum of its goals.
    #[serde(skip)]
    goal_sum: u64,
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
    /// The figures of no game yet, of a series from seed `seed`.
    fn new(roles: &[String], seed: u64, max_steps: usize) -> Stats {
        let roles = (roles.iter())
            .map(|role| RoleStats {
                role: role.clone(),
                mean_goal: 0.0,
                goals: BTreeMap::new(),
                wins: 0,
                goal_sum: 0,
            })
            .collect();
        Stats {
            games: 0,
            first_seed: seed,
            last_seed: seed,
            length: None,
            unfinished: 0,
            max_steps,
            roles,
            draws: 0,
            search: None,
            faults: 0,
            first_fault: None,
            partial: None,
            length_sum: 0,
            ended: 0,
        }
    }

    /// Counts one more game, of `steps` joint moves, that ended with
    /// `goals` (`None`: at the step limit).
    fn add(&mut self, steps: usize, goals: Option<Vec<u8>>) {
        self.games += 1;
        self.last_seed = self.first_seed.wrapping_add(self.games as u64 - 1);
        self.length_sum += steps as u128;
        let length = self.length.get_or_insert(Length {
            mean: 0.0,
            min: steps,
            max: steps,
        });
        length.mean = self.length_sum as f64 / self.games as f64;
        length.min = length.min.min(steps);
        length.max = length.max.max(steps);
        let Some(goals) = goals else {
            self.unfinished += 1;
            return;
        };
        self.ended += 1;
        for (r, &g) in self.roles.iter_mut().zip(&goals) {
            *r.goals.entry(g).or_default() += 1;
            r.goal_sum += g as u64;
            r.mean_goal = r.goal_sum as f64 / self.ended as f64;
        }
        if let [goal] = goals[..] {
            self.roles[0].wins += usize::from(goal == 100);
            return;
        }
        let best = goals.iter().max().copied().unwrap_or(0);
        let mut top = (0..goals.len()).filter(|&i| goals[i] == best);
        match (top.next(), top.next()) {
            (Some(winner), None) => self.roles[winner].wins += 1,
            _ => self.draws += 1,
        }
    }

    /// The figures for people, a line each (the goals only when a game
    /// ended, the search player's line with `--ai`).
    fn text(&self) -> String {
        let mut out = String::new();
        if let Some(p) = &self.partial {
            out.push_str(&format!(
                "partial: stopped by {} after {} of the {} games asked for\n",
                p.reason.words(),
                self.games + self.faults,
                p.asked
            ));
        }
        if self.games + self.faults == 0 {
            out.push_str("games: 0\n");
        } else {
            out.push_str(&format!(
                "games: {} (seeds {} to {})\n",
                self.games, self.first_seed, self.last_seed
            ));
        }
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
            if let [role] = &self.roles[..] {
                out.push_str(&format!(
                    "wins (goal 100): {} {} of {}\n",
                    role.role, role.wins, self.ended
                ));
            } else {
                let wins: Vec<String> = (self.roles.iter())
                    .map(|r| format!("{} {}", r.role, r.wins))
                    .collect();
                out.push_str(&format!(
                    "wins: {}; draws: {}\n",
                    wins.join(", "),
                    self.draws
                ));
            }
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
        let mut stats = Stats::new(&roles, 7, 50);
        for (steps, goals) in outcomes {
            stats.add(steps, goals);
        }
        let s = stats.text();
        assert_eq!(
            s,
            "games: 5 (seeds 7 to 11)\nlength: mean 30.0, min 10, max 50\n\
             unfinished: 1 (no end after 50 steps)\ngoals:\n\
             \x20 white  mean 62.5  (0: 1, 50: 1, 100: 2)\n\
             \x20 black  mean 37.5  (0: 2, 50: 1, 100: 1)\n\
             wins: white 2, black 1; draws: 1\n"
        );
    }

    #[test]
    fn a_lone_role_wins_the_games_it_ends_with_100() {
        let roles = vec!["walker".to_string()];
        let mut stats = Stats::new(&roles, 0, 50);
        for goal in [0, 100, 0, 50] {
            stats.add(10, Some(vec![goal]));
        }
        let s = stats.text();
        assert!(s.ends_with("wins (goal 100): walker 1 of 4\n"), "{s}");
        assert_eq!((stats.roles[0].wins, stats.draws), (1, 0));
    }
}
