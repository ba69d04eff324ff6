//! `gdl match FILE --players SPEC...`: a local game manager. It runs
//! matches between built-in players (`random`, the search player `ai`) and
//! players over HTTP (`http://HOST:PORT`, spoken to by the GGP match
//! protocol: START, PLAY with the last joint move, STOP or ABORT), with
//! the protocol's clocks, and records each match as a JSON trace that
//! `gdl replay` and `gdl test` read.
//!
//! Clocks are enforced on every player alike: a move that comes after the
//! play clock (and [`GRACE`] for the network), that cannot be read, or
//! that is not legal is replaced by a random legal move, as ggp-base's game
//! server does, and the summary says so. A player over HTTP that never
//! answers (START gets no reply, or no PLAY of the match does) makes the
//! match an error: the command stops there (exit status 2), after the
//! summary of the matches played. `--rotate` moves the players one seat
//! on from match to match; `--format json` gives the summary as one JSON
//! object.

use super::ai::search_player;
use super::record_cmd::games_folder;
use super::trace_cmd::DEFAULT_BUDGET;
use super::{
    Existing, Failure, Format, LimitArgs, load, print_json, readable_back, regular_or_new, threads,
    write_file,
};
use crate::http::{HttpError, post};
use crate::protocol::{READY, Request, Start, read_move, rules_of};
use gdl::record::{Trace, legal_move, record_file};
use gdl::{Budget, Game, GameError, Move, RandomPlayer, Role, SearchPlayer, State};
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Arguments of `gdl match`.
#[derive(clap::Args)]
#[command(after_long_help = "\
Examples:
  # The search player (100 iterations a move) against random moves:
  gdl match rules/tictactoe.gdl --players ai:100 random
  # Three matches, recorded in tictactoe.games/ where `gdl test` finds them:
  gdl match rules/tictactoe.gdl --players ai:100 ai:0.05s --matches 3 --force
  # Against a player over HTTP (`gdl player --port 9147`), clocks in seconds:
  gdl match rules/tictactoe.gdl --players http://127.0.0.1:9147 ai --play-clock 2")]
pub struct MatchArgs {
    /// The rules file (`-`: standard input).
    pub file: PathBuf,
    /// One player per role, in role order: `random`; `ai` (the search
    /// player, 1000 iterations a move), `ai:N` (N iterations a move) or
    /// `ai:Ts` (T seconds a move, such as `ai:0.5s`); or a player over
    /// HTTP, `http://HOST:PORT`.
    #[arg(long, required = true, num_args = 1.., value_name = "SPEC",
          value_parser = read_spec)]
    pub players: Vec<Spec>,
    /// How many matches to play; match i is seeded with S+i.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub matches: usize,
    /// Seconds each player has to answer START.
    #[arg(long, default_value_t = 10, value_name = "SECONDS",
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub start_clock: u64,
    /// Seconds each player has for each move.
    #[arg(long, default_value_t = 5, value_name = "SECONDS",
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub play_clock: u64,
    /// Seed of the first match (the built-in players' choices, and the
    /// random moves given for late or illegal ones).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Abort a match after this many steps if it has not ended.
    #[arg(long, default_value_t = 1000, value_name = "N")]
    pub max_steps: usize,
    /// Where to write the records [default: FILE.games/, where `gdl test`
    /// finds them], as match-SEED.json.
    #[arg(long, short, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Write over matches already recorded there.
    #[arg(long)]
    pub force: bool,
    /// Threads each built-in search player searches on; 0 uses every core.
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = super::thread_count)]
    pub ai_threads: usize,
    /// Rotate the seats from match to match: in match i (from 0), role r
    /// is played by player (r + i) mod the number of roles, so that over
    /// as many matches as roles each player plays every role; the mean
    /// goals are then given by player.
    #[arg(long)]
    pub rotate: bool,
    /// The summary for people (`text`) or programs (`json`: one object,
    /// its shape in docs/manual.md).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// What plays a role.
#[derive(Clone, Debug, PartialEq)]
pub enum Spec {
    /// A legal move drawn at random.
    Random,
    /// The search player within this budget.
    Ai(Budget),
    /// A player over HTTP at `HOST:PORT`.
    Http(String),
}

impl std::fmt::Display for Spec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Spec::Random => f.write_str("random"),
            Spec::Ai(Budget::Iterations(n)) => write!(f, "ai:{n}"),
            Spec::Ai(Budget::Time(t)) => write!(f, "ai:{}s", t.as_secs_f64()),
            Spec::Http(address) => write!(f, "http://{address}"),
        }
    }
}

/// Reads a player of `--players`.
fn read_spec(text: &str) -> Result<Spec, String> {
    let forms = "expected random, ai, ai:N (iterations), ai:Ts (seconds) or http://HOST:PORT";
    if text == "random" {
        return Ok(Spec::Random);
    }
    if text == "ai" {
        return Ok(Spec::Ai(DEFAULT_BUDGET));
    }
    if let Some(budget) = text.strip_prefix("ai:") {
        if let Some(seconds) = budget.strip_suffix('s') {
            return match seconds.parse::<f64>() {
                Ok(s) if s > 0.0 && s <= 86_400.0 => {
                    Ok(Spec::Ai(Budget::Time(Duration::from_secs_f64(s))))
                }
                _ => Err(format!(
                    "`{budget}`: expected a positive number of seconds, such as ai:0.5s"
                )),
            };
        }
        return match budget.parse::<u64>() {
            Ok(n) if n > 0 => Ok(Spec::Ai(Budget::Iterations(n))),
            _ => Err(format!(
                "`{budget}`: expected a positive number of iterations (ai:1000) or seconds (ai:0.5s)"
            )),
        };
    }
    if let Some(rest) = text.strip_prefix("http://") {
        let address = rest.trim_end_matches('/');
        return match address.rsplit_once(':') {
            Some((host, port)) if !host.is_empty() && port.parse::<u16>().is_ok() => {
                Ok(Spec::Http(address.to_string()))
            }
            _ => Err(format!(
                "`{text}`: expected http://HOST:PORT, such as http://127.0.0.1:9147"
            )),
        };
    }
    Err(format!("`{text}`: {forms}"))
}

/// Time a player over HTTP has past each clock for the network, before its
/// reply counts as late.
pub const GRACE: Duration = Duration::from_secs(1);

/// Runs `gdl match`.
pub fn run(args: MatchArgs) -> Result<ExitCode, Failure> {
    if super::is_stdin(&args.file) && args.out.is_none() {
        return Err(Failure::Usage(
            "rules read from standard input (`-`) have no FILE.games/ for the records: \
             name a folder with --out DIR"
                .into(),
        ));
    }
    let loaded = load(&args.file, &args.limits)?;
    let mut game = loaded.game;
    let roles: Vec<String> = (game.roles().iter())
        .map(|&r| game.role_name(r).to_string())
        .collect();
    if args.players.len() != roles.len() {
        return Err(Failure::Usage(format!(
            "--players: {} players for {} roles; give one per role, in role order: {}",
            args.players.len(),
            roles.len(),
            roles.join(" ")
        )));
    }
    let play_clock = Duration::from_secs(args.play_clock);
    for spec in &args.players {
        if let Spec::Ai(Budget::Time(t)) = spec
            && *t > play_clock
        {
            return Err(Failure::Usage(format!(
                "--players {spec}: thinks longer than the play clock ({} s)",
                args.play_clock
            )));
        }
    }
    let rules = rules_of(&game.source().text).map_err(Failure::Game)?;
    let folder = match &args.out {
        Some(out) => out.clone(),
        None => games_folder(&args.file),
    };
    let seeds: Vec<u64> = (0..args.matches)
        .map(|i| super::game_seed(args.seed, i))
        .collect();
    let paths: Vec<PathBuf> = (seeds.iter())
        .map(|s| folder.join(format!("match-{s}.json")))
        .collect();
    // Anything there but a regular file is refused even with --force.
    for path in &paths {
        if regular_or_new(path)? && !args.force {
            return Err(Failure::Usage(format!(
                "{} is already recorded; --force writes over it, --out writes elsewhere",
                path.display()
            )));
        }
    }
    // Without --force, a file that appears while the matches are played is
    // kept, and the match that would have replaced it fails.
    let existing = if args.force {
        Existing::Replace
    } else {
        Existing::Keep
    };
    std::fs::create_dir_all(&folder)
        .map_err(|e| Failure::Io(format!("cannot create {}: {e}", folder.display())))?;
    let tag = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let n = roles.len();
    // Player p's goals summed over the matches that ended, by player.
    let mut totals = vec![0u64; n];
    let mut ended = 0;
    let mut summaries = Vec::new();
    let mut failure = None;
    for (i, (&seed, path)) in seeds.iter().zip(&paths).enumerate() {
        // Role r's player: `seating[r]`, an index of --players.
        let seating: Vec<usize> = (0..n)
            .map(|r| if args.rotate { (r + i) % n } else { r })
            .collect();
        let manager = Manager {
            args: &args,
            roles: &roles,
            players: seating.iter().map(|&p| args.players[p].clone()).collect(),
            rules: rules.clone(),
            play_clock,
            start_clock: Duration::from_secs(args.start_clock),
            tag,
        };
        let played = manager.play(&mut game, i, seed);
        if !played.trace.steps.is_empty() {
            let text = record_file(&played.trace);
            readable_back(path, &text, args.limits.file_limit())?;
            write_file(path, text.as_bytes(), existing)?;
        }
        if let Some(goals) = &played.trace.goals {
            ended += 1;
            for (r, &g) in goals.iter().enumerate() {
                totals[seating[r]] += u64::from(g);
            }
        }
        let error = match (&played.error, played.silent.first()) {
            (Some((step, e)), _) => Some(Failure::at_step(*step, e)),
            (None, Some((r, why))) => Some(Failure::Io(format!(
                "match {}: {} never answered: {why}",
                i + 1,
                manager.who(*r)
            ))),
            (None, None) => None,
        };
        let summary = MatchSummary {
            number: i + 1,
            seed,
            path,
            played: &played,
            manager: &manager,
            error: error.as_ref().map(Failure::message),
        };
        match args.format {
            Format::Text => summary.print(args.max_steps),
            Format::Json => summaries.push(summary.json()),
        }
        if error.is_some() {
            failure = error;
            break;
        }
    }
    let means: Vec<(String, f64)> = (0..n)
        .map(|p| {
            let who = match args.rotate {
                true => format!("{} (player {})", args.players[p], p + 1),
                false => format!("{} ({})", roles[p], args.players[p]),
            };
            (who, totals[p] as f64 / ended.max(1) as f64)
        })
        .collect();
    match args.format {
        Format::Json => print_json(&json!({
            "matches": summaries,
            "finished": ended,
            "rotated": args.rotate,
            "mean_goals": (means.iter().enumerate())
                .filter(|_| ended > 0)
                .map(|(p, (_, mean))| json!({
                    "player": p + 1,
                    "spec": args.players[p].to_string(),
                    "mean": mean,
                }))
                .collect::<Vec<_>>(),
        })),
        Format::Text if ended > 0 => {
            let means: Vec<String> = (means.iter())
                .map(|(who, mean)| format!("{who} {mean:.1}"))
                .collect();
            let rotated = if args.rotate { ", seats rotated" } else { "" };
            println!(
                "mean goals over {ended} finished matches{rotated}: {}",
                means.join(", ")
            );
        }
        Format::Text => {}
    }
    match failure {
        Some(f) => Err(f),
        None => Ok(ExitCode::SUCCESS),
    }
}

/// What one match's summary says.
struct MatchSummary<'a> {
    number: usize,
    seed: u64,
    path: &'a std::path::Path,
    played: &'a Played,
    manager: &'a Manager<'a>,
    /// The error that stopped the series there, if any.
    error: Option<&'a str>,
}

impl MatchSummary<'_> {
    /// The summary for people: a line, and a line for each incident.
    fn print(&self, max_steps: usize) {
        let trace = &self.played.trace;
        let end = match &trace.goals {
            Some(goals) => format!("goals {}", trace.goals_text(goals)),
            None if self.error.is_some() => "stopped".to_string(),
            None => format!("not terminal after {max_steps} steps"),
        };
        let record = match trace.steps.is_empty() {
            true => "nothing recorded".to_string(),
            false => format!("recorded in {}", self.path.display()),
        };
        let seats = match self.manager.args.rotate {
            true => {
                let seats: Vec<String> = (0..self.manager.roles.len())
                    .map(|r| self.manager.who(r))
                    .collect();
                format!(" [{}]", seats.join(", "))
            }
            false => String::new(),
        };
        println!(
            "match {} (seed {}){seats}: {} steps, {end}; {record}",
            self.number,
            self.seed,
            trace.moves().len()
        );
        for line in &self.played.incidents {
            println!("  {line}");
        }
    }

    /// The summary for programs.
    fn json(&self) -> serde_json::Value {
        let trace = &self.played.trace;
        let roles = self.manager.roles;
        json!({
            "match": self.number,
            "seed": self.seed,
            "players": (roles.iter().zip(&self.manager.players))
                .map(|(r, spec)| json!({"role": r, "spec": spec.to_string()}))
                .collect::<Vec<_>>(),
            "steps": trace.moves().len(),
            "terminal": trace.goals.is_some(),
            "goals": trace.goals.as_ref().map(|g| {
                (roles.iter().zip(g))
                    .map(|(r, &v)| (r.clone(), json!(v)))
                    .collect::<serde_json::Map<_, _>>()
            }),
            "record": (!trace.steps.is_empty()).then(|| self.path.display().to_string()),
            "incidents": self.played.incidents,
            "error": self.error,
        })
    }
}

/// What one match needs to know of the series.
struct Manager<'a> {
    args: &'a MatchArgs,
    roles: &'a [String],
    /// The player of each role, in role order (rotated with --rotate).
    players: Vec<Spec>,
    /// The rules as START carries them.
    rules: String,
    play_clock: Duration,
    start_clock: Duration,
    /// Makes the match ids of this run its own (the time it started).
    tag: u64,
}

/// What a step of a match changes beside the game: the random player
/// (of the random seats and the replacement moves) and the incidents.
struct Turn<'a> {
    step: usize,
    random: &'a mut RandomPlayer,
    incidents: &'a mut Vec<String>,
    heard: &'a mut Heard,
}

/// The players over HTTP heard from in a match: those not heard from yet
/// (`silent`), each with its last error, and those heard from.
#[derive(Default)]
struct Heard {
    silent: std::collections::BTreeMap<usize, String>,
    answered: std::collections::BTreeSet<usize>,
}

impl Heard {
    /// Notes seat `r`'s reply (or its failure).
    fn note(&mut self, r: usize, reply: &Answer) {
        match reply {
            Ok(_) => {
                self.silent.remove(&r);
                self.answered.insert(r);
            }
            Err(e) if !self.answered.contains(&r) => {
                self.silent.insert(r, e.to_string());
            }
            Err(_) => {}
        }
    }
}

/// A player's reply over HTTP with how long it took, or why there is none.
type Answer = Result<(String, Duration), HttpError>;

/// One seat of a match.
enum Seat {
    Random,
    Ai(Box<SearchPlayer>),
    Http,
}

/// A played match: its trace, what went wrong with the players, the
/// error of the rules that stopped it, if any, and the players over HTTP
/// that never answered (each with its last error).
struct Played {
    trace: Trace,
    incidents: Vec<String>,
    error: Option<(usize, GameError)>,
    silent: Vec<(usize, String)>,
}

impl Manager<'_> {
    /// Plays match `i` with `seed`.
    fn play(&self, game: &mut Game, i: usize, seed: u64) -> Played {
        let id = format!("gdl.{}.{}", self.tag, i + 1);
        let mut seats: Vec<Seat> = (self.players.iter().enumerate())
            .map(|(r, spec)| match spec {
                Spec::Random => Seat::Random,
                Spec::Ai(budget) => Seat::Ai(Box::new(search_player(
                    game,
                    Role(r as u32),
                    *budget,
                    seed.wrapping_add(r as u64),
                    threads(self.args.ai_threads),
                ))),
                Spec::Http(_) => Seat::Http,
            })
            .collect();
        let mut incidents = Vec::new();
        let starts = self.to_http(|r| {
            Request::Start(Start {
                id: id.clone(),
                role: self.roles[r].clone(),
                rules: self.rules.clone(),
                start_clock: self.start_clock,
                play_clock: self.play_clock,
            })
        });
        // Whether each player over HTTP answered a message, and its last
        // error.
        let mut heard = Heard::default();
        for (r, reply) in self.send(starts, self.start_clock) {
            heard.note(r, &reply);
            match reply {
                Ok((text, _)) if text.trim().eq_ignore_ascii_case(READY) => {}
                Ok((text, _)) => incidents.push(format!(
                    "start: {}: answered `{}`, not ready",
                    self.who(r),
                    text.trim()
                )),
                Err(e) => incidents.push(format!("start: {}: {e}", self.who(r))),
            }
        }
        // A player that did not answer START: no match, the others told.
        if !heard.silent.is_empty() {
            let aborts = self.to_http(|_| Request::Abort { id: id.clone() });
            let _ = self.send(aborts, self.play_clock);
            return Played {
                trace: Trace::new(game),
                incidents,
                error: None,
                silent: heard.silent.into_iter().collect(),
            };
        }
        let mut random = RandomPlayer::new(seed);
        let mut last: Option<Vec<String>> = None;
        let mut step = 0;
        let replay = Trace::play(game, self.args.max_steps, |game, state| {
            let plays = self.to_http(|_| Request::Play {
                id: id.clone(),
                moves: last.clone(),
            });
            let mut turn = Turn {
                step,
                random: &mut random,
                incidents: &mut incidents,
                heard: &mut heard,
            };
            let joint = self.step(game, state, &mut seats, plays, &mut turn)?;
            step += 1;
            for seat in &mut seats {
                if let Seat::Ai(p) = seat {
                    p.observe(&joint);
                }
            }
            last = Some(joint.iter().map(|&m| game.move_text(m)).collect());
            Ok(joint)
        });
        // The end: STOP with the last moves when the game ended, ABORT
        // otherwise.
        let finished = replay.trace.goals.is_some();
        let ends = self.to_http(|_| match finished {
            true => Request::Stop {
                id: id.clone(),
                moves: last.clone(),
            },
            false => Request::Abort { id: id.clone() },
        });
        for (r, reply) in self.send(ends, self.play_clock) {
            if let Err(e) = reply {
                let what = if finished { "stop" } else { "abort" };
                incidents.push(format!("{what}: {}: {e}", self.who(r)));
            }
        }
        Played {
            trace: replay.trace,
            incidents,
            error: replay.error,
            silent: heard.silent.into_iter().collect(),
        }
    }

    /// One joint move: every player's, each checked against the clock and
    /// the legal moves; one that fails is replaced by a random legal move,
    /// and an incident says so.
    fn step(
        &self,
        game: &mut Game,
        state: &State,
        seats: &mut [Seat],
        plays: Vec<(usize, Request)>,
        turn: &mut Turn,
    ) -> Result<Vec<Move>, GameError> {
        let late = self.play_clock + GRACE;
        // Replies of the players over HTTP, asked all at once, while the
        // built-in players choose.
        let (replies, built_in) = std::thread::scope(|scope| {
            let asking = scope.spawn(|| self.send(plays, self.play_clock));
            let mut built_in = Vec::new();
            for (r, seat) in seats.iter_mut().enumerate() {
                let role = Role(r as u32);
                let start = Instant::now();
                let chosen = match seat {
                    Seat::Random => {
                        let legal = game.legal_moves(state, role);
                        legal.map(|l| turn.random.choose(game, &l))
                    }
                    Seat::Ai(p) => p.choose(game, state),
                    Seat::Http => continue,
                };
                built_in.push((r, chosen, start.elapsed()));
            }
            let replies = asking.join().unwrap_or_default();
            (replies, built_in)
        });
        let mut joint: Vec<Option<Move>> = vec![None; seats.len()];
        let mut failures: Vec<(usize, String)> = Vec::new();
        for (r, chosen, took) in built_in {
            let m = chosen?;
            if took > late {
                failures.push((r, format!("answered late ({:.2} s)", took.as_secs_f64())));
            } else {
                joint[r] = Some(m);
            }
        }
        for (r, reply) in replies {
            let role = Role(r as u32);
            turn.heard.note(r, &reply);
            match reply {
                Ok((text, took)) => match read_move(&text) {
                    _ if took > late => {
                        failures.push((r, format!("answered late ({:.2} s)", took.as_secs_f64())))
                    }
                    Ok(m) => match legal_move(game, state, role, &m) {
                        Ok(m) => joint[r] = Some(m),
                        Err(GameError::IllegalMove { played, .. }) => {
                            failures.push((r, format!("played {played}, not legal")))
                        }
                        Err(GameError::BadMoveText { text, reason }) => {
                            failures.push((r, format!("played `{text}`, not a move: {reason}")))
                        }
                        Err(e) => return Err(e),
                    },
                    Err(why) => failures.push((r, format!("answered `{}`: {why}", text.trim()))),
                },
                Err(e) => failures.push((r, e.to_string())),
            }
        }
        for (r, why) in failures {
            let legal = game.legal_moves(state, Role(r as u32))?;
            if legal.is_empty() {
                return Err(GameError::NoLegalMove {
                    role: self.roles[r].clone(),
                });
            }
            let m = turn.random.choose(game, &legal);
            joint[r] = Some(m);
            turn.incidents.push(format!(
                "step {}: {}: {why}; played {} at random",
                turn.step,
                self.who(r),
                game.move_text(m)
            ));
        }
        Ok(joint
            .into_iter()
            .map(|m| m.expect("every seat moved"))
            .collect())
    }

    /// The message `make(r)` for each seat r played over HTTP.
    fn to_http(&self, make: impl Fn(usize) -> Request) -> Vec<(usize, Request)> {
        (self.players.iter().enumerate())
            .filter(|(_, spec)| matches!(spec, Spec::Http(_)))
            .map(|(r, _)| (r, make(r)))
            .collect()
    }

    /// Sends each player over HTTP its message (seat, message), all at
    /// once, each allowed `clock` and [`GRACE`]; the replies with how long
    /// each took, by seat.
    fn send(&self, messages: Vec<(usize, Request)>, clock: Duration) -> Vec<(usize, Answer)> {
        let deadline = Instant::now() + clock + GRACE;
        std::thread::scope(|scope| {
            let asked: Vec<_> = (messages.into_iter())
                .filter_map(|(r, message)| match &self.players[r] {
                    Spec::Http(address) => {
                        let body = message.to_kif();
                        let asking = scope.spawn(move || {
                            let start = Instant::now();
                            post(address, &body, deadline).map(|t| (t, start.elapsed()))
                        });
                        Some((r, asking))
                    }
                    _ => None,
                })
                .collect();
            (asked.into_iter())
                .map(|(r, asking)| {
                    let reply = (asking.join())
                        .unwrap_or_else(|_| Err(HttpError::Connection("failed".into())));
                    (r, reply)
                })
                .collect()
        })
    }

    /// `oplayer (http://127.0.0.1:9147)`.
    fn who(&self, r: usize) -> String {
        format!("{} ({})", self.roles[r], self.players[r])
    }
}
