//! `gdl studio`'s HTTP API, through the real binary: the server started on
//! a free port of 127.0.0.1, its address read from what it prints (never a
//! sleep), then requests as the page makes them, and the requests no page
//! of ours makes: without the token, from another host or site, with
//! bodies of the wrong shape.

use crate::common::{DOUBLE_STEP, append, copy_of_the_records, root, scratch};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A studio a test started, ended with the test (its `Drop`).
struct Studio {
    child: Child,
    /// `127.0.0.1:PORT`.
    address: String,
    token: String,
}

impl Drop for Studio {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A reply: its status and body, read as JSON when it is.
struct Reply {
    status: u16,
    head: String,
    body: String,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("JSON ({e}), not: {}", self.body))
    }

    /// The message of an error reply.
    fn error(&self) -> String {
        self.json()["error"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }
}

impl Studio {
    /// `gdl studio FILE` on a free port (`--port 0`), run in `dir`, ended
    /// at the latest after 5 minutes (`--timeout`).
    fn start(dir: &Path, file: &str) -> Studio {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gdl"))
            .args(["studio", file, "--port", "0", "--timeout", "300"])
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("gdl studio starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("piped"))
            .read_line(&mut line)
            .expect("the studio prints its address");
        let url = line
            .split_whitespace()
            .find_map(|w| w.strip_prefix("http://"))
            .unwrap_or_else(|| panic!("an address in {line:?}"));
        let (address, token) = url.split_once("/?token=").expect("a token");
        Studio {
            child,
            address: address.to_string(),
            token: token.to_string(),
        }
    }

    /// Sends a request with the given head lines (the Host of the
    /// server's own unless one is given) and body.
    fn raw(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Reply {
        let mut stream = std::net::TcpStream::connect(&self.address).expect("the studio listens");
        let limit = Some(Duration::from_secs(120));
        stream.set_read_timeout(limit).unwrap();
        let mut request = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
        if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
            request.push_str(&format!("Host: {}\r\n", self.address));
        }
        for (k, v) in headers {
            request.push_str(&format!("{k}: {v}\r\n"));
        }
        request.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
        stream.write_all(request.as_bytes()).unwrap();
        let mut reply = Vec::new();
        stream.read_to_end(&mut reply).unwrap();
        let reply = String::from_utf8_lossy(&reply).into_owned();
        let (head, body) = reply.split_once("\r\n\r\n").expect("an HTTP reply");
        let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
        Reply {
            status,
            head: head.to_string(),
            body: body.to_string(),
        }
    }

    /// A GET of the API with the token.
    fn get(&self, route: &str) -> Reply {
        self.raw(
            "GET",
            &format!("/api/{route}"),
            &[("X-Gdl-Token", &self.token)],
            "",
        )
    }

    /// A POST of the API with the token and a JSON body.
    fn post(&self, route: &str, body: &Value) -> Reply {
        self.raw(
            "POST",
            &format!("/api/{route}"),
            &[
                ("X-Gdl-Token", &self.token),
                ("Content-Type", "application/json"),
            ],
            &body.to_string(),
        )
    }

    /// A POST that must succeed: its JSON.
    fn ok(&self, route: &str, body: &Value) -> Value {
        let reply = self.post(route, body);
        assert_eq!(reply.status, 200, "{route}: {}", reply.body);
        reply.json()
    }
}

/// The piece on a cell of a view's board (`None`: empty).
fn piece(view: &Value, file: &str, rank: &str) -> Option<String> {
    let board = &view["board"];
    let x = board["files"].as_array()?.iter().position(|f| f == file)?;
    let y = board["ranks"].as_array()?.iter().position(|r| r == rank)?;
    let square = &board["rows"][y][x];
    square["content"].as_str().map(str::to_string)
}

#[test]
fn the_page_is_served_and_the_api_needs_the_token_and_the_servers_own_host() {
    let studio = Studio::start(&root(), "rules/tictactoe.gdl");
    assert_eq!(studio.token.len(), 32);
    // The page and its script need no token: they hold nothing of the run.
    let page = studio.raw("GET", "/", &[], "");
    assert_eq!(page.status, 200);
    assert!(
        page.body.contains("<script src=\"/studio.js\""),
        "{}",
        page.body
    );
    assert!(
        page.head
            .to_ascii_lowercase()
            .contains("content-security-policy")
    );
    let script = studio.raw("GET", "/studio.js", &[], "");
    assert_eq!(script.status, 200);
    assert!(script.body.len() > 10_000);
    assert_eq!(studio.raw("GET", "/nothing", &[], "").status, 404);
    // No token, a wrong one, in the query or the header.
    let none = studio.raw("GET", "/api/state", &[], "");
    assert_eq!(none.status, 403);
    assert!(none.error().contains("needs the token"), "{}", none.body);
    let wrong = studio.raw("POST", "/api/restart", &[("X-Gdl-Token", "0123")], "{}");
    assert_eq!(wrong.status, 403);
    assert!(wrong.error().starts_with("wrong token"), "{}", wrong.body);
    let in_query = format!("/api/state?token={}", studio.token);
    assert_eq!(studio.raw("GET", &in_query, &[], "").status, 200);
    // Another host (DNS rebinding), even with the token.
    let rebound = studio.raw(
        "GET",
        "/api/state",
        &[("Host", "attacker.example"), ("X-Gdl-Token", &studio.token)],
        "",
    );
    assert_eq!(rebound.status, 421);
    assert!(
        rebound.error().contains("is not this server's"),
        "{}",
        rebound.body
    );
    let port = studio.address.rsplit(':').next().unwrap();
    let localhost = format!("localhost:{port}");
    let named = studio.raw(
        "GET",
        "/api/state",
        &[("Host", &localhost), ("X-Gdl-Token", &studio.token)],
        "",
    );
    assert_eq!(named.status, 200);
    // A page of another site posting, even with the token.
    let other_site = studio.raw(
        "POST",
        "/api/restart",
        &[
            ("X-Gdl-Token", &studio.token),
            ("Origin", "http://attacker.example"),
        ],
        "{}",
    );
    assert_eq!(other_site.status, 403);
    assert!(
        other_site.error().contains("another site"),
        "{}",
        other_site.body
    );
    let own_origin = format!("http://{}", studio.address);
    let own = studio.raw(
        "POST",
        "/api/restart",
        &[("X-Gdl-Token", &studio.token), ("Origin", &own_origin)],
        "{}",
    );
    assert_eq!(own.status, 200, "{}", own.body);
}

#[test]
fn bad_requests_get_clear_errors_and_the_server_goes_on() {
    let studio = Studio::start(&root(), "rules/tictactoe.gdl");
    let not_json = studio.raw(
        "POST",
        "/api/play",
        &[("X-Gdl-Token", &studio.token)],
        "{moves",
    );
    assert_eq!(not_json.status, 400);
    assert!(
        not_json
            .error()
            .starts_with("the request's body is not the JSON this route takes"),
        "{}",
        not_json.body
    );
    let wrong_shape = studio.post("goto", &json!({"step": "one"}));
    assert_eq!(wrong_shape.status, 400);
    let unknown_field = studio.post("play", &json!({"move": "(mark 1 1)"}));
    assert_eq!(unknown_field.status, 400);
    assert!(
        unknown_field.error().contains("unknown field"),
        "{}",
        unknown_field.body
    );
    assert_eq!(studio.get("nowhere").status, 404);
    let wrong_method = studio.get("play");
    assert_eq!(wrong_method.status, 405);
    assert!(
        wrong_method.error().contains("takes POST"),
        "{}",
        wrong_method.body
    );
    let no_role = studio.post("play", &json!({"moves": {"nobody": "noop"}}));
    assert_eq!(no_role.status, 400);
    assert!(
        no_role.error().contains("the roles are xplayer oplayer"),
        "{}",
        no_role.body
    );
    let illegal = studio.post("play", &json!({"moves": {"xplayer": "(mark 9 9)"}}));
    assert_eq!(illegal.status, 400);
    assert!(illegal.error().contains("(mark 1 1)"), "{}", illegal.body);
    let unreadable = studio.post("play", &json!({"moves": {"xplayer": "(mark"}}));
    assert_eq!(unreadable.status, 400);
    let missing = studio.post("play", &json!({}));
    assert_eq!(missing.status, 400);
    assert!(
        missing.error().contains("xplayer has 9 legal moves"),
        "{}",
        missing.body
    );
    let far = studio.post("goto", &json!({"step": 5}));
    assert_eq!(far.status, 400);
    let record = studio.post("replay", &json!({"text": "{\"not\": \"a game\"}"}));
    assert_eq!(record.status, 400, "{}", record.body);
    let outside = studio.post("replay", &json!({"game": "../../rules/tictactoe.gdl"}));
    assert_eq!(outside.status, 400, "{}", outside.body);
    let analysis = studio.post("analyse", &json!({"games": 0, "strengths": [10]}));
    assert_eq!(analysis.status, 400);
    assert!(analysis.error().starts_with("games:"), "{}", analysis.body);
    // After all that, the server still answers.
    assert_eq!(studio.get("state").status, 200);
}

#[test]
fn the_checker_speaks_as_gdl_check_and_gdl_lsp() {
    let studio = Studio::start(&root(), "rules/tictactoe.gdl");
    let session = studio.get("session").json();
    assert_eq!(session["file"], "rules/tictactoe.gdl");
    let text = session["text"].as_str().unwrap().to_string();
    let valid = studio.ok("check", &json!({ "text": text }));
    assert_eq!(valid["valid"], true, "{valid}");
    // A typo: `ture` for `true`.
    let typo = text.replacen(
        "(true (control ?r)) (true (cell ?m ?n b))",
        "(ture (control ?r)) (true (cell ?m ?n b))",
        1,
    );
    assert_ne!(typo, text);
    let checked = studio.ok("check", &json!({ "text": typo }));
    assert_eq!(checked["warnings"], 1, "{checked}");
    let first = &checked["diagnostics"][0];
    assert_eq!(first["severity"], "warning");
    assert_eq!(first["code"], "undefined-relation");
    assert_eq!(
        (first["line"].as_u64(), first["column"].as_u64()),
        (Some(39), Some(30))
    );
    assert!(
        first["message"].as_str().unwrap().contains("`ture`"),
        "{first}"
    );
    assert!(
        first["notes"][1]
            .as_str()
            .unwrap()
            .contains("did you mean `true`"),
        "{first}"
    );
    let unbalanced = studio.ok("check", &json!({ "text": "(role x" }));
    assert_eq!(unbalanced["errors"], 1, "{unbalanced}");
}

#[test]
fn a_game_is_played_stepped_back_and_replayed() {
    let studio = Studio::start(&root(), "rules/tictactoe.gdl");
    let view = studio.get("state").json();
    assert_eq!(view["step"], 0);
    assert_eq!(view["to_move"], json!(["xplayer"]));
    assert_eq!(view["legal"][0]["moves"].as_array().unwrap().len(), 9);
    // The cells a move names, for the page's clicks: (mark ROW COLUMN)
    // on a board whose files are the columns.
    assert_eq!(view["legal"][0]["moves"][1]["text"], "(mark 1 2)");
    assert_eq!(view["legal"][0]["moves"][1]["cells"], json!([["2", "1"]]));
    let played = studio.ok("play", &json!({"moves": {"xplayer": "(mark 1 2)"}}));
    assert_eq!(played["step"], 1);
    assert_eq!(piece(&played, "2", "1").as_deref(), Some("x"));
    assert_eq!(played["to_move"], json!(["oplayer"]));
    studio.ok("play", &json!({"moves": {"oplayer": "(mark 2 2)"}}));
    let back = studio.ok("goto", &json!({"step": 1}));
    assert_eq!(
        (back["step"].as_u64(), back["last"].as_u64()),
        (Some(1), Some(2))
    );
    assert_eq!(piece(&back, "2", "2"), None);
    // A move played back in the timeline drops the steps after it.
    let branch = studio.ok("play", &json!({"moves": {"oplayer": "(mark 3 3)"}}));
    assert_eq!(
        (branch["step"].as_u64(), branch["last"].as_u64()),
        (Some(2), Some(2))
    );
    assert_eq!(branch["history"][1], json!(["noop", "(mark 3 3)"]));
    // Against the search player: the page's move, then the machine's.
    studio.ok("restart", &json!({}));
    let seats = studio.ok(
        "seats",
        &json!({"seats": {"oplayer": "search"}, "iterations": 50}),
    );
    assert_eq!(seats["seats"]["oplayer"], "search");
    let answered = studio.ok("play", &json!({"moves": {"xplayer": "(mark 2 2)"}}));
    assert_eq!(answered["step"], 2, "{answered}");
    assert_eq!(answered["to_move"], json!(["xplayer"]));
    // A recorded game of ggp-base, step by step from its start.
    let dir = copy_of_the_records("studio_replay");
    let records = Studio::start(&dir, "tictactoe.kif");
    let replayed = records.ok("replay", &json!({"game": "ggp-match-1.json"}));
    assert!(replayed["replayed"].as_u64().unwrap() >= 5, "{replayed}");
    assert_eq!(replayed["stopped"], Value::Null);
    assert_eq!(replayed["view"]["step"], 0);
    let end = replayed["view"]["last"].as_u64().unwrap();
    let last = records.ok("goto", &json!({ "step": end }));
    assert_eq!(last["terminal"], true, "{last}");
    assert!(last["goals"].is_array());
}

#[test]
fn saving_writes_the_file_whole_and_reloads_the_game() {
    let dir = scratch("studio_save");
    std::fs::copy(root().join("rules/tictactoe.gdl"), dir.join("ttt.gdl")).unwrap();
    let studio = Studio::start(&dir, "ttt.gdl");
    studio.ok("play", &json!({"moves": {"xplayer": "(mark 1 1)"}}));
    let text = studio.get("session").json()["text"]
        .as_str()
        .unwrap()
        .to_string();
    let changed = format!("{text}\n; saved by the studio\n");
    let saved = studio.ok("save", &json!({ "text": changed }));
    assert_eq!(saved["saved"], true);
    assert_eq!(
        std::fs::read_to_string(dir.join("ttt.gdl")).unwrap(),
        changed
    );
    // No temporary file is left beside it.
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["ttt.gdl"]);
    // The game so far is played again under the rules saved.
    assert_eq!(saved["view"]["step"], 1, "{saved}");
    assert_eq!(piece(&saved["view"], "1", "1").as_deref(), Some("x"));
    // Rules that do not load are saved all the same; the game shown stays
    // that of the last rules that loaded, and the view says why.
    let broken = studio.ok("save", &json!({"text": "(role x"}));
    assert_eq!(broken["valid"], false);
    assert!(
        broken["view"]["load_error"]
            .as_str()
            .unwrap()
            .contains("do not load"),
        "{broken}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("ttt.gdl")).unwrap(),
        "(role x"
    );
    let fixed = studio.ok("save", &json!({ "text": text }));
    assert_eq!(fixed["view"]["load_error"], Value::Null);
}

#[test]
fn the_recorded_games_fail_show_their_earliest_difference_and_are_accepted_one_by_one() {
    let dir = copy_of_the_records("studio_tests");
    append(&dir.join("bt6.gdl"), DOUBLE_STEP);
    let studio = Studio::start(&dir, "bt6.gdl");
    let listed = studio.get("tests").json();
    assert_eq!(listed["games"].as_array().unwrap().len(), 4, "{listed}");
    let run = run_tests(&studio);
    assert!(run["failed"].as_u64().unwrap() >= 1, "{run}");
    let failing: Vec<&Value> = (run["games"].as_array().unwrap().iter())
        .filter(|g| g["outcome"] == "failed")
        .collect();
    let first = failing[0];
    let earliest = &first["earliest"];
    assert_eq!(earliest["step"], 0, "{first}");
    assert!(earliest["recorded"]["board"]["rows"].is_array(), "{first}");
    assert!(earliest["rules"]["facts"].is_array(), "{first}");
    let legal = (first["differences"][0]["differences"]
        .as_array()
        .unwrap()
        .iter())
    .find(|d| d["kind"] == "legal")
    .unwrap_or_else(|| panic!("the legal moves differ: {first}"));
    assert!(
        legal["added"][0].as_str().unwrap().contains(" 2 "),
        "{legal}"
    );
    // Accepted, game by game: the one accepted passes, the others still fail.
    let game = first["game"].as_str().unwrap();
    assert_eq!(first["pending"], true, "{first}");
    {
        let decided = studio.ok("tests/accept", &json!({ "game": game }));
        assert_eq!(decided["decided"], "accepted");
        let again = run_tests(&studio);
        let now = (again["games"].as_array().unwrap().iter())
            .find(|g| g["game"] == game)
            .unwrap();
        assert_eq!(now["outcome"], "passed", "{now}");
        assert_eq!(
            again["failed"].as_u64().unwrap() + 1,
            run["failed"].as_u64().unwrap()
        );
    }
    let none = studio.post("tests/reject", &json!({ "game": game }));
    assert_eq!(none.status, 409, "{}", none.body);
}

#[test]
fn an_analysis_reports_its_progress_and_can_be_cancelled() {
    let studio = Studio::start(&root(), "rules/tictactoe.gdl");
    let job = studio.ok(
        "analyse",
        &json!({"games": 3, "strengths": [5, 20], "max_steps": 20}),
    )["job"]
        .as_u64()
        .unwrap();
    let done = wait_for_job(&studio, job);
    assert_eq!(done["state"], "done", "{done}");
    assert_eq!(
        (done["done"].as_u64(), done["total"].as_u64()),
        (Some(6), Some(6))
    );
    let result = &done["result"];
    assert_eq!(result["strengths"].as_array().unwrap().len(), 2);
    let seat = &result["strengths"][0]["seats"][0];
    assert!(seat["wins"]["low"].as_f64().unwrap() <= seat["wins"]["rate"].as_f64().unwrap());
    assert_eq!(result["lengths"].as_array().unwrap().len(), 6);
    assert_eq!(result["branching"][0]["step"], 0);
    assert_eq!(result["branching"][0]["branching"], 9.0);
    assert!(!result["first_moves"].as_array().unwrap().is_empty());
    // A long one, cancelled: its figures are of the games that finished.
    let long = studio.ok(
        "analyse",
        &json!({"games": 10000, "strengths": [100000], "max_steps": 20}),
    )["job"]
        .as_u64()
        .unwrap();
    let cancelled = studio.ok(&format!("jobs/{long}/cancel"), &json!({}));
    assert!(cancelled["state"] == "running" || cancelled["state"] == "cancelled");
    let stopped = wait_for_job(&studio, long);
    assert_eq!(stopped["state"], "cancelled", "{stopped}");
    assert_eq!(stopped["result"]["partial"], true);
    assert_eq!(studio.get("jobs/99").status, 404);
}

/// Runs the recorded games as the page does (a job, polled to its end):
/// its result.
fn run_tests(studio: &Studio) -> Value {
    let job = studio.ok("tests/run", &json!({}))["job"].as_u64().unwrap();
    let done = wait_for_job(studio, job);
    assert_eq!(done["state"], "done", "{done}");
    assert_eq!(done["kind"], "tests");
    assert_eq!(done["done"], done["total"], "{done}");
    assert_eq!(done["result"]["partial"], false);
    done["result"].clone()
}

/// A game that never ends: its random games and the search player's
/// playouts run as long as they are let (the browser tests play it too).
const ENDLESS: &str = include_str!("studio/endless.gdl");

#[test]
fn a_run_of_the_recorded_games_reports_its_progress_and_can_be_cancelled() {
    let dir = scratch("studio_tests_cancel");
    std::fs::write(dir.join("endless.gdl"), ENDLESS).unwrap();
    // Three long recorded games: replaying each takes a while.
    let recorded = Command::new(env!("CARGO_BIN_EXE_gdl"))
        .args([
            "record",
            "endless.gdl",
            "--games",
            "3",
            "--max-steps",
            "20000",
        ])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(recorded.status.success(), "{recorded:?}");
    let studio = Studio::start(&dir, "endless.gdl");
    let job = studio.ok("tests/run", &json!({}))["job"].as_u64().unwrap();
    let asked = studio.ok(&format!("jobs/{job}/cancel"), &json!({}));
    assert_eq!(asked["total"], 3, "{asked}");
    let stopped = wait_for_job(&studio, job);
    // Whichever the cancel met (a game under way, almost always, or the
    // end), the result is of the games replayed to their end.
    let games = stopped["result"]["games"].as_array().unwrap();
    assert_eq!(
        stopped["done"].as_u64(),
        Some(games.len() as u64),
        "{stopped}"
    );
    assert!(games.iter().all(|g| g["outcome"] == "passed"), "{stopped}");
    match stopped["state"].as_str() {
        Some("cancelled") => {
            assert_eq!(stopped["result"]["partial"], true);
            assert!(games.len() < 3, "{stopped}");
        }
        Some("done") => assert_eq!(games.len(), 3),
        _ => panic!("cancelled or done: {stopped}"),
    }
    // Run again to the end: every game passes.
    let run = run_tests(&studio);
    assert_eq!(
        (run["passed"].as_u64(), run["failed"].as_u64()),
        (Some(3), Some(0))
    );
}

#[test]
fn the_machine_searches_without_holding_the_studio_and_can_be_stopped() {
    let dir = scratch("studio_thinking");
    std::fs::write(dir.join("endless.gdl"), ENDLESS).unwrap();
    let studio = Studio::start(&dir, "endless.gdl");
    // A search that would not end for an hour: each of its million
    // playouts is a thousand steps long.
    studio.ok(
        "seats",
        &json!({"seats": {"o": "search"}, "iterations": 1_000_000}),
    );
    std::thread::scope(|s| {
        let playing = s.spawn(|| studio.ok("play", &json!({"moves": {"x": "(pick a)"}})));
        // The person's move is played at once; the studio answers while
        // the machine thinks about its own.
        let thinking = wait_for_thinking(&studio);
        assert_eq!(thinking["step"], 1, "{thinking}");
        let checked = studio.ok("check", &json!({"text": ENDLESS}));
        assert_eq!(checked["valid"], true, "{checked}");
        studio.ok("stop", &json!({}));
        let answered = playing.join().unwrap();
        assert_eq!(answered["step"], 1, "{answered}");
        assert_eq!(answered["to_move"], json!(["o"]));
        assert!(
            answered["notice"].as_str().unwrap().contains("stopped"),
            "{answered}"
        );
    });
    // A machine's move overtaken by a change of the timeline is not
    // played: the game shown is the one the change made.
    std::thread::scope(|s| {
        let playing = s.spawn(|| studio.ok("play", &json!({})));
        wait_for_thinking(&studio);
        let restarted = studio.ok("restart", &json!({}));
        assert_eq!(restarted["last"], 0);
        let answered = playing.join().unwrap();
        assert_eq!(
            (answered["step"].as_u64(), answered["last"].as_u64()),
            (Some(0), Some(0)),
            "{answered}"
        );
    });
}

/// Polls the state until the machine is thinking (at most two minutes).
fn wait_for_thinking(studio: &Studio) -> Value {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let state = studio.get("state").json();
        if state["thinking"] == true {
            return state;
        }
        assert!(
            Instant::now() < deadline,
            "the machine is not thinking: {state}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Polls a job until it is no longer running (at most two minutes).
fn wait_for_job(studio: &Studio, job: u64) -> Value {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let status = studio.get(&format!("jobs/{job}")).json();
        if status["state"] != "running" {
            return status;
        }
        assert!(Instant::now() < deadline, "still running: {status}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_difference_after_the_first_step_shows_the_step_before_it() {
    let dir = scratch("studio_step_before");
    std::fs::copy(root().join("rules/tictactoe.gdl"), dir.join("ttt.gdl")).unwrap();
    let recorded = Command::new(env!("CARGO_BIN_EXE_gdl"))
        .args(["record", "ttt.gdl", "--seed", "3"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(recorded.status.success(), "{recorded:?}");
    // The player in control may pass once an x is on the board: every game
    // differs first at step 1, after x's first mark.
    append(
        &dir.join("ttt.gdl"),
        "\n(<= (legal ?r pass) (true (control ?r)) (true (cell ?m ?n x)))\n",
    );
    let studio = Studio::start(&dir, "ttt.gdl");
    let run = run_tests(&studio);
    let game = &run["games"][0];
    assert_eq!(game["outcome"], "failed", "{run}");
    let earliest = &game["earliest"];
    assert_eq!(earliest["step"], 1, "{earliest}");
    let before = &earliest["before"];
    assert!(before["board"]["rows"].is_array(), "{before}");
    assert_eq!(before["facts"].as_array().unwrap().len(), 10, "{before}");
    let moves = before["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 2, "{before}");
    assert!(moves[0].as_str().unwrap().starts_with("(mark"), "{before}");
}
