//! The game API: roles, states, legal moves, next states, terminal, goals.
//!
//! SKELETON: the signatures below are the contract; bodies land with the
//! evaluator.

use crate::error::{GameError, LoadError};
use std::path::Path;
use std::sync::Arc;

/// A player of the game, by its position in the `role` facts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Role(pub u32);

/// A move term, such as `(move a 2 b 3)`, interned in its game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move(pub(crate) u32);

/// A game state: the set of ground facts that hold, as interned terms.
/// Hashable and cheap to clone. Only meaningful with the `Game` (or a clone
/// of it) that produced it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State(pub(crate) Arc<[u32]>);

/// A loaded, checked rules file ready to play, with its evaluator caches.
#[derive(Clone)]
pub struct Game {}

impl Game {
    /// Reads, parses and checks a rules file.
    pub fn load(_path: impl AsRef<Path>) -> Result<Game, LoadError> {
        todo!()
    }

    /// Parses and checks rules given as text; `name` is used in messages.
    pub fn from_source(_name: &str, _text: &str) -> Result<Game, LoadError> {
        todo!()
    }

    /// The roles, in the order of the `role` facts.
    pub fn roles(&self) -> Vec<Role> {
        todo!()
    }

    /// The name of a role, such as `white`.
    pub fn role_name(&self, _role: Role) -> &str {
        todo!()
    }

    /// The role with this name, if any.
    pub fn role_by_name(&self, _name: &str) -> Option<Role> {
        todo!()
    }

    /// The state made of the `init` facts.
    pub fn initial_state(&self) -> State {
        todo!()
    }

    /// The legal moves of `role` in `state`.
    pub fn legal_moves(&mut self, _state: &State, _role: Role) -> Result<Vec<Move>, GameError> {
        todo!()
    }

    /// Every combination of one legal move per role, in role order.
    pub fn joint_moves(&mut self, _state: &State) -> Result<Vec<Vec<Move>>, GameError> {
        todo!()
    }

    /// The state after every role plays its move of `joint` (in role order).
    pub fn next_state(&mut self, _state: &State, _joint: &[Move]) -> Result<State, GameError> {
        todo!()
    }

    /// Whether `state` is terminal.
    pub fn is_terminal(&mut self, _state: &State) -> Result<bool, GameError> {
        todo!()
    }

    /// Each role's goal value in `state`, in role order.
    pub fn goals(&mut self, _state: &State) -> Result<Vec<u8>, GameError> {
        todo!()
    }

    /// A move written in KIF, such as `(move a 2 b 3)` or `noop`.
    pub fn move_text(&self, _m: Move) -> String {
        todo!()
    }

    /// Reads a move typed as a KIF term. Does not check legality.
    pub fn parse_move(&mut self, _text: &str) -> Result<Move, GameError> {
        todo!()
    }

    /// The facts of a state in KIF, such as `(cell a 1 wp)`, sorted.
    pub fn state_facts(&self, _state: &State) -> Vec<String> {
        todo!()
    }
}
