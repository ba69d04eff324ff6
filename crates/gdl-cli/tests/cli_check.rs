//! `gdl check`, `gdl plan` and the errors every command gives for files
//! that cannot be read or are not valid rules.

use crate::common::{expect, gdl, scratch};

#[test]
fn check_valid_file_prints_warnings_and_a_summary() {
    let run = gdl(&["check", "tests/cli/tictactoe.gdl"], "");
    assert_eq!(run.code, 0);
    insta::assert_snapshot!(run.screen());
}

#[test]
fn check_invalid_file_exits_1_with_every_diagnostic() {
    let run = gdl(&["check", "tests/cli/unsafe.gdl"], "");
    assert_eq!(run.code, 1);
    assert!(
        run.stdout.contains("error[unsafe-variable]"),
        "{}",
        run.stdout
    );
    insta::assert_snapshot!(run.screen());
}

#[test]
fn check_syntax_error_and_missing_file() {
    let run = gdl(&["check", "tests/cli/broken.gdl"], "");
    assert_eq!(run.code, 1);
    insta::assert_snapshot!("check_syntax_error", run.screen());
    let run = gdl(&["check", "tests/cli/no-such-file.gdl"], "");
    assert_eq!(run.code, 2);
    insta::assert_snapshot!("check_missing_file", run.screen());
}

#[test]
fn every_command_refuses_invalid_rules_with_status_1() {
    for args in [
        vec!["trace", "tests/cli/unsafe.gdl"],
        vec!["play", "tests/cli/unsafe.gdl"],
        vec!["random", "tests/cli/unsafe.gdl", "--games", "1"],
        vec!["perft", "tests/cli/unsafe.gdl", "--depth", "1"],
        vec!["bench", "tests/cli/unsafe.gdl", "--seconds", "0.1"],
        vec!["replay", "tests/cli/unsafe.gdl", "tests/cli/tictactoe.gdl"],
    ] {
        let run = gdl(&args, "");
        assert_eq!(run.code, 1, "{args:?}: {}", run.screen());
        assert!(
            run.stderr.contains("error[unsafe-variable]"),
            "{args:?}: {}",
            run.stderr
        );
        assert!(
            run.stderr.contains("not a valid game description"),
            "{args:?}"
        );
        assert!(run.stdout.is_empty(), "{args:?}: {}", run.stdout);
    }
    for args in [vec!["trace", "missing.gdl"], vec!["play", "missing.gdl"]] {
        let run = gdl(&args, "");
        assert_eq!(run.code, 2, "{args:?}: {}", run.screen());
        assert_eq!(
            run.stderr,
            "error: cannot read missing.gdl: No such file or directory (os error 2)\n"
        );
    }
}

#[test]
fn usage_errors_exit_2() {
    let run = gdl(&["perft", "tests/cli/tictactoe.gdl"], "");
    assert_eq!(run.code, 2);
    insta::assert_snapshot!(run.screen());
    let run = gdl(&["frobnicate"], "");
    assert_eq!(run.code, 2);
    let run = gdl(&["bench", "tests/cli/tictactoe.gdl", "--seconds", "-1"], "");
    assert_eq!(run.code, 2, "{}", run.screen());
}

#[test]
fn evaluator_limits_are_flags_and_their_errors_name_them() {
    let run = gdl(
        &["trace", "tests/cli/tictactoe.gdl", "--max-facts", "5"],
        "",
    );
    assert_eq!(run.code, 1, "{}", run.screen());
    assert!(
        run.stderr.contains("raise it with --max-facts"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .ends_with("tests/cli/tictactoe.gdl: an evaluator limit stopped the loading\n"),
        "{}",
        run.stderr
    );
    let run = gdl(
        &[
            "perft",
            "tests/cli/tictactoe.gdl",
            "--depth",
            "2",
            "--max-term-depth",
            "1",
        ],
        "",
    );
    assert_eq!(run.code, 1, "{}", run.screen());
    assert!(
        run.stderr.contains("raise it with --max-term-depth"),
        "{}",
        run.stderr
    );
    let run = gdl(
        &[
            "perft",
            "tests/cli/tictactoe.gdl",
            "--depth",
            "2",
            "--max-facts",
            "100000",
        ],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.screen());
}

#[test]
fn plan_prints_the_plans_of_a_valid_file() {
    let run = gdl(&["plan", "tests/cli/count.gdl"], "");
    assert_eq!(run.code, 0, "{}", run.screen());
    // The engine and why: a network of one word's atoms, read whole by
    // random outcomes.
    let head: Vec<&str> = run.stdout.lines().take(2).collect();
    insta::assert_snapshot!(head.join("\n"));
    let run = gdl(&["check", "--plan", "tests/cli/count.gdl"], "");
    assert_eq!(run.code, 0, "{}", run.screen());
    assert!(run.stdout.lines().count() > 2, "{}", run.stdout);
}

/// The published-game allowances are warnings that `check` names, and
/// `--strict` refuses them as errors, in `check` and wherever rules load.
#[test]
fn strict_refuses_the_published_game_allowances() {
    let file = "tests/check/valid/allowances.gdl";
    let lenient = crate::common::gdl_in(&crate::common::library(), &["check", file], "");
    assert_eq!(lenient.code, 0, "{}", lenient.screen());
    assert!(
        lenient
            .stdout
            .ends_with("valid, 1 role (solver), 4 warnings\n")
    );
    let strict = crate::common::gdl_in(&crate::common::library(), &["check", "--strict", file], "");
    assert_eq!(strict.code, 1, "{}", strict.screen());
    insta::assert_snapshot!(strict.screen());
    let trace = crate::common::gdl_in(&crate::common::library(), &["trace", "--strict", file], "");
    assert_eq!(trace.code, 1, "{}", trace.screen());
    assert!(
        trace.stderr.contains("error[no-init]"),
        "{}",
        trace.screen()
    );
    assert!(
        trace.stderr.contains("error[unknown-role-goal]"),
        "{}",
        trace.screen()
    );
}

/// Each reading of loose rules that the reference gives (issue 29) is an
/// allowance: the file is valid, with the warning, and `--strict` refuses
/// it as an error that names the flag.
#[test]
fn strict_refuses_each_reading_of_loose_rules() {
    let mut screens = String::new();
    for (name, code) in [
        ("several_arities", "several-arities"),
        ("keyword_as_relation", "keyword-as-relation"),
        ("unsafe_fact_dropped", "unsafe-fact-dropped"),
        ("unsafe_rule_dropped", "unsafe-rule-dropped"),
        ("never_fires_dropped", "never-fires-dropped"),
        ("does_before_moves", "does-before-moves"),
        ("comma_in_name", "comma-in-name"),
        ("variable_as_name", "variable-as-name"),
        ("operator_fact_dropped", "operator-fact-dropped"),
        ("unsafe_rule_never_applies", "unsafe-rule-never-applies"),
        ("unknown_role_move", "unknown-role-move"),
        ("empty_or", "empty-or"),
        ("dynamic_base_input", "dynamic-base-input"),
        ("negated_unbound", "negated-unbound"),
        ("caller_bound", "caller-bound"),
        ("caller_bound_patterns", "caller-bound"),
        ("caller_bound_some_value", "caller-bound"),
        ("caller_bound_distinct", "caller-bound"),
        ("unsafe_fact_caller_bound", "unsafe-fact-caller-bound"),
        ("unbound_role", "unbound-role"),
        ("unrestricted_recursion", "unrestricted-recursion"),
    ] {
        let file = format!("tests/check/valid/{name}.gdl");
        let library = crate::common::library();
        let lenient = crate::common::gdl_in(&library, &["check", &file], "");
        assert_eq!(lenient.code, 0, "{}", lenient.screen());
        assert!(
            lenient.stdout.contains(&format!("warning[{code}]")),
            "{}",
            lenient.screen()
        );
        let strict = crate::common::gdl_in(&library, &["check", "--strict", &file], "");
        assert_eq!(strict.code, 1, "{}", strict.screen());
        assert!(
            strict.stdout.contains(&format!("error[{code}]")),
            "{}",
            strict.screen()
        );
        assert!(strict.stdout.contains("made an error by --strict"));
        screens.push_str(&strict.screen());
    }
    insta::assert_snapshot!(screens);
}

#[test]
fn warnings_reach_every_command_once_and_deny_warnings_refuses_them() {
    let dir = scratch("warnings_everywhere");
    let rules = "(role you)\n(init (count 0))\n(intit (count 1))\n(legal you go)\n\
                 (<= (next (count 1)) (does you go))\n(<= terminal (true (count 1)))\n\
                 (goal you 100)\n";
    std::fs::write(dir.join("slip.gdl"), rules).unwrap();
    std::fs::write(dir.join("game.txt"), "go\n").unwrap();
    let commands: [&[&str]; 6] = [
        &["trace", "slip.gdl"],
        &["replay", "slip.gdl", "game.txt"],
        &["random", "slip.gdl", "--games", "2"],
        &["play", "slip.gdl", "--random", "you"],
        &["perft", "slip.gdl", "--depth", "1"],
        &["bench", "slip.gdl", "--seconds", "0.1"],
    ];
    for args in commands {
        let run = expect(&dir, args, 0);
        assert_eq!(
            run.stderr.matches("warning[unused-relation]").count(),
            1,
            "{args:?}:\n{}",
            run.screen()
        );
        assert!(
            !run.stdout.contains("warning"),
            "{args:?}:\n{}",
            run.screen()
        );
    }
    let run = expect(&dir, &["trace", "slip.gdl"], 0);
    insta::assert_snapshot!("warning_on_trace", run.stderr);
    let run = expect(&dir, &["trace", "slip.gdl", "--deny-warnings"], 1);
    insta::assert_snapshot!("deny_warnings", run.screen());
    let run = expect(&dir, &["check", "slip.gdl", "--deny-warnings"], 1);
    assert!(
        run.stdout.contains("error[unused-relation]"),
        "{}",
        run.stdout
    );
}

/// A relation on a cycle through `not`, read once with fewer arguments
/// than its heads have (found by the `check` fuzz target: splitting it by
/// constants indexed past the short literal and panicked): the literal of
/// the other arity is a relation of its own (as ggp-base reads it), which
/// leaves the cycle, and nothing panics.
#[test]
fn a_negation_cycle_with_a_literal_of_another_arity_is_read_apart() {
    let dir = scratch("check-arity-cycle");
    let rules = "(role r)\n(init p)\n(legal r go)\n(next p)\n(<= terminal (true p))\n";
    std::fs::write(
        dir.join("goal.gdl"),
        format!(
            "{rules}(<= (goal ?r 0) (role ?r) (not (goal ?r 100)))\n\
             (<= (goal ?r 100) (role ?r) (goal ?r))\n"
        ),
    )
    .unwrap();
    let run = expect(&dir, &["check", "goal.gdl"], 0);
    for expected in [
        "warning[split-by-constants]: goal.gdl:6:6",
        "warning[keyword-as-relation]: goal.gdl:7:29: `goal` takes 2 arguments, but has 1 \
         argument here: read as a relation `goal/1` of its own",
    ] {
        assert!(run.stdout.contains(expected), "{}", run.screen());
    }
    std::fs::write(
        dir.join("q.gdl"),
        format!(
            "{rules}(goal r 0)\n(<= (q ?x 0) (role ?x) (not (q ?x 1)))\n\
             (<= (q ?x 1) (role ?x) (q ?x))\n"
        ),
    )
    .unwrap();
    let run = expect(&dir, &["check", "q.gdl"], 0);
    for expected in [
        "warning[split-by-constants]: q.gdl:7:6",
        "warning[several-arities]: q.gdl:8:24: relation `q` is written with 2 and 1 arguments",
    ] {
        assert!(run.stdout.contains(expected), "{}", run.screen());
    }
}
