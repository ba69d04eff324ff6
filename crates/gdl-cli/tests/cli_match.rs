//! `gdl match`: built-in players alone (a seed gives one series), and
//! players over HTTP on 127.0.0.1: `gdl player`, one that cannot be
//! reached, and one that answers late and then illegally.

use crate::common::{expect, gdl_in, gdl_player, root, scratch};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A scratch folder holding a copy of `rules/tictactoe.gdl`.
fn with_tictactoe(test: &str) -> PathBuf {
    let dir = scratch(test);
    std::fs::copy(
        root().join("rules/tictactoe.gdl"),
        dir.join("tictactoe.gdl"),
    )
    .unwrap();
    dir
}

#[test]
fn built_in_players_play_a_series_that_replay_and_test_read() {
    let dir = with_tictactoe("match_built_in");
    let args = [
        "match",
        "tictactoe.gdl",
        "--players",
        "ai:300",
        "random",
        "--matches",
        "3",
        "--seed",
        "5",
        "--play-clock",
        "600",
    ];
    let run = expect(&dir, &args, 0);
    assert_eq!(run.stderr, "");
    // x, the search player, never loses to random play.
    for line in run.stdout.lines().filter(|l| l.starts_with("match ")) {
        assert!(
            line.contains("goals xplayer 100, oplayer 0")
                || line.contains("goals xplayer 50, oplayer 50"),
            "{line}"
        );
    }
    insta::assert_snapshot!(run.stdout);
    // A seed gives one series.
    let mut again = args.to_vec();
    again.push("--force");
    assert_eq!(expect(&dir, &again, 0).stdout, run.stdout);
    // The records are games `gdl replay` checks and `gdl test` passes.
    let replay = expect(
        &dir,
        &["replay", "tictactoe.gdl", "tictactoe.games/match-6.json"],
        0,
    );
    assert!(
        replay.stdout.contains("goals: xplayer "),
        "{}",
        replay.stdout
    );
    let test = expect(&dir, &["test"], 0);
    assert!(
        test.stdout.ends_with("3 passed, 0 failed\n"),
        "{}",
        test.stdout
    );
    // Without --force, a series recorded is not written over.
    let refused = expect(&dir, &args, 2);
    assert!(
        refused
            .stderr
            .contains("tictactoe.games/match-5.json is already recorded; --force writes over it"),
        "{}",
        refused.stderr
    );
}

#[test]
fn bad_player_lists_are_refused() {
    let dir = with_tictactoe("match_usage");
    for (players, error) in [
        (
            &["random"][..],
            "--players: 1 players for 2 roles; give one per role, in role order: xplayer oplayer",
        ),
        (
            &["random", "smart"],
            "`smart`: expected random, ai, ai:N (iterations), ai:Ts (seconds) or http://HOST:PORT",
        ),
        (
            &["random", "ai:0"],
            "`0`: expected a positive number of iterations",
        ),
        (
            &["random", "ai:-1s"],
            "`-1s`: expected a positive number of seconds",
        ),
        (&["random", "http://localhost"], "expected http://HOST:PORT"),
        (
            &["ai:9s", "random"],
            "--players ai:9s: thinks longer than the play clock (5 s)",
        ),
    ] {
        let mut args = vec!["match", "tictactoe.gdl", "--players"];
        args.extend_from_slice(players);
        let run = gdl_in(&dir, &args, "");
        assert_eq!(run.code, 2, "{players:?}: {}", run.screen());
        assert!(run.stderr.contains(error), "{players:?}: {}", run.stderr);
    }
    assert!(!dir.join("tictactoe.games").exists());
}

#[test]
fn against_gdl_player_over_http() {
    let dir = with_tictactoe("match_http");
    let (player, address) = gdl_player(&["--margin", "0.75"]);
    let url = format!("http://{address}");
    let run = expect(
        &dir,
        &[
            "match",
            "tictactoe.gdl",
            "--players",
            &url,
            "random",
            "--start-clock",
            "1",
            "--play-clock",
            "1",
            "--out",
            "played",
        ],
        0,
    );
    // No incident: every move in time and legal; x never loses.
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", run.stdout);
    assert!(
        lines[0].starts_with("match 1 (seed 0): ")
            && lines[0].ends_with("recorded in played/match-0.json"),
        "{}",
        run.stdout
    );
    assert!(!lines[0].contains("goals xplayer 0"), "{}", run.stdout);
    assert!(lines[1].starts_with(&format!(
        "mean goals over 1 finished matches: xplayer ({url}) "
    )));
    // The last line the match made the player write.
    let log = player.wait_for("-> done (goals xplayer ");
    assert!(
        log.contains(" as xplayer (clocks 1 s, 1 s) -> ready ("),
        "{log}"
    );
    assert!(log.contains(" nil -> (mark "), "{log}");
    assert!(log.contains("-> done (goals xplayer "), "{log}");
    expect(&dir, &["replay", "tictactoe.gdl", "played/match-0.json"], 0);
}

/// `gdl match` of tic-tac-toe, x played at random, o by the player at
/// `url`, 1 s a move.
fn random_against(dir: &Path, url: &str, more: &[&str]) -> crate::common::Run {
    let mut args = vec!["match", "tictactoe.gdl", "--players", "random", url];
    args.extend_from_slice(&["--play-clock", "1"]);
    args.extend_from_slice(more);
    expect(dir, &args, 0)
}

/// A player that never answers makes the match an error (it used to be
/// played with random moves for it, and the command said success): the
/// match stops after START, nothing is recorded, and the command fails
/// naming the player.
#[test]
fn a_player_that_cannot_be_reached_makes_the_match_an_error() {
    let dir = with_tictactoe("match_unreachable");
    // A port that was free a moment ago: nobody listens there.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}");
    let args = [
        "match",
        "tictactoe.gdl",
        "--players",
        "random",
        &url,
        "--play-clock",
        "1",
    ];
    let run = expect(&dir, &args, 2);
    assert_eq!(
        run.stdout.lines().next(),
        Some("match 1 (seed 0): 0 steps, stopped; nothing recorded"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains(&format!("  start: oplayer ({url}): cannot reach it: ")),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.starts_with(&format!(
            "error: match 1: oplayer ({url}) never answered: cannot reach it: "
        )),
        "{}",
        run.stderr
    );
    assert!(!dir.join("tictactoe.games/match-0.json").exists());
    // The same in JSON: the match, its error, and the exit status.
    let mut json = args.to_vec();
    json.extend_from_slice(&["--format", "json"]);
    let run = expect(&dir, &json, 2);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["finished"], 0);
    let error = v["matches"][0]["error"].as_str().unwrap();
    assert!(error.contains("never answered"), "{error}");
    assert_eq!(v["matches"][0]["record"], serde_json::Value::Null);
}

/// `--rotate` moves the players one seat on from match to match, and the
/// means are by player; `--format json` says the same for programs.
#[test]
fn seats_rotate_and_the_summary_comes_in_json() {
    let dir = with_tictactoe("match_rotate");
    let args = [
        "match",
        "tictactoe.gdl",
        "--players",
        "ai:200",
        "random",
        "--matches",
        "4",
        "--rotate",
        "--play-clock",
        "600",
        "--format",
        "json",
    ];
    let run = expect(&dir, &args, 0);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let matches = v["matches"].as_array().unwrap();
    assert_eq!(matches.len(), 4);
    for (i, m) in matches.iter().enumerate() {
        let seats: Vec<&str> = (m["players"].as_array().unwrap().iter())
            .map(|p| p["spec"].as_str().unwrap())
            .collect();
        let expected = if i % 2 == 0 {
            ["ai:200", "random"]
        } else {
            ["random", "ai:200"]
        };
        assert_eq!(seats, expected, "match {i}");
        assert_eq!(m["terminal"], true);
        assert_eq!(m["error"], serde_json::Value::Null);
        assert_eq!(m["record"], format!("tictactoe.games/match-{i}.json"));
        // The search player never loses to random play, in either seat.
        let ai_role = if i % 2 == 0 { "xplayer" } else { "oplayer" };
        assert!(m["goals"][ai_role].as_u64().unwrap() >= 50, "{m}");
    }
    assert_eq!(v["finished"], 4);
    assert_eq!(v["rotated"], true);
    assert_eq!(v["mean_goals"][0]["spec"], "ai:200");
    assert!(v["mean_goals"][0]["mean"].as_f64().unwrap() >= 50.0);
    // In text, each match names its seats and the means are by player.
    let mut text = args[..args.len() - 2].to_vec();
    text.push("--force");
    let run = expect(&dir, &text, 0);
    assert!(
        run.stdout
            .starts_with("match 1 (seed 0) [xplayer (ai:200), oplayer (random)]: "),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("match 2 (seed 1) [xplayer (random), oplayer (ai:200)]: "),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("mean goals over 4 finished matches, seats rotated: ai:200 (player 1) "),
        "{}",
        run.stdout
    );
}

/// A player over HTTP that answers START `ready`, its first PLAY after
/// `late`, and every PLAY with a move tic-tac-toe does not have; the
/// messages it was sent.
fn bad_player(late: Duration) -> (String, std::sync::mpsc::Receiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let (sent, messages) = std::sync::mpsc::channel();
    let plays = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { break };
            let (sent, plays) = (sent.clone(), std::sync::Arc::clone(&plays));
            std::thread::spawn(move || answer(stream, late, &sent, &plays));
        }
    });
    (address, messages)
}

/// How `bad_player` answers one request.
fn answer(
    mut stream: std::net::TcpStream,
    late: Duration,
    sent: &std::sync::mpsc::Sender<String>,
    plays: &std::sync::atomic::AtomicUsize,
) {
    let mut request = Vec::new();
    let mut buffer = [0u8; 65536];
    // Headers and a body of Content-Length bytes.
    while let Ok(n) = stream.read(&mut buffer) {
        request.extend_from_slice(&buffer[..n]);
        let text = String::from_utf8_lossy(&request).into_owned();
        if n == 0 {
            break;
        }
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length = (head.lines())
                .find_map(|l| l.strip_prefix("Content-Length: "))
                .and_then(|n| n.trim().parse::<usize>().ok())
                .unwrap_or(0);
            if body.len() >= length {
                break;
            }
        }
    }
    let text = String::from_utf8_lossy(&request).into_owned();
    let body = text
        .split_once("\r\n\r\n")
        .map_or("", |(_, b)| b)
        .to_string();
    let _ = sent.send(body.clone());
    let reply = if body.starts_with("(start") {
        "ready"
    } else if body.starts_with("(play") {
        if plays.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0 {
            std::thread::sleep(late);
        }
        "(mark 4 4)"
    } else {
        "done"
    };
    let _ = stream.write_all(
        format!(
            "HTTP/1.0 200 OK\r\nContent-Length: {}\r\n\r\n{reply}",
            reply.len()
        )
        .as_bytes(),
    );
}

#[test]
fn late_and_illegal_moves_are_replaced_and_reported() {
    let dir = with_tictactoe("match_bad_player");
    let (address, messages) = bad_player(Duration::from_secs(4));
    let url = format!("http://{address}");
    let run = random_against(&dir, &url, &["--seed", "3"]);
    let incidents: Vec<&str> = run.stdout.lines().filter(|l| l.starts_with("  ")).collect();
    assert!(
        incidents[0].starts_with(&format!(
            "  step 0: oplayer ({url}): no reply in time; played noop at random"
        )),
        "{}",
        run.stdout
    );
    assert!(
        incidents[1..]
            .iter()
            .all(|l| l.contains("played (mark 4 4), not legal; played ")),
        "{}",
        run.stdout
    );
    let messages: Vec<String> = messages.try_iter().collect();
    assert!(messages[0].starts_with("(start gdl."), "{messages:?}");
    assert!(
        messages[0].contains(" oplayer ((role xplayer) (role oplayer) "),
        "{messages:?}"
    );
    assert!(messages[0].ends_with(") 10 1)"), "{messages:?}");
    assert!(messages[1].ends_with(" nil)"), "{messages:?}");
    assert!(
        messages.last().unwrap().starts_with("(stop gdl."),
        "{messages:?}"
    );
    let record = dir.join("tictactoe.games/match-3.json");
    assert!(Path::new(&record).exists());
}
