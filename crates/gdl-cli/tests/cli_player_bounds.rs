//! `gdl player` against hostile clients, through real sockets on
//! 127.0.0.1: each test is one of the reproductions of issue 34 (a huge
//! `Content-Length`, descriptors run out, a body sent a byte at a time,
//! connections reset, rules loading past their match), and the player must
//! answer the next message as usual. Nothing here races a clock: the
//! bounds of time are hang guards, and the order of events is read from
//! what the player answers and logs.

use crate::common::{gdl_player, http_raw, post};
use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::Duration;

/// The reply to INFO of a free player named gdl.
const AVAILABLE: &str = "((name gdl) (status available))";

/// Sends `request`, closes the writing half, and reads the reply to its
/// end (at most 30 seconds): the bytes sent by a client that announces
/// more than it sends.
fn send_and_close(address: &str, request: &[u8]) -> String {
    let mut stream = TcpStream::connect(address).expect("the player listens");
    let limit = Some(Duration::from_secs(30));
    stream.set_read_timeout(limit).unwrap();
    stream.write_all(request).unwrap();
    stream.shutdown(Shutdown::Write).unwrap();
    let mut reply = Vec::new();
    let _ = stream.read_to_end(&mut reply);
    String::from_utf8_lossy(&reply).into_owned()
}

/// The status code of an HTTP reply (empty when there is none).
fn status(reply: &str) -> &str {
    reply.split_whitespace().nth(1).unwrap_or("")
}

/// S1: a `Content-Length` of 2^64-1, 2^63-1 or 100 GB stopped the player
/// (a panic, or an allocation that aborts): now each is refused before a
/// byte of the body is read.
#[test]
fn a_huge_content_length_is_refused_and_the_player_goes_on() {
    let (player, address) = gdl_player(&[]);
    for (length, expected) in [
        // Beyond what hyper reads as a length at all: refused as a head too
        // large.
        ("18446744073709551615", "431"),
        ("9223372036854775807", "413"),
        ("100000000000", "413"),
        // Just above the limit (--max-file-size, 16 MiB by default).
        ("16777217", "413"),
    ] {
        let request = format!("POST / HTTP/1.1\r\nContent-Length: {length}\r\n\r\n(info)");
        let reply = send_and_close(&address, request.as_bytes());
        assert_eq!(status(&reply), expected, "{length}: {reply}");
        if expected == "413" {
            assert!(
                reply.ends_with("the message is longer than 16777216 bytes; raise --max-file-size"),
                "{reply}"
            );
        }
        assert_eq!(post(&address, "(info)").1, AVAILABLE, "after {length}");
    }
    // A chunked body that grows past the limit is cut off as well.
    let (_small, small) = gdl_player(&["--max-file-size", "100"]);
    let chunk = "x".repeat(80);
    let request = format!(
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n50\r\n{chunk}\r\n50\r\n{chunk}\r\n0\r\n\r\n"
    );
    let reply = http_raw(&small, request.as_bytes());
    assert_eq!(status(&reply), "413", "{reply}");
    assert_eq!(post(&small, "(info)").1, AVAILABLE);
    let log = player.wait_for("error 413: the message is longer than 16777216 bytes");
    assert!(!log.contains("panicked"), "{log}");
}
