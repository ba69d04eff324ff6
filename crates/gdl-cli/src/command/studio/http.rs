//! The studio's HTTP: hyper's HTTP/1 server (the crate `gdl player`
//! already serves with: it parses requests, bounds their heads and times
//! them out) on tokio's single-threaded runtime, each request's work done
//! on a blocking thread so that a long one (a move of the search player,
//! the recorded games replayed) never holds the others up.
//!
//! Before anything is done, a request is checked:
//!
//! - its `Host` must be the server's own (`127.0.0.1:PORT`,
//!   `localhost:PORT`, `[::1]:PORT` or the address it listens on): a page
//!   of another site that rebinds its name to 127.0.0.1 sends its own name
//!   and is refused (status 421);
//! - a request to the API (`/api/...`) must carry the run's token, in the
//!   header `X-Gdl-Token` or as `?token=` (status 403 otherwise), and a
//!   request that changes or runs something must be a POST whose `Origin`,
//!   if it has one, is the server's own; so a page of another site cannot
//!   drive it, and a local user without the printed address cannot either;
//! - its body is at most [`MAX_BODY`] bytes (status 413).
//!
//! A bad request gets a status and a JSON `{"error": "..."}` that says
//! what is wrong; a fault while answering (a panic) is a 500, never the
//! end of the server.

use super::api::{Api, Reply, Request};
use crate::command::Failure;
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::service::service_fn;
use hyper::{Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

/// The largest body read: a rules file or a recorded game of a few MB
/// fits many times over.
pub const MAX_BODY: usize = 64 << 20;

/// How long a client has to send a request's head.
const HEAD_TIME: Duration = Duration::from_secs(30);

/// A token for one run: 128 random bits in hex, from the operating
/// system's randomness (rand's thread generator, seeded from it).
pub fn new_token() -> String {
    format!("{:032x}", rand::random::<u128>())
}

/// What every request is checked against.
struct Guard {
    /// The `Host` values that are the server's own.
    hosts: Vec<String>,
    /// The run's token.
    token: String,
}

impl Guard {
    fn new(address: SocketAddr, token: String) -> Guard {
        let port = address.port();
        let mut hosts = vec![
            format!("127.0.0.1:{port}"),
            format!("localhost:{port}"),
            format!("[::1]:{port}"),
        ];
        let own = match address.ip() {
            std::net::IpAddr::V6(ip) => format!("[{ip}]:{port}"),
            std::net::IpAddr::V4(ip) => format!("{ip}:{port}"),
        };
        if !hosts.contains(&own) {
            hosts.push(own);
        }
        Guard { hosts, token }
    }

    /// Whether `host` (a `Host` header) is the server's own.
    fn own_host(&self, host: &str) -> bool {
        let host = host.trim().to_ascii_lowercase();
        self.hosts.contains(&host)
    }

    /// Whether `given` is the token, compared in a time that does not
    /// depend on where they differ.
    fn token_is(&self, given: &str) -> bool {
        let (a, b) = (given.as_bytes(), self.token.as_bytes());
        a.len() == b.len() && a.iter().zip(b).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
    }
}

/// Makes a write to a closed connection (a browser gone) or a closed
/// standard output (the terminal that started the studio) an error to
/// take rather than SIGPIPE, whose default action ends the process.
pub fn ignore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: signal(2) with SIG_IGN changes no memory; it only sets the
    // action of a signal.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
}

/// Serves the studio on `listener` until the process ends.
pub fn serve(
    listener: std::net::TcpListener,
    address: SocketAddr,
    token: String,
    api: Api,
) -> Result<ExitCode, Failure> {
    let cannot = |e: std::io::Error| Failure::Io(format!("cannot serve: {e}"));
    listener.set_nonblocking(true).map_err(cannot)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        // The work of a request loads and plays rules, which may nest
        // deep: the command's stack (only the pages touched are taken).
        .thread_stack_size(crate::command::STACK_BYTES)
        .max_blocking_threads(16)
        .build()
        .map_err(cannot)?;
    let guard = Arc::new(Guard::new(address, token));
    let api = Arc::new(api);
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener).map_err(cannot)?;
        loop {
            let (stream, _) = match listener.accept().await {
                Ok(c) => c,
                Err(e) => {
                    crate::log_line!("cannot accept a connection: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            };
            let (guard, api) = (Arc::clone(&guard), Arc::clone(&api));
            tokio::spawn(async move {
                let service = service_fn(move |request| {
                    let (guard, api) = (Arc::clone(&guard), Arc::clone(&api));
                    async move { Ok::<_, Infallible>(answer(request, &guard, api).await) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .timer(TokioTimer::new())
                    .header_read_timeout(HEAD_TIME)
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    })
}

/// A reply of `status` with a JSON `{"error": message}`.
pub fn error_reply(status: u16, message: &str) -> Reply {
    Reply::json(status, &serde_json::json!({ "error": message }))
}

/// Checks a request, reads its body and has the API answer it.
async fn answer(
    request: hyper::Request<Incoming>,
    guard: &Guard,
    api: Arc<Api>,
) -> Response<Full<Bytes>> {
    let reply = match checked(request, guard).await {
        Ok(request) => match tokio::task::spawn_blocking(move || api.handle(&request)).await {
            Ok(reply) => reply,
            Err(e) => {
                crate::log_line!("studio: a request failed: {e}");
                error_reply(
                    500,
                    "the studio met an internal error answering this request",
                )
            }
        },
        Err(reply) => reply,
    };
    let mut response = Response::new(Full::new(Bytes::from(reply.body)));
    *response.status_mut() = StatusCode::from_u16(reply.status).unwrap_or(StatusCode::OK);
    let headers = response.headers_mut();
    let pairs = [
        ("content-type", reply.content_type),
        ("cache-control", "no-store"),
        ("x-content-type-options", "nosniff"),
        ("referrer-policy", "no-referrer"),
        ("x-frame-options", "DENY"),
        (
            "content-security-policy",
            "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; \
             connect-src 'self'; frame-ancestors 'none'",
        ),
    ];
    for (name, value) in pairs {
        if let Ok(value) = hyper::header::HeaderValue::from_str(value) {
            headers.insert(name, value);
        }
    }
    response
}

/// The request, checked ([`Guard`]) and read, or the reply that refuses it.
async fn checked(request: hyper::Request<Incoming>, guard: &Guard) -> Result<Request, Reply> {
    let header = |name: &str| {
        request
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let host = header("host").unwrap_or_default();
    if !guard.own_host(&host) {
        return Err(error_reply(
            421,
            &format!(
                "the Host of this request ({host:?}) is not this server's: open the address \
                 gdl studio printed"
            ),
        ));
    }
    let path = request.uri().path().to_string();
    let query: Vec<(String, String)> = request
        .uri()
        .query()
        .map(|q| {
            q.split('&')
                .filter_map(|pair| {
                    let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
                    Some((decode(k)?, decode(v)?))
                })
                .collect()
        })
        .unwrap_or_default();
    let method = request.method().as_str().to_string();
    if path.starts_with("/api/") {
        let token = header("x-gdl-token").or_else(|| {
            query
                .iter()
                .find(|(k, _)| k == "token")
                .map(|(_, v)| v.clone())
        });
        match token {
            Some(t) if guard.token_is(&t) => {}
            Some(_) => {
                return Err(error_reply(
                    403,
                    "wrong token: use the address gdl studio printed for this run",
                ));
            }
            None => {
                return Err(error_reply(
                    403,
                    "this request needs the token of the address gdl studio printed \
                     (the header X-Gdl-Token or ?token=)",
                ));
            }
        }
        if method == "POST"
            && let Some(origin) = header("origin")
        {
            let own = origin
                .strip_prefix("http://")
                .is_some_and(|h| guard.own_host(h));
            if !own {
                return Err(error_reply(
                    403,
                    &format!("a request from the page of another site ({origin}) is refused"),
                ));
            }
        }
    }
    let body = match Limited::new(request.into_body(), MAX_BODY).collect().await {
        Ok(body) => body.to_bytes().to_vec(),
        Err(e) if e.downcast_ref::<LengthLimitError>().is_some() => {
            return Err(error_reply(
                413,
                &format!("the request's body is larger than {MAX_BODY} bytes"),
            ));
        }
        Err(e) => return Err(error_reply(400, &format!("cannot read the request: {e}"))),
    };
    Ok(Request {
        method,
        path,
        query,
        body,
    })
}

/// A part of a query, percent-decoded (`+` a space); `None` if it is not
/// UTF-8 once decoded.
fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                match u8::from_str_radix(std::str::from_utf8(&bytes[i + 1..i + 3]).ok()?, 16) {
                    Ok(b) => {
                        out.push(b);
                        i += 2;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_servers_own_host_passes() {
        let guard = Guard::new("127.0.0.1:8400".parse().unwrap(), "ab".into());
        assert!(guard.own_host("127.0.0.1:8400"));
        assert!(guard.own_host("LOCALHOST:8400"));
        assert!(!guard.own_host("evil.example:8400"));
        assert!(!guard.own_host("127.0.0.1:8401"));
        assert!(!guard.own_host(""));
        assert!(guard.token_is("ab"));
        assert!(!guard.token_is("abc") && !guard.token_is("ac"));
    }

    #[test]
    fn queries_are_decoded() {
        assert_eq!(decode("a%20b+c").as_deref(), Some("a b c"));
        assert_eq!(decode("100%").as_deref(), Some("100%"));
        assert_eq!(decode("%zz").as_deref(), Some("%zz"));
        assert_eq!(decode("%ff"), None);
    }
}
