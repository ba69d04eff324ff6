//! `gdl player --port P`: a General Game Playing player over HTTP, as the
//! GGP match protocol says (see [`crate::protocol`]): a game manager posts
//! messages (INFO, PREVIEW, START, PLAY, STOP, ABORT) and the player
//! answers each, its moves chosen by the search player within the play
//! clock less a margin (`margin`: `--margin` and the lateness it
//! measures).
//!
//! One match at a time. The rules come in the START message; they load on
//! a thread of their own (`loading`), so that `ready` goes back within
//! the start clock even when loading takes longer, and the rest of the
//! start clock is spent searching the first position. The rules on the
//! interpreter alone come first (parsing, checks and static facts, a
//! fraction of a second for chess), then on their engine: a PLAY that
//! comes before the engine is chosen is answered from the interpreter's
//! legal moves of the current state (searched until the deadline), and a
//! PLAY that comes before even that (rules whose static facts take
//! longer than the clock) is answered `noop`, which the log says (a
//! manager replaces a move that is not legal by one of its own). A load
//! whose match is over (ABORT, STOP, a new START) is cancelled: it stops
//! within a fraction of a second and says so in the log.
//!
//! The search thinks on every clock (`playing`): through the start
//! clock, until the deadline of each turn of its own, and between
//! messages on a thread of its own (the opponent's turn, and its own
//! forced moves, which go back at once); the tree follows the moves
//! played, so what was searched below them is kept. Each reply's note in
//! the log gives the iterations run.
//!
//! A game that cannot be loaded, or whose rules fail while playing, is
//! logged and answered with a random legal move when the legal moves can
//! still be had, and with `noop` when not. A malformed message gets an
//! error reply (status 400); the player goes on. Every message gets one
//! line on standard error.
//!
//! HTTP is served by [`crate::server`] (hyper on tokio, on a thread of its
//! own), which bounds every request (its body to `--max-file-size`: 413;
//! the time to send it to `--read-timeout`: 408; the connections open at
//! once to `--max-connections`, the oldest still sending closed for a new
//! one) and hands the messages to the player one at a time; the player
//! runs on the calling thread and logs each message before it answers.
//! Whatever a client sends, resets or holds back, the server goes on.

mod loading;
mod margin;
mod playing;
mod worker;

use super::{Failure, LimitArgs};
use crate::protocol::{BUSY, DONE, READY, Request, Start, info_reply, moves_kif, read_request};
use crate::server::{Answer, Bounds, Message};
pub use loading::MAX_LOADS;
use loading::{Load, Loaded, Loading, Loads};
use margin::Margin;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};
use worker::{Turn, Worker};

/// Arguments of `gdl player`.
#[derive(clap::Args)]
#[command(after_long_help = "\
Examples:
  # Serve on port 9147 of this machine until Ctrl-C (the rules come with START):
  gdl player --port 9147
  # From anywhere, a second of each clock kept for the network, on 2 threads:
  gdl player --port 9147 --host 0.0.0.0 --margin 1 --threads 2
  # Then, from another shell, a match of tic-tac-toe against it:
  gdl match rules/tictactoe.gdl --players http://127.0.0.1:9147 random")]
pub struct PlayerArgs {
    /// The port to listen on; 0 takes any free port (the first line on
    /// standard error names the address).
    #[arg(long, value_name = "P")]
    pub port: u16,
    /// The address to listen on: 127.0.0.1 takes requests from this
    /// machine only; 0.0.0.0 from anywhere.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Seconds kept back from each clock for the network, at least: the
    /// player adds how late its replies came before (the request's coming
    /// in, the answer past its deadline), and a move is searched until
    /// the play clock less the sum (less at most 3/4 of the clock, so
    /// that some search is always left).
    #[arg(long, default_value_t = 1.0, value_name = "SECONDS", value_parser = margin_seconds)]
    pub margin: f64,
    /// Threads the search runs on; 0 uses every core.
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = super::thread_count)]
    pub threads: usize,
    /// Seed of the search player's random choices.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// The name INFO gives.
    #[arg(long, default_value = "gdl")]
    pub name: String,
    /// Seconds a client has, from connecting, to send its whole request
    /// (headers and body); a body still coming then gets status 408.
    #[arg(long, default_value_t = 5.0, value_name = "SECONDS", value_parser = read_seconds)]
    pub read_timeout: f64,
    /// Most connections open at once; past it, the oldest one still
    /// sending its request is closed for a new one (lowered to fit the
    /// process's limit of open files).
    #[arg(long, default_value_t = 128, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub max_connections: u32,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Reads `--margin`: zero or more seconds, at most an hour.
fn margin_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if (0.0..=3600.0).contains(&s) => Ok(s),
        _ => Err("expected a number of seconds from 0 to 3600".into()),
    }
}

/// Reads `--read-timeout`: more than 0 seconds, at most an hour.
fn read_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && s <= 3600.0 => Ok(s),
        _ => Err("expected a number of seconds above 0, at most 3600".into()),
    }
}

/// Runs `gdl player`: serves until the process is stopped.
pub fn player(args: PlayerArgs) -> Result<ExitCode, Failure> {
    let address = format!("{}:{}", args.host, args.port);
    let listener = std::net::TcpListener::bind(&address)
        .map_err(|e| Failure::Io(format!("cannot listen on {address}: {e}")))?;
    let bound = listener
        .local_addr()
        .map_or(address.clone(), |a| a.to_string());
    let bounds = Bounds {
        max_body: args.limits.rules_limit(),
        read_time: Duration::from_secs_f64(args.read_timeout),
        max_connections: connections_allowed(args.max_connections as usize),
    };
    let messages = crate::server::start(listener, bounds)
        .map_err(|e| Failure::Io(format!("cannot serve on {address}: {e}")))?;
    crate::log_line!("gdl player listening on http://{bound}");
    let mut player = Player::new(args);
    for (message, answer) in messages {
        let _ = answer.send(player.serve(message));
    }
    Err(Failure::Io("the HTTP server stopped".into()))
}

/// The connections allowed open at once: `asked`, fewer when the process
/// may not open twice as many files (a connection takes one, and some
/// are kept for the rest).
fn connections_allowed(asked: usize) -> usize {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes the struct it is given, nothing else.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0 {
            let files = usize::try_from(limit.rlim_cur).unwrap_or(usize::MAX);
            return asked.min(files.saturating_sub(64) / 2).max(1);
        }
    }
    asked
}

/// What the player knows of its match, if it is in one.
struct Player {
    args: PlayerArgs,
    current: Option<Match>,
    /// Matches started, to vary the seed from match to match.
    started: u64,
    /// The loads of rules running.
    loads: Arc<Loads>,
    /// The margin kept from the clocks.
    margin: Margin,
}

/// A match the player is in.
struct Match {
    id: String,
    start_clock: Duration,
    play_clock: Duration,
    /// When the manager last sent a message of the match.
    last_seen: Instant,
    /// The load of its rules, while it runs or waits to start.
    load: Option<Pending>,
    /// The thread that plays it (`None` when it could not start).
    worker: Option<Worker>,
    /// The description of the game handed to the worker last, and
    /// whether it is the game on its engine.
    about: Option<(String, bool)>,
    /// Why the match is lost (its rules did not load), when it is.
    lost: Option<String>,
    /// The joint moves sent so far.
    step: usize,
}

/// A load of a match's rules not done yet.
enum Pending {
    /// Waiting for a load of an earlier match to end ([`MAX_LOADS`]).
    Waiting(Box<Load>),
    /// Running.
    Running(Loading),
}

/// A reply: its HTTP status, its body, and what the log says of it.
struct Reply {
    status: u16,
    body: String,
    note: String,
}

impl Reply {
    fn ok(body: impl Into<String>, note: impl Into<String>) -> Reply {
        Reply {
            status: 200,
            body: body.into(),
            note: note.into(),
        }
    }
}

impl Player {
    fn new(args: PlayerArgs) -> Player {
        Player {
            margin: Margin::new(args.margin),
            args,
            current: None,
            started: 0,
            loads: Arc::new(Loads::default()),
        }
    }

    /// Answers one message and logs it.
    fn serve(&mut self, message: Message) -> Answer {
        let Message {
            text,
            from,
            received,
            opened,
        } = message;
        let (what, reply) = if text.trim().is_empty() {
            ("INFO".to_string(), self.info())
        } else {
            match read_request(&text) {
                Ok(r) => (summary(&r), self.guarded(r, received, opened)),
                Err(e) => (format!("a bad message from {from}"), bad(e)),
            }
        };
        let note = if reply.note.is_empty() {
            String::new()
        } else {
            format!(" ({})", reply.note)
        };
        let shown = if reply.status == 200 {
            reply.body.clone()
        } else {
            format!("error {}: {}", reply.status, reply.body)
        };
        crate::log_line!(
            "{what} -> {shown}{note} [{:.3} s]",
            received.elapsed().as_secs_f64()
        );
        Answer {
            status: reply.status,
            body: reply.body,
        }
    }

    /// The reply to one message; a bug of gdl's met while answering (a
    /// panic) loses the match, not the player: its answer is an error
    /// (status 500), and the next match is played as usual.
    fn guarded(&mut self, request: Request, received: Instant, opened: Instant) -> Reply {
        let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.handle(request, received, opened)
        }));
        answer.unwrap_or_else(|_| {
            let why = "gdl failed while answering (a bug; see the message above)".to_string();
            if let Some(m) = &mut self.current {
                m.worker = None;
                m.lost = Some(why.clone());
            }
            Reply {
                status: 500,
                body: why,
                note: String::new(),
            }
        })
    }

    /// The reply to one message.
    fn handle(&mut self, request: Request, received: Instant, opened: Instant) -> Reply {
        match request {
            Request::Info => self.info(),
            Request::Preview { rules, clock } => self.preview(rules, clock, received),
            Request::Start(start) => {
                let reply = self.start(start, received);
                self.measure(opened, received, |m| m.start_clock);
                reply
            }
            Request::Play { id, moves } => {
                let loads = Arc::clone(&self.loads);
                let clock = match self.in_match(&id) {
                    Some(m) => m.play_clock,
                    None => return self.not_in(&id),
                };
                let deadline = received + clock - self.margin.of(clock);
                let m = self.current.as_mut().expect("in the match");
                let reply = m.play(moves, deadline, &loads);
                self.measure(opened, received, |m| m.play_clock);
                reply
            }
            Request::Stop { id, moves } => match self.in_match(&id) {
                Some(m) => {
                    let note = m.stop(moves);
                    self.current = None;
                    Reply::ok(DONE, note)
                }
                None => self.not_in(&id),
            },
            Request::Abort { id } => match self.in_match(&id) {
                Some(_) => {
                    self.current = None;
                    Reply::ok(DONE, "the match is dropped")
                }
                None => self.not_in(&id),
            },
        }
    }

    /// Notes how late the reply to a message of the current match is, its
    /// clock being `clock` of the match.
    fn measure(&mut self, opened: Instant, received: Instant, clock: impl Fn(&Match) -> Duration) {
        if let Some(m) = &self.current {
            let clock = clock(m);
            let deadline = received + clock - self.margin.of(clock);
            self.margin.record(opened, received, deadline);
        }
    }

    fn info(&mut self) -> Reply {
        let busy = self.busy();
        Reply::ok(info_reply(&self.args.name, busy), "")
    }

    /// Whether the player is in a match; one the manager has not spoken of
    /// for long (it went away without STOP or ABORT) is dropped first.
    fn busy(&mut self) -> bool {
        if let Some(m) = &self.current {
            let forgotten = 3 * (m.start_clock + m.play_clock) + Duration::from_secs(30);
            if m.last_seen.elapsed() > forgotten {
                crate::log_line!("match {} dropped: no message for {forgotten:?}", m.id);
                self.current = None;
            }
        }
        self.current.is_some()
    }

    /// The match named `id`, if it is the player's.
    fn in_match(&mut self, id: &str) -> Option<&mut Match> {
        let m = self.current.as_mut().filter(|m| m.id == id)?;
        m.last_seen = Instant::now();
        Some(m)
    }

    fn not_in(&self, id: &str) -> Reply {
        let now = match &self.current {
            Some(m) => format!("in match {}", m.id),
            None => "in no match".to_string(),
        };
        Reply::ok(BUSY, format!("not in match {id}: {now}"))
    }

    fn preview(&mut self, rules: String, clock: Duration, received: Instant) -> Reply {
        if self.busy() {
            return Reply::ok(BUSY, "in a match");
        }
        let deadline = received + clock - self.margin.of(clock);
        let load = Box::new(self.load(rules, "preview", None));
        let note = match self.loads.start(load, deadline) {
            Err(_) => format!("not loaded: {MAX_LOADS} loads of earlier matches are still running"),
            Ok(mut loading) => loop {
                match loading.results.recv_timeout(crate::http::left(deadline)) {
                    Ok(Loaded::Early(_)) => continue,
                    Ok(Loaded::Full(p)) => {
                        loading.done = true;
                        break format!("the rules load: {}", p.about);
                    }
                    Ok(Loaded::Failed(why)) => {
                        loading.done = true;
                        break why;
                    }
                    Err(_) => break "still loading at the end of the preview clock".to_string(),
                }
            },
        };
        Reply::ok(READY, note)
    }

    fn start(&mut self, start: Start, received: Instant) -> Reply {
        let Start {
            id,
            role,
            rules,
            start_clock,
            play_clock,
        } = start;
        if self.busy() && self.current.as_ref().is_some_and(|m| m.id != id) {
            return Reply::ok(BUSY, "in another match");
        }
        // The match it was in, if any (the same id started again), is
        // over: its load and its thinking are cancelled.
        self.current = None;
        self.started += 1;
        let load = self.load(rules, &id, Some(role));
        let deadline = received + start_clock - self.margin.of(start_clock);
        let worker = Worker::start(&id);
        let mut m = Match {
            lost: worker
                .as_ref()
                .err()
                .map(|e| format!("cannot start playing: {e}")),
            worker: worker.ok(),
            id,
            start_clock,
            play_clock,
            last_seen: Instant::now(),
            load: Some(Pending::Waiting(Box::new(load))),
            about: None,
            step: 0,
        };
        // The worker thinks about the first position as soon as there is
        // a game; the reply waits for the game on its engine, and then for
        // the thinking, until the deadline.
        m.wait(deadline, &self.loads);
        if m.lost.is_none() && m.about.is_some() {
            std::thread::sleep(crate::http::left(deadline));
        }
        let note = match (&m.about, &m.lost) {
            (_, Some(why)) => why.clone(),
            (Some((about, full)), None) => {
                let early = match full {
                    true => "",
                    false => " (on the interpreter while the engine is chosen)",
                };
                let thought = m.worker.as_ref().map_or(0, Worker::thought);
                format!("{about}{early}; {thought} iterations before the first move")
            }
            (None, None) => m.loading_note(),
        };
        self.current = Some(m);
        Reply::ok(READY, note)
    }

    /// What loading `rules` needs; with a role, it is made ready to play
    /// it.
    fn load(&self, rules: String, id: &str, role: Option<String>) -> Load {
        Load {
            rules,
            name: format!("the rules of {id}"),
            role,
            seed: (self.args.seed).wrapping_add(self.started),
            threads: super::threads(self.args.threads),
            limits: self.args.limits.clone(),
        }
    }
}

/// The note of a match whose load waits for an earlier one to end.
fn waiting() -> String {
    format!(
        "not loading: {MAX_LOADS} loads of matches already over are still running; \
         waiting for one to end"
    )
}

impl Match {
    /// Why there is nothing to play with yet.
    fn loading_note(&self) -> String {
        match &self.load {
            Some(Pending::Waiting(_)) => waiting(),
            _ => "still loading the rules".to_string(),
        }
    }

    /// Hands the worker what the load sent, waiting for the game on its
    /// engine until `until` (a load waiting for a slot starts first, if
    /// it can by then).
    fn wait(&mut self, until: Instant, loads: &Arc<Loads>) {
        if let Some(Pending::Waiting(_)) = &self.load {
            let Some(Pending::Waiting(load)) = self.load.take() else {
                return;
            };
            self.load = Some(match loads.start(load, until) {
                Ok(loading) => Pending::Running(loading),
                Err(load) => Pending::Waiting(load),
            });
        }
        while let Some(Pending::Running(loading)) = &mut self.load {
            let loaded = match loading.results.recv_timeout(crate::http::left(until)) {
                Ok(loaded) => loaded,
                Err(RecvTimeoutError::Timeout) => return,
                Err(RecvTimeoutError::Disconnected) => {
                    Loaded::Failed("loading the rules failed".to_string())
                }
            };
            if !matches!(loaded, Loaded::Early(_)) {
                loading.done = true;
                self.load = None;
            }
            let (p, full) = match loaded {
                Loaded::Early(p) => (p, false),
                Loaded::Full(p) => (p, true),
                // The early game, if any, plays on.
                Loaded::Failed(why) if self.about.is_some() => {
                    crate::log_line!("match {}: {why}; the interpreter plays on", self.id);
                    continue;
                }
                Loaded::Failed(why) => {
                    self.lost = Some(why);
                    continue;
                }
            };
            self.about = Some((p.about.clone(), full));
            if let Some(w) = &self.worker {
                w.take(p, full);
            }
        }
    }

    /// The reply to PLAY: the joint move `moves` played, the player's move
    /// by `deadline`.
    fn play(&mut self, moves: Option<Vec<String>>, deadline: Instant, loads: &Arc<Loads>) -> Reply {
        self.wait(Instant::now(), loads);
        if let Some(why) = &self.lost {
            return Reply::ok("noop", why.clone());
        }
        let Some(worker) = &self.worker else {
            return Reply::ok("noop", "not playing");
        };
        self.step += usize::from(moves.is_some());
        match worker.play(moves, self.step, deadline) {
            Ok(Turn {
                played: Some(m),
                note,
            }) => Reply::ok(m, note),
            Ok(Turn { played: None, .. }) if self.about.is_none() => Reply::ok(
                "noop",
                format!("{}: no legal move known yet", self.loading_note()),
            ),
            Ok(Turn { played: None, note }) => Reply::ok("noop", note),
            Err(Some(m)) => Reply::ok(
                m,
                "a legal move drawn at random: the search of this state did not end by the \
                 deadline (it goes on in the background)",
            ),
            Err(None) => Reply::ok(
                "noop",
                "no legal move known by the deadline (a state of this game takes longer than \
                 the clock to evaluate here); the player catches up in the background",
            ),
        }
    }

    /// What STOP tells of the end: the goals, when the last moves can be
    /// followed.
    fn stop(&mut self, moves: Option<Vec<String>>) -> String {
        let deadline = Instant::now() + self.play_clock;
        match self.worker.as_ref().and_then(|w| w.stop(moves, deadline)) {
            Some(turn) => turn.note,
            None => "the match is over".to_string(),
        }
    }
}

/// A message as the log names it: `PLAY m.1 ((mark 1 1) noop)`.
fn summary(r: &Request) -> String {
    match r {
        Request::Info => "INFO".to_string(),
        Request::Preview { clock, .. } => format!("PREVIEW ({} s)", clock.as_secs_f64()),
        Request::Start(s) => format!(
            "START {} as {} (clocks {} s, {} s)",
            s.id,
            s.role,
            s.start_clock.as_secs_f64(),
            s.play_clock.as_secs_f64()
        ),
        Request::Play { id, moves } => format!("PLAY {id} {}", moves_kif(moves)),
        Request::Stop { id, moves } => format!("STOP {id} {}", moves_kif(moves)),
        Request::Abort { id } => format!("ABORT {id}"),
    }
}

/// The reply to a message that cannot be read.
fn bad(why: String) -> Reply {
    Reply {
        status: 400,
        body: why,
        note: String::new(),
    }
}
