//! `gdl analyse FILE`: what self-play of the search player says about a
//! game: each seat's wins, losses and draws (with 95% confidence
//! intervals), how often the step limit ends a game, game length,
//! branching factor, and how often a role has a single legal move.
//!
//! Game i is played with seed S+i, the search player in every seat (each
//! role's player seeded S+i plus its role number), so with an iteration
//! budget the figures do not depend on the number of threads.

use super::stop::{self, Reason};
use super::{Failure, Format, LimitArgs, game_seed, load, threads};
use gdl::{Budget, Game, GameError, SearchPlayer, State, Stop};
use serde::Serialize;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// Arguments of `gdl analyse`.
#[derive(clap::Args)]
#[command(after_long_help = "\
Examples:
  # Is tic-tac-toe balanced between players of 100 iterations a move?
  gdl analyse rules/tictactoe.gdl --games 20 --iterations 100")]
pub struct AnalyseArgs {
    /// The rules file (`-`: standard input).
    pub file: PathBuf,
    /// How many games of self-play.
    #[arg(long, default_value_t = 100)]
    pub games: usize,
    /// Seed of the first game; game i uses seed S+i.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Search iterations per move: the strength of play (a seed then
    /// gives one game).
    #[arg(long, default_value_t = 200, value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub iterations: u64,
    /// Seconds per move instead of a number of iterations (the games then
    /// vary from run to run).
    #[arg(long, value_name = "SECONDS", value_parser = think_seconds)]
    pub think: Option<f64>,
    /// Threads to play games on; 0 uses every core.
    #[arg(long, default_value_t = 1, value_parser = super::thread_count)]
    pub threads: usize,
    /// Give up on a game after this many steps.
    #[arg(long, default_value_t = 1000, value_name = "N")]
    pub max_steps: usize,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Reads `--think`: a positive number of seconds, at most a day.
fn think_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && s <= 86_400.0 => Ok(s),
        _ => Err("expected a positive number of seconds (at most 86400)".into()),
    }
}

/// What one game of self-play showed.
#[derive(Clone, Debug)]
pub(crate) struct Played {
    pub steps: usize,
    /// `None` when the step limit ended it.
    pub goals: Option<Vec<u8>>,
    /// Per state before a joint move: each role's legal move count.
    pub legal: Vec<Vec<usize>>,
    /// The first joint move, as text (empty when the initial state is
    /// terminal).
    pub first: Vec<String>,
}

/// Plays game `seed` with the search player in every seat.
pub(crate) fn self_play(
    game: &mut Game,
    budget: Budget,
    seed: u64,
    stop: Stop,
) -> Result<Played, (usize, GameError)> {
    let roles = game.roles();
    let mut players: Vec<SearchPlayer> = roles
        .iter()
        .map(|&r| SearchPlayer::new(game, r, budget, seed.wrapping_add(r.0 as u64)))
        .collect();
    let mut legal = Vec::new();
    let mut first = Vec::new();
    // Each role's player chooses its move; the legal move counts are
    // kept.
    let mut choose = |game: &mut Game, state: &State| {
        let mut counts = Vec::with_capacity(roles.len());
        let mut joint = Vec::with_capacity(roles.len());
        for (&role, player) in roles.iter().zip(&mut players) {
            counts.push(game.legal_moves(state, role)?.len());
            joint.push(player.choose(game, state)?);
        }
        if legal.is_empty() {
            first = joint.iter().map(|&m| game.move_text(m)).collect();
        }
        legal.push(counts);
        for p in &mut players {
            p.observe(&joint);
        }
        Ok(joint)
    };
    let start = game.initial_state();
    let played = game.play(&start, &mut choose, stop)?;
    Ok(Played {
        steps: played.steps,
        goals: played.goals,
        legal,
        first,
    })
}

/// A share with its 95% confidence interval (Wilson's score interval).
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct Rate {
    /// How many of the games.
    pub count: usize,
    /// The share, 0..1.
    pub rate: f64,
    /// The interval's bounds.
    pub low: f64,
    /// See `low`.
    pub high: f64,
}

impl Rate {
    /// `count` of `n`, with the Wilson score interval at 95% (z = 1.96),
    /// which stays within 0..1 and is sound for small counts.
    pub fn new(count: usize, n: usize) -> Rate {
        if n == 0 {
            return Rate {
                count,
                rate: 0.0,
                low: 0.0,
                high: 1.0,
            };
        }
        let (k, n) = (count as f64, n as f64);
        let z = 1.96f64;
        let p = k / n;
        let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
        let half = z / (1.0 + z * z / n) * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
        Rate {
            count,
            rate: p,
            low: (centre - half).max(0.0),
            high: (centre + half).min(1.0),
        }
    }
}

/// One seat's figures.
#[derive(Debug, Serialize)]
pub struct Seat {
    /// The role.
    pub role: String,
    /// Games it ended alone with the best goal, of all games played (in a
    /// game of one role, those it ended with 100).
    pub wins: Rate,
    /// Games it ended sharing the best goal with another role.
    pub draws: Rate,
    /// Games another role ended with a better goal.
    pub losses: Rate,
    /// Its mean goal over the games that ended.
    pub mean_goal: f64,
    /// Its mean number of legal moves, over every state played.
    pub mean_legal: f64,
    /// Share of the states played where it had a single legal move.
    pub forced: f64,
}

/// The analysis of a series of games.
#[derive(Debug, Serialize)]
pub struct Analysis {
    /// The rules file's name.
    pub rules: String,
    /// Games played.
    pub games: usize,
    /// The first game's seed.
    pub seed: u64,
    /// The search budget a move: `N iterations` or `S seconds`.
    pub budget: String,
    /// Games the step limit ended (their seats count neither win, draw nor
    /// loss).
    pub step_limit: Rate,
    /// The step limit.
    pub max_steps: usize,
    /// Game length: mean, least, most.
    pub mean_length: f64,
    /// See `mean_length`.
    pub min_length: usize,
    /// See `mean_length`.
    pub max_length: usize,
    /// Mean joint moves (the product of every role's legal moves) per
    /// state played.
    pub branching: f64,
    /// Per seat, in role order.
    pub seats: Vec<Seat>,
    /// Whether Ctrl-C or `--timeout` stopped the series early: the figures
    /// are of the games that finished.
    pub partial: bool,
    /// What stopped it early (`interrupt`, `timeout`), when something did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped_by: Option<&'static str>,
    /// How many games were asked for, when the series stopped early.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub games_asked: Option<usize>,
}

/// The figures of the games played so far, added up game by game so that
/// a long series holds no more than one game's (and a series stopped early
/// has its figures).
#[derive(Clone, Debug, Default)]
pub(crate) struct Tally {
    /// Games played.
    games: usize,
    /// Games the step limit ended.
    cut: usize,
    /// Sum, least and most of the lengths.
    length_sum: u128,
    min_length: Option<usize>,
    max_length: usize,
    /// States played (a joint move chosen in each), and the sum of their
    /// joint moves.
    states: usize,
    joint_sum: f64,
    /// Per role: wins, draws, losses, sum of goals over the games that
    /// ended, sum of legal move counts, states with one legal move.
    seats: Vec<SeatTally>,
    /// Games that ended.
    ended: usize,
}

/// One role's part of a [`Tally`].
#[derive(Clone, Debug, Default)]
struct SeatTally {
    wins: usize,
    draws: usize,
    losses: usize,
    goal_sum: f64,
    legal_sum: f64,
    forced: usize,
}

impl Tally {
    /// The tally of no game, of `roles` roles.
    pub(crate) fn new(roles: usize) -> Tally {
        Tally {
            seats: vec![SeatTally::default(); roles],
            ..Tally::default()
        }
    }

    /// The games added.
    pub(crate) fn games_played(&self) -> usize {
        self.games
    }

    /// Adds one game.
    pub(crate) fn add(&mut self, p: &Played) {
        self.games += 1;
        self.length_sum += p.steps as u128;
        self.min_length = Some(self.min_length.map_or(p.steps, |m| m.min(p.steps)));
        self.max_length = self.max_length.max(p.steps);
        for counts in &p.legal {
            self.states += 1;
            self.joint_sum += counts.iter().product::<usize>() as f64;
            for (seat, &n) in self.seats.iter_mut().zip(counts) {
                seat.legal_sum += n as f64;
                seat.forced += usize::from(n == 1);
            }
        }
        let Some(goals) = &p.goals else {
            self.cut += 1;
            return;
        };
        self.ended += 1;
        // A role wins alone with the best goal, draws sharing it, loses
        // below it; a lone role (always best) wins with 100 and loses
        // below it.
        let (best, top) = match goals[..] {
            [_] => (100, 1),
            _ => {
                let best = goals.iter().copied().max().unwrap_or(0);
                (best, goals.iter().filter(|&&g| g == best).count())
            }
        };
        for (seat, &g) in self.seats.iter_mut().zip(goals) {
            match (g == best, top) {
                (true, 1) => seat.wins += 1,
                (true, _) => seat.draws += 1,
                _ => seat.losses += 1,
            }
            seat.goal_sum += g as f64;
        }
    }
}

pub(crate) fn analysis(
    rules: &str,
    roles: &[String],
    tally: &Tally,
    seed: u64,
    budget: String,
    max_steps: usize,
) -> Analysis {
    let n = tally.games;
    let mean = |sum: f64, count: usize| if count == 0 { 0.0 } else { sum / count as f64 };
    let seats = (roles.iter().zip(&tally.seats))
        .map(|(role, s)| Seat {
            role: role.clone(),
            wins: Rate::new(s.wins, n),
            draws: Rate::new(s.draws, n),
            losses: Rate::new(s.losses, n),
            mean_goal: mean(s.goal_sum, tally.ended),
            mean_legal: mean(s.legal_sum, tally.states),
            forced: mean(s.forced as f64, tally.states),
        })
        .collect();
    Analysis {
        rules: rules.to_string(),
        games: n,
        seed,
        budget,
        step_limit: Rate::new(tally.cut, n),
        max_steps,
        mean_length: mean(tally.length_sum as f64, n),
        min_length: tally.min_length.unwrap_or(0),
        max_length: tally.max_length,
        branching: mean(tally.joint_sum, tally.states),
        seats,
        partial: false,
        stopped_by: None,
        games_asked: None,
    }
}

/// `45.0% (35.6-54.8)`: a rate with its interval, in percent.
fn percent(r: &Rate) -> String {
    format!(
        "{:.1}% ({:.1}-{:.1})",
        r.rate * 100.0,
        r.low * 100.0,
        r.high * 100.0
    )
}

impl Analysis {
    /// The table for people.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        if let (Some(by), Some(asked)) = (self.stopped_by, self.games_asked) {
            let by = if by == "timeout" {
                "the time limit"
            } else {
                "Ctrl-C"
            };
            out.push_str(&format!(
                "partial: stopped by {by} after {} of the {asked} games asked for\n",
                self.games
            ));
        }
        out += &format!(
            "{}: {} games of self-play (seeds {} to {}), search {} a move\n",
            self.rules,
            self.games,
            self.seed,
            self.seed.wrapping_add(self.games.saturating_sub(1) as u64),
            self.budget
        );
        out.push_str(&format!(
            "length: mean {:.1}, min {}, max {}\n",
            self.mean_length, self.min_length, self.max_length
        ));
        out.push_str(&format!(
            "ended by the step limit ({}): {}\n",
            self.max_steps,
            percent(&self.step_limit)
        ));
        out.push_str(&format!(
            "branching: {:.1} joint moves a state\n",
            self.branching
        ));
        let width = self
            .seats
            .iter()
            .map(|s| s.role.len())
            .max()
            .unwrap_or(4)
            .max(4);
        out.push_str(&format!(
            "{:<width$}  {:<20}  {:<20}  {:<20}  {:>9}  {:>7}  {:>7}\n",
            "seat", "wins (95% CI)", "draws", "losses", "mean goal", "moves", "forced"
        ));
        for s in &self.seats {
            out.push_str(&format!(
                "{:<width$}  {:<20}  {:<20}  {:<20}  {:>9.1}  {:>7.1}  {:>6.1}%\n",
                s.role,
                percent(&s.wins),
                percent(&s.draws),
                percent(&s.losses),
                s.mean_goal,
                s.mean_legal,
                s.forced * 100.0
            ));
        }
        out
    }
}

/// Runs `gdl analyse`.
///
/// The whole run keeps its work ([`stop::keeping_work`]): Ctrl-C or
/// `--timeout`, once the rules are loaded, prints what finished, marked
/// partial; during the loading, the process ends within [`stop::GRACE`].
pub fn analyse(args: AnalyseArgs) -> Result<ExitCode, Failure> {
    stop::keeping_work(|| analyse_keeping(args))
}

/// [`analyse`], its work kept when it is stopped early.
fn analyse_keeping(args: AnalyseArgs) -> Result<ExitCode, Failure> {
    let loaded = load(&args.file, &args.limits)?;
    let game = loaded.game;
    let roles: Vec<String> = (game.roles().iter())
        .map(|&r| game.role_name(r).to_string())
        .collect();
    let (budget, budget_text) = match args.think {
        Some(s) => (
            Budget::Time(Duration::from_secs_f64(s)),
            format!("{s} seconds"),
        ),
        None => (
            Budget::Iterations(args.iterations),
            format!("{} iterations", args.iterations),
        ),
    };
    let n = args.games;
    let mut tally = Tally::new(roles.len());
    let mut stopped: Option<Reason> = None;
    let mut first_error: Option<(usize, usize, GameError)> = None;
    // Each result comes in its game's place, so the figures do not depend
    // on the threads.
    let play = |game: &mut Game, i, cancel: &AtomicBool| {
        let stop = Stop::steps(args.max_steps).or_cancelled(cancel);
        self_play(game, budget, game_seed(args.seed, i), stop)
    };
    gdl::play_games(&game, n, threads(args.threads), play, |result| {
        if let Some(reason) = stop::reason() {
            stopped = Some(reason);
            return ControlFlow::Break(());
        }
        match result {
            Some((_, Ok(p))) => tally.add(&p),
            Some((i, Err((step, e)))) => {
                first_error = Some((i, step, e));
                return ControlFlow::Break(());
            }
            None => {}
        }
        ControlFlow::Continue(())
    });
    if let Some((g, step, e)) = first_error {
        return Err(Failure::Game(format!(
            "game {g} (seed {}): step {step}: {}",
            game_seed(args.seed, g),
            super::describe(&e)
        )));
    }
    let mut a = analysis(
        &loaded.name,
        &roles,
        &tally,
        args.seed,
        budget_text,
        args.max_steps,
    );
    if let Some(reason) = stopped {
        a.partial = true;
        a.stopped_by = Some(reason.name());
        a.games_asked = Some(n);
    }
    match args.format {
        Format::Text => print!("{}", a.to_text()),
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&a)
                .map_err(|e| Failure::Io(format!("cannot write the analysis: {e}")))?
        ),
    }
    match stopped {
        Some(reason) => Err(stop::failure(reason)),
        None => Ok(ExitCode::SUCCESS),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_intervals() {
        let r = Rate::new(50, 100);
        assert!((r.low - 0.404).abs() < 0.001 && (r.high - 0.596).abs() < 0.001);
        let none = Rate::new(0, 10);
        assert_eq!(none.low, 0.0);
        assert!((none.high - 0.278).abs() < 0.001);
        assert_eq!(Rate::new(0, 0).high, 1.0);
    }

    #[test]
    fn a_lone_seat_wins_with_100_and_loses_below() {
        let played = |goal: u8| Played {
            steps: 1,
            goals: Some(vec![goal]),
            legal: vec![vec![2]],
            first: Vec::new(),
        };
        let mut tally = Tally::new(1);
        [100, 0, 50].map(played).iter().for_each(|p| tally.add(p));
        let roles = vec!["walker".to_string()];
        let a = analysis("x.gdl", &roles, &tally, 0, "1 iterations".into(), 4);
        let seat = &a.seats[0];
        assert_eq!(
            (seat.wins.count, seat.draws.count, seat.losses.count),
            (1, 0, 2)
        );
    }

    #[test]
    fn seats_count_wins_draws_losses_and_forced_moves() {
        let roles = vec!["a".to_string(), "b".to_string()];
        let played = [
            Played {
                steps: 2,
                goals: Some(vec![100, 0]),
                legal: vec![vec![3, 1], vec![1, 2]],
                first: Vec::new(),
            },
            Played {
                steps: 1,
                goals: Some(vec![50, 50]),
                legal: vec![vec![2, 1]],
                first: Vec::new(),
            },
            Played {
                steps: 4,
                goals: None,
                legal: vec![vec![1, 1]; 4],
                first: Vec::new(),
            },
        ];
        let mut tally = Tally::new(2);
        played.iter().for_each(|p| tally.add(p));
        let a = analysis("x.gdl", &roles, &tally, 0, "1 iterations".into(), 4);
        assert_eq!(a.seats[0].wins.count, 1);
        assert_eq!(a.seats[0].draws.count, 1);
        assert_eq!(a.seats[1].losses.count, 1);
        assert_eq!(a.step_limit.count, 1);
        assert!((a.mean_length - 7.0 / 3.0).abs() < 1e-9);
        // States: (3,1) (1,2) (2,1) and four (1,1): 3+2+2+4 = 11 joint moves.
        assert!((a.branching - 11.0 / 7.0).abs() < 1e-9);
        assert!((a.seats[1].forced - 6.0 / 7.0).abs() < 1e-9);
    }
}
