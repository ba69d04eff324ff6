//! Random play. Two players, for two needs:
//!
//! - [`RandomPlayer`] chooses among a role's legal moves listed in the
//!   natural order of their texts ([`natural_cmp`]), so that a seed names
//!   one game whatever the engine's internal order of moves: recorded
//!   games, traces and statistics of `gdl trace` and `gdl random` stay the
//!   same across engines and versions. It costs the move texts, except in
//!   [`RandomPlayer::playout`] on a stepper, which ranks the moves once.
//! - [`random_playout`] chooses by position in the engine's own order, with
//!   no text per step: the inner loop of benchmarks and Monte Carlo search,
//!   as fast as the engine steps. A seed gives the same game on the ground
//!   and interpreted engines, but not across changes of move order.

use crate::error::GameError;
use crate::game::stepper::Stepper;
use crate::game::{Game, Move, Role, State};
use crate::syntax::natural::natural_cmp;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use std::collections::HashMap;
use std::time::Instant;

/// How many joint moves a stepper plays between two looks at the clock
/// when a playout has a deadline, the first look after as many: a look
/// costs some 20 ns, a step of the stepper from some 50 ns up, and the
/// caller has just looked when a playout starts (a benchmark, timing each
/// playout; a playout of the smallest games takes some 300 ns). The
/// general API looks at every step, which costs it far more than the
/// look.
const STEPS_BETWEEN_LOOKS: usize = 16;

/// How a playout loop ended: the playout (a [`Playout`], or an [`Outcome`]
/// where the last state is not wanted), or (`None`) stopped at its
/// deadline before its end; an error comes with the step it happened at.
type Played<T = Playout> = Result<Option<T>, (usize, GameError)>;

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
///
/// ```
/// use rand::SeedableRng;
/// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../rules/tictactoe.gdl");
/// let mut game = gdl::Game::load(path)?;
/// let start = game.initial_state();
/// let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
/// let playout = gdl::random_playout(&mut game, &start, &mut rng, 100)?;
/// assert!((5..=9).contains(&playout.steps));
/// let goals = playout.goals.expect("tic-tac-toe ends within 9 moves");
/// assert!(goals == [50, 50] || goals.contains(&100));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn random_playout(
    game: &mut Game,
    state: &State,
    rng: &mut impl Rng,
    max_steps: usize,
) -> Result<Playout, GameError> {
    let played = playout_until(game, state, rng, max_steps, None);
    // Without a deadline a playout is never stopped.
    played
        .map(|p| p.unwrap_or_else(|| unreachable!("stopped with no deadline")))
        .map_err(|(_, e)| e)
}

/// `random_playout`, stopped (`None`) when not over by `deadline`.
fn playout_until(
    game: &mut Game,
    state: &State,
    rng: &mut impl Rng,
    max_steps: usize,
    deadline: Option<Instant>,
) -> Played {
    let played = random_until(game, state, rng, max_steps, deadline, true);
    played.map(|p| p.map(|(o, last)| o.with_last(last.expect("the last state, kept"))))
}

/// `playout_until` without the last state, which a stepper then need not
/// build: the loop of benchmarks.
fn outcome_until(
    game: &mut Game,
    state: &State,
    rng: &mut impl Rng,
    max_steps: usize,
    deadline: Option<Instant>,
) -> Played<Outcome> {
    let played = random_until(game, state, rng, max_steps, deadline, false);
    played.map(|p| p.map(|(outcome, _)| outcome))
}

/// A random playout on the game's stepper where it has one, going on
/// through the general API where the stepper cannot: its outcome, and its
/// last state where `keep_last` asks for it or the stepper did not end it
/// (a stepper builds it by a scan of its position).
fn random_until(
    game: &mut Game,
    state: &State,
    rng: &mut impl Rng,
    max_steps: usize,
    deadline: Option<Instant>,
    keep_last: bool,
) -> Played<(Outcome, Option<State>)> {
    let Some(mut stepper) = game.take_stepper() else {
        return split(random_api_playout(game, state, rng, max_steps, deadline));
    };
    let stepped = stepped_with(game, &mut stepper, state, max_steps, deadline, |_, _, n| {
        rng.gen_range(0..n)
    });
    let played = match stepped {
        Stepped::Over(played) => played.map(|o| o.map(|o| (o, keep_last.then(|| stepper.state())))),
        Stepped::Off { state, steps } => {
            let rest = random_api_playout(game, &state, rng, max_steps - steps, deadline);
            split(resumed(steps, rest))
        }
    };
    game.put_stepper(stepper);
    played
}

/// A playout as its outcome and last state.
fn split(played: Played) -> Played<(Outcome, Option<State>)> {
    played.map(|p| {
        p.map(|p| {
            let outcome = Outcome {
                steps: p.steps,
                goals: p.goals,
            };
            (outcome, Some(p.last))
        })
    })
}

/// `playout_until` through the general API, for games without a stepper.
fn random_api_playout(
    game: &mut Game,
    state: &State,
    rng: &mut impl Rng,
    max_steps: usize,
    deadline: Option<Instant>,
) -> Played {
    let roles = game.roles();
    played_with(game, state, max_steps, deadline, |game, state, joint| {
        for &role in &roles {
            let moves = game.legal_moves(state, role)?;
            if moves.is_empty() {
                return Err(GameError::NoLegalMove {
                    role: game.role_name(role).to_string(),
                });
            }
            joint.push(moves[rng.gen_range(0..moves.len())]);
        }
        Ok(())
    })
}

/// Whether a playout with `deadline` is over time.
fn late(deadline: Option<Instant>) -> bool {
    deadline.is_some_and(|d| Instant::now() >= d)
}

/// Plays through the general API from `state` until a terminal state,
/// `max_steps` joint moves or `deadline`, `choose` filling the (emptied)
/// joint move of each state.
fn played_with(
    game: &mut Game,
    state: &State,
    max_steps: usize,
    deadline: Option<Instant>,
    mut choose: impl FnMut(&mut Game, &State, &mut Vec<Move>) -> Result<(), GameError>,
) -> Played {
    let mut state = state.clone();
    let mut joint = Vec::new();
    let mut steps = 0;
    let at = |steps: usize| move |e: GameError| (steps, e);
    let mut terminal = game.is_terminal(&state).map_err(at(steps))?;
    while steps < max_steps && !terminal {
        if late(deadline) {
            return Ok(None);
        }
        joint.clear();
        choose(game, &state, &mut joint).map_err(at(steps))?;
        state = game.next_state(&state, &joint).map_err(at(steps))?;
        steps += 1;
        terminal = game.is_terminal(&state).map_err(at(steps))?;
    }
    let goals = if terminal {
        Some(game.goals(&state).map_err(at(steps))?)
    } else {
        None
    };
    Ok(Some(Playout {
        steps,
        goals,
        last: state,
    }))
}

/// The rest of a playout, played through the general API after `steps`
/// joint moves on a stepper, as the whole playout.
fn resumed(steps: usize, rest: Played) -> Played {
    rest.map(|p| {
        p.map(|p| Playout {
            steps: steps + p.steps,
            ..p
        })
    })
    .map_err(|(at, e)| (steps + at, e))
}

/// Where a playout on a stepper stopped.
enum Stepped {
    /// Over, stopped at its deadline, or failed.
    Over(Played<Outcome>),
    /// Off the ground rules (see `Stepper::is_off`) after `steps` joint
    /// moves, at `state`, from which the general API plays on.
    Off { state: State, steps: usize },
}

/// Plays on `stepper` from `state` until a terminal state, `max_steps`
/// joint moves or `deadline` (looked at every `STEPS_BETWEEN_LOOKS`
/// steps), each role playing the `pick(stepper, role, n)`-th of its `n`
/// legal moves (in the stepper's order), or until the position is off
/// the ground rules.
fn stepped_with(
    game: &mut Game,
    stepper: &mut Stepper,
    state: &State,
    max_steps: usize,
    deadline: Option<Instant>,
    mut pick: impl FnMut(&mut Stepper, usize, usize) -> usize,
) -> Stepped {
    stepper.set_state(state);
    // The joint move's indices, on the stack for up to 8 roles: a playout
    // of the smallest games takes some 300 ns, of which an allocation
    // would be a tenth.
    let roles = game.roles().len();
    let (mut inline, mut heap) = ([0; 8], Vec::new());
    let joint: &mut [usize] = if roles <= inline.len() {
        &mut inline[..roles]
    } else {
        heap.resize(roles, 0);
        &mut heap
    };
    let mut steps = 0;
    while steps < max_steps && !stepper.is_terminal() {
        if stepper.is_off() {
            let state = stepper.state();
            return Stepped::Off { state, steps };
        }
        if steps % STEPS_BETWEEN_LOOKS == STEPS_BETWEEN_LOOKS - 1 && late(deadline) {
            return Stepped::Over(Ok(None));
        }
        for (role, k) in joint.iter_mut().enumerate() {
            let n = stepper.legal_count(role);
            if n == 0 {
                let role = game.role_name(Role(role as u32)).to_string();
                return Stepped::Over(Err((steps, GameError::NoLegalMove { role })));
            }
            *k = pick(stepper, role, n);
        }
        stepper.play_nth(joint);
        steps += 1;
    }
    if stepper.is_off() {
        let state = stepper.state();
        return Stepped::Off { state, steps };
    }
    let outcome = finish(game, stepper, steps);
    Stepped::Over(outcome.map(Some).map_err(|e| (steps, e)))
}

/// How a playout on `stepper` ended after `steps` joint moves (its last
/// state, which costs a scan of the position, is left to the caller).
fn finish(game: &mut Game, stepper: &mut Stepper, steps: usize) -> Result<Outcome, GameError> {
    let goals = if !stepper.is_terminal() {
        None
    } else {
        match stepper.goals() {
            Some(goals) => Some(goals),
            // Missing, several or bad goal values: the general API says which.
            None => Some(game.goals(&stepper.state())?),
        }
    };
    Ok(Outcome { steps, goals })
}

/// Picks moves at random, reproducibly: a seeded PCG generator choosing
/// among the legal moves in natural order, so that the same seed gives the
/// same game whatever the evaluator's internal order of moves.
///
/// ```
/// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../rules/tictactoe.gdl");
/// let mut game = gdl::Game::load(path)?;
/// let play = |game: &mut gdl::Game, seed| -> Result<Vec<String>, gdl::GameError> {
///     let (mut player, mut state, mut moves) = (gdl::RandomPlayer::new(seed), game.initial_state(), vec![]);
///     while !game.is_terminal(&state)? {
///         let joint = player.joint(game, &state)?;
///         moves.extend(joint.iter().map(|&m| game.move_text(m)));
///         state = game.next_state(&state, &joint)?;
///     }
///     Ok(moves)
/// };
/// assert_eq!(play(&mut game, 3)?, play(&mut game, 3)?); // a seed is one game
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct RandomPlayer {
    rng: Pcg64,
    texts: HashMap<Move, String>,
}

impl RandomPlayer {
    /// A player whose choices follow from `seed`.
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer {
            rng: Pcg64::seed_from_u64(seed),
            texts: HashMap::new(),
        }
    }

    /// One move among `moves` (which must not be empty).
    pub fn choose(&mut self, game: &Game, moves: &[Move]) -> Move {
        let mut sorted = moves.to_vec();
        for &m in moves {
            self.texts.entry(m).or_insert_with(|| game.move_text(m));
        }
        let texts = &self.texts;
        sorted.sort_by(|a, b| natural_cmp(&texts[a], &texts[b]));
        sorted[self.rng.gen_range(0..sorted.len())]
    }

    /// Plays from `state`, each joint move as [`RandomPlayer::joint`]
    /// chooses it, until a terminal state or `max_steps` joint moves: the
    /// game `gdl trace --seed` and `gdl random` play from the initial state
    /// with the same seed, as a [`Playout`] (goals as [`random_playout`]
    /// gives them). On the game's stepper when it has one, choosing by the
    /// moves' ranks in natural order, without their texts.
    ///
    /// ```
    /// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../rules/tictactoe.gdl");
    /// let mut game = gdl::Game::load(path)?;
    /// let start = game.initial_state();
    /// let fast = gdl::RandomPlayer::new(3).playout(&mut game, &start, 100)?;
    /// let (mut player, mut state, mut steps) = (gdl::RandomPlayer::new(3), start, 0);
    /// while !game.is_terminal(&state)? {
    ///     let joint = player.joint(&mut game, &state)?;
    ///     state = game.next_state(&state, &joint)?;
    ///     steps += 1;
    /// }
    /// assert_eq!((fast.steps, fast.last), (steps, state));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn playout(
        &mut self,
        game: &mut Game,
        state: &State,
        max_steps: usize,
    ) -> Result<Playout, GameError> {
        let by_api = |player: &mut RandomPlayer, game: &mut Game, state: &State, max_steps| {
            played_with(game, state, max_steps, None, |game, state, joint| {
                *joint = player.joint(game, state)?;
                Ok(())
            })
        };
        let played = if let Some(mut stepper) = game.take_stepper() {
            let stepped = self.stepped(game, &mut stepper, state, max_steps);
            let playout = match stepped {
                Stepped::Over(played) => played.map(|o| o.map(|o| o.with_last(stepper.state()))),
                Stepped::Off { state, steps } => {
                    resumed(steps, by_api(self, game, &state, max_steps - steps))
                }
            };
            game.put_stepper(stepper);
            playout
        } else {
            by_api(self, game, state, max_steps)
        };
        // Without a deadline a playout is never stopped.
        played
            .map(|p| p.unwrap_or_else(|| unreachable!("stopped with no deadline")))
            .map_err(|(_, e)| e)
    }

    /// `playout` on a stepper: the same choices, made in place.
    fn stepped(
        &mut self,
        game: &mut Game,
        stepper: &mut Stepper,
        state: &State,
        max_steps: usize,
    ) -> Stepped {
        let rng = &mut self.rng;
        stepped_with(game, stepper, state, max_steps, None, |stepper, role, n| {
            stepper.nth_natural(role, rng.gen_range(0..n))
        })
    }

    /// One random legal move per role, in role order.
    pub fn joint(&mut self, game: &mut Game, state: &State) -> Result<Vec<Move>, GameError> {
        let mut joint = Vec::new();
        for role in game.roles() {
            let moves = game.legal_moves(state, role)?;
            if moves.is_empty() {
                return Err(GameError::NoLegalMove {
                    role: game.role_name(role).to_string(),
                });
            }
            joint.push(self.choose(game, &moves));
        }
        Ok(joint)
    }
}

/// How a game played out by [`Game::random_game`] or
/// [`Game::random_outcome`] went: its length and goals, and nothing that
/// refers to its states.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// How many joint moves were played.
    pub steps: usize,
    /// Each role's goal value, in role order; `None` when the game did not
    /// end within its step limit.
    pub goals: Option<Vec<u8>>,
}

impl Outcome {
    /// The playout of this outcome, which ended in `last`.
    fn with_last(self, last: State) -> Playout {
        Playout {
            steps: self.steps,
            goals: self.goals,
            last,
        }
    }
}

impl Game {
    /// Plays from the initial state the random game that
    /// `RandomPlayer::new(seed)` plays (the game `gdl trace --seed SEED`
    /// shows), for at most `max_steps` joint moves. A long series of these
    /// keeps the memory it holds bounded (see the `detached` module). An
    /// error comes with the step it happened at.
    pub fn random_game(
        &mut self,
        seed: u64,
        max_steps: usize,
    ) -> Result<Outcome, (usize, GameError)> {
        self.detached(|game| {
            let mut player = RandomPlayer::new(seed);
            let mut state = game.initial_state();
            let mut steps = 0;
            while !game.is_terminal(&state).map_err(|e| (steps, e))? {
                if steps >= max_steps {
                    return Ok(Outcome { steps, goals: None });
                }
                let joint = player.joint(game, &state).map_err(|e| (steps, e))?;
                state = game.next_state(&state, &joint).map_err(|e| (steps, e))?;
                steps += 1;
            }
            let goals = game.goals(&state).map_err(|e| (steps, e))?;
            Ok(Outcome {
                steps,
                goals: Some(goals),
            })
        })
    }

    /// A [`random_playout`] from the initial state, returning only its
    /// length and goals, so that a long series of them keeps the memory it
    /// holds bounded (see the `detached` module): the loop of benchmarks.
    /// A playout not over by `deadline` is stopped there (`None`): the
    /// clock is read every few steps (on a stepper, every 16, the first
    /// after 15), so it stops within a few steps of the deadline, however
    /// long it would have gone on. An error comes with the step it
    /// happened at.
    ///
    /// ```
    /// use rand::SeedableRng;
    /// use std::time::{Duration, Instant};
    /// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../rules/breakthrough.gdl");
    /// let mut game = gdl::Game::load(path)?;
    /// let mut rng = rand_pcg::Pcg64::seed_from_u64(1);
    /// let later = Instant::now() + Duration::from_secs(60);
    /// let outcome = game.random_outcome(&mut rng, 1000, Some(later)).unwrap();
    /// assert!(outcome.is_some_and(|o| o.goals.is_some() && o.steps > 16));
    /// // Time is up before the first move: the playout is stopped.
    /// let past = Instant::now();
    /// assert_eq!(game.random_outcome(&mut rng, 1000, Some(past)).unwrap(), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn random_outcome(
        &mut self,
        rng: &mut impl Rng,
        max_steps: usize,
        deadline: Option<Instant>,
    ) -> Result<Option<Outcome>, (usize, GameError)> {
        self.detached(|game| {
            let initial = game.initial_state();
            outcome_until(game, &initial, rng, max_steps, deadline)
        })
    }
}
