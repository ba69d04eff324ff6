//! Random playouts: the inner loop of Monte Carlo search and of benchmarks.

use crate::error::GameError;
use crate::game::{Game, State};
use rand::Rng;

/// How one random playout ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Playout {
    /// Joint moves played.
    pub steps: usize,
    /// Each role's goal in the final state, in role order.
    pub goals: Vec<u8>,
    /// The final state, terminal unless the step limit stopped the game.
    pub last: State,
}

/// Plays from `state` choosing each role's move uniformly at random among
/// its legal moves, until a terminal state or `max_steps` joint moves. The
/// goals are those of the last state (an error if it defines none).
pub fn random_playout(
    game: &mut Game,
    state: &State,
    rng: &mut impl Rng,
    max_steps: usize,
) -> Result<Playout, GameError> {
    let roles = game.roles();
    let mut state = state.clone();
    let mut joint = Vec::with_capacity(roles.len());
    let mut steps = 0;
    while steps < max_steps && !game.is_terminal(&state)? {
        joint.clear();
        for &role in &roles {
            let moves = game.legal_moves(&state, role)?;
            if moves.is_empty() {
                return Err(GameError::NoLegalMove {
                    role: game.role_name(role).to_string(),
                });
            }
            joint.push(moves[rng.gen_range(0..moves.len())]);
        }
        state = game.next_state(&state, &joint)?;
        steps += 1;
    }
    Ok(Playout {
        steps,
        goals: game.goals(&state)?,
        last: state,
    })
}
