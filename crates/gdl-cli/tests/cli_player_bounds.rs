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

/// Waits (at most 30 seconds, a hang guard) until `holds` is true of the
/// player's log; returns the log.
fn wait_until(player: &crate::common::Process, what: &str, holds: impl Fn(&str) -> bool) -> String {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let log = player.stderr();
        if holds(&log) {
            return log;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no {what} in the log in 30 s:\n{log}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// S2 (the limit): more idle connections than `--max-connections` close
/// the oldest ones; the player answers a message sent after them all.
#[test]
fn idle_connections_past_the_limit_make_room_for_a_message() {
    let (player, address) = gdl_player(&["--max-connections", "8"]);
    let idle: Vec<TcpStream> = (0..40)
        .map(|_| TcpStream::connect(&address).expect("the player listens"))
        .collect();
    // Accepted in order: the message's connection is the newest, so the
    // idle ones are closed before it.
    assert_eq!(post(&address, "(info)").1, AVAILABLE);
    player.wait_for("8 connections open, the most allowed: ");
    drop(idle);
    assert_eq!(post(&address, "(info)").1, AVAILABLE);
}

/// S2 (descriptors): with the process's limit of open files lowered under
/// it while it serves, accepting fails (`Too many open files`); that used
/// to end the accept loop for good. Now it is logged once, a slow
/// connection is closed to free a descriptor, and accepting goes on.
#[cfg(target_os = "linux")]
#[test]
fn out_of_descriptors_the_player_goes_on_accepting() {
    let (player, address) = gdl_player(&[]);
    assert_eq!(post(&address, "(info)").1, AVAILABLE);
    let pid = player.id() as libc::pid_t;
    let limit = libc::rlimit {
        rlim_cur: 48,
        rlim_max: 48,
    };
    // SAFETY: prlimit(2) on our own child, reading a struct we own.
    let set = unsafe { libc::prlimit(pid, libc::RLIMIT_NOFILE, &limit, std::ptr::null_mut()) };
    assert_eq!(set, 0, "prlimit: {}", std::io::Error::last_os_error());
    let idle: Vec<TcpStream> = (0..80)
        .map(|_| TcpStream::connect(&address).expect("the kernel queues it"))
        .collect();
    assert_eq!(post(&address, "(info)").1, AVAILABLE);
    let log = player.wait_for("cannot accept a connection: Too many open files");
    assert_eq!(
        log.matches("cannot accept a connection").count(),
        1,
        "logged once for a run of failures:\n{log}"
    );
    player.wait_for("accepting connections again after ");
    drop(idle);
    assert_eq!(post(&address, "(info)").1, AVAILABLE);
    assert!(!player.stderr().contains("panicked"));
}

/// S3: a body sent a byte at a time froze the player for every client.
/// Now others are answered meanwhile, and the slow one gets 408 once its
/// time (`--read-timeout`) is up.
#[test]
fn a_body_sent_a_byte_at_a_time_times_out_and_others_are_answered() {
    let (player, address) = gdl_player(&["--read-timeout", "1"]);
    let mut slow = TcpStream::connect(&address).unwrap();
    slow.set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let body = format!("(info){}", " ".repeat(2000));
    write!(
        slow,
        "POST / HTTP/1.1\r\nContent-Length: {}\r\n\r\n(",
        body.len()
    )
    .unwrap();
    // While it holds its connection, another client is answered.
    assert_eq!(post(&address, "(info)").1, AVAILABLE);
    let mut reply = String::new();
    let _ = slow.read_to_string(&mut reply);
    assert_eq!(status(&reply), "408", "{reply}");
    assert!(
        reply.ends_with("the message did not come whole within 1 s"),
        "{reply}"
    );
    // Headers that never end: the connection is closed, unanswered.
    let mut stuck = TcpStream::connect(&address).unwrap();
    stuck
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    stuck.write_all(b"POST / HTTP/1.1\r\nContent-Le").unwrap();
    let mut rest = Vec::new();
    let _ = stuck.read_to_end(&mut rest);
    player.wait_for("closed: no whole request in 1 s");
    assert_eq!(post(&address, "(info)").1, AVAILABLE);
}

/// P1: connections reset (RST) after their headers made the server's
/// connection threads panic. Now each is a line in the log.
/// Makes closing `s` reset the connection (SO_LINGER of 0) rather than
/// end it cleanly; whether it could.
#[cfg(unix)]
fn reset_on_close(s: &TcpStream) -> bool {
    use std::os::fd::AsRawFd;
    let linger = libc::linger {
        l_onoff: 1,
        l_linger: 0,
    };
    // SAFETY: setsockopt on a socket we own, with a struct of the size
    // given.
    let set = unsafe {
        libc::setsockopt(
            s.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_LINGER,
            (&linger as *const libc::linger).cast(),
            std::mem::size_of::<libc::linger>() as libc::socklen_t,
        )
    };
    set == 0
}

#[cfg(unix)]
#[test]
fn connections_reset_early_are_logged_without_a_panic() {
    let (player, address) = gdl_player(&[]);
    for _ in 0..20 {
        let mut s = TcpStream::connect(&address).unwrap();
        s.write_all(b"POST / HTTP/1.1\r\nContent-Length: 100000\r\n\r\n(start x xplayer (")
            .unwrap();
        assert!(reset_on_close(&s));
        drop(s);
    }
    let log = wait_until(&player, "a line for each of the 20 resets", |log| {
        log.matches("Connection reset by peer").count() >= 20
    });
    assert!(!log.contains("panicked"), "{log}");
    assert_eq!(post(&address, "(info)").1, AVAILABLE);
}

/// Rules whose load never ends within a start clock: p has 40^6 (4.1e9)
/// legal moves.
fn slow_rules() -> String {
    let constants: String = (0..40).map(|k| format!("(c k{k}) ")).collect();
    format!(
        "(role p) (role q) (init s) {constants}\
         (<= (legal p (m ?v0 ?v1 ?v2 ?v3 ?v4 ?v5)) (c ?v0) (c ?v1) (c ?v2) (c ?v3) (c ?v4) (c ?v5)) \
         (legal q noop) (<= (next s) (true s)) (<= terminal (true t)) (goal p 0) (goal q 0)"
    )
}

/// H2: rules still loading when their match ended kept loading, one more
/// thread each START/ABORT, until threads and memory starved the next
/// match. Now the load of a match that is over is cancelled: ABORT, STOP
/// or a new START stops it at the library's next look (here in the static
/// facts' derivation, 4.1e9 facts), which the log says; the next match
/// loads at once, on ground rules.
#[test]
fn rules_loading_past_their_match_are_cancelled() {
    let (player, address) = gdl_player(&[]);
    let slow = slow_rules();
    // Each match ended by ABORT, by STOP, or by its START sent again.
    for (id, rules, end) in [
        ("z0", &slow, Some("(abort z0)")),
        ("z1", &slow, Some("(stop z1 nil)")),
        ("z2", &slow, None),
        ("z2", &slow, Some("(abort z2)")),
    ] {
        let start = format!("(start {id} p ({rules}) 1 1)");
        assert_eq!(post(&address, &start).1, "ready");
        if let Some(end) = end {
            assert_eq!(post(&address, end).1, "done");
        }
    }
    let cancelled = |log: &str, id: &str| {
        log.matches(&format!("the rules of {id}: the load was cancelled after "))
            .count()
    };
    wait_until(&player, "four loads cancelled", |log| {
        cancelled(log, "z0") == 1 && cancelled(log, "z1") == 1 && cancelled(log, "z2") == 2
    });
    // Nothing of theirs is left to wait for: the next match loads at once.
    let ttt = std::fs::read_to_string(crate::common::root().join("rules/tictactoe.gdl")).unwrap();
    assert_eq!(
        post(&address, &format!("(start ok xplayer ({ttt}\n) 2 1)")).1,
        "ready"
    );
    let log = player.wait_for("START ok as xplayer (clocks 2 s, 1 s) -> ready (");
    assert!(
        log.contains("START ok as xplayer (clocks 2 s, 1 s) -> ready (2 roles, ground rules"),
        "{log}"
    );
    assert!(post(&address, "(play ok nil)").1.starts_with("(mark "));
    assert_eq!(post(&address, "(abort ok)").1, "done");
    assert_eq!(post(&address, "(info)").1, AVAILABLE);
    assert!(!player.stderr().contains("waiting for one to end"));
}

/// One hostile client's visit, of kind `kind`: a huge `Content-Length`, a
/// body a byte at a time, a reset, an idle connection, garbage, headers
/// that never end. Whatever comes back is read (at most 10 seconds) and
/// dropped: the player's answers to each are checked by the tests above.
#[cfg(unix)]
fn hostile_visit(address: &str, kind: usize) {
    let Ok(mut s) = TcpStream::connect(address) else {
        return;
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(10)));
    let _ = s.set_write_timeout(Some(Duration::from_secs(10)));
    let mut sink = Vec::new();
    match kind % 6 {
        0 => {
            let _ = s.write_all(b"POST / HTTP/1.1\r\nContent-Length: 9223372036854775807\r\n\r\n(");
        }
        1 => {
            let _ = s.write_all(b"POST / HTTP/1.1\r\nContent-Length: 2006\r\n\r\n");
            // A byte every 0.1 s until the player gives up (408).
            for _ in 0..100 {
                if s.write_all(b" ").is_err() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        2 => {
            let _ = s.write_all(b"POST / HTTP/1.1\r\nContent-Length: 100000\r\n\r\n(start x ");
            reset_on_close(&s);
            return;
        }
        3 => std::thread::sleep(Duration::from_millis(300)),
        4 => {
            let _ = s.write_all(b"GET /%zz((\xff HTTP/1.1\r\n\x00\x01: \x02\r\n\r\n");
        }
        _ => {
            let _ = s.write_all(b"POST / HTTP/1.1\r\nContent-Le");
        }
    }
    let _ = s.read_to_end(&mut sink);
}

/// The load test: while clients of every hostile kind come and go on eight
/// threads, `gdl match` plays tic-tac-toe against the player, and every
/// message of the match is answered (no move replaced, no incident).
#[cfg(unix)]
#[test]
fn a_match_is_played_while_hostile_clients_flood_the_player() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let (player, address) = gdl_player(&["--read-timeout", "1", "--margin", "1.5"]);
    let done = Arc::new(AtomicBool::new(false));
    let hostile: Vec<_> = (0..8)
        .map(|t| {
            let (address, done) = (address.clone(), Arc::clone(&done));
            std::thread::spawn(move || {
                // Bounded: at most 200 visits a thread, ended with the match.
                for visit in 0..200 {
                    if done.load(Ordering::SeqCst) {
                        break;
                    }
                    hostile_visit(&address, t + visit);
                }
            })
        })
        .collect();
    let out = crate::common::scratch("player_under_load");
    let url = format!("http://{address}");
    let played = crate::common::gdl_in(
        &crate::common::root(),
        &[
            "match",
            "rules/tictactoe.gdl",
            "--players",
            &url,
            "random",
            "--start-clock",
            "2",
            "--play-clock",
            "2",
            "--out",
            out.to_str().unwrap(),
        ],
        "",
    );
    done.store(true, Ordering::SeqCst);
    for h in hostile {
        h.join().unwrap();
    }
    assert_eq!(played.code, 0, "{}", played.screen());
    // An incident of the player would be a line naming it: no reply in
    // time, cannot reach it, a bad reply.
    assert!(
        !played.stdout.contains(&format!("({url}): ")),
        "{}",
        played.stdout
    );
    assert!(
        played.stdout.contains(", goals xplayer "),
        "{}",
        played.stdout
    );
    let log = player.wait_for("-> done (goals xplayer ");
    assert!(!log.contains("panicked"), "{log}");
    for hostile in [
        "error 413: the message is longer than",
        "error 408: the message did not come whole within 1 s",
        "Connection reset by peer",
        "closed: no whole request in 1 s",
    ] {
        assert!(log.contains(hostile), "`{hostile}` in the log:\n{log}");
    }
    assert_eq!(post(&address, "(info)").1, AVAILABLE);
}

/// The fuzzing smoke run of the player's requests: every input of the
/// checked-in corpus `fuzz/corpus-player_request/` (seeds of each kind of
/// request, and whatever the fuzzer found) served by
/// `gdl_cli::fuzz::player_request`, the body of the fuzz target; and what
/// the seeds get back.
#[test]
fn the_request_fuzz_corpus_is_served_without_a_panic() {
    let dir = crate::common::root().join("fuzz/corpus-player_request");
    let mut inputs: Vec<_> = std::fs::read_dir(&dir)
        .expect("fuzz/corpus-player_request is checked in")
        .map(|e| e.expect("a corpus entry").path())
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 12, "the corpus has {} inputs", inputs.len());
    let mut replies = std::collections::BTreeMap::new();
    for path in inputs {
        let data = std::fs::read(&path).expect("a corpus input");
        let reply = gdl_cli::fuzz::player_request(&data);
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        replies.insert(name, String::from_utf8_lossy(&reply).into_owned());
    }
    let status = |seed: &str| status(&replies[seed]).to_string();
    let body = |seed: &str| {
        replies[seed]
            .split_once("\r\n\r\n")
            .map_or(String::new(), |(_, b)| b.to_string())
    };
    assert_eq!(
        (status("post-info"), body("post-info")),
        ("200".into(), "(info)".into())
    );
    assert_eq!(body("post-play"), "(play m.1 ((mark 1 1) noop))");
    assert_eq!(body("get-play"), "(play m.1 nil)");
    assert_eq!(status("options"), "200");
    assert_eq!(status("huge-length"), "431");
    assert_eq!(status("long-length"), "413");
    assert_eq!(body("chunked"), "(info)");
    assert_eq!(status("cut-short"), "400");
    assert_eq!(status("put"), "400");
    assert_eq!(body("not-utf8"), "the message is not UTF-8 text");
    assert_eq!(replies["half-head"], "");
}

/// Issue 34's load test: 16 clients at once, each sending a fixed number
/// of requests (a bound on requests, not on time; 12 each, so that the
/// hostile visits that wait out the player's read timeout keep the test
/// near 15 s): well-formed messages
/// sent whole, well-formed ones sent in pieces, malformed ones, and
/// hostile visits (a huge length, a body a byte at a time, resets, idle
/// connections, garbage, headers that never end). Every well-formed
/// request is answered, with the right answer; every malformed one gets
/// its error; nothing panics; the player answers afterwards.
#[cfg(unix)]
#[test]
fn many_clients_at_once_slow_and_broken_among_them_every_request_is_answered() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    const CLIENTS: usize = 16;
    const REQUESTS: usize = 12;
    let (player, address) = gdl_player(&["--read-timeout", "5"]);
    let answered = Arc::new(AtomicUsize::new(0));
    let refused = Arc::new(AtomicUsize::new(0));
    let clients: Vec<_> = (0..CLIENTS)
        .map(|c| {
            let (address, answered, refused) =
                (address.clone(), Arc::clone(&answered), Arc::clone(&refused));
            std::thread::spawn(move || {
                for k in 0..REQUESTS {
                    match (c + k) % 4 {
                        0 => {
                            let (status, body) = post(&address, "(info)");
                            assert_eq!((status.as_str(), body.as_str()), ("200", AVAILABLE));
                            answered.fetch_add(1, Ordering::SeqCst);
                        }
                        1 => {
                            let reply = in_pieces(&address, "( INFO )");
                            assert!(reply.ends_with(AVAILABLE), "{reply}");
                            answered.fetch_add(1, Ordering::SeqCst);
                        }
                        2 => {
                            let (status, body) = post(&address, "(play m.1 3)");
                            assert_eq!(status, "400", "{body}");
                            assert!(body.starts_with("the moves are nil or a list"), "{body}");
                            refused.fetch_add(1, Ordering::SeqCst);
                        }
                        _ => hostile_visit(&address, c * REQUESTS + k),
                    }
                }
            })
        })
        .collect();
    for c in clients {
        c.join().expect("a client's answers were right");
    }
    let quarter = CLIENTS * REQUESTS / 4;
    assert_eq!(answered.load(Ordering::SeqCst), 2 * quarter);
    assert_eq!(refused.load(Ordering::SeqCst), quarter);
    assert_eq!(post(&address, "(info)").1, AVAILABLE);
    let info = "INFO -> ((name gdl) (status available))";
    let log = player.wait_for_count(info, 2 * quarter + 1);
    assert!(!log.contains("panicked"), "{log}");
    assert_eq!(log.matches(info).count(), 2 * quarter + 1, "{log}");
}

/// Posts `body` as a slow but honest client does: the headers, then the
/// body in three pieces 20 ms apart (well within the read timeout); the
/// reply.
#[cfg(unix)]
fn in_pieces(address: &str, body: &str) -> String {
    let mut s = TcpStream::connect(address).expect("the player listens");
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let head = format!("POST / HTTP/1.0\r\nContent-Length: {}\r\n\r\n", body.len());
    s.write_all(head.as_bytes()).unwrap();
    let third = body.len() / 3;
    for piece in [&body[..third], &body[third..2 * third], &body[2 * third..]] {
        std::thread::sleep(Duration::from_millis(20));
        s.write_all(piece.as_bytes()).unwrap();
    }
    let mut reply = Vec::new();
    let _ = s.read_to_end(&mut reply);
    String::from_utf8_lossy(&reply).into_owned()
}

/// The player's request parsing under seeded random inputs, in `cargo
/// test` (the fuzz target `player_request` needs nightly): 2,000 inputs
/// made from the checked-in seeds by flipping, inserting, deleting and
/// splicing bytes, and 2,000 messages built from the protocol's words,
/// each served by the server's own code for a connection
/// (`gdl_cli::fuzz::player_request`: a panic, a hang or a reply that is
/// not HTTP fails). And a property: every message a manager writes reads
/// back as itself.
#[test]
fn seeded_random_requests_are_served_without_a_panic() {
    use gdl_cli::protocol::{Request, Start, read_request};
    use rand::{Rng, SeedableRng};
    let mut rng = rand_pcg::Pcg64::seed_from_u64(34);
    let dir = crate::common::root().join("fuzz/corpus-player_request");
    let mut seeds: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .expect("fuzz/corpus-player_request is checked in")
        .map(|e| std::fs::read(e.unwrap().path()).unwrap())
        .collect();
    seeds.sort();
    for _ in 0..2000 {
        let mut data = seeds[rng.gen_range(0..seeds.len())].clone();
        for _ in 0..rng.gen_range(1..6) {
            let at = rng.gen_range(0..=data.len());
            match rng.gen_range(0..4) {
                0 if at < data.len() => data[at] ^= 1 << rng.gen_range(0..8),
                1 => data.insert(at, rng.r#gen()),
                2 if at < data.len() => {
                    data.remove(at);
                }
                _ => {
                    let other = &seeds[rng.gen_range(0..seeds.len())];
                    let from = rng.gen_range(0..=other.len());
                    data.splice(at..at, other[from..].iter().copied().take(64));
                }
            }
        }
        gdl_cli::fuzz::player_request(&data);
    }
    let words = [
        "(",
        ")",
        "(",
        ")",
        "info",
        "play",
        "start",
        "stop",
        "abort",
        "preview",
        "nil",
        "NIL",
        "m.1",
        "xplayer",
        "(mark 1 1)",
        "noop",
        "10",
        "-1",
        "0",
        "1e999",
        "0.5",
        "(role x)",
        "?x",
        "<=",
        "\"",
        ";",
        "\n",
        " ",
        "\u{e9}",
        "\0",
    ];
    for _ in 0..2000 {
        let n = rng.gen_range(0..12);
        let text: String = (0..n)
            .map(|_| words[rng.gen_range(0..words.len())])
            .collect::<Vec<_>>()
            .join(" ");
        // The parser alone, then through the server.
        let _ = read_request(&text);
        let request = format!(
            "POST / HTTP/1.0\r\nContent-Length: {}\r\n\r\n{text}",
            text.len()
        );
        gdl_cli::fuzz::player_request(request.as_bytes());
    }
    for k in 0..500u64 {
        let id = format!("m.{k}");
        let moves = match k % 3 {
            0 => None,
            _ => Some(vec![
                format!("(mark {} {})", k % 3 + 1, k % 5),
                "noop".to_string(),
            ]),
        };
        let request = match k % 5 {
            0 => Request::Info,
            1 => Request::Play { id, moves },
            2 => Request::Stop { id, moves },
            3 => Request::Abort { id },
            _ => Request::Start(Start {
                id,
                role: "xplayer".into(),
                rules: "(role xplayer)\n(init (cell 1 1 b))\n".into(),
                start_clock: Duration::from_secs(1 + k % 60),
                play_clock: Duration::from_secs(1 + k % 7),
            }),
        };
        let text = request.to_kif();
        let back = read_request(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(back.to_kif(), text);
    }
}
