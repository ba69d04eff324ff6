//! The published games of other collections beside the repository
//! (`../shared/more-games`, issue 29): every file is checked, and the files
//! gdl refuses are exactly those of `tests/more_games_refused.txt`, each
//! with the codes of its errors and why it is not GDL, so that a file that
//! starts or stops loading is seen. The reference traces that
//! `scripts/more-games-traces` made (random games played by ggp-base's
//! prover) are kept as digests (`tests/more_games_traces.txt`, see
//! `trace_digest`: the traces themselves take some 170 MB), and each game
//! replays them on both engines, as the corpus test does. Without the
//! collection (a clone of the project alone) the test says it skipped.

use crate::trace_digest::Digest;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The collection, if it is beside the repository.
fn collection() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/more-games");
    dir.is_dir().then_some(dir)
}

/// The refused files and their error codes, as `tests/more_games_refused.txt`
/// lists them: `NAME CODE,CODE  reason` a line (`#` starts a comment).
fn expected_refusals() -> BTreeMap<String, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/more_games_refused.txt");
    let text = std::fs::read_to_string(&path).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let mut words = l.split_whitespace();
            let name = words.next().unwrap().to_string();
            let codes = words.next().unwrap_or_default().to_string();
            (name, codes)
        })
        .collect()
}

#[test]
fn the_files_gdl_refuses_are_the_listed_ones() {
    let Some(dir) = collection() else {
        eprintln!("skipped: no published games at ../shared/more-games beside the repository");
        return;
    };
    let files = crate::corpus::files_of(&dir, "kif");
    assert!(
        files.len() > 800,
        "{} files in {}",
        files.len(),
        dir.display()
    );
    let mut refused: BTreeMap<String, String> = BTreeMap::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(path).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        let (_, diagnostics) = gdl::check_source(&name, &text);
        let mut codes: Vec<&str> = (diagnostics.iter())
            .filter(|d| d.is_error())
            .map(|d| d.code)
            .collect();
        codes.sort_unstable();
        codes.dedup();
        if !codes.is_empty() {
            refused.insert(name, codes.join(","));
        }
    }
    let expected = expected_refusals();
    let differences: Vec<String> = (refused.iter().map(|(n, c)| (n, Some(c), expected.get(n))))
        .chain(
            (expected.iter())
                .filter(|(n, _)| !refused.contains_key(*n))
                .map(|(n, c)| (n, None, Some(c))),
        )
        .filter(|(_, now, listed)| now != listed)
        .map(|(name, now, listed)| {
            format!(
                "{name}: refused for {}, listed for {}",
                now.map_or("nothing", String::as_str),
                listed.map_or("nothing", String::as_str)
            )
        })
        .collect();
    eprintln!(
        "{} files checked: {} load, {} refused",
        files.len(),
        files.len() - refused.len(),
        refused.len()
    );
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}

/// The games whose reference traces gdl does not replay, each proved from
/// its rules: the reference is wrong on them (both engines of gdl agree).
const DISAGREEMENTS: [(&str, &str); 8] = [
    (
        "ggp-org-ggp-base__ggp-base_games_rulesheets_wargame03_5d4b898.kif",
        // `verticalTerrorist` and `VerticalTerrorist` (and `timeout`,
        // `blockedEast`) are one name in GDL, which compares names without
        // case, and two in ggp-base: the terrorist's moves differ from step 1.
        "names that differ only in case",
    ),
    (
        "fezvez-ggp-ic2012__games_games_ticTacHeaven_ticTacHeaven_c011809.kif",
        // `(<= (next (cell_small ?m ?n b)) (true (cell_small ?m ?n b)) ...
        // (not (does ?player (mark_small ?m ?n))))`: `?player` only under
        // `not` (negated-unbound) reads "no player marks the cell", so a cell
        // xplayer marks holds x alone. The reference keeps
        // `(cell_small 2 2 b)` beside `(cell_small 2 2 x)` at step 1: two
        // values in one cell, which no rule of the game allows for.
        "a variable only under `not` in a `does`",
    ),
    (
        "ggp-org-ggp-base__ggp-base_games_rulesheets_blokbox_duo_5c62fd6.kif",
        // `(<= (next (owns ?color ?num)) (true (owns ?color ?num)) (not
        // (does ?color (place ?num ?orientation ?x ?y))))`: the place's
        // variables only under `not` (negated-unbound) read "the player
        // does not place the piece", so a piece placed is no longer owned.
        // The reference keeps `(owns purple 3)` after purple's `(place 3 1
        // 9 7)` at step 1, and from then on lists moves that place pieces
        // already on the board; every other fact and move agrees.
        "a variable only under `not` in a `does`",
    ),
    (
        "ggp-org-ggp-base__ggp-base_games_rulesheets_sudoku_0acbeea.kif",
        // `(<= terminal (not (emptyCell ?i ?j)))`: the variables only under
        // `not` (negated-unbound) read "no cell is empty". At step 0 no
        // cell is marked, so `(emptyCell 1 1)` holds and the game goes on;
        // the reference records the empty board terminal, with no legal
        // move (it does so for `(<= terminal (not (emptyCell ?i)))` in a
        // game of two cells too).
        "a variable only under `not`: the empty board terminal",
    ),
    (
        "ggp-org-ggp-base__ggp-base_games_rulesheets_sudoku_cd7f780.kif",
        // The same `terminal` as sudoku_0acbeea's. With it and
        // `emptyCell`'s `(not (true (mark ?i ?j ?anyMark)))` written
        // without variables only under `not`, the reference agrees on
        // every state and legal move of two random games (81 moves), then
        // scores the full random board 100, which no reading of the rules
        // gives (its row 1 holds 4 twice); gdl scores it 0.
        "a variable only under `not`: the empty board terminal",
    ),
    (
        "ggp-org-ggp-base__ggp-base_games_rulesheets_minichess_5d4b898.kif",
        // `(<= (distpair ?w ?x ?y ?z) (distinct ?w ?x))` and `(... (distinct
        // ?y ?z))`, asked by `(next (cell ?w ?z b))` with every place bound
        // (caller-bound): a blank cell stays blank unless it is the square
        // moved to. ggp-base's prover leaves out a `distinct` whose
        // variables no positive literal of the body binds (its
        // `DistinctAndNotMover`), so for it `distpair` always holds: after
        // white's `(move wr d 1 d 2)` it keeps `(cell d 2 b)` beside `(cell
        // d 2 wr)` at step 1. With `distpair` written as the fact
        // `(distpair ?w ?x ?y ?z)`, gdl replays its traces exactly.
        "a `distinct` that only the question binds, which the reference drops",
    ),
    (
        "ratboi-cs227b__ggp_games_rulesheets_minichess_ed5166b.kif",
        // The same `distpair` as ggp-base's minichess: the reference keeps
        // `(cell d 2 b)` beside `(cell d 2 wr)` at step 1.
        "a `distinct` that only the question binds, which the reference drops",
    ),
    (
        "muupan-ggpe__kif_pilgrimage.kif",
        // `(<= (same_height ?i ?j ?m ?n) (not (has_height ?i ?j)) (not
        // (has_height ?m ?n)))`: two cells of no height, asked by
        // `free_path` with every place bound (caller-bound). ggp-base's
        // prover leaves both `not`s out (no positive literal binds their
        // variables), so for it any two cells are of the same height: in
        // trace 0 it lets blue's builder at (5 5), of height 2, move to (5
        // 4), of none, at step 6 (`(move 5 4 5 5)`), which `same_height`
        // and `next_height` both deny. With the rule written as the fact
        // `(same_height ?i ?j ?m ?n)`, gdl replays its traces exactly.
        "a `not` that only the question binds, which the reference drops",
    ),
];

/// The digests of the reference traces of the collection
/// (`tests/more_games_traces.txt`, see `trace_digest`).
fn digests_file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/more_games_traces.txt")
}

/// Writes the digests of the reference traces that
/// `scripts/more-games-traces` made under `target/more-games/traces/`
/// (that script runs it at its end): `cargo test --release -p gdl --test
/// main more_games::write_the_digests_of_the_reference_traces -- --ignored`.
#[test]
#[ignore = "writes tests/more_games_traces.txt from the traces under target/"]
fn write_the_digests_of_the_reference_traces() {
    let traces = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/more-games/traces");
    let paths = crate::corpus::files_of(&traces, "json");
    assert!(!paths.is_empty(), "no traces under {}", traces.display());
    let mut lines = Vec::new();
    for path in &paths {
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let (game, _) = stem.rsplit_once('.').unwrap();
        let text = std::fs::read_to_string(path).unwrap();
        let trace: serde_json::Value = serde_json::from_str(&text).unwrap();
        let digest = Digest::of_trace(&format!("{game}.kif"), &stem, &trace)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        lines.push(digest.line());
    }
    lines.sort();
    let header = "# The digests of the reference traces of ../shared/more-games, written by \
                  scripts/more-games-traces (see tests/trace_digest.rs): FILE, TRACE, GOALS, STEPS.";
    std::fs::write(digests_file(), format!("{header}\n{}\n", lines.join("\n"))).unwrap();
    eprintln!(
        "{} digests written to {}",
        lines.len(),
        digests_file().display()
    );
}

#[test]
fn the_games_that_load_agree_with_their_reference_traces() {
    let Some(dir) = collection() else {
        eprintln!("skipped: no published games at ../shared/more-games beside the repository");
        return;
    };
    let text = std::fs::read_to_string(digests_file()).unwrap();
    let mut games: BTreeMap<PathBuf, Vec<Digest>> = BTreeMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let digest = Digest::parse(line).unwrap_or_else(|e| panic!("{e}"));
        let rules = dir.join(&digest.game);
        assert!(
            rules.exists(),
            "a digest of a file the collection lacks: {}",
            digest.game
        );
        games.entry(rules).or_default().push(digest);
    }
    let games: Vec<_> = games.into_iter().collect();
    let listed = |rules: &Path| {
        let name = rules.file_name().unwrap().to_string_lossy();
        DISAGREEMENTS.iter().any(|(known, _)| *known == name)
    };
    // Names that differ only in case are one name in GDL and two in
    // ggp-base (`gdl check` warns `case-variant`, saying so): the traces of
    // such a file may differ wherever the two spellings meet (21 of the
    // DARPA mummy mazes' transfer files write `nextMummylocation` beside
    // `nextMummyLocation`), or not, as the random games go. They are
    // replayed apart and their differences only counted, as wargame03's,
    // whose traces always differ, are known.
    let (games, case_variants): (Vec<_>, Vec<_>) = games
        .into_iter()
        .partition(|(rules, _)| listed(rules) || !has_case_variants(rules));
    let (known, games): (Vec<_>, Vec<_>) = games.into_iter().partition(|(r, _)| listed(r));
    let failures = crate::corpus::agree_all(&games);
    // The known disagreements still disagree (else they leave the list).
    let agreeing: Vec<String> = (known.iter())
        .filter(|game| crate::corpus::agree_all(std::slice::from_ref(*game)).is_empty())
        .map(|(rules, _)| rules.display().to_string())
        .collect();
    assert!(
        agreeing.is_empty(),
        "listed as disagreeing, but agree: {agreeing:?}"
    );
    let case_differences = crate::corpus::agree_all(&case_variants);
    eprintln!(
        "the reference traces of {} games replayed; of {} more with names that differ only \
         in case, {} differ",
        games.len(),
        case_variants.len(),
        case_differences.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Whether `gdl check` warns that two names of the file differ only in
/// case (`case-variant`).
fn has_case_variants(rules: &Path) -> bool {
    let bytes = std::fs::read(rules).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    let (_, diagnostics) = gdl::check_source(&rules.display().to_string(), &text);
    diagnostics.iter().any(|d| d.code == "case-variant")
}
