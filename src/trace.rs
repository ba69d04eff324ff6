//! Traces of played games as people read them: at each step the board, each
//! role's legal moves and the moves played; at the end the goals.
//!
//! SKELETON: the signature is the contract; the body lands with the CLI work.

use crate::error::GameError;
use crate::game::Game;

/// Plays the given joint moves (one move text per role, in role order) from
/// the initial state and returns the trace as text. Stops with the error of
/// the first illegal move.
pub fn replay_text(_game: &mut Game, _moves: &[Vec<String>]) -> Result<String, GameError> {
    todo!()
}
