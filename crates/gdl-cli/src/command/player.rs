//! `gdl player --port P`: a General Game Playing player over HTTP, as the
//! GGP match protocol says (see [`crate::protocol`]): a game manager posts
//! messages (INFO, PREVIEW, START, PLAY, STOP, ABORT) and the player
//! answers each, its moves chosen by the search player within the play
//! clock less a safety margin.
//!
//! One match at a time. The rules come in the START message; they load on
//! a thread of their own, so that `ready` goes back within the start clock
//! even when loading takes longer (PLAY then waits for it, within its own
//! clock), and the rest of the start clock is spent searching the first
//! position. A load cannot be stopped (the library has no hook to ask it
//! to give up), so at most [`MAX_LOADS`] run at once: the load of a match
//! that is over goes on at the lowest priority, its result dropped, and
//! a new match waits for one to end. A game that cannot be loaded, or whose rules fail while
//! playing, is logged and answered with a random legal move when the
//! legal moves can still be had, and with `noop` when not (a manager
//! replaces a move that is not legal by one of its own choosing). A
//! malformed message gets an error reply (status 400); the player goes on.
//! Every message gets one line on standard error.
//!
//! HTTP is served by [`crate::server`] (hyper on tokio, on a thread of its
//! own), which bounds every request (its body to `--max-file-size`: 413;
//! the time to send it to `--read-timeout`: 408; the connections open at
//! once to `--max-connections`, the oldest still sending closed for a new
//! one) and hands the messages to the player one at a time; the player
//! runs on the calling thread and logs each message before it answers.
//! Whatever a client sends, resets or holds back, the server goes on.

use super::{load_game, Failure, LimitArgs};
use crate::http::left;
use crate::protocol::{info_reply, moves_kif, read_request, Request, Start, BUSY, DONE, READY};
use crate::server::{Answer, Bounds, Message};
use gdl::{Budget, Game, GameError, LoadError, Move, RandomPlayer, Role, SearchPlayer, State};
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

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
    /// Seconds kept back from each clock for the network: a move is
    /// searched until the play clock less this (at most 3/4 of the
    /// clock, so that some search is always left).
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

/// The shortest search worth starting; with less time left, a random
/// legal move goes back at once.
const MIN_SEARCH: Duration = Duration::from_millis(5);

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
}

/// A match the player is in.
struct Match {
    id: String,
    start_clock: Duration,
    play_clock: Duration,
    /// When the manager last sent a message of the match.
    last_seen: Instant,
    engine: Engine,
}

/// Where the player is with the rules of its match.
enum Engine {
    /// Waiting for a load of an earlier match to end before loading them
    /// ([`MAX_LOADS`]).
    Waiting(Box<Load>),
    /// Still loading them, on a thread that sends the result.
    Loading(Loading),
    /// Playing.
    Playing(Box<Playing>),
    /// Lost: the rules did not load, or failed while playing, or the moves
    /// the manager sent cannot be followed; why.
    Lost(String),
}

/// A match followed move by move.
struct Playing {
    game: Game,
    role: Role,
    state: State,
    search: SearchPlayer,
    random: RandomPlayer,
    /// A description of the game, for the log.
    about: String,
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
        } = message;
        let (what, reply) = if text.trim().is_empty() {
            ("INFO".to_string(), self.info())
        } else {
            match read_request(&text) {
                Ok(r) => (summary(&r), self.guarded(r, received)),
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
    fn guarded(&mut self, request: Request, received: Instant) -> Reply {
        let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.handle(request, received)
        }));
        answer.unwrap_or_else(|_| {
            let why = "gdl failed while answering (a bug; see the message above)".to_string();
            if let Some(m) = &mut self.current {
                m.engine = Engine::Lost(why.clone());
            }
            Reply {
                status: 500,
                body: why,
                note: String::new(),
            }
        })
    }

    /// The reply to one message.
    fn handle(&mut self, request: Request, received: Instant) -> Reply {
        match request {
            Request::Info => self.info(),
            Request::Preview { rules, clock } => self.preview(rules, clock, received),
            Request::Start(start) => self.start(start, received),
            Request::Play { id, moves } => {
                let (margin, loads) = (self.args.margin, Arc::clone(&self.loads));
                match self.in_match(&id) {
                    Some(m) => m.play(moves, received, margin, &loads),
                    None => self.not_in(&id),
                }
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
        let deadline = received + clock - self.margin(clock);
        let load = Box::new(self.load(rules, "preview", None));
        let note = match self.loads.start(load, deadline) {
            Err(_) => format!("not loaded: {MAX_LOADS} loads of earlier matches are still running"),
            Ok(mut loading) => match loading.result.recv_timeout(left(deadline)) {
                Ok(result) => {
                    loading.received = true;
                    match result {
                        Ok(p) => format!("the rules load: {}", p.about),
                        Err(why) => why,
                    }
                }
                Err(_) => "still loading at the end of the preview clock".to_string(),
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
        self.started += 1;
        let load = self.load(rules, &id, Some(role));
        let deadline = received + start_clock - self.margin(start_clock);
        // The match it was in, if any (the same id started again), is
        // over: its load, if still running, no longer counts on its result.
        self.current = None;
        let mut m = Match {
            id,
            start_clock,
            play_clock,
            last_seen: Instant::now(),
            engine: Engine::Waiting(Box::new(load)),
        };
        m.wait(deadline, &self.loads);
        let note = match &mut m.engine {
            Engine::Playing(p) => {
                // The rest of the start clock goes to the first position;
                // the tree is kept for the first PLAY.
                let iterations = p.search_until(deadline).map_or(0, |(_, n)| n);
                format!("{}; {iterations} iterations before the first move", p.about)
            }
            Engine::Lost(why) => why.clone(),
            Engine::Loading(_) => "still loading at the end of the start clock".to_string(),
            Engine::Waiting(_) => waiting(),
        };
        self.current = Some(m);
        Reply::ok(READY, note)
    }

    /// The margin kept from `clock`: `--margin`, at most 3/4 of it.
    fn margin(&self, clock: Duration) -> Duration {
        margin(self.args.margin, clock)
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

/// The most loads of rules running at once. A load cannot be stopped (the
/// library has no way to ask a load to give up), so the load of a match
/// that is over (aborted, started again, forgotten; a preview's past its
/// clock) runs on until it ends, at the lowest priority, its result
/// dropped; past this many, the load of a new match waits for one to end.
pub const MAX_LOADS: usize = 2;

/// The note of a match whose load waits for an earlier one to end.
fn waiting() -> String {
    format!(
        "not loading: {MAX_LOADS} loads of matches already over are still running \
         (a load cannot be stopped); waiting for one to end"
    )
}

/// The loads of rules running.
#[derive(Default)]
struct Loads {
    /// How many.
    running: Mutex<usize>,
    /// Signalled when one ends.
    ended: Condvar,
}

/// What a load needs.
struct Load {
    rules: String,
    /// `the rules of ID`, as errors and the log name them.
    name: String,
    role: Option<String>,
    seed: u64,
    threads: usize,
    limits: LimitArgs,
}

/// A load running on a thread of its own.
struct Loading {
    /// Where its result comes.
    result: Receiver<PlayingOrWhy>,
    /// Whether the result came (taken by the match).
    received: bool,
    /// Its thread's id (Linux), 0 until the thread knows it.
    thread: Arc<AtomicI64>,
    /// Set when the match is over before the result came.
    abandoned: Arc<AtomicBool>,
    /// `the rules of ID`.
    name: String,
}

impl Loads {
    /// Starts `load` on a thread of its own once fewer than [`MAX_LOADS`]
    /// run, waiting for one to end until `until`; past it, `load` back.
    fn start(self: &Arc<Self>, load: Box<Load>, until: Instant) -> Result<Loading, Box<Load>> {
        let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        while *running >= MAX_LOADS {
            let wait = left(until);
            if wait.is_zero() {
                return Err(load);
            }
            running = (self.ended.wait_timeout(running, wait))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        *running += 1;
        drop(running);
        let (send, receive) = mpsc::channel();
        let thread = Arc::new(AtomicI64::new(0));
        let abandoned = Arc::new(AtomicBool::new(false));
        let mut loading = Loading {
            result: receive,
            received: false,
            thread: Arc::clone(&thread),
            abandoned: Arc::clone(&abandoned),
            name: load.name.clone(),
        };
        // Counts the load as ended when its thread ends (or cannot start).
        let ended = Ended(Arc::clone(self));
        let spawned = std::thread::Builder::new()
            .name("load".into())
            .stack_size(super::STACK_BYTES)
            .spawn(move || {
                let _ended = ended;
                thread.store(thread_id(), Ordering::SeqCst);
                if abandoned.load(Ordering::SeqCst) {
                    lower_priority(thread_id());
                }
                let _ = send.send(run(*load));
            });
        if let Err(e) = spawned {
            let (send, receive) = mpsc::channel();
            let _ = send.send(Err(format!("cannot start loading: {e}")));
            loading.result = receive;
        }
        Ok(loading)
    }
}

/// Loads the rules and gets ready to play.
fn run(load: Load) -> PlayingOrWhy {
    let start = Instant::now();
    let game = load_game(Path::new(&load.name), load.rules.into_bytes(), &load.limits)
        .map_err(|e| cannot_load(&e))?;
    let about = format!(
        "{} roles, {}, loaded in {:.3} s",
        game.roles().len(),
        engine_name(&game),
        start.elapsed().as_secs_f64()
    );
    Playing::new(game, load.role.as_deref(), load.seed, load.threads, about).map(Box::new)
}

/// Counts a load as ended when dropped.
struct Ended(Arc<Loads>);

impl Drop for Ended {
    fn drop(&mut self) {
        let mut running = self.0.running.lock().unwrap_or_else(|e| e.into_inner());
        *running = running.saturating_sub(1);
        self.0.ended.notify_all();
    }
}

impl Drop for Loading {
    /// A load whose result no one will take goes on (it cannot be
    /// stopped), at the lowest priority so that the next match has the
    /// cores.
    fn drop(&mut self) {
        if self.received || self.result.try_recv().is_ok() {
            return;
        }
        self.abandoned.store(true, Ordering::SeqCst);
        let thread = self.thread.load(Ordering::SeqCst);
        if thread > 0 {
            lower_priority(thread);
        }
        crate::log_line!(
            "{} are still loading for a match that is over: the load goes on at the lowest \
             priority and its result is dropped (a load cannot be stopped)",
            self.name
        );
    }
}

/// The id of the calling thread (Linux; 0 elsewhere).
fn thread_id() -> i64 {
    #[cfg(target_os = "linux")]
    // SAFETY: gettid(2) takes no argument and cannot fail.
    return unsafe { libc::syscall(libc::SYS_gettid) };
    #[cfg(not(target_os = "linux"))]
    0
}

/// Gives the thread `id` the lowest priority (nice 19; Linux, where a
/// thread has a priority of its own).
fn lower_priority(id: i64) {
    #[cfg(target_os = "linux")]
    if let Ok(id) = libc::id_t::try_from(id) {
        // SAFETY: setpriority(2) on a thread of this process; it changes
        // no memory.
        unsafe {
            libc::setpriority(libc::PRIO_PROCESS, id, 19);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = id;
}

/// The margin kept from `clock`: `asked` seconds, at most 3/4 of it.
fn margin(asked: f64, clock: Duration) -> Duration {
    Duration::from_secs_f64(asked).min(clock * 3 / 4)
}

/// What loading sends back.
type PlayingOrWhy = Result<Box<Playing>, String>;

/// `ground rules` or `interpreted`.
fn engine_name(game: &Game) -> &'static str {
    match game.engine() {
        gdl::Engine::Ground { .. } => "ground rules",
        _ => "interpreted",
    }
}

/// Why rules did not load, in one line: the first error, located.
fn cannot_load(e: &LoadError) -> String {
    match e {
        LoadError::Io { error, .. } => format!("cannot load the rules: {error}"),
        LoadError::Invalid { file, diagnostics } => {
            let errors: Vec<_> = diagnostics.iter().filter(|d| d.is_error()).collect();
            match errors.first() {
                Some(d) => {
                    let more = match errors.len() {
                        1 => String::new(),
                        n => format!(" ({n} errors in all)"),
                    };
                    format!(
                        "cannot load the rules: {}: {}{more}",
                        file.location(d.span),
                        d.message
                    )
                }
                None => "cannot load the rules".to_string(),
            }
        }
    }
}

impl Match {
    /// Waits for the rules to load until `deadline` (first, if need be,
    /// for a load of an earlier match to end).
    fn wait(&mut self, deadline: Instant, loads: &Arc<Loads>) {
        if matches!(self.engine, Engine::Waiting(_)) {
            let Engine::Waiting(load) =
                std::mem::replace(&mut self.engine, Engine::Lost(waiting()))
            else {
                return;
            };
            self.engine = match loads.start(load, deadline) {
                Ok(loading) => Engine::Loading(loading),
                Err(load) => Engine::Waiting(load),
            };
        }
        if let Engine::Loading(loading) = &mut self.engine {
            let outcome = loading.result.recv_timeout(left(deadline));
            loading.received = !matches!(outcome, Err(RecvTimeoutError::Timeout));
            self.engine = match outcome {
                Ok(Ok(p)) => Engine::Playing(p),
                Ok(Err(why)) => Engine::Lost(why),
                Err(RecvTimeoutError::Timeout) => return,
                Err(RecvTimeoutError::Disconnected) => {
                    Engine::Lost("loading the rules failed".to_string())
                }
            };
        }
    }

    /// The reply to PLAY: the joint move `moves` played, the player's move.
    fn play(
        &mut self,
        moves: Option<Vec<String>>,
        received: Instant,
        asked: f64,
        loads: &Arc<Loads>,
    ) -> Reply {
        let deadline = received + self.play_clock - margin(asked, self.play_clock);
        self.wait(deadline, loads);
        let p = match &mut self.engine {
            Engine::Playing(p) => p,
            Engine::Loading(_) => return Reply::ok("noop", "the rules are still loading"),
            Engine::Waiting(_) => return Reply::ok("noop", waiting()),
            Engine::Lost(why) => return Reply::ok("noop", why.clone()),
        };
        if let Some(joint) = moves {
            if let Err(why) = p.follow(&joint) {
                let why = format!("cannot follow the moves: {why}");
                self.engine = Engine::Lost(why.clone());
                return Reply::ok("noop", why);
            }
        }
        match p.search_until(deadline) {
            Ok((m, iterations)) => {
                let note = match p.search.stats().root.len() {
                    1 => "its only legal move".to_string(),
                    _ => format!("{iterations} iterations"),
                };
                Reply::ok(p.game.move_text(m), note)
            }
            Err(why) => match p.random_move() {
                Ok(m) => Reply::ok(
                    p.game.move_text(m),
                    format!("a random legal move: the search failed: {why}"),
                ),
                Err(e) => {
                    let why = format!("no legal move found: {e}");
                    self.engine = Engine::Lost(why.clone());
                    Reply::ok("noop", why)
                }
            },
        }
    }

    /// What STOP tells of the end: the goals, when the last moves can be
    /// followed.
    fn stop(&mut self, moves: Option<Vec<String>>) -> String {
        let Engine::Playing(p) = &mut self.engine else {
            return "the match is over".to_string();
        };
        if let Some(joint) = moves {
            if let Err(why) = p.follow(&joint) {
                return format!("cannot follow the last moves: {why}");
            }
        }
        match p.game.goals(&p.state) {
            Ok(goals) => {
                let parts: Vec<String> = (p.game.roles().iter().zip(&goals))
                    .map(|(&r, g)| format!("{} {g}", p.game.role_name(r)))
                    .collect();
                format!("goals {}", parts.join(", "))
            }
            Err(e) => format!("no goals: {e}"),
        }
    }
}

impl Playing {
    fn new(
        game: Game,
        role: Option<&str>,
        seed: u64,
        threads: usize,
        about: String,
    ) -> Result<Playing, String> {
        let role = match role {
            None => game.roles().first().copied().unwrap_or(Role(0)),
            Some(name) => game.role_by_name(name).ok_or_else(|| {
                let names: Vec<&str> = game.roles().iter().map(|&r| game.role_name(r)).collect();
                format!("{name} is not a role of the game ({})", names.join(" "))
            })?,
        };
        let search = super::ai::search_player(&game, role, Budget::Iterations(1), seed, threads);
        Ok(Playing {
            state: game.initial_state(),
            role,
            search,
            random: RandomPlayer::new(seed),
            game,
            about,
        })
    }

    /// Plays the joint move the manager sent (one move per role, legal).
    fn follow(&mut self, joint: &[String]) -> Result<(), String> {
        let roles = self.game.roles();
        if joint.len() != roles.len() {
            return Err(format!("{} moves for {} roles", joint.len(), roles.len()));
        }
        let mut played = Vec::with_capacity(roles.len());
        for (&role, text) in roles.iter().zip(joint) {
            let m = gdl::record::legal_move(&mut self.game, &self.state, role, text)
                .map_err(|e| describe(&e))?;
            played.push(m);
        }
        self.state = (self.game.next_state(&self.state, &played)).map_err(|e| describe(&e))?;
        self.search.observe(&played);
        Ok(())
    }

    /// Searches the current state until `deadline`: the move, with the
    /// iterations run. Past the deadline, a random legal move.
    fn search_until(&mut self, deadline: Instant) -> Result<(Move, u64), String> {
        let time = left(deadline);
        if time < MIN_SEARCH {
            return self.random_move().map(|m| (m, 0)).map_err(|e| describe(&e));
        }
        self.search.set_budget(Budget::Time(time));
        let m = (self.search.choose(&mut self.game, &self.state)).map_err(|e| describe(&e))?;
        Ok((m, self.search.stats().iterations))
    }

    /// A legal move drawn at random.
    fn random_move(&mut self) -> Result<Move, GameError> {
        let legal = self.game.legal_moves(&self.state, self.role)?;
        if legal.is_empty() {
            return Err(GameError::NoLegalMove {
                role: self.game.role_name(self.role).to_string(),
            });
        }
        Ok(self.random.choose(&self.game, &legal))
    }
}

/// A game error in one line.
fn describe(e: &GameError) -> String {
    super::describe(e).replace('\n', " ")
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
