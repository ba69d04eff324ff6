#![warn(missing_docs)]
//! gdl: a fast bottom-up engine for the Game Description Language (GDL) of
//! General Game Playing.
//!
//! Rules are read and run at once, without compiling: [`Game::load`] reads
//! a rules file, and the game answers for roles, the initial state, legal
//! moves, next states, terminal states and goals.
//!
//! ```
//! let mut game = gdl::Game::from_source("nim.gdl", "
//!     (role player)
//!     (init (count 2))
//!     (<= (legal player take) (true (count ?n)) (distinct ?n 0))
//!     (<= (next (count ?m)) (true (count ?n)) (does player take) (minus ?n ?m))
//!     (minus 2 1) (minus 1 0)
//!     (<= terminal (true (count 0)))
//!     (goal player 100)
//! ")?;
//! let player = game.roles()[0];
//! let mut state = game.initial_state();
//! while !game.is_terminal(&state)? {
//!     let moves = game.legal_moves(&state, player)?;
//!     state = game.next_state(&state, &moves[..1])?;
//! }
//! assert_eq!(game.goals(&state)?, [100]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Inside, the pipeline is one module a stage, each reading only those
//! before it: `syntax` (text to rules), `analysis` (the checks), `rewrite`
//! (rules rewritten to play faster), `plan` (strata and join plans), `engine` (the interpreter, the grounder, the
//! incremental network), `game` (this API), `search` (a player) and
//! [`record`] (played games written down and read back), with `limits`,
//! `source` and `error` beside them. `gdl plan FILE` prints what `plan` made
//! of a file.

// The bounds every stage respects, the count of bytes held, the flag that
// stops an evaluation from another thread, and the text being read with
// places in it.
mod cancel;
mod limits;
mod memory;
mod source;
// What the stages report: diagnostics of a rules file, errors of a game.
mod error;
// Text to rules: symbols, ground terms, the KIF reader, the normal form;
// and rules files laid out (the formatter).
mod syntax;
// Rules to checked rules: the dependency graph, GDL's restrictions.
mod analysis;
// Checked rules to rules that mean the same and play faster: demand, condense.
mod rewrite;
// Checked rules to a program: strata and the plan of every join.
mod plan;
// A program to models: the interpreter, the grounder, the incremental network.
mod engine;
// Models to a game: roles, states, legal moves, next states, terminal, goals.
mod game;
// A game to a player: Monte Carlo tree search over the game API.
mod search;
// Games to files and back: traces, boards, moves files, recorded games.
pub mod record;

#[doc(hidden)]
pub mod fuzz;

pub use analysis::check::check_source;
pub use analysis::outline::{
    Name, NameKind, Occurrence, Outline, RuleOutline, outline_source, outline_source_in,
};
pub use cancel::Cancel;
pub use error::{
    ALLOWANCES, Diagnostic, GameError, LoadError, Severity, Suggestion, clip, render, shorten,
};
pub use game::random::{Outcome, Players, Playout, RandomPlayer};
pub use game::stepper::Stepper;
pub use game::{
    Engine, EngineChoice, FactIndex, Game, Goals, LoadOptions, Move, Role, State, Stop, play_games,
};
pub use limits::{DEFAULT_MAX_NESTING, LimitKind, Limits, MAX_NESTING_CEILING, MAX_SOURCE_BYTES};
pub use memory::{CountingAllocator, default_max_memory, heap_bytes, human_bytes};
pub use plan::{RulePlan, StratumPlan};
pub use search::{Budget, DEFAULT_EXPLORATION, DEFAULT_PLAYOUT_STEPS, SearchPlayer, SearchStats};
pub use source::{LineCol, SourceFile, Span};
pub use syntax::Syntax;
pub use syntax::convert::{convert_source, convert_source_in};
pub use syntax::format::format_source;
pub use syntax::keywords::{KeywordHelp, keyword_help};
pub use syntax::kif::Kif;
pub use syntax::natural::natural_cmp;
