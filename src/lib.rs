//! A bottom-up interpreter for the Game Description Language (GDL).
//!
//! The pipeline, one module a stage: `parse` reads KIF text into an `ast`;
//! `check` enforces GDL's restrictions; `plan` stratifies the rules and plans
//! each join; `eval` computes models bottom-up; `game` offers roles, states,
//! legal moves, next states, terminal and goals on top.

pub mod ast;
pub mod board;
pub mod check;
pub mod deps;
pub mod error;
pub mod eval;
pub mod fuzz;
pub mod game;
pub mod ground;
pub mod incremental;
pub mod measure;
pub mod normal;
pub mod parse;
pub mod plan;
pub mod playout;
pub mod source;
pub mod stepper;
pub mod symbol;
pub mod term;
pub mod trace;

pub use error::{Diagnostic, GameError, LoadError, Severity};
pub use eval::Limits;
pub use game::{Game, Move, Role, State};
