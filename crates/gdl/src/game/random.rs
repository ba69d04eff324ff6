//! Playing games out: the one playout driver.
//!
//! [`Game::play`] plays a game from a state with the joint moves a
//! [`Players`] chooses, until a terminal state or its [`Stop`] (a step
//! limit, a deadline, a flag), an error coming with the step it happened
//! at: what `gdl trace`, `gdl random --ai` and `gdl analyse` play, through
//! the general API. [`Game::playout`] and [`Game::random_outcome`] play a
//! [`RandomPlayer`] in every seat, on the game's [`Stepper`] where it has
//! one (with no state built per step, going on through the general API
//! where a position leaves the ground rules): the inner loop of `gdl
//! random`, `gdl bench`, the search player and the Python module.
//!
//! A random player chooses among a role's legal moves in one of two
//! orders ([`RandomPlayer::new`], [`RandomPlayer::in_engine_order`]); the
//! stepper and the general API choose the same moves from the same random
//! numbers, so a seed gives one game whichever path plays it.

use crate::error::GameError;
use crate::game::stepper::{Stepper, Walked};
use crate::game::{Game, Goals, Move, Role, State, Stop};
use crate::syntax::natural::natural_cmp;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use std::collections::HashMap;

/// How a playout ended, with its last state: what [`Game::play`] and
/// [`Game::playout`] return.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Playout {
    /// Joint moves played.
    pub steps: usize,
    /// Each role's goal in the final state, in role order, when it is
    /// terminal; `None` when the step limit or the deadline cut the game
    /// short (a rules file may give goals only in terminal states).
    pub goals: Option<Vec<u8>>,
    /// Whether the deadline (or the flag) of its [`Stop`] stopped it.
    pub stopped: bool,
    /// The final state, terminal unless the game was cut short.
    pub last: State,
}

/// How a playout ended, without anything that refers to its states: what
/// [`Game::random_outcome`] returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// How many joint moves were played.
    pub steps: usize,
    /// Each role's goal value, in role order; `None` when the game did not
    /// end within its step limit or deadline.
    pub goals: Option<Goals>,
    /// Whether the deadline (or the flag) of its [`Stop`] stopped it.
    pub stopped: bool,
}

impl Playout {
    /// Its outcome and its last state.
    fn split(self) -> (Outcome, State) {
        let outcome = Outcome {
            steps: self.steps,
            goals: self.goals.map(Goals::from),
            stopped: self.stopped,
        };
        (outcome, self.last)
    }
}

/// Every role's player in a game that [`Game::play`] plays: it chooses
/// each joint move, and sees each state the game reaches. A closure
/// `FnMut(&mut Game, &State) -> Result<Vec<Move>, GameError>` is one.
pub trait Players {
    /// The joint move to play in `state` (one move per role, in role
    /// order).
    fn joint(&mut self, game: &mut Game, state: &State) -> Result<Vec<Move>, GameError>;

    /// Sees `state`, reached by `joint` (`None` for the state the game
    /// starts from), before the game asks whether it is terminal; an
    /// error ends the game there. Does nothing unless overridden.
    fn reached(
        &mut self,
        game: &mut Game,
        state: &State,
        joint: Option<&[Move]>,
    ) -> Result<(), GameError> {
        let _ = (game, state, joint);
        Ok(())
    }
}

impl<F> Players for F
where
    F: FnMut(&mut Game, &State) -> Result<Vec<Move>, GameError>,
{
    fn joint(&mut self, game: &mut Game, state: &State) -> Result<Vec<Move>, GameError> {
        self(game, state)
    }
}

/// A random player that can also pick on a stepper: by the index of a
/// role's move among its `n` legal moves, in the stepper's order or in
/// the natural order of their texts, drawing what [`Players::joint`]
/// draws.
pub(crate) trait Pick: Players {
    /// Draws one of a role's `n` legal moves: its index in the stepper's
    /// order, or in the natural order of their texts where `natural` says.
    fn draw(&mut self, n: usize) -> usize;
    /// Whether `draw` indexes the moves in the natural order of their
    /// texts.
    fn natural(&self) -> bool;
}

/// Picks moves at random, reproducibly: a seeded PCG generator choosing
/// uniformly among each role's legal moves, listed in one of two orders:
///
/// - [`RandomPlayer::new`]: the natural order of their texts
///   ([`natural_cmp`]), so that a seed names one game whatever the
///   engine's internal order of moves: the games of `gdl trace --seed`,
///   `gdl random` and `gdl record` stay the same across engines and
///   versions. It costs the move texts, except on a stepper
///   ([`Game::playout`]), which ranks the moves once.
/// - [`RandomPlayer::in_engine_order`]: the engine's own order, with no
///   text per step: the playouts of `gdl bench` and of the search player,
///   as fast as the engine steps. A seed gives the same game on the
///   ground and interpreted engines, but not across changes of move
///   order.
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
    /// The texts of the moves seen, in natural order; `None` in the
    /// engine's order.
    texts: Option<HashMap<Move, String>>,
}

impl RandomPlayer {
    /// A player choosing in the natural order of the move texts, its
    /// choices following from `seed`.
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer {
            rng: Pcg64::seed_from_u64(seed),
            texts: Some(HashMap::new()),
        }
    }

    /// A player choosing by position in the engine's order of moves, its
    /// choices following from `seed` (see the type's documentation).
    pub fn in_engine_order(seed: u64) -> RandomPlayer {
        RandomPlayer {
            rng: quick_generator(seed),
            texts: None,
        }
    }

    /// One move among `moves` (which must not be empty).
    pub fn choose(&mut self, game: &Game, moves: &[Move]) -> Move {
        let Some(texts) = &mut self.texts else {
            return moves[self.rng.gen_range(0..moves.len())];
        };
        for &m in moves {
            texts.entry(m).or_insert_with(|| game.move_text(m));
        }
        // The r-th move in natural order, ties in the order given (as a
        // stable sort would have them): found without sorting them all,
        // which cost a third of a game whose moves are every combination
        // of a player's orders (bonaparte's thousands a state).
        let r = self.rng.gen_range(0..moves.len());
        let mut order: Vec<(usize, &str, Move)> = (moves.iter().enumerate())
            .map(|(i, m)| (i, texts[m].as_str(), *m))
            .collect();
        let (_, &mut (_, _, m), _) = order
            .select_nth_unstable_by(r, |(i, a, _), (j, b, _)| natural_cmp(a, b).then(i.cmp(j)));
        m
    }

    /// One random legal move per role, in role order.
    pub fn joint(&mut self, game: &mut Game, state: &State) -> Result<Vec<Move>, GameError> {
        let mut joint = Vec::new();
        for role in game.roles() {
            let moves = game.legal_moves(state, role)?;
            if moves.is_empty() {
                return Err(no_move(game, role));
            }
            joint.push(self.choose(game, &moves));
        }
        Ok(joint)
    }
}

impl Players for RandomPlayer {
    fn joint(&mut self, game: &mut Game, state: &State) -> Result<Vec<Move>, GameError> {
        RandomPlayer::joint(self, game, state)
    }
}

impl Pick for RandomPlayer {
    fn draw(&mut self, n: usize) -> usize {
        self.rng.gen_range(0..n)
    }

    fn natural(&self) -> bool {
        self.texts.is_some()
    }
}

/// A generator for `seed` made in a few instructions: the seed spread
/// over the 128 bits of the state by SplitMix64's finaliser, on the stream
/// PCG specifies by default (`Pcg64::new`'s documentation). `gdl bench`
/// seeds one a playout, where `SeedableRng::seed_from_u64`, which fills
/// 32 bytes from a generator of its own, cost some 130 instructions of a
/// 3,000-instruction playout.
fn quick_generator(seed: u64) -> Pcg64 {
    // SplitMix64 (Steele, Lea and Flood 2014): distinct inputs, distinct
    // well-mixed outputs.
    let mix = |z: u64| {
        let z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        let z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let high = mix(seed.wrapping_add(0x9e37_79b9_7f4a_7c15));
    let low = mix(seed.wrapping_add(0x3c6e_f372_fe94_f82a));
    let state = (u128::from(high) << 64) | u128::from(low);
    Pcg64::new(state, 0x0a02_bdbf_7bb3_c0a7_ac28_fa16_a64a_bf96)
}

/// A random player in the engine's order drawing from a generator it
/// borrows (the search player's, which also draws its tree walks).
pub(crate) struct InEngineOrder<'a>(pub &'a mut Pcg64);

impl Players for InEngineOrder<'_> {
    fn joint(&mut self, game: &mut Game, state: &State) -> Result<Vec<Move>, GameError> {
        let mut joint = Vec::new();
        for role in game.roles() {
            let moves = game.legal_moves(state, role)?;
            if moves.is_empty() {
                return Err(no_move(game, role));
            }
            joint.push(moves[self.0.gen_range(0..moves.len())]);
        }
        Ok(joint)
    }
}

impl Pick for InEngineOrder<'_> {
    fn draw(&mut self, n: usize) -> usize {
        self.0.gen_range(0..n)
    }

    fn natural(&self) -> bool {
        false
    }
}

/// The error of `role` having no legal move.
fn no_move(game: &Game, role: Role) -> GameError {
    GameError::NoLegalMove {
        role: game.role_name(role).to_string(),
    }
}

/// A playout's error, with the step it happened at.
type AtStep = (usize, GameError);

/// Where a random playout on a stepper ended (see [`on_stepper`]).
pub(crate) enum Ended {
    /// On the stepper, which stands at its last position; the goals are
    /// those of a terminal position.
    Stepper(Outcome),
    /// Through the general API, where the stepper left its ground rules.
    Api(Playout),
}

/// Plays from where `stepper` stands, each role's move picked by
/// `picker`, until a terminal position or `stop`; where the position
/// leaves the ground rules, on through the general API. The driver's fast
/// path.
pub(crate) fn on_stepper(
    game: &mut Game,
    stepper: &mut Stepper,
    picker: &mut impl Pick,
    stop: &Stop,
) -> Result<Ended, AtStep> {
    let mut steps = 0;
    let natural = picker.natural();
    let walked = stepper.walk(&mut steps, stop, |s, role, n| match picker.draw(n) {
        r if natural => s.nth_natural(role, r),
        r => r,
    });
    ended(game, (stepper, false), picker, stop, (walked, steps))
}

/// `on_stepper` on the stepper's network read whole (see
/// `Stepper::walk_dense`), which leaves the stepper where it stands (and
/// `Stepper::dense_goals` reads the goals where the walk ended): for
/// playouts of which only the outcome is kept, where the stepper's
/// network is small.
pub(crate) fn on_dense(
    game: &mut Game,
    stepper: &mut Stepper,
    picker: &mut impl Pick,
    stop: &Stop,
) -> Result<Outcome, AtStep> {
    let mut steps = 0;
    let natural = picker.natural();
    let walked = stepper.walk_dense(&mut steps, stop, natural, |n| picker.draw(n));
    match ended(game, (stepper, true), picker, stop, (walked, steps))? {
        Ended::Stepper(outcome) => Ok(outcome),
        Ended::Api(played) => Ok(played.split().0),
    }
}

/// How a walk on `stepper` (by `walk_dense` where `dense` says so) that
/// ended as `walked` after `steps` joint moves comes out: the goals of a
/// terminal position, or where it leaves the ground rules, the rest of the
/// playout through the general API.
fn ended(
    game: &mut Game,
    (stepper, dense): (&mut Stepper, bool),
    picker: &mut impl Pick,
    stop: &Stop,
    (walked, steps): (Walked, usize),
) -> Result<Ended, AtStep> {
    let last = |s: &mut Stepper| if dense { s.dense_state() } else { s.state() };
    let (goals, stopped) = match walked {
        Walked::Off => {
            let state = last(stepper);
            return play_api(game, &state, steps, stop, picker).map(Ended::Api);
        }
        Walked::NoMove(role) => return Err((steps, no_move(game, Role(role as u32)))),
        Walked::Terminal => {
            let goals = match dense {
                true => stepper.dense_goals(),
                false => stepper.outcome_goals(),
            };
            match goals {
                Some(goals) => (Some(goals), false),
                // Missing, several or bad goal values: the general API
                // says which.
                None => {
                    let state = last(stepper);
                    (
                        Some(game.goals(&state).map_err(|e| (steps, e))?.into()),
                        false,
                    )
                }
            }
        }
        Walked::Limit => (None, false),
        Walked::Stopped => (None, true),
    };
    Ok(Ended::Stepper(Outcome {
        steps,
        goals,
        stopped,
    }))
}

/// Plays through the general API from `state`, after `before` joint moves
/// played on a stepper (counted in the steps and the step limit), until
/// a terminal state or `stop`. The driver's general path.
fn play_api(
    game: &mut Game,
    state: &State,
    before: usize,
    stop: &Stop,
    players: &mut impl Players,
) -> Result<Playout, AtStep> {
    let at = |steps: usize| move |e: GameError| (steps, e);
    let mut state = state.clone();
    let mut steps = before;
    players.reached(game, &state, None).map_err(at(steps))?;
    let mut terminal = game.is_terminal(&state).map_err(at(steps))?;
    let mut stopped = false;
    while !terminal && steps < stop.max_steps {
        if stop.looks() && stop.late() {
            stopped = true;
            break;
        }
        let joint = players.joint(game, &state).map_err(at(steps))?;
        state = game.next_state(&state, &joint).map_err(at(steps))?;
        steps += 1;
        players
            .reached(game, &state, Some(&joint))
            .map_err(at(steps))?;
        terminal = game.is_terminal(&state).map_err(at(steps))?;
    }
    let goals = match terminal {
        true => Some(game.goals(&state).map_err(at(steps))?),
        false => None,
    };
    Ok(Playout {
        steps,
        goals,
        stopped,
        last: state,
    })
}

impl Game {
    /// Plays from `state` the joint moves `players` chooses (through the
    /// general API), until a terminal state or `stop`. The goals are
    /// those of the last state when it is terminal (an error if it does
    /// not give each role exactly one). An error comes with the step it
    /// happened at: 0 for `state`, `k` for the state after `k` joint
    /// moves and the move chosen there.
    ///
    /// ```
    /// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../rules/tictactoe.gdl");
    /// let mut game = gdl::Game::load(path)?;
    /// let start = game.initial_state();
    /// // Each role's first legal move: x wins at its fourth mark.
    /// let first = |game: &mut gdl::Game, state: &gdl::State| {
    ///     game.roles().iter().map(|&r| Ok(game.legal_moves(state, r)?[0])).collect()
    /// };
    /// let played = game.play(&start, &mut { first }, gdl::Stop::steps(100)).unwrap();
    /// assert_eq!((played.steps, played.goals), (7, Some(vec![100, 0])));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn play(
        &mut self,
        state: &State,
        players: &mut impl Players,
        stop: Stop,
    ) -> Result<Playout, (usize, GameError)> {
        play_api(self, state, 0, &stop, players)
    }

    /// Plays from `state` with `player` in every seat, until a terminal
    /// state or `stop`: [`Game::play`] of the same player, on the game's
    /// [`Stepper`] where it has one (see the module documentation of
    /// `game::random`), which plays the same game faster. `gdl trace
    /// --seed S` plays the game of `RandomPlayer::new(S)`.
    ///
    /// ```
    /// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../rules/tictactoe.gdl");
    /// let mut game = gdl::Game::load(path)?;
    /// let start = game.initial_state();
    /// let stop = gdl::Stop::steps(100);
    /// let fast = game.playout(&start, &mut gdl::RandomPlayer::new(3), stop).unwrap();
    /// let general = game.play(&start, &mut gdl::RandomPlayer::new(3), stop).unwrap();
    /// assert_eq!(fast, general);
    /// assert!((5..=9).contains(&fast.steps));
    /// let goals = fast.goals.expect("tic-tac-toe ends within 9 moves");
    /// assert!(goals == [50, 50] || goals.contains(&100));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn playout(
        &mut self,
        state: &State,
        player: &mut RandomPlayer,
        stop: Stop,
    ) -> Result<Playout, (usize, GameError)> {
        let (outcome, last) = self.random_play(state, player, stop, true)?;
        Ok(Playout {
            steps: outcome.steps,
            goals: outcome.goals.map(Vec::from),
            stopped: outcome.stopped,
            last: last.expect("the last state, asked for"),
        })
    }

    /// [`Game::playout`] returning only the playout's length and goals,
    /// so that a long series of them keeps the memory it holds bounded
    /// (see the `detached` module): the loop of `gdl random`, `gdl bench`
    /// and the Python module's bulk playouts. A stepper then need not
    /// build the last state.
    ///
    /// ```
    /// use std::time::{Duration, Instant};
    /// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../rules/breakthrough.gdl");
    /// let mut game = gdl::Game::load(path)?;
    /// let start = game.initial_state();
    /// let mut player = gdl::RandomPlayer::in_engine_order(1);
    /// let later = gdl::Stop::steps(1000).until(Instant::now() + Duration::from_secs(60));
    /// let outcome = game.random_outcome(&start, &mut player, later).unwrap();
    /// assert!(outcome.goals.is_some() && outcome.steps > 16 && !outcome.stopped);
    /// // Time is up before the first move: the playout is stopped within
    /// // a few steps.
    /// let past = gdl::Stop::steps(1000).until(Instant::now());
    /// let outcome = game.random_outcome(&start, &mut player, past).unwrap();
    /// assert!(outcome.stopped && outcome.goals.is_none() && outcome.steps < 16);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn random_outcome(
        &mut self,
        state: &State,
        player: &mut RandomPlayer,
        stop: Stop,
    ) -> Result<Outcome, (usize, GameError)> {
        self.detached(|game| {
            let played = game.random_play(state, player, stop, false);
            played.map(|(outcome, _)| outcome)
        })
    }

    /// `playout` and `random_outcome`: the outcome, and the last state
    /// where `keep_last` asks for it or the general API ended the playout
    /// (on a stepper, it costs a scan of the position).
    fn random_play(
        &mut self,
        state: &State,
        player: &mut RandomPlayer,
        stop: Stop,
        keep_last: bool,
    ) -> Result<(Outcome, Option<State>), AtStep> {
        let split = |p: Playout| {
            let (outcome, last) = p.split();
            (outcome, Some(last))
        };
        // Only the outcome is kept: the stepper of the cone will do.
        let taken = match keep_last {
            true => self.take_stepper(),
            false => self.take_outcome_stepper(),
        };
        let Some(mut stepper) = taken else {
            return play_api(self, state, 0, &stop, player).map(split);
        };
        stepper.set_state(state);
        if !keep_last && stepper.walks_dense() {
            let played = on_dense(self, &mut stepper, player, &stop);
            self.put_stepper(stepper);
            return played.map(|outcome| (outcome, None));
        }
        let ended = on_stepper(self, &mut stepper, player, &stop);
        let played = ended.map(|ended| match ended {
            Ended::Stepper(o) => (o, keep_last.then(|| stepper.state())),
            Ended::Api(p) => split(p),
        });
        self.put_stepper(stepper);
        played
    }
}
