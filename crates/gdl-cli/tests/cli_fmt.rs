//! `gdl fmt`: files rewritten in their layout, `--check` naming those that
//! are not, standard input to standard output, syntax errors located, and
//! games played the same before and after formatting (`gdl trace --seed`
//! of a few published games of the corpus beside the repository, skipped
//! with a message when absent, and of a scrambled tic-tac-toe).

use crate::common::{gdl, gdl_in, root, scratch};
use std::path::Path;

/// Tic-tac-toe of `rules/` with every space of its rules (not of its
/// comments) made a line break and a tab: the same game, laid out badly.
fn scrambled_tictactoe() -> String {
    let text = std::fs::read_to_string(root().join("rules/tictactoe.gdl")).unwrap();
    let lines: Vec<String> = (text.lines())
        .map(|line| {
            if line.contains(';') {
                line.to_string()
            } else {
                line.replace(' ', "\n\t ")
            }
        })
        .collect();
    lines.join("\n\n\n")
}

#[test]
fn every_rules_file_is_formatted() {
    let mut files: Vec<String> = std::fs::read_dir(root().join("rules"))
        .unwrap()
        .map(|e| format!("rules/{}", e.unwrap().file_name().to_string_lossy()))
        .filter(|f| f.ends_with(".gdl"))
        .collect();
    files.sort();
    let mut args = vec!["fmt", "--check"];
    args.extend(files.iter().map(String::as_str));
    let run = gdl_in(&root(), &args, "");
    assert_eq!(run.code, 0, "run `gdl fmt rules/*.gdl`\n{}", run.screen());
    assert_eq!(run.stdout, "");
}

#[test]
fn check_names_the_files_to_format_and_fmt_formats_them() {
    let dir = scratch("fmt_check");
    let messy = dir.join("messy.gdl");
    let tidy = dir.join("tidy.gdl");
    std::fs::write(&messy, "(role  a)\n(  <= p\n q)\n").unwrap();
    std::fs::write(&tidy, "(role a)\n(<= p q)\n").unwrap();
    let (messy_name, tidy_name) = (messy.to_str().unwrap(), tidy.to_str().unwrap());
    let run = gdl(&["fmt", "--check", messy_name, tidy_name], "");
    assert_eq!(run.code, 1, "{}", run.screen());
    assert_eq!(run.stdout, format!("{messy_name}: not formatted\n"));
    assert_eq!(
        std::fs::read_to_string(&messy).unwrap(),
        "(role  a)\n(  <= p\n q)\n",
        "--check writes nothing"
    );
    let run = gdl(&["fmt", messy_name, tidy_name], "");
    assert_eq!(run.code, 0, "{}", run.screen());
    assert_eq!(
        std::fs::read_to_string(&messy).unwrap(),
        "(role a)\n(<= p q)\n"
    );
    let run = gdl(&["fmt", "--check", messy_name, tidy_name], "");
    assert_eq!((run.code, run.stdout.as_str()), (0, ""), "{}", run.screen());
}

#[test]
fn standard_input_is_formatted_to_standard_output() {
    let run = gdl(
        &["fmt", "-"],
        "; players\n(role a)   (role b) ; two\n\n\n(<= p\n  q)",
    );
    assert_eq!(run.code, 0, "{}", run.screen());
    assert_eq!(
        run.stdout,
        "; players\n(role a) (role b) ; two\n\n(<= p q)\n"
    );
}

#[test]
fn a_file_that_does_not_read_is_left_alone_with_its_errors() {
    let dir = scratch("fmt_errors");
    let broken = dir.join("broken.gdl");
    std::fs::write(&broken, "(role a)\n(<= (p ?x)\n  (q ?x)\n").unwrap();
    let name = broken.to_str().unwrap();
    let run = gdl(&["fmt", name], "");
    assert_eq!(run.code, 1, "{}", run.screen());
    assert!(
        run.stderr.contains(&format!("{name}:2:1: unclosed `(`")),
        "{}",
        run.screen()
    );
    assert_eq!(
        std::fs::read_to_string(&broken).unwrap(),
        "(role a)\n(<= (p ?x)\n  (q ?x)\n"
    );
    let run = gdl(&["fmt", "--check", "no/such/file.gdl"], "");
    assert_eq!(run.code, 2, "{}", run.screen());
}

/// `gdl trace --seed 1` of `rules` in `dir`, the file name left out.
fn trace(dir: &Path, rules: &str) -> String {
    let run = gdl_in(
        dir,
        &["trace", rules, "--seed", "1", "--max-steps", "30"],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.screen());
    run.stdout.replace(rules, "RULES")
}

#[test]
fn a_formatted_game_plays_the_same() {
    let dir = scratch("fmt_trace");
    let mut games = vec![("tictactoe".to_string(), scrambled_tictactoe())];
    let corpus = root().join("../shared/corpus");
    if corpus.is_dir() {
        for name in ["nim1", "hanoi", "buttons", "connectFour", "blocksWorld"] {
            let path = corpus.join(format!("{name}.kif"));
            if let Ok(text) = std::fs::read_to_string(&path) {
                games.push((name.to_string(), text));
            }
        }
    } else {
        eprintln!("skipped the published games: no corpus at ../shared/corpus");
    }
    for (name, text) in &games {
        let before = format!("{name}.kif");
        let after = format!("{name}.formatted.kif");
        std::fs::write(dir.join(&before), text).unwrap();
        std::fs::write(dir.join(&after), text).unwrap();
        let run = gdl_in(&dir, &["fmt", &after], "");
        assert_eq!(run.code, 0, "{name}: {}", run.screen());
        let formatted = std::fs::read_to_string(dir.join(&after)).unwrap();
        if name == "tictactoe" {
            assert_ne!(&formatted, text, "the scrambled file was formatted");
        }
        assert_eq!(trace(&dir, &before), trace(&dir, &after), "{name}");
    }
}
