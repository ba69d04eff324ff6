//! The HTTP server of `gdl player`: it takes a game manager's messages off
//! the network and hands them, one at a time, to the player, which runs on
//! a thread of its own; nothing a client sends or fails to send stops it.
//!
//! Every request is bounded ([`Bounds`]):
//!
//! - its body: a `Content-Length` above the limit is refused before a byte
//!   of the body is read, and a body that grows past it (chunked) is cut
//!   off; both get status 413;
//! - the time to send it: the headers and the body must have come within
//!   [`Bounds::read_time`] of the connection's opening; a body still coming
//!   then gets status 408, and a connection still sending its headers is
//!   closed;
//! - the connections open at once: at [`Bounds::max_connections`], a new
//!   connection closes the oldest one still sending its request (an idle
//!   or slow client), or, when every open one waits for the player's
//!   answer, is refused with status 503.
//!
//! Accepting never stops: an error (`Too many open files`) is logged once,
//! an open connection still sending its request is closed to free its
//! descriptor, and accepting is tried again after a short pause. A
//! connection reset, cut short or broken is one line in the log.
//!
//! HTTP is hyper's (a kept, widely used server crate: it parses requests,
//! times out headers and handles resets), on tokio's single-threaded
//! runtime: a task a connection, so that slow clients cost a few bytes
//! each rather than a thread. Each connection carries one request (the
//! reply closes it), as the protocol's managers send one message a
//! connection.

use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::{Body, Bytes, Incoming};
use hyper::header::{HeaderName, HeaderValue};
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use std::collections::BTreeMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

/// The bounds of what one client may ask of the server.
#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    /// The longest body read, in bytes.
    pub max_body: u64,
    /// How long a client has, from opening its connection, to send its
    /// whole request.
    pub read_time: Duration,
    /// The most connections open at once.
    pub max_connections: usize,
}

/// A message for the player: the text of a POST's body or of a GET's
/// path.
#[derive(Debug)]
pub struct Message {
    /// The message.
    pub text: String,
    /// Who sent it.
    pub from: SocketAddr,
    /// When its request came (its headers read): the clocks run from here.
    pub received: Instant,
    /// When its connection was opened (the time to `received` is the
    /// request coming in, which the manager's clock counts too).
    pub opened: Instant,
}

/// The player's answer to a message.
#[derive(Debug)]
pub struct Answer {
    /// The HTTP status.
    pub status: u16,
    /// The body.
    pub body: String,
}

/// A message and where its answer goes.
pub type Job = (Message, oneshot::Sender<Answer>);

/// Writes one line on standard error, as `eprintln!` does, without
/// panicking when standard error is gone (a closed pipe): the log of a
/// server must not stop it.
#[macro_export]
macro_rules! log_line {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// The error numbers of running out of descriptors (the same on every
/// system of note; `libc` is not at hand everywhere).
mod libc_errno {
    /// Too many open files (the process's limit).
    pub const EMFILE: i32 = if cfg!(target_os = "windows") {
        10024
    } else {
        24
    };
    /// Too many open files in the system.
    pub const ENFILE: i32 = 23;
}

/// The pause before accepting again after accepting failed.
const ACCEPT_PAUSE: Duration = Duration::from_millis(100);

/// The largest request head (request line and headers) read, in bytes
/// (hyper's buffer: the head must fit in it).
const MAX_HEAD: usize = 64 << 10;

/// The headers of every reply: the content type of the protocol and the
/// CORS headers ggp-base's players send, so that a manager running in a
/// browser may talk to the player.
const HEADERS: [(&str, &str); 5] = [
    ("content-type", "text/acl"),
    ("access-control-allow-origin", "*"),
    ("access-control-allow-methods", "POST, GET, OPTIONS"),
    ("access-control-allow-headers", "Content-Type"),
    ("access-control-allow-age", "86400"),
];

/// Serves `listener` on a thread of its own: the messages come on the
/// channel returned, each with where its answer goes. The channel closes
/// only if the server cannot start (the reason is logged).
pub fn start(listener: std::net::TcpListener, bounds: Bounds) -> std::io::Result<Receiver<Job>> {
    // A reply written to a connection the client has reset raises SIGPIPE
    // (hyper writes with writev, which has no MSG_NOSIGNAL), whose default
    // action, which `gdl` restores for its printing commands, would end the
    // process: a server takes the write's error instead.
    #[cfg(unix)]
    // SAFETY: signal(2) with SIG_IGN changes no memory; it only sets the
    // action of a signal.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    listener.set_nonblocking(true)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()?;
    let (send, receive) = mpsc::channel();
    std::thread::Builder::new()
        .name("http".into())
        .spawn(move || {
            runtime.block_on(async move {
                match TcpListener::from_std(listener) {
                    Ok(listener) => accept(listener, bounds, send).await,
                    Err(e) => crate::log_line!("cannot serve: {e}"),
                }
            })
        })?;
    Ok(receive)
}

/// How far a connection is with its request.
const HEAD: u8 = 0;
/// Its headers are read; its body is coming.
const BODY: u8 = 1;
/// Its message is with the player.
const ANSWERING: u8 = 2;

/// The connections open.
struct Open {
    /// The number of the next connection.
    next: u64,
    /// The open ones, oldest first.
    slots: BTreeMap<u64, Slot>,
    /// The connections closed to make room since the count was last at
    /// most half the limit (so that a flood is logged twice, at its start
    /// and at its end, rather than a line a connection).
    closed_for_room: u64,
}

/// An open connection.
struct Slot {
    /// How far it is: [`HEAD`], [`BODY`] or [`ANSWERING`].
    state: Arc<AtomicU8>,
    /// Closes it.
    close: oneshot::Sender<()>,
}

impl Open {
    /// Closes the oldest connection still sending its request; whether
    /// there was one.
    fn close_oldest(&mut self) -> bool {
        let oldest = (self.slots.iter())
            .find(|(_, s)| s.state.load(Ordering::Acquire) != ANSWERING)
            .map(|(&n, _)| n);
        let Some(slot) = oldest.and_then(|n| self.slots.remove(&n)) else {
            return false;
        };
        let _ = slot.close.send(());
        self.closed_for_room += 1;
        true
    }
}

/// Removes a connection from [`Open`] when its task ends.
struct Leave {
    open: Arc<Mutex<Open>>,
    number: u64,
}

impl Drop for Leave {
    fn drop(&mut self) {
        let mut open = lock(&self.open);
        open.slots.remove(&self.number);
    }
}

/// Locks `open`; a panic elsewhere while it was held leaves it usable.
fn lock(open: &Mutex<Open>) -> MutexGuard<'_, Open> {
    open.lock().unwrap_or_else(|e| e.into_inner())
}

/// Accepts connections for ever, each served by a task of its own.
async fn accept(listener: TcpListener, bounds: Bounds, player: Sender<Job>) {
    let open = Arc::new(Mutex::new(Open {
        next: 0,
        slots: BTreeMap::new(),
        closed_for_room: 0,
    }));
    // The most connections open at once: `--max-connections`, lowered for
    // good when the process runs out of descriptors below it.
    let mut limit = bounds.max_connections;
    // The failures in a row, and the first one's time.
    let mut failing: Option<(u64, Instant)> = None;
    loop {
        let (stream, from) = match listener.accept().await {
            Ok(c) => c,
            Err(e) => {
                let freed = {
                    let mut o = lock(&open);
                    let out_of_files = matches!(
                        e.raw_os_error(),
                        Some(libc_errno::EMFILE | libc_errno::ENFILE)
                    );
                    if out_of_files && o.slots.len() > 1 && o.slots.len() <= limit {
                        // A descriptor short: fewer connections from now
                        // on, and one freed for the connection waiting.
                        limit = o.slots.len() - 1;
                        crate::log_line!(
                            "cannot accept a connection: {e}: at most {limit} connections open from now on"
                        );
                    } else if failing.is_none() {
                        crate::log_line!(
                            "cannot accept a connection: {e} (trying again every {} s)",
                            ACCEPT_PAUSE.as_secs_f64()
                        );
                    }
                    failing.get_or_insert_with(|| (0, Instant::now())).0 += 1;
                    o.close_oldest()
                };
                if freed {
                    // Let the closed connection's task end (and free its
                    // descriptor) before accepting again.
                    tokio::task::yield_now().await;
                } else {
                    tokio::time::sleep(ACCEPT_PAUSE).await;
                }
                continue;
            }
        };
        if let Some((n, since)) = failing.take() {
            crate::log_line!(
                "accepting connections again after {n} failures in {:.1} s",
                since.elapsed().as_secs_f64()
            );
        }
        let mut made_room = false;
        let (number, state, close) = {
            let mut o = lock(&open);
            if o.slots.len() >= limit {
                made_room = true;
                if o.closed_for_room == 0 {
                    crate::log_line!(
                        "{limit} connections open, the most allowed: \
                         the oldest still sending its request is closed for each new one"
                    );
                }
                if !o.close_oldest() {
                    drop(o);
                    refuse(&stream, from);
                    continue;
                }
            } else if o.slots.len() <= limit / 2 && o.closed_for_room > 0 {
                crate::log_line!(
                    "{} connections open again, after {} were closed to make room",
                    o.slots.len(),
                    o.closed_for_room
                );
                o.closed_for_room = 0;
            }
            let number = o.next;
            o.next += 1;
            let state = Arc::new(AtomicU8::new(HEAD));
            let (close, closed) = oneshot::channel();
            let slot = Slot {
                state: Arc::clone(&state),
                close,
            };
            o.slots.insert(number, slot);
            (number, state, closed)
        };
        let leave = Leave {
            open: Arc::clone(&open),
            number,
        };
        tokio::spawn(connection(
            stream,
            from,
            bounds,
            player.clone(),
            (state, close, leave),
        ));
        if made_room {
            // Let the connection closed end (and free its descriptor)
            // before accepting the next one.
            tokio::task::yield_now().await;
        }
    }
}

/// Refuses a connection when every open one waits for the player: a 503,
/// written without waiting, and the connection closed.
fn refuse(stream: &TcpStream, from: SocketAddr) {
    let why = "too many connections at once: try again";
    let reply = format!(
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/acl\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{why}",
        why.len()
    );
    let _ = stream.try_write(reply.as_bytes());
    crate::log_line!("a connection from {from} -> error 503: {why}");
}

/// Serves one connection: its request read within the bounds, its message
/// handed to the player, the answer sent back.
async fn connection<S>(
    stream: S,
    from: SocketAddr,
    bounds: Bounds,
    player: Sender<Job>,
    (state, closed, _leave): (Arc<AtomicU8>, oneshot::Receiver<()>, Leave),
) where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let opened = Instant::now();
    let serving = Arc::clone(&state);
    let service = service_fn(move |request| {
        let (player, state) = (player.clone(), Arc::clone(&serving));
        async move { Ok::<_, Infallible>(answer(request, from, bounds, opened, &player, &state).await) }
    });
    let served = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(bounds.read_time)
        .keep_alive(false)
        .half_close(true)
        .title_case_headers(true)
        .max_buf_size(MAX_HEAD)
        .serve_connection(TokioIo::new(stream), service);
    tokio::pin!(served);
    let reading = tokio::time::sleep(bounds.read_time);
    tokio::pin!(reading);
    let mut closed = closed;
    tokio::select! {
        biased;
        done = served.as_mut() => {
            if let Err(e) = done {
                broke_off(from, &e, bounds, &state);
            }
            return;
        }
        // Closed to make room: counted, and logged with the others.
        _ = &mut closed => return,
        () = reading.as_mut() => {}
    }
    // The time to send the request ran out.
    if state.load(Ordering::Acquire) == HEAD {
        crate::log_line!(
            "a connection from {from} closed: no whole request in {} s",
            bounds.read_time.as_secs_f64()
        );
        return;
    }
    // Its headers came: the body's own deadline answers it (408), or the
    // player does.
    tokio::select! {
        biased;
        done = served => {
            if let Err(e) = done {
                broke_off(from, &e, bounds, &state);
            }
        }
        _ = &mut closed => {}
    }
}

/// Logs why hyper gave up a connection, in one line: while its head was
/// read (a timeout, a reset, a malformed request), or while the player's
/// answer was sent. In between, the reading of the body logs what befell
/// it.
fn broke_off(from: SocketAddr, e: &hyper::Error, bounds: Bounds, state: &AtomicU8) {
    match state.load(Ordering::Acquire) {
        HEAD if e.is_timeout() => crate::log_line!(
            "a connection from {from} closed: no whole request in {} s",
            bounds.read_time.as_secs_f64()
        ),
        HEAD => crate::log_line!("a connection from {from} broke off: {}", causes(e)),
        ANSWERING => crate::log_line!("the answer to {from} could not be sent: {}", causes(e)),
        _ => {}
    }
}

/// An error and its causes, `: `-separated (hyper's own message leaves
/// out the cause: "error reading a body from connection").
fn causes(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

/// The reply to one request.
async fn answer(
    request: Request<Incoming>,
    from: SocketAddr,
    bounds: Bounds,
    opened: Instant,
    player: &Sender<Job>,
    state: &AtomicU8,
) -> Response<Full<Bytes>> {
    let received = Instant::now();
    state.store(BODY, Ordering::Release);
    let message = match request.method() {
        &Method::OPTIONS => return reply(200, String::new()),
        &Method::POST => body(request, bounds, opened).await,
        &Method::GET => Ok(url_decode(
            (request.uri().path_and_query())
                .map_or("", |p| p.as_str())
                .trim_start_matches('/'),
        )),
        other => Err((
            400,
            format!("{other} is not a method of the protocol: use POST"),
        )),
    };
    let text = match message {
        Ok(text) => text,
        Err((status, why)) => {
            crate::log_line!(
                "a bad request from {from} -> error {status}: {why} [{:.3} s]",
                received.elapsed().as_secs_f64()
            );
            return reply(status, why);
        }
    };
    state.store(ANSWERING, Ordering::Release);
    let (send, receive) = oneshot::channel();
    let message = Message {
        text,
        from,
        received,
        opened,
    };
    if player.send((message, send)).is_err() {
        return reply(500, "the player has stopped".into());
    }
    match receive.await {
        Ok(a) => reply(a.status, a.body),
        Err(_) => reply(500, "the player gave no answer".into()),
    }
}

/// The body of a POST as text, read within the bounds; or the status and
/// why not.
async fn body(
    request: Request<Incoming>,
    bounds: Bounds,
    opened: Instant,
) -> Result<String, (u16, String)> {
    let limit = bounds.max_body;
    let too_long = || {
        (
            413,
            format!("the message is longer than {limit} bytes; raise --max-file-size"),
        )
    };
    // A length announced above the limit is refused unread.
    if request.body().size_hint().lower() > limit {
        return Err(too_long());
    }
    let max = usize::try_from(limit).unwrap_or(usize::MAX);
    let deadline = tokio::time::Instant::from_std(opened + bounds.read_time);
    let read = Limited::new(request.into_body(), max).collect();
    match tokio::time::timeout_at(deadline, read).await {
        Err(_) => Err((
            408,
            format!(
                "the message did not come whole within {} s",
                bounds.read_time.as_secs_f64()
            ),
        )),
        Ok(Err(e)) if e.is::<LengthLimitError>() => Err(too_long()),
        Ok(Err(e)) => Err((400, format!("cannot read the message: {}", causes(&*e)))),
        Ok(Ok(bytes)) => String::from_utf8(bytes.to_bytes().to_vec())
            .map_err(|_| (400, "the message is not UTF-8 text".to_string())),
    }
}

/// A reply with the protocol's headers.
fn reply(status: u16, body: String) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() =
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    for (name, value) in HEADERS {
        (response.headers_mut()).insert(
            HeaderName::from_static(name),
            HeaderValue::from_static(value),
        );
    }
    response
}

/// Serves `request` (the bytes a client sends, then closes its writing
/// half) as a connection of the server, within `bounds`, with messages
/// answered by `player`: what the client reads back. For the fuzz target
/// of requests (`fuzz/fuzz_targets/player_request.rs`) and its tests: the
/// very code of a connection, over an in-memory pipe.
pub fn serve_bytes(request: &[u8], bounds: Bounds, player: Sender<Job>) -> Vec<u8> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    thread_local! {
        static RUNTIME: tokio::runtime::Runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()
            .expect("a runtime");
    }
    let from = SocketAddr::from(([127, 0, 0, 1], 9));
    RUNTIME.with(|runtime| {
        runtime.block_on(async {
            let open = Arc::new(Mutex::new(Open {
                next: 1,
                slots: BTreeMap::new(),
                closed_for_room: 0,
            }));
            let (_close, closed) = oneshot::channel();
            let leave = Leave { open, number: 0 };
            let state = Arc::new(AtomicU8::new(HEAD));
            let (mut client, server) = tokio::io::duplex(1 << 16);
            let served = tokio::spawn(connection(
                server,
                from,
                bounds,
                player,
                (state, closed, leave),
            ));
            let mut reply = Vec::new();
            let (mut reading, mut writing) = tokio::io::split(&mut client);
            let write = async {
                let _ = writing.write_all(request).await;
                let _ = writing.shutdown().await;
            };
            let read = reading.read_to_end(&mut reply);
            let _ = tokio::join!(write, read);
            let _ = served.await;
            reply
        })
    })
}

/// Decodes `%XX` escapes and `+` (a space) of a URL's path, as browsers
/// send a message by GET.
pub fn url_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let hex = |i: usize| bytes.get(i).and_then(|&b| (b as char).to_digit(16));
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match (bytes[i], hex(i + 1), hex(i + 2)) {
            (b'%', Some(high), Some(low)) => {
                out.push((high * 16 + low) as u8);
                i += 3;
                continue;
            }
            (b'+', _, _) => out.push(b' '),
            (b, _, _) => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::url_decode;

    #[test]
    fn urls_are_decoded() {
        assert_eq!(url_decode("(play%20m%201+nil)"), "(play m 1 nil)");
        assert_eq!(url_decode("100%"), "100%");
        assert_eq!(url_decode("%zz%2"), "%zz%2");
    }
}
