//! `gdl player` against ggp-base's own game server and random player
//! (`../shared/peers` from the repository's root, see its README): whole
//! matches of tic-tac-toe, connect four and breakthrough, each record
//! checked by `gdl replay` (every state and move) and by its goals. Runs
//! when `java` and the peers are there, and says that it skipped
//! otherwise. Small clocks (1 s a move, the search 0.25 s of it), so that
//! it takes some seconds.

use crate::common::{Process, counts, expect, gdl_player, root};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

/// ggp-base's scripts, if they and `java` are there.
fn peers() -> Option<PathBuf> {
    let peers = root().join("../shared/peers");
    let java = Command::new("java")
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success());
    (java && peers.join("ggp-match").exists() && peers.join("ggp-random-player").exists())
        .then_some(peers)
}

/// A port free a moment ago on 127.0.0.1.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Waits (at most 60 seconds) until something listens at `address`.
fn wait_listening(address: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while TcpStream::connect(address).is_err() {
        assert!(
            Instant::now() < deadline,
            "nothing listens at {address} after 60 s"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Runs ggp-base's game server on one match, killed after `limit`.
fn ggp_match(peers: &std::path::Path, rules: &str, out: &std::path::Path, players: [&str; 2]) {
    let mut child = Command::new(peers.join("ggp-match"))
        .args([&root().join(rules).display().to_string(), "2", "1"])
        .arg(out)
        .args(players)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("ggp-match starts");
    let deadline = Instant::now() + Duration::from_secs(240);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "ggp-match on {rules}: {status}");
            return;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("ggp-match on {rules} did not end in 240 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn whole_matches_against_ggp_base() {
    let Some(peers) = peers() else {
        eprintln!("skipped: needs java and ../shared/peers (ggp-base's game server)");
        return;
    };
    let dir = crate::common::scratch("ggp_matches");
    let (player, gdl) = gdl_player(&["--margin", "0.75"]);
    let random = format!("127.0.0.1:{}", free_port());
    let port = random.rsplit(':').next().unwrap().to_string();
    let _random_player = Process::start(&peers.join("ggp-random-player"), &[&port], &root());
    wait_listening(&random);
    // gdl in the first seat, then the second, then the first.
    for (rules, gdl_seat) in [
        ("rules/tictactoe.gdl", 0),
        ("rules/connect_four.gdl", 1),
        ("rules/breakthrough.gdl", 0),
    ] {
        let out = dir.join(format!(
            "{gdl_seat}.{}.json",
            rules.trim_start_matches("rules/")
        ));
        let players = if gdl_seat == 0 {
            [&*gdl, &*random]
        } else {
            [&*random, &*gdl]
        };
        ggp_match(&peers, rules, &out, players);
        let text = std::fs::read_to_string(&out).unwrap();
        let record: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(record["isCompleted"], true, "{rules}: {text}");
        // Every answer of gdl's was in time and legal: no error recorded.
        for (step, errors) in record["errors"].as_array().unwrap().iter().enumerate() {
            assert_eq!(errors[gdl_seat], "", "{rules}, step {step}: {text}");
        }
        let goals: Vec<u64> = (record["goalValues"].as_array().unwrap().iter())
            .map(|g| g.as_u64().unwrap())
            .collect();
        // gdl never loses to random play; it wins connect four and
        // breakthrough (it won all of 100 games per seat at 1,000
        // iterations a move, and searches far more here).
        let (mine, theirs) = (goals[gdl_seat], goals[1 - gdl_seat]);
        if rules.contains("tictactoe") {
            assert!(mine >= 50, "{rules}: goals {goals:?}");
        } else {
            assert!(mine > theirs, "{rules}: goals {goals:?}");
        }
        // The record, state by state and move by move, is what gdl's
        // rules give.
        let replay = expect(&root(), &["replay", rules, &out.display().to_string()], 0);
        assert!(replay.stdout.contains("goals: "), "{}", replay.stdout);
        eprintln!("{rules}: gdl in seat {gdl_seat}, goals {goals:?}");
    }
    let log = player.stderr();
    assert_eq!(log.matches("-> ready (").count(), 3, "{log}");
    // It searched through every start clock.
    let start = counts(&log, "-> ready (", " iterations before the first move");
    assert!(
        start.len() == 3 && start.iter().all(|&n| n > 0),
        "{start:?}\n{log}"
    );
    assert_eq!(log.matches("-> done (goals ").count(), 3, "{log}");
    assert!(
        !log.contains("cannot") && !log.contains("random legal"),
        "{log}"
    );
}

/// Issue 33 item 4 under ggp-base's game server: two `gdl player`s play
/// tic-tac-toe, and each thinks through the start clock, answers its
/// forced `noop` at once, thinks on while the other searches (iterations
/// between messages, counted at its next turn) and keeps the subtree the
/// moves lead to (nodes kept). The other's search is a quarter of a
/// second of a ground game of some 100,000 iterations a second: the
/// assertions ask for one iteration.
#[test]
fn gdl_against_itself_under_ggp_base_thinks_on_every_clock() {
    let Some(peers) = peers() else {
        eprintln!("skipped: needs java and ../shared/peers (ggp-base's game server)");
        return;
    };
    let dir = crate::common::scratch("ggp_thinks");
    let (x, x_address) = gdl_player(&["--margin", "0.75", "--seed", "1"]);
    let (o, o_address) = gdl_player(&["--margin", "0.75", "--seed", "2"]);
    let out = dir.join("ttt.json");
    ggp_match(
        &peers,
        "rules/tictactoe.gdl",
        &out,
        [&*x_address, &*o_address],
    );
    let text = std::fs::read_to_string(&out).unwrap();
    let record: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(record["isCompleted"], true, "{text}");
    for (seat, (player, role)) in [(&x, "xplayer"), (&o, "oplayer")].into_iter().enumerate() {
        for (step, errors) in record["errors"].as_array().unwrap().iter().enumerate() {
            assert_eq!(errors[seat], "", "{role}, step {step}: {text}");
        }
        let log = player.wait_for("-> done (goals ");
        let start = counts(&log, "-> ready (", " iterations before the first move");
        assert!(start.len() == 1 && start[0] > 0, "{role}: {start:?}\n{log}");
        assert!(log.contains("-> noop (its only legal move; "), "{log}");
        let between = counts(&log, " nodes kept; ", " iterations between messages");
        assert!(between.iter().any(|&n| n > 0), "{role}: {between:?}\n{log}");
        let kept = counts(&log, "PLAY ", " nodes kept");
        assert!(kept.iter().any(|&n| n > 0), "{role}: {kept:?}\n{log}");
        eprintln!("{role}: {start:?} iterations in the start clock, {between:?} between messages");
    }
}
