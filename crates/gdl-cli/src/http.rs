//! The HTTP of the GGP match protocol, as a game manager speaks it: one
//! POST of a message to a player, its reply read within a deadline.
//!
//! A client of a few lines over `std::net` rather than a crate: a manager
//! must never wait past a clock, so connecting, writing and every read are
//! bounded by the time left before one deadline, which a socket's timeouts
//! give directly; the request is HTTP/1.0 with `Connection: close`, so the
//! reply is a status line, headers and a body of `Content-Length` bytes or
//! up to the end of the connection (never chunked).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// Why a request got no usable reply.
#[derive(Debug, PartialEq, Eq)]
pub enum HttpError {
    /// The deadline passed before the whole reply came.
    Timeout,
    /// The player could not be reached or the connection failed.
    Connection(String),
    /// The reply was not HTTP, or not `200`.
    BadReply(String),
}

impl std::fmt::Display for HttpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HttpError::Timeout => f.write_str("no reply in time"),
            HttpError::Connection(e) => write!(f, "cannot reach it: {e}"),
            HttpError::BadReply(e) => write!(f, "a bad reply: {e}"),
        }
    }
}

/// The largest reply read: a move or `ready` takes a few bytes.
const MAX_REPLY_BYTES: usize = 1 << 20;

/// Posts `body` to the player at `address` (`HOST:PORT`) and returns the
/// body of its reply, or why there is none, by `deadline`.
pub fn post(address: &str, body: &str, deadline: Instant) -> Result<String, HttpError> {
    let left = || {
        deadline
            .checked_duration_since(Instant::now())
            .filter(|d| !d.is_zero())
            .ok_or(HttpError::Timeout)
    };
    let io = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => HttpError::Timeout,
        _ => HttpError::Connection(e.to_string()),
    };
    let target: SocketAddr = address
        .to_socket_addrs()
        .map_err(|e| HttpError::Connection(format!("{address}: {e}")))?
        .next()
        .ok_or_else(|| HttpError::Connection(format!("{address}: no address")))?;
    let mut stream = TcpStream::connect_timeout(&target, left()?).map_err(io)?;
    let request = format!(
        "POST / HTTP/1.0\r\nHost: {address}\r\nContent-Type: text/acl\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.set_write_timeout(Some(left()?)).map_err(io)?;
    stream.write_all(request.as_bytes()).map_err(io)?;
    let mut reply = Vec::new();
    let mut buffer = [0u8; 8192];
    loop {
        stream.set_read_timeout(Some(left()?)).map_err(io)?;
        let n = stream.read(&mut buffer).map_err(io)?;
        if n == 0 {
            break;
        }
        reply.extend_from_slice(&buffer[..n]);
        if reply.len() > MAX_REPLY_BYTES {
            return Err(HttpError::BadReply(format!(
                "longer than {MAX_REPLY_BYTES} bytes"
            )));
        }
        if let Some(body) = complete(&reply)? {
            return Ok(body);
        }
    }
    // The connection closed: the body is what came after the headers.
    match split(&reply)? {
        Some((_, body)) => Ok(String::from_utf8_lossy(body).into_owned()),
        None => Err(HttpError::BadReply("it ended inside its headers".into())),
    }
}

/// The reply's body once the reply is whole by its `Content-Length`.
fn complete(reply: &[u8]) -> Result<Option<String>, HttpError> {
    let Some((headers, body)) = split(reply)? else {
        return Ok(None);
    };
    let length = headers.lines().find_map(|l| {
        let (name, value) = l.split_once(':')?;
        name.trim()
            .eq_ignore_ascii_case("content-length")
            .then(|| value.trim().parse::<usize>().ok())?
    });
    Ok(match length {
        Some(n) if body.len() >= n => Some(String::from_utf8_lossy(&body[..n]).into_owned()),
        _ => None,
    })
}

/// The headers and body of a reply whose headers have all come, the
/// status checked; `None` while they have not.
fn split(reply: &[u8]) -> Result<Option<(String, &[u8])>, HttpError> {
    let Some(end) = reply.windows(4).position(|w| w == b"\r\n\r\n") else {
        return Ok(None);
    };
    let headers = String::from_utf8_lossy(&reply[..end]).into_owned();
    let status = headers.lines().next().unwrap_or("");
    let mut words = status.split_whitespace();
    match (words.next(), words.next()) {
        (Some(v), Some("200")) if v.starts_with("HTTP/") => {}
        _ => return Err(HttpError::BadReply(format!("status `{status}`"))),
    }
    Ok(Some((headers, &reply[end + 4..])))
}

/// How long is left before `deadline` (zero once it has passed).
pub fn left(deadline: Instant) -> Duration {
    deadline.saturating_duration_since(Instant::now())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    /// A server that answers one request with `reply` after `delay`.
    fn serve_once(reply: &'static str, delay: Duration) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap().to_string();
        std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            let mut buffer = [0u8; 4096];
            let _ = s.read(&mut buffer);
            std::thread::sleep(delay);
            let _ = s.write_all(reply.as_bytes());
        });
        address
    }

    #[test]
    fn a_reply_is_read_by_its_length_or_to_the_end() {
        let soon = || Instant::now() + Duration::from_secs(10);
        let by_length = serve_once(
            "HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nreadyEXTRA",
            Duration::ZERO,
        );
        assert_eq!(post(&by_length, "(info)", soon()), Ok("ready".into()));
        let to_end = serve_once("HTTP/1.1 200 OK\r\n\r\n(mark 1 1)", Duration::ZERO);
        assert_eq!(post(&to_end, "(info)", soon()), Ok("(mark 1 1)".into()));
        let refused = serve_once("HTTP/1.1 404 Not Found\r\n\r\n", Duration::ZERO);
        assert_eq!(
            post(&refused, "(info)", soon()),
            Err(HttpError::BadReply(
                "status `HTTP/1.1 404 Not Found`".into()
            ))
        );
    }

    #[test]
    fn a_late_reply_is_a_timeout() {
        let slow = serve_once(
            "HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nready",
            Duration::from_secs(3),
        );
        let deadline = Instant::now() + Duration::from_millis(200);
        assert_eq!(post(&slow, "(info)", deadline), Err(HttpError::Timeout));
    }
}
