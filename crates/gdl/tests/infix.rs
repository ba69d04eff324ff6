//! The infix syntax (`gdl::convert_source`, what `gdl fmt --to` runs) on
//! every rules file of `rules/` and every published game of the corpus
//! beside the repository (`../shared/corpus/*.kif`, skipped with a message
//! when it is absent): each file converted to infix reads back as the same
//! rules (compared with their variables numbered by first occurrence in
//! each rule and their names without case, as GDL compares them), its
//! infix layout formats to itself, its comments are all there, and the
//! games of `rules/` and the smaller published games play the same seeded
//! random games from either file: the same states, legal moves, terminal
//! states and goals at every step.

use crate::corpus::files_of;
use gdl::{
    DEFAULT_MAX_NESTING, EngineChoice, Game, Kif, Limits, LoadOptions, Syntax, convert_source,
};
use std::collections::HashMap;
use std::path::Path;

/// The published games played from both files: those up to this size
/// (the others are only read, to keep the test to seconds).
const PLAYED_BYTES: usize = 6_000;

/// A KIF text's top-level forms in a normal form: names in lower case,
/// variables numbered in each form by first occurrence, `(<= head)` as
/// `head`.
fn normal(text: &str) -> Vec<Kif> {
    fn walk(k: &Kif, vars: &mut HashMap<String, usize>) -> Kif {
        match k {
            Kif::Atom(a) if a.starts_with('?') => {
                let n = vars.len();
                let n = *vars.entry(a.to_ascii_lowercase()).or_insert(n);
                Kif::Atom(format!("?v{n}"))
            }
            Kif::Atom(a) => Kif::Atom(a.to_ascii_lowercase()),
            Kif::List(items) => Kif::List(items.iter().map(|i| walk(i, vars)).collect()),
        }
    }
    let forms = Kif::read_all(text).unwrap_or_else(|e| panic!("{}", e[0].message));
    (forms.iter())
        .map(|f| match f {
            Kif::List(items) if items.len() == 2 && items[0].atom() == Some("<=") => {
                items[1].clone()
            }
            f => f.clone(),
        })
        .map(|f| walk(&f, &mut HashMap::new()))
        .collect()
}

/// The comments' texts, without their `;`, `%` or `//` and white space.
fn comment_texts(text: &str, syntax: Syntax) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let at = match syntax {
            Syntax::Kif => line.find(';'),
            // The infix files here hold no `%` inside quotes.
            Syntax::Infix => line.find('%'),
        };
        if let Some(at) = at {
            let comment = line[at..].trim_start_matches([';', '%']).trim();
            out.push(comment.to_string());
        }
    }
    out
}

/// Converts the KIF `text` to infix and back, checking what the module's
/// comment says but the play; returns the infix text.
fn round_trip(name: &str, text: &str) -> String {
    let infix = convert_source(name, text, Some(Syntax::Infix), DEFAULT_MAX_NESTING)
        .unwrap_or_else(|e| panic!("{name}: to infix: {}", e[0].message));
    let hrf = format!("{name}.hrf");
    let again = convert_source(&hrf, &infix, None, DEFAULT_MAX_NESTING)
        .unwrap_or_else(|e| panic!("{name}: infix reformatted: {}", e[0].message));
    assert!(again == infix, "{name}: formatting the infix changes it");
    let back = convert_source(&hrf, &infix, Some(Syntax::Kif), DEFAULT_MAX_NESTING)
        .unwrap_or_else(|e| panic!("{name}: back to KIF: {}", e[0].message));
    assert!(
        normal(text) == normal(&back),
        "{name}: the round trip through infix reads as other rules"
    );
    assert_eq!(
        comment_texts(text, Syntax::Kif),
        comment_texts(&infix, Syntax::Infix),
        "{name}: comments changed"
    );
    assert_eq!(
        comment_texts(text, Syntax::Kif),
        comment_texts(&back, Syntax::Kif),
        "{name}: comments changed on the way back"
    );
    infix
}

/// A small generator of move choices that needs no crate.
fn next(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

/// Plays the same random games (2 seeds, at most 20 steps) on the game of
/// each text, and checks that every step agrees.
fn plays_the_same(name: &str, kif: &str, infix: &str) {
    // The interpreter: no grounding at load, which would cost seconds a
    // game and tell nothing more about the reading.
    let options = LoadOptions {
        limits: Limits::default(),
        engine: EngineChoice::Interpreter,
    };
    let load = |file: &str, text: &str| {
        Game::from_source_with(file, text, options)
            .unwrap_or_else(|e| panic!("{name}: {file}: {e:?}"))
    };
    let mut a = load(&format!("{name}.kif"), kif);
    let mut b = load(&format!("{name}.hrf"), infix);
    let sorted = |mut v: Vec<String>| {
        v.iter_mut().for_each(|s| s.make_ascii_lowercase());
        v.sort();
        v
    };
    for seed in 1..=2u64 {
        let mut rng = seed * 0x9E37_79B9_7F4A_7C15;
        let (mut sa, mut sb) = (a.initial_state(), b.initial_state());
        for step in 0..20 {
            let at = format!("{name}, seed {seed}, step {step}");
            assert_eq!(
                sorted(a.state_facts(&sa)),
                sorted(b.state_facts(&sb)),
                "{at}: states"
            );
            let terminal = a.is_terminal(&sa).unwrap();
            assert_eq!(terminal, b.is_terminal(&sb).unwrap(), "{at}: terminal");
            if terminal {
                assert_eq!(a.goals(&sa).unwrap(), b.goals(&sb).unwrap(), "{at}: goals");
                break;
            }
            let (mut ma, mut mb) = (Vec::new(), Vec::new());
            for (ra, rb) in a.roles().into_iter().zip(b.roles()) {
                let la = a.legal_moves(&sa, ra).unwrap();
                let lb = b.legal_moves(&sb, rb).unwrap();
                let ta = sorted(la.iter().map(|&m| a.move_text(m)).collect());
                let tb = sorted(lb.iter().map(|&m| b.move_text(m)).collect());
                assert_eq!(ta, tb, "{at}: legal moves of {}", a.role_name(ra));
                if la.is_empty() {
                    return;
                }
                // The same move on both sides, found by its text.
                let text = &ta[next(&mut rng) as usize % ta.len()];
                let pick = |g: &Game, l: &[gdl::Move]| {
                    *l.iter()
                        .find(|&&m| g.move_text(m).eq_ignore_ascii_case(text))
                        .unwrap()
                };
                ma.push(pick(&a, &la));
                mb.push(pick(&b, &lb));
            }
            sa = a.next_state(&sa, &ma).unwrap();
            sb = b.next_state(&sb, &mb).unwrap();
        }
    }
}

#[test]
fn every_rules_file_converts_to_infix_and_back_to_the_same_game() {
    let rules = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../rules");
    let files = files_of(&rules, "gdl");
    assert!(files.len() >= 8, "{} rules files", files.len());
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let infix = round_trip(&name, &text);
        plays_the_same(&name, &text, &infix);
    }
}

#[test]
fn every_published_game_converts_to_infix_and_back_to_the_same_game() {
    let Some(dir) = crate::corpus::corpus() else {
        return;
    };
    let games = files_of(&dir, "kif");
    assert!(games.len() > 100, "{} games", games.len());
    let mut played = 0;
    for path in &games {
        let text = std::fs::read_to_string(path).unwrap();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let infix = round_trip(&name, &text);
        if text.len() <= PLAYED_BYTES {
            plays_the_same(&name, &text, &infix);
            played += 1;
        }
    }
    eprintln!(
        "{} published games through infix and back, {played} of them played",
        games.len()
    );
}

/// The checker's messages on an infix file quote the rules in infix, as
/// the author wrote them (`Y`, `q(B)`, `base(fact)`), and the same file in
/// KIF gets them in KIF: what the analysis quotes is written again, not
/// only the reader's own errors.
#[test]
fn the_checkers_messages_on_an_infix_file_quote_infix() {
    let infix = "role(x)\ninit(c(1))\nlegal(x, m(Y)) :- true(c(Z))\n\
                 next(c(A)) :- true(c(A)) & ~q(B)\nterminal :- true(c(2))\n\
                 goal(x, 100) :- true(c(1))\n";
    let kif = convert_source("t.hrf", infix, Some(Syntax::Kif), 200).unwrap();
    let texts = |name: &str, text: &str| -> Vec<String> {
        let (_, diagnostics) = gdl::check_source(name, text);
        (diagnostics.iter())
            .flat_map(|d| {
                let mut all = vec![d.message.clone(), d.label.clone()];
                all.extend(d.notes.iter().cloned());
                all
            })
            .collect()
    };
    let (in_infix, in_kif) = (texts("t.hrf", infix), texts("t.gdl", &kif));
    assert_eq!(in_infix.len(), in_kif.len());
    for (wanted, kif_wanted) in [
        ("variable `Y` is unsafe", "variable `?Y` is unsafe"),
        ("`q(B)` is read as", "`(q ?B)` is read as"),
        ("`true(c(2))` never holds", "`(true (c 2))` never holds"),
        (
            "with `base(fact)` and `input(role, move)`",
            "with `(base fact)` and `(input role move)`",
        ),
        ("such as `X`, matches", "such as `?x`, matches"),
    ] {
        assert!(
            in_infix.iter().any(|t| t.contains(wanted)),
            "{wanted}: {in_infix:#?}"
        );
        assert!(
            in_kif.iter().any(|t| t.contains(kif_wanted)),
            "{kif_wanted}: {in_kif:#?}"
        );
    }
    // No KIF variable (`?x`) is quoted.
    let kif_variable = |t: &String| {
        (t.match_indices("`?")).any(|(i, _)| t[i + 2..].starts_with(|c: char| c.is_alphanumeric()))
    };
    assert!(!in_infix.iter().any(kif_variable), "{in_infix:#?}");
}

#[test]
fn comments_inside_terms_and_each_names_spelling_come_back_where_they_were() {
    let kif = "(role x)\n(<= (legal x (mark ?A ; the column\n ?B)) (true (Cell ?A ?B b)) ; empty\n \
               (not (true (cell ?A ; same\n ?B x))))\n(init (Cell 1 1 b))\n";
    let formatted = convert_source("t.gdl", kif, None, DEFAULT_MAX_NESTING).unwrap();
    let infix = convert_source("t.gdl", kif, Some(Syntax::Infix), DEFAULT_MAX_NESTING).unwrap();
    // Each comment stays between the same arguments; each function keeps
    // the spelling it has there (`Cell` in quotes: infix would read it as
    // a variable).
    assert!(infix.contains("mark(A, % the column\n"), "{infix}");
    assert!(infix.contains("~true(cell(A, % same\n"), "{infix}");
    assert!(
        infix.contains("true(\"Cell\"(A, B, b)) & % empty"),
        "{infix}"
    );
    assert!(infix.contains("init(\"Cell\"(1, 1, b))"), "{infix}");
    let again = convert_source("t.hrf", &infix, None, DEFAULT_MAX_NESTING).unwrap();
    assert_eq!(again, infix, "formatting the infix changes it");
    let back = convert_source("t.hrf", &infix, Some(Syntax::Kif), DEFAULT_MAX_NESTING).unwrap();
    assert_eq!(back, formatted);
}
