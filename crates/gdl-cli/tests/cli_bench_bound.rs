//! `gdl bench --seconds S` as a bound: a playout still under way when the
//! time is up is stopped and not counted, however long it would have gone
//! on; and a playout that goes wrong is named by its seed and step, so
//! that it can be played again.

use crate::common::{gdl_in, scratch};
use serde_json::Value;

/// A game that never ends: no playout finishes before `--max-steps`.
const ENDLESS: &str = "; Its one role flips a light for ever.
(role solo)
(init (light on))
(legal solo flip)
(<= (next (light off)) (true (light on)))
(<= (next (light on)) (true (light off)))
(<= terminal (true (light on)) (true (light off)))
(goal solo 50)
";

/// A game whose playouts go wrong half the time: at step 2 the role may
/// fall, and a fallen role has no legal move in a state that is not
/// terminal.
const FALL: &str = "(role a)
(init (at 0))
(succ 0 1) (succ 1 2) (succ 2 3)
(<= (legal a walk) (true (at ?n)) (succ ?n ?m))
(<= (legal a fall) (true (at 2)))
(<= (next (at ?m)) (does a walk) (true (at ?n)) (succ ?n ?m))
(<= (next fallen) (does a fall))
(<= terminal (true (at 3)))
(goal a 100)
";

#[test]
fn a_playout_that_cannot_end_in_time_is_stopped_and_not_counted() {
    let dir = scratch("bench-endless");
    std::fs::write(dir.join("endless.gdl"), ENDLESS).unwrap();
    // A billion steps take seconds on the fastest machine; the bound is
    // a third of a second.
    let args = ["bench", "endless.gdl", "--seconds", "0.3"];
    let steps = ["--max-steps", "1000000000"];
    let run = gdl_in(&dir, &[&args[..], &steps[..]].concat(), "");
    assert_eq!(run.code, 0, "{}", run.screen());
    assert!(
        run.stdout
            .contains("playouts: 0 finished: 1 under way when the 0.3"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("give more --seconds"), "{}", run.stdout);
    assert!(
        !run.stdout.contains("/s"),
        "no rate without playouts: {}",
        run.stdout
    );

    let json = ["--threads", "2", "--json"];
    let run = gdl_in(&dir, &[&args[..], &steps[..], &json[..]].concat(), "");
    assert_eq!(run.code, 0, "{}", run.screen());
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["playouts"], 0, "{v}");
    assert_eq!(v["states"], 0, "{v}");
    assert_eq!(v["stopped"], 2, "one a thread: {v}");
    assert_eq!(v["playout_seconds"], 0.0, "{v}");
    assert_eq!(v["playouts_per_second_overall"], 0.0, "{v}");
    // Loosely: without the bound it would run for many seconds.
    let seconds = v["seconds"].as_f64().unwrap();
    assert!((0.3..30.0).contains(&seconds), "{v}");

    // Playouts that end (here at the step limit) are counted, over the
    // time they took, which is within the run's.
    let run = gdl_in(
        &dir,
        &[&args[..], &["--max-steps", "100", "--json"][..]].concat(),
        "",
    );
    assert_eq!(run.code, 0, "{}", run.screen());
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    let number = |key: &str| v[key].as_f64().unwrap();
    assert!(number("playouts") > 0.0, "{v}");
    assert_eq!(number("playouts"), number("cut_short"), "{v}");
    assert!(number("playout_seconds") <= number("seconds"), "{v}");
    let overall = number("playouts") / number("playout_seconds");
    assert!(
        (number("playouts_per_second_overall") - overall).abs() < 1e-6 * overall,
        "{v}"
    );
}

#[test]
fn a_bench_error_names_the_playouts_seed_and_step() {
    let dir = scratch("bench-fall");
    std::fs::write(dir.join("fall.gdl"), FALL).unwrap();
    let run = gdl_in(&dir, &["bench", "fall.gdl", "--seconds", "5"], "");
    assert_eq!(run.code, 1, "{}", run.screen());
    let message = run.stderr.trim_end();
    let seed = message
        .strip_prefix("error: playout with seed ")
        .and_then(|rest| rest.split_once(' '))
        .map(|(seed, _)| seed.to_string())
        .unwrap_or_else(|| panic!("no seed in {message}"));
    assert_eq!(
        message,
        format!(
            "error: playout with seed {seed} (the first of gdl bench fall.gdl --seed {seed}): \
             step 3: a has no legal move in a state that is not terminal\n  \
             (a fault of the rules: --keep-going counts such a game as ended there and goes on)"
        )
    );
    // The command it names plays that playout first, and fails the same.
    let again = gdl_in(
        &dir,
        &["bench", "fall.gdl", "--seconds", "5", "--seed", &seed],
        "",
    );
    assert_eq!(again.code, 1, "{}", again.screen());
    assert_eq!(again.stderr.trim_end(), message);
    // `gdl random` stopped by the same fault says the same of --keep-going.
    let random = gdl_in(&dir, &["random", "fall.gdl", "--games", "20"], "");
    assert_eq!(random.code, 1, "{}", random.screen());
    assert!(
        random.stderr.contains("no legal move")
            && random.stderr.trim_end().ends_with(
                "(a fault of the rules: --keep-going counts such a game as ended there and goes on)"
            ),
        "{}",
        random.screen()
    );
}

/// With `--keep-going`, a playout that reaches a fault of the rules ends
/// there and the run goes on: the faults are counted, the first named, and
/// the rate covers every playout.
#[test]
fn keep_going_counts_the_faults_and_names_the_first() {
    let dir = scratch("bench-keep-going");
    std::fs::write(dir.join("fall.gdl"), FALL).unwrap();
    let args = ["bench", "fall.gdl", "--seconds", "0.3", "--keep-going"];
    let run = gdl_in(&dir, &args, "");
    assert_eq!(run.code, 0, "{}", run.screen());
    let faults = run
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("faults: "))
        .unwrap_or_else(|| panic!("no faults line: {}", run.stdout));
    assert!(
        faults.contains(
            " playouts ended at a fault of the rules, counted with the steps they played; \
             the first: playout with seed "
        ) && faults.ends_with("step 3: a has no legal move in a state that is not terminal"),
        "{faults}"
    );

    let run = gdl_in(&dir, &[&args[..], &["--json"][..]].concat(), "");
    assert_eq!(run.code, 0, "{}", run.screen());
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    let (playouts, faults) = (
        v["playouts"].as_u64().unwrap(),
        v["faults"].as_u64().unwrap(),
    );
    // Each playout falls or walks to the end at step 2, about half each.
    assert!(faults > 0 && faults < playouts, "{v}");
    let first = v["first_fault"].as_str().unwrap();
    assert!(first.starts_with("playout with seed "), "{v}");

    // A game without faults says nothing of them.
    std::fs::write(dir.join("endless.gdl"), ENDLESS).unwrap();
    let run = gdl_in(
        &dir,
        &[
            "bench",
            "endless.gdl",
            "--seconds",
            "0.2",
            "--max-steps",
            "10",
            "--keep-going",
            "--json",
        ],
        "",
    );
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["faults"], 0, "{v}");
    assert_eq!(v["first_fault"], Value::Null, "{v}");
}

/// `gdl random --keep-going` likewise: the games that meet a fault are
/// counted, the first named by the command that replays it, and the
/// figures are those of the other games; without it the first fault stops
/// the run.
#[test]
fn random_keep_going_counts_the_faulty_games_apart() {
    let dir = scratch("random-keep-going");
    std::fs::write(dir.join("fall.gdl"), FALL).unwrap();
    let args = ["random", "fall.gdl", "--games", "40", "--seed", "1"];
    let stopped = gdl_in(&dir, &args, "");
    assert_eq!(stopped.code, 1, "{}", stopped.screen());
    assert!(
        stopped.stderr.contains("(gdl trace fall.gdl --seed ")
            && stopped.stderr.contains("step 3: a has no legal move"),
        "{}",
        stopped.screen()
    );

    let run = gdl_in(
        &dir,
        &[&args[..], &["--keep-going", "--format", "json"][..]].concat(),
        "",
    );
    assert_eq!(run.code, 0, "{}", run.screen());
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    let (games, faults) = (v["games"].as_u64().unwrap(), v["faults"].as_u64().unwrap());
    // Each game falls or walks to the end at step 2, about half each.
    assert!(faults > 0 && games > 0 && games + faults == 40, "{v}");
    assert_eq!(
        (v["first_seed"].as_u64(), v["last_seed"].as_u64()),
        (Some(1), Some(40)),
        "{v}"
    );
    assert_eq!(v["roles"][0]["goals"]["100"].as_u64(), Some(games), "{v}");
    let first = v["first_fault"].as_str().unwrap();
    assert!(
        first.starts_with("game ") && first.contains("(gdl trace fall.gdl --seed "),
        "{v}"
    );

    let text = gdl_in(&dir, &[&args[..], &["--keep-going"][..]].concat(), "");
    assert_eq!(text.code, 0, "{}", text.screen());
    assert!(
        text.stdout.contains(&format!(
            "faults: {faults} of the games met a fault of the rules and are not counted above; \
             the first: {first}\n"
        )),
        "{}",
        text.stdout
    );
}
