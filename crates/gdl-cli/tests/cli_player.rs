//! `gdl player` through real HTTP on 127.0.0.1: the binary on a free port,
//! spoken to as a game manager speaks to it, killed at the end of each
//! test (even a failed one).

use crate::common::{counts, gdl_player, http_raw, post, root};

const OK: &str = "200";

/// The START of a tic-tac-toe match `id` as `role`: the rules file as it
/// is, comments and all, inside the message.
fn start_tictactoe(id: &str, role: &str, clocks: &str) -> String {
    let rules = std::fs::read_to_string(root().join("rules/tictactoe.gdl")).unwrap();
    format!("(START {id} {role} (\n{rules}\n) {clocks})")
}

#[test]
fn a_whole_match_of_tictactoe() {
    let (player, address) = gdl_player(&["--margin", "0.75"]);
    assert_eq!(
        post(&address, "(INFO)"),
        (OK.into(), "((name gdl) (status available))".into())
    );
    let start = start_tictactoe("m.1", "xplayer", "2 1");
    assert_eq!(post(&address, &start), (OK.into(), "ready".into()));
    assert_eq!(
        post(&address, "(info)").1,
        "((name gdl) (status busy))",
        "in a match"
    );
    // Another match while in this one.
    assert_eq!(
        post(&address, &start_tictactoe("m.2", "oplayer", "2 1")).1,
        "busy"
    );
    let first = post(&address, "(PLAY m.1 NIL)").1;
    assert!(first.starts_with("(mark "), "{first}");
    // o's turn: x's only legal move.
    let second = post(&address, &format!("(play m.1 ({first} noop))")).1;
    assert_eq!(second, "noop");
    // The corner o takes is free whatever x took first, unless x took it.
    let corner = if first == "(mark 1 1)" {
        "(mark 3 3)"
    } else {
        "(mark 1 1)"
    };
    let third = post(&address, &format!("(play m.1 (noop {corner}))")).1;
    assert!(
        third.starts_with("(mark ") && third != first && third != corner,
        "{third}"
    );
    assert_eq!(post(&address, "(play m.9 nil)").1, "busy", "not its match");
    assert_eq!(
        post(&address, &format!("(stop m.1 ({third} noop))")).1,
        "done"
    );
    assert_eq!(
        post(&address, "(info)").1,
        "((name gdl) (status available))"
    );
    // The player logs a message after answering it: the last line may come
    // a moment after its answer.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let mut log = player.stderr();
    while log.lines().count() < 11 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
        log = player.stderr();
    }
    for line in [
        "INFO -> ((name gdl) (status available))",
        "START m.1 as xplayer (clocks 2 s, 1 s) -> ready (2 roles, ground rules",
        "START m.2 as oplayer (clocks 2 s, 1 s) -> busy (in another match)",
        &format!("PLAY m.1 nil -> {first} ("),
        &format!("PLAY m.1 ({first} noop) -> noop (its only legal move; "),
        "PLAY m.9 nil -> busy (not in match m.9: in match m.1)",
        &format!("STOP m.1 ({third} noop) -> done ("),
    ] {
        assert!(log.contains(line), "`{line}` in the log:\n{log}");
    }
    // One line per message, after the line that names the address.
    assert_eq!(log.lines().count(), 11, "{log}");
}

#[test]
fn a_game_it_cannot_load_is_answered_and_logged() {
    let (player, address) = gdl_player(&[]);
    // A look at a game before a match: it loads.
    let rules = std::fs::read_to_string(root().join("rules/tictactoe.gdl")).unwrap();
    assert_eq!(
        post(&address, &format!("(preview ({rules}\n) 2)")).1,
        "ready"
    );
    // `?y` is unsafe: the rules are not valid GDL.
    let bad = "(start m.bad robot ((role robot) (init (p 1)) \
               (<= (legal robot (go ?y)) (true (p 1))) (<= terminal (true (p 2))) \
               (<= (goal robot 100) (true (p 2))) (<= (next (p 2)) (does robot ?m))) 2 1)";
    assert_eq!(post(&address, bad).1, "ready");
    assert_eq!(post(&address, "(play m.bad nil)").1, "noop");
    assert_eq!(post(&address, "(abort m.bad)").1, "done");
    // A role the game does not have.
    assert_eq!(
        post(&address, &start_tictactoe("m.who", "nobody", "2 1")).1,
        "ready"
    );
    assert_eq!(post(&address, "(play m.who nil)").1, "noop");
    assert_eq!(post(&address, "(abort m.who)").1, "done");
    // The player logs a message before answering it, but the test reads
    // its standard error on a thread of its own: wait for each line.
    for line in [
        "PREVIEW (2 s) -> ready (the rules load: 2 roles, ground rules, loaded in ",
        "START m.bad as robot (clocks 2 s, 1 s) -> ready (cannot load the rules: the rules of m.bad:3:",
        "PLAY m.bad nil -> noop (cannot load the rules: ",
        "ABORT m.bad -> done (the match is dropped)",
        "START m.who as nobody (clocks 2 s, 1 s) -> ready (nobody is not a role of the game (xplayer oplayer))",
    ] {
        player.wait_for(line);
    }
    assert!(player.stderr().contains("unsafe"));
}

#[test]
fn a_manager_that_sends_moves_the_rules_do_not_allow_is_answered() {
    let (player, address) = gdl_player(&["--margin", "0.75"]);
    post(&address, &start_tictactoe("m.x", "oplayer", "2 1"));
    assert_eq!(post(&address, "(play m.x nil)").1, "noop");
    // x cannot mark a cell twice over: the player cannot follow.
    assert_eq!(post(&address, "(play m.x ((mark 4 4) noop))").1, "noop");
    assert_eq!(post(&address, "(stop m.x ((mark 1 1) noop))").1, "done");
    player.wait_for("PLAY m.x ((mark 4 4) noop) -> noop (cannot follow the moves: ");
}

#[test]
fn garbage_gets_an_error_and_the_player_goes_on() {
    let (player, address) = gdl_player(&[]);
    for (body, error) in [
        ("hello", "a message is a list, such as (info)"),
        ("(dance)", "unknown message `dance`"),
        ("((", "not KIF: unclosed `(`"),
        (
            "(start m r ((role r)) soon 1)",
            "the start clock is a positive number",
        ),
        ("(play m)", "play takes 2 arguments: (play ID MOVES)"),
        ("(info) (info)", "2 terms where one message was expected"),
    ] {
        let (status, reply) = post(&address, body);
        assert_eq!(status, "400", "{body}");
        assert!(reply.starts_with(error), "{body}: {reply}");
    }
    // Not UTF-8, then not a method of the protocol.
    let mut binary = b"POST / HTTP/1.0\r\nContent-Length: 4\r\n\r\n".to_vec();
    binary.extend_from_slice(&[0xff, 0xfe, 0x00, 0x28]);
    assert!(http_raw(&address, &binary).contains("the message is not UTF-8 text"));
    let put = http_raw(&address, b"PUT / HTTP/1.0\r\nContent-Length: 0\r\n\r\n");
    assert!(put.contains("PUT is not a method of the protocol"), "{put}");
    // A half request, the connection closed: nothing to answer.
    drop(std::net::TcpStream::connect(&address).unwrap());
    // A browser: OPTIONS first, then the message in the URL.
    let options = http_raw(&address, b"OPTIONS / HTTP/1.0\r\n\r\n");
    assert!(
        options.starts_with("HTTP/1.0 200 OK")
            && options.contains("Access-Control-Allow-Origin: *")
    );
    let get = http_raw(&address, b"GET /(info) HTTP/1.0\r\n\r\n");
    assert!(get.ends_with("((name gdl) (status available))"), "{get}");
    // Still serving.
    assert_eq!(
        post(&address, "(info)").1,
        "((name gdl) (status available))"
    );
    let log = player.wait_for("a bad message from 127.0.0.1:");
    assert!(log.contains("-> error 400: "), "{log}");
}

/// Issue 33 item 4: the player thinks on every clock. Two `gdl player`s
/// play tic-tac-toe under `gdl match` (the repository's own manager):
/// each searches through the start clock (iterations before the first
/// move), answers its forced `noop` at once and thinks on while the other
/// searches its move (iterations between messages, counted at its next
/// turn), and keeps the subtree the moves played lead to (nodes kept).
/// No clock is raced: the start clock and the other's search are seconds
/// of a ground game of some 100,000 iterations a second, and the
/// assertions ask for one iteration.
#[test]
fn the_player_thinks_through_the_start_clock_and_the_opponents_turn() {
    let dir = crate::common::scratch("player_thinks");
    std::fs::copy(root().join("rules/tictactoe.gdl"), dir.join("ttt.gdl")).unwrap();
    let (x, x_address) = gdl_player(&["--margin", "0.5", "--seed", "1"]);
    let (o, o_address) = gdl_player(&["--margin", "0.5", "--seed", "2"]);
    let run = crate::common::expect(
        &dir,
        &[
            "match",
            "ttt.gdl",
            "--players",
            &format!("http://{x_address}"),
            &format!("http://{o_address}"),
            "--start-clock",
            "2",
            "--play-clock",
            "1",
        ],
        0,
    );
    // Every move in time and legal.
    assert_eq!(run.stdout.lines().count(), 2, "{}", run.stdout);
    for (player, role) in [(&x, "xplayer"), (&o, "oplayer")] {
        let log = player.wait_for("-> done (goals ");
        assert!(log.contains(&format!(
            " as {role} (clocks 2 s, 1 s) -> ready (2 roles, ground rules"
        )));
        let start = counts(&log, "-> ready (", " iterations before the first move");
        assert!(start.len() == 1 && start[0] > 0, "{role}: {start:?}\n{log}");
        // Its forced turns, answered at once.
        assert!(log.contains("-> noop (its only legal move; "), "{log}");
        // Its own turns after a forced one: the other's search time spent
        // thinking, and the tree kept from it.
        let mine = "iterations between messages";
        let between = counts(&log, " nodes kept; ", mine);
        assert!(between.iter().any(|&n| n > 0), "{role}: {between:?}\n{log}");
        let kept = counts(&log, "PLAY ", " nodes kept");
        assert!(kept.iter().any(|&n| n > 0), "{role}: {kept:?}\n{log}");
        // A turn whose search did not end by its deadline (a busy machine)
        // is answered with a legal move drawn at random, by design: not
        // asserted against, as that would race the clock.
    }
}
