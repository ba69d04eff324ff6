//! The formatter (`gdl::format_source`, what `gdl fmt` runs) on every rules
//! file of `rules/` and every published game of the corpus beside the
//! repository (`../shared/corpus/*.kif`, skipped with a message when it is
//! absent): formatting twice gives what formatting once gave, the formatted
//! file reads as the very same terms (so as the same game), its comments
//! are all there in their order, and the files of `rules/` are already
//! formatted (the check CI makes, as `gdl fmt --check rules/*.gdl` would).

use crate::corpus::files_of;
use gdl::{DEFAULT_MAX_NESTING, Kif, format_source};
use std::path::Path;

/// The comments of a KIF text, in order, without trailing white space (a
/// `;` is never part of a word, so every one starts a comment).
fn comments(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|line| line.find(';').map(|at| line[at..].trim_end()))
        .collect()
}

/// Formats `text` twice and checks what the module's comment says;
/// returns the formatted text.
fn formats_faithfully(name: &str, text: &str) -> String {
    let once = format_source(text, DEFAULT_MAX_NESTING)
        .unwrap_or_else(|e| panic!("{name}: {}", e[0].message));
    let twice = format_source(&once, DEFAULT_MAX_NESTING).unwrap();
    assert!(once == twice, "{name}: formatting twice changes the text");
    assert_eq!(
        Kif::read_all(text).unwrap(),
        Kif::read_all(&once).unwrap(),
        "{name}: the formatted file reads as other terms"
    );
    assert_eq!(comments(text), comments(&once), "{name}: comments changed");
    assert!(
        once.lines().all(|l| l == l.trim_end()),
        "{name}: trailing white space"
    );
    once
}

#[test]
fn every_rules_file_is_formatted_and_formats_faithfully() {
    let rules = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../rules");
    let files = files_of(&rules, "gdl");
    assert!(files.len() >= 8, "{} rules files", files.len());
    let mut unformatted = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let name = path.display().to_string();
        if formats_faithfully(&name, &text) != text {
            unformatted.push(name);
        }
    }
    assert!(
        unformatted.is_empty(),
        "not formatted (run `gdl fmt rules/*.gdl`): {unformatted:?}"
    );
}

#[test]
fn every_published_game_formats_faithfully() {
    let Some(dir) = crate::corpus::corpus() else {
        return;
    };
    let games = files_of(&dir, "kif");
    assert!(games.len() > 100, "{} games", games.len());
    for path in &games {
        let text = std::fs::read_to_string(path).unwrap();
        formats_faithfully(&path.display().to_string(), &text);
    }
    eprintln!("{} published games formatted twice", games.len());
}
