//! Played games written down, and read back: the last stage, over the game
//! API.
//!
//! - A [`Trace`] is a game step by step (its states, each role's legal
//!   moves, the moves played, the goals), written as text for people
//!   ([`Trace::to_text`], each state drawn by a [`Board`]) or as JSON
//!   ([`Trace::to_json`], [`record_file`]); [`replay_text`] plays moves into
//!   the text at once.
//! - A moves file ([`moves_file`]) holds the joint moves alone, one a line.
//! - [`read_record`] reads recorded games back, gdl's JSON traces, ggp-base's
//!   match records and moves files alike, as one [`Record`].
//!
//! Legal moves are listed in natural order ([`natural_cmp`](crate::natural_cmp)),
//! so that what is written stays the same when the evaluator changes.

mod board;
mod provenance;
mod read;
mod trace;

pub use board::{Board, BoardSpec, Grid, Square};
pub use provenance::{Provenance, sha256_hex};
pub use read::{
    Record, RecordError, RecordFormat, RecordedStep, is_recorded_game, read_record,
    read_record_within, record_file,
};
pub use trace::{Replay, Step, Trace, legal_move, moves_file, observe, replay_text, sorted_moves};
