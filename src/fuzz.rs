//! The bodies of the fuzz targets (`fuzz/fuzz_targets/`), kept in the
//! library so that `cargo test` replays the checked-in corpus through the
//! very same code (`tests/fuzz_corpus.rs`) without nightly or cargo-fuzz.
//!
//! Each function takes arbitrary bytes and must return without panicking,
//! whatever they are; a panic, an overflow or a hang is a finding.

use crate::check::check_source;
use crate::error::render;
use crate::eval::Limits;
use crate::game::Game;
use crate::parse::{parse, parse_ground_term, DEFAULT_MAX_NESTING};
use crate::source::SourceFile;
use crate::symbol::Symbols;
use crate::trace::{read_game, RandomPlayer, Trace};
use crate::GameError;

/// The small limits the evaluator target loads with, so that one input
/// costs milliseconds: rules that derive more stop with a limit error.
pub const FUZZ_LIMITS: Limits = Limits {
    max_facts: 2_000,
    max_term_depth: 12,
    max_nesting: 50,
    max_ground_work: 100_000,
    max_ground_atoms: crate::ground::DEFAULT_MAX_ATOMS,
    max_work: 1_000_000,
};

/// How many joint moves the evaluator target plays.
pub const FUZZ_STEPS: usize = 6;

/// Parser target: reads the bytes as a rules file, as a typed move and as
/// a recorded game (moves file or trace), and renders whatever diagnostics
/// come out (which computes their locations).
pub fn parse_bytes(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let file = SourceFile::new("fuzz.gdl", text.as_ref());
    if let Err(errors) = parse(&file, DEFAULT_MAX_NESTING) {
        assert!(!errors.is_empty(), "a failed parse reports an error");
        render(&file, &errors, false);
    }
    let _ = parse_ground_term(&text, &mut Symbols::new());
    let _ = read_game(&text);
}

/// Checker target: parses, normalises and checks the bytes as a rules
/// file and renders every diagnostic.
pub fn check_bytes(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (file, diagnostics) = check_source("fuzz.gdl", &text);
    render(&file, &diagnostics, false);
}

/// Evaluator target: loads the bytes as a rules file with [`FUZZ_LIMITS`],
/// once grounded (when it fits) and once by the interpreter alone, plays a
/// random game of up to [`FUZZ_STEPS`] joint moves with each, and requires
/// both engines to agree: same load outcome, same trace, same error (unless
/// a limit stopped one of them, as limits count differently).
pub fn play_bytes(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let interpreted = Limits {
        max_ground_work: 0,
        ..FUZZ_LIMITS
    };
    let a = Game::from_source_with("fuzz.gdl", &text, FUZZ_LIMITS);
    let b = Game::from_source_with("fuzz.gdl", &text, interpreted);
    let (mut a, mut b) = match (a, b) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(a), Err(b)) => {
            assert_eq!(a.diagnostics(), b.diagnostics(), "both engines load alike");
            a.render(false);
            return;
        }
        (a, b) => panic!(
            "one engine loads and the other does not:\n{:?}\n{:?}",
            a.err().map(|e| e.render(false)),
            b.err().map(|e| e.render(false))
        ),
    };
    let ra = Trace::random(&mut a, &mut RandomPlayer::new(1), FUZZ_STEPS);
    let rb = Trace::random(&mut b, &mut RandomPlayer::new(1), FUZZ_STEPS);
    let limited = |e: &Option<(usize, GameError)>| matches!(e, Some((_, GameError::Limit { .. })));
    if limited(&ra.error) || limited(&rb.error) {
        return;
    }
    assert_eq!(
        ra.trace,
        rb.trace,
        "ground rules ({}) and interpreter disagree",
        a.engine()
    );
    assert_eq!(
        ra.error, rb.error,
        "ground rules and interpreter fail alike"
    );
}
