//! `--format json` on every command that prints results: the JSON parsed
//! back, its fields checked against what the text says, and snapshotted
//! where it does not change from run to run.

use crate::common::{gdl, scratch};
use serde_json::Value;

/// Runs `gdl ARGS`, requires exit status `code`, parses standard output as
/// JSON.
fn json(args: &[&str], code: i32) -> Value {
    let run = gdl(args, "");
    assert_eq!(run.code, code, "{args:?}:\n{}", run.screen());
    serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}):\n{}", run.stdout))
}

#[test]
fn check_gives_each_diagnostic_with_its_place_code_and_severity() {
    let v = json(&["check", "tests/cli/unsafe.gdl", "--format", "json"], 1);
    assert_eq!(v["file"], "tests/cli/unsafe.gdl");
    assert_eq!(v["valid"], false);
    assert_eq!(v["errors"], 1);
    assert_eq!(v["warnings"], 3);
    let diagnostics = v["diagnostics"].as_array().unwrap();
    assert_eq!(diagnostics.len(), 4);
    let unsafe_variable = (diagnostics.iter())
        .find(|d| d["code"] == "unsafe-variable")
        .unwrap();
    // As the text says: `tests/cli/unsafe.gdl:3:27`, the `?w` of the head.
    assert_eq!(unsafe_variable["severity"], "error");
    assert_eq!(unsafe_variable["line"], 3);
    assert_eq!(unsafe_variable["column"], 27);
    assert_eq!(unsafe_variable["end_column"], 29);
    let text = gdl(&["check", "tests/cli/unsafe.gdl"], "").stdout;
    assert!(text.contains(unsafe_variable["message"].as_str().unwrap()));
    for d in diagnostics {
        for field in ["file", "line", "column", "code", "severity", "message"] {
            assert!(!d[field].is_null(), "{field} of {d}");
        }
    }
    insta::assert_snapshot!(serde_json::to_string_pretty(&v).unwrap());
}

#[test]
fn check_of_a_valid_file_names_its_roles_and_can_add_the_plan() {
    let v = json(&["check", "tests/cli/count.gdl", "--format", "json"], 0);
    assert_eq!(v["valid"], true);
    assert_eq!(v["roles"], serde_json::json!(["left", "right"]));
    assert_eq!(v["errors"], 0);
    assert!(v.get("plan").is_none());
    let with_plan = json(
        &["check", "tests/cli/count.gdl", "--plan", "--format", "json"],
        0,
    );
    let plan = json(&["plan", "tests/cli/count.gdl", "--format", "json"], 0);
    assert_eq!(with_plan["plan"], plan["strata"]);
    // The strata of the text, in order.
    let text = gdl(&["plan", "tests/cli/count.gdl"], "").stdout;
    let strata = plan["strata"].as_array().unwrap();
    assert_eq!(
        strata.len(),
        text.lines().filter(|l| l.starts_with("stratum")).count()
    );
    let terminal = (strata.iter())
        .find(|s| s["relations"] == serde_json::json!(["terminal/0"]))
        .unwrap();
    assert_eq!(terminal["phase"], "State");
    assert_eq!(terminal["rules"][0]["head"], "(terminal/0 )");
    assert_eq!(
        terminal["rules"][0]["steps"][0],
        "scan (over/0 ) via all facts, one match"
    );
}

#[test]
fn check_of_a_syntax_error_locates_it() {
    let v = json(&["check", "tests/cli/broken.gdl", "--format", "json"], 1);
    let d = &v["diagnostics"][0];
    assert_eq!(d["severity"], "error");
    assert!(d["line"].as_u64().unwrap() >= 1);
    insta::assert_snapshot!(serde_json::to_string_pretty(&v).unwrap());
}

#[test]
fn random_gives_the_figures_of_its_text() {
    let args = [
        "random",
        "tests/cli/tictactoe.gdl",
        "--games",
        "50",
        "--seed",
        "4",
    ];
    let v = json(&[&args[..], &["--format", "json"]].concat(), 0);
    assert_eq!(v["rules"], "tests/cli/tictactoe.gdl");
    assert_eq!(v["games"], 50);
    assert_eq!(
        (v["first_seed"].as_u64(), v["last_seed"].as_u64()),
        (Some(4), Some(53))
    );
    let roles = v["roles"].as_array().unwrap();
    let wins: u64 = roles.iter().map(|r| r["wins"].as_u64().unwrap()).sum();
    assert_eq!(
        wins + v["draws"].as_u64().unwrap() + v["unfinished"].as_u64().unwrap(),
        50
    );
    let text = gdl(&args, "").stdout;
    let x = &roles[0];
    assert_eq!(x["role"], "xplayer");
    let wins_line = format!(
        "wins: xplayer {}, oplayer {}; draws: {}",
        x["wins"], roles[1]["wins"], v["draws"]
    );
    assert!(text.contains(&wins_line), "{wins_line}\n{text}");
    let length = &v["length"];
    assert!(text.contains(&format!("min {}, max {}", length["min"], length["max"])));
    // The goal counts of each role add up to the games that ended.
    let ended: u64 = (x["goals"].as_object().unwrap().values())
        .map(|c| c.as_u64().unwrap())
        .sum();
    assert_eq!(ended, 50 - v["unfinished"].as_u64().unwrap());
    assert!(v["seconds"].as_f64().unwrap() >= 0.0);
}

#[test]
fn random_with_the_search_player_names_its_seats() {
    let v = json(
        &[
            "random",
            "tests/cli/tictactoe.gdl",
            "--games",
            "2",
            "--ai",
            "oplayer",
            "--iterations",
            "20",
            "--format",
            "json",
        ],
        0,
    );
    assert_eq!(v["search"]["roles"], serde_json::json!(["oplayer"]));
    assert_eq!(v["search"]["budget"], "20 iterations");
    assert!(v["search"]["iterations"].as_u64().unwrap() > 0);
}

#[test]
fn perft_gives_each_depth_and_why_it_stopped() {
    let v = json(
        &[
            "perft",
            "tests/cli/tictactoe.gdl",
            "--depth",
            "12",
            "--format",
            "json",
        ],
        0,
    );
    let depths = v["depths"].as_array().unwrap();
    let positions: Vec<u64> = depths
        .iter()
        .map(|d| d["positions"].as_u64().unwrap())
        .collect();
    // Tic-tac-toe's 5,478 legal positions, depth 0 to 9.
    assert_eq!(positions.iter().sum::<u64>(), 5478);
    assert_eq!(depths[2]["sequences"], 72);
    assert_eq!(depths[9]["depth"], 9);
    assert_eq!(v["stopped"], "terminal");
    let reached = json(
        &[
            "perft",
            "tests/cli/tictactoe.gdl",
            "--depth",
            "2",
            "--format",
            "json",
        ],
        0,
    );
    assert_eq!(reached["stopped"], Value::Null);
    insta::assert_snapshot!(serde_json::to_string_pretty(&reached).unwrap());
}

#[test]
fn record_says_where_it_wrote_the_game() {
    let dir = scratch("record-json");
    let out = dir.join("seed-2.json");
    let out_name = out.display().to_string();
    let v = json(
        &[
            "record",
            "tests/cli/count.gdl",
            "--seed",
            "2",
            "--out",
            &out_name,
            "--format",
            "json",
        ],
        0,
    );
    assert_eq!(v["game"], out_name.as_str());
    assert_eq!(v["moves"], 2);
    assert_eq!(v["terminal"], true);
    assert_eq!(v["roles"], serde_json::json!(["left", "right"]));
    assert_eq!(v["goals"], serde_json::json!([0, 100]));
    let recorded: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(recorded["goals"], v["goals"]);
}

#[test]
fn bench_takes_format_json_as_well_as_json() {
    for flag in [&["--format", "json"][..], &["--json"]] {
        let args = [
            &[
                "bench",
                "tests/cli/count.gdl",
                "--seconds",
                "0.2",
                "--rounds",
                "2",
            ][..],
            flag,
        ]
        .concat();
        let v = json(&args, 0);
        assert_eq!(v["rules"], "tests/cli/count.gdl");
        assert!(v["playouts"].as_u64().unwrap() > 0, "{v}");
        assert_eq!(v["rounds"], 2);
    }
}
