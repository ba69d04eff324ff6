//! Random playouts: the inner loop of Monte Carlo search and of benchmarks.

use crate::error::GameError;
use crate::game::{Game, Role, State};
use crate::stepper::Stepper;
use rand::Rng;

/// How one random playout ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Playout {
    /// Joint moves played.
    pub steps: usize,
    /// Each role's goal in the final state, in role order, when it is
    /// terminal; `None` when the step limit cut the game short (a rules
    /// file may give goals only in terminal states).
    pub goals: Option<Vec<u8>>,
    /// The final state, terminal unless the step limit stopped the game.
    pub last: State,
}

/// Plays from `state` choosing each role's move uniformly at random among
/// its legal moves, until a terminal state or `max_steps` joint moves. The
/// goals are those of the last state when it is terminal (an error if it
/// does not give each role exactly one).
///
/// Games with ground rules play on the game's `Stepper` (see `stepper`);
/// others through the general API. Both choose the same moves from the
/// same random numbers, so a seed gives one game whichever path plays it.
pub fn random_playout(
    game: &mut Game,
    state: &State,
    rng: &mut impl Rng,
    max_steps: usize,
) -> Result<Playout, GameError> {
    if let Some(mut stepper) = game.take_stepper() {
        let playout = stepped_playout(game, &mut stepper, state, rng, max_steps);
        game.put_stepper(stepper);
        return playout;
    }
    let roles = game.roles();
    let mut state = state.clone();
    let mut joint = Vec::with_capacity(roles.len());
    let mut steps = 0;
    let mut terminal = game.is_terminal(&state)?;
    while steps < max_steps && !terminal {
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
        terminal = game.is_terminal(&state)?;
    }
    let goals = if terminal {
        Some(game.goals(&state)?)
    } else {
        None
    };
    Ok(Playout {
        steps,
        goals,
        last: state,
    })
}

/// `random_playout` on a stepper: the same choices, made in place.
fn stepped_playout(
    game: &mut Game,
    stepper: &mut Stepper,
    state: &State,
    rng: &mut impl Rng,
    max_steps: usize,
) -> Result<Playout, GameError> {
    stepper.set_state(state);
    let roles = game.roles().len();
    let mut joint = vec![0; roles];
    let mut steps = 0;
    while steps < max_steps && !stepper.is_terminal() {
        for (role, k) in joint.iter_mut().enumerate() {
            let n = stepper.legal_count(role);
            if n == 0 {
                return Err(GameError::NoLegalMove {
                    role: game.role_name(Role(role as u32)).to_string(),
                });
            }
            *k = rng.gen_range(0..n);
        }
        stepper.play_nth(&joint);
        steps += 1;
    }
    let last = stepper.state();
    let goals = if !stepper.is_terminal() {
        None
    } else {
        match stepper.goals() {
            Some(goals) => Some(goals),
            // Missing, several or bad goal values: the general API says which.
            None => Some(game.goals(&last)?),
        }
    };
    Ok(Playout { steps, goals, last })
}
