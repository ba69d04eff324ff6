//! The bodies of the fuzz targets (`fuzz/fuzz_targets/`), kept in the
//! library so that `cargo test` replays the checked-in corpus through the
//! very same code (`tests/fuzz_corpus.rs`) without nightly or cargo-fuzz.
//!
//! Each function takes arbitrary bytes and must return without panicking,
//! whatever they are; a panic, an overflow or a hang is a finding.

use crate::GameError;
use crate::analysis::check::check_source;
use crate::error::render;
use crate::game::random::RandomPlayer;
use crate::game::{EngineChoice, Game, LoadOptions, State};
use crate::limits::{DEFAULT_MAX_ATOMS, DEFAULT_MAX_NESTING, Limits};
use crate::source::SourceFile;
use crate::syntax::format::format_source;
use crate::syntax::kif::{Kif, parse, parse_ground_term};
use crate::syntax::symbol::Symbols;

/// The small limits the evaluator target loads with, so that one input
/// costs milliseconds: rules that derive more stop with a limit error.
pub const FUZZ_LIMITS: Limits = Limits {
    max_facts: 2_000,
    max_term_depth: 12,
    max_nesting: 50,
    max_ground_work: 100_000,
    max_ground_atoms: DEFAULT_MAX_ATOMS,
    max_work: 1_000_000,
    max_memory: 1 << 30,
};

/// How many joint moves the evaluator target plays.
pub const FUZZ_STEPS: usize = 6;

/// Parser target: reads the bytes as a rules file, as a typed move and as
/// KIF terms (a moves file's line, a fact), and renders whatever diagnostics
/// come out (which computes their locations). It formats them too
/// (`gdl fmt`): a formatted text must read as the same terms, and format to
/// itself.
pub fn parse_bytes(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let file = SourceFile::new("fuzz.gdl", text.as_ref());
    if let Err(errors) = parse(&file, DEFAULT_MAX_NESTING) {
        assert!(!errors.is_empty(), "a failed parse reports an error");
        render(&file, &errors, false);
    }
    let _ = parse_ground_term(&text, &mut Symbols::new());
    let terms = Kif::read_all(&text);
    match format_source(&text, DEFAULT_MAX_NESTING) {
        Ok(formatted) => {
            assert_eq!(
                Kif::read_all(&formatted),
                terms,
                "formatting changed the terms"
            );
            let again = format_source(&formatted, DEFAULT_MAX_NESTING);
            assert_eq!(
                again.as_ref(),
                Ok(&formatted),
                "formatting is not idempotent"
            );
        }
        Err(errors) => assert!(terms.is_err() && !errors.is_empty()),
    }
    infix_round_trips(&text);
}

/// The infix syntax on the same text: read as an infix file, its errors
/// rendered; a text that reads as rules in either syntax converts to the
/// other and back, the infix layout formats to itself, and the conversion
/// reads in the other syntax.
fn infix_round_trips(text: &str) {
    use crate::syntax::Syntax;
    use crate::syntax::convert::convert_source;
    let file = SourceFile::new("fuzz.hrf", text);
    if let Err(errors) = parse(&file, DEFAULT_MAX_NESTING) {
        assert!(!errors.is_empty(), "a failed parse reports an error");
        render(&file, &errors, false);
    }
    for (name, other) in [("fuzz.hrf", Syntax::Kif), ("fuzz.kif", Syntax::Infix)] {
        if Syntax::of(name, text) == other {
            continue;
        }
        let Ok(converted) = convert_source(name, text, Some(other), DEFAULT_MAX_NESTING) else {
            continue;
        };
        let other_name = format!("converted.{}", other.extension());
        let back = convert_source(&other_name, &converted, None, DEFAULT_MAX_NESTING)
            .unwrap_or_else(|e| panic!("the conversion does not read: {e:?}\n{converted}"));
        if other == Syntax::Infix {
            assert_eq!(back, converted, "the infix layout is not idempotent");
        }
    }
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
    let interpreted = LoadOptions {
        limits: FUZZ_LIMITS,
        engine: EngineChoice::Interpreter,
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
    let (mut pa, mut pb) = (RandomPlayer::new(1), RandomPlayer::new(1));
    let (mut sa, mut sb) = (a.initial_state(), b.initial_state());
    for step in 0..=FUZZ_STEPS {
        let choose = step < FUZZ_STEPS;
        let (ra, rb) = (
            observe(&mut a, &sa, choose, &mut pa),
            observe(&mut b, &sb, choose, &mut pb),
        );
        let limited = |r: &Result<_, GameError>| matches!(r, Err(GameError::Limit { .. }));
        if limited(&ra) || limited(&rb) {
            return;
        }
        let (seen_a, seen_b) = (ra.as_ref().map(|r| &r.0), rb.as_ref().map(|r| &r.0));
        let engine = a.engine();
        assert_eq!(
            seen_a, seen_b,
            "ground rules ({engine}) and interpreter disagree"
        );
        match (ra, rb) {
            (Ok((_, Some(ja))), Ok((_, Some(jb)))) => {
                sa = a.next_state(&sa, &ja).expect("a legal joint move plays");
                sb = b.next_state(&sb, &jb).expect("a legal joint move plays");
            }
            _ => return,
        }
    }
}

/// What a state shows, as texts: both engines must show the same.
#[derive(Debug, PartialEq)]
struct Seen {
    facts: Vec<String>,
    /// Each role's legal moves, sorted (none in a terminal state).
    legal: Vec<Vec<String>>,
    terminal: bool,
    /// The goals, in a terminal state.
    goals: Vec<u8>,
}

/// What `state` shows, and, when `choose` and the game goes on, a random
/// joint move (the player sorts the moves by text, so states shown alike
/// give the same choice on both engines; moves themselves are ids of each
/// game's own terms, not compared).
fn observe(
    game: &mut Game,
    state: &State,
    choose: bool,
    player: &mut RandomPlayer,
) -> Result<(Seen, Option<Vec<crate::Move>>), GameError> {
    let mut facts = game.state_facts(state);
    facts.sort();
    if game.is_terminal(state)? {
        let goals = game.goals(state)?;
        let seen = Seen {
            facts,
            legal: Vec::new(),
            terminal: true,
            goals,
        };
        return Ok((seen, None));
    }
    let mut legal = Vec::new();
    for role in game.roles() {
        let mut moves: Vec<String> = game
            .legal_moves(state, role)?
            .into_iter()
            .map(|m| game.move_text(m))
            .collect();
        moves.sort();
        legal.push(moves);
    }
    let joint = match choose {
        true => Some(player.joint(game, state)?),
        false => None,
    };
    let seen = Seen {
        facts,
        legal,
        terminal: false,
        goals: Vec::new(),
    };
    Ok((seen, joint))
}
