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
//! server does, and the summary says so.

use super::ai::search_player;
use super::record_cmd::games_folder;
use super::trace_cmd::DEFAULT_BUDGET;
use super::{
    load, readable_back, regular_or_new, threads, write_file, Existing, Failure, LimitArgs,
};
use crate::http::{post, HttpError};
use crate::protocol::{read_move, rules_of, Request, Start, READY};
use gdl::record::{legal_move, record_file, Trace};
use gdl::{Budget, Game, GameError, Move, RandomPlayer, Role, SearchPlayer, State};
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
            _ => Err(format!("`{budget}`: expected a positive number of iterations (ai:1000) or seconds (ai:0.5s)")),
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
        if let Spec::Ai(Budget::Time(t)) = spec {
            if *t > play_clock {
                return Err(Failure::Usage(format!(
                    "--players {spec}: thinks longer than the play clock ({} s)",
                    args.play_clock
                )));
            }
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
    let manager = Manager {
        args: &args,
        roles: &roles,
        rules,
        play_clock,
        start_clock: Duration::from_secs(args.start_clock),
        tag: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
    };
    let mut totals = vec![0u64; roles.len()];
    let mut ended = 0;
    for (i, (&seed, path)) in seeds.iter().zip(&paths).enumerate() {
        let played = manager.play(&mut game, i, seed);
        if !played.trace.steps.is_empty() {
            let text = record_file(&played.trace);
            readable_back(path, &text, args.limits.file_limit())?;
            write_file(path, text.as_bytes(), existing)?;
        }
        let end = match &played.trace.goals {
            Some(goals) => {
                ended += 1;
                for (t, &g) in totals.iter_mut().zip(goals) {
                    *t += u64::from(g);
                }
                format!("goals {}", played.trace.goals_text(goals))
            }
            None => format!("not terminal after {} steps", args.max_steps),
        };
        println!(
            "match {} (seed {seed}): {} steps, {end}; recorded in {}",
            i + 1,
            played.trace.moves().len(),
            path.display()
        );
        for line in &played.incidents {
            println!("  {line}");
        }
        if let Some((step, e)) = played.error {
            return Err(Failure::at_step(step, &e));
        }
    }
    if ended > 0 {
        let means: Vec<String> = (roles.iter().zip(&args.players).zip(&totals))
            .map(|((r, spec), &t)| format!("{r} ({spec}) {:.1}", t as f64 / ended as f64))
            .collect();
        println!(
            "mean goals over {ended} finished matches: {}",
            means.join(", ")
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// What one match needs to know of the series.
struct Manager<'a> {
    args: &'a MatchArgs,
    roles: &'a [String],
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
}

/// A player's reply over HTTP with how long it took, or why there is none.
type Answer = Result<(String, Duration), HttpError>;

/// One seat of a match.
enum Seat {
    Random,
    Ai(Box<SearchPlayer>),
    Http,
}

/// A played match: its trace, what went wrong with the players, and the
/// error of the rules that stopped it, if any.
struct Played {
    trace: Trace,
    incidents: Vec<String>,
    error: Option<(usize, GameError)>,
}

impl Manager<'_> {
    /// Plays match `i` with `seed`.
    fn play(&self, game: &mut Game, i: usize, seed: u64) -> Played {
        let id = format!("gdl.{}.{}", self.tag, i + 1);
        let mut seats: Vec<Seat> = (self.args.players.iter().enumerate())
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
        for (r, reply) in self.send(starts, self.start_clock) {
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
        (self.args.players.iter().enumerate())
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
                .filter_map(|(r, message)| match &self.args.players[r] {
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
        format!("{} ({})", self.roles[r], self.args.players[r])
    }
}
