//! The search player in a seat: the `--ai ROLE`, `--think SECONDS`,
//! `--iterations N` and `--ai-threads N` flags that `gdl play`, `gdl trace`
//! and `gdl random` share, and the seats they fill.

use super::Failure;
use gdl::{Budget, Game, GameError, Move, RandomPlayer, Role, SearchPlayer, State};
use std::time::Duration;

/// The heading of the search player's flags in the help of the commands
/// that take them.
pub const SEARCH_PLAYER: &str = "Search player";

/// The flags that put the search player in a seat.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct AiArgs {
    /// Let the search player (Monte Carlo tree search) play this role
    /// (repeat for several roles).
    #[arg(long, help_heading = SEARCH_PLAYER, value_name = "ROLE")]
    pub ai: Vec<String>,
    /// Seconds the search player thinks per move.
    #[arg(long, help_heading = SEARCH_PLAYER, value_name = "SECONDS", value_parser = think_seconds, conflicts_with = "iterations")]
    pub think: Option<f64>,
    /// Search iterations per move (a seed then gives one game).
    #[arg(long, help_heading = SEARCH_PLAYER, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub iterations: Option<u64>,
    /// Threads each search player searches on (independent trees whose
    /// root statistics are summed); 0 uses every core.
    #[arg(long, help_heading = SEARCH_PLAYER, default_value_t = 1, value_name = "N", value_parser = super::thread_count)]
    pub ai_threads: usize,
}

/// Reads `--think`: a positive number of seconds, at most a day.
fn think_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && s <= 86_400.0 => Ok(s),
        _ => Err("expected a positive number of seconds (at most 86400)".into()),
    }
}

impl AiArgs {
    /// The budget asked for, or `default` when neither `--think` nor
    /// `--iterations` is given.
    pub fn budget(&self, default: Budget) -> Budget {
        match (self.think, self.iterations) {
            (Some(s), _) => Budget::Time(Duration::from_secs_f64(s)),
            (None, Some(n)) => Budget::Iterations(n),
            (None, None) => default,
        }
    }

    /// The roles named by `--ai`, in role order; an unknown name is a
    /// usage error listing the roles.
    pub fn roles(&self, game: &Game) -> Result<Vec<bool>, Failure> {
        let roles = game.roles();
        let mut seats = vec![false; roles.len()];
        for name in &self.ai {
            let role = game.role_by_name(name).ok_or_else(|| {
                let names: Vec<&str> = roles.iter().map(|&r| game.role_name(r)).collect();
                Failure::Usage(format!(
                    "--ai {name}: no such role; the roles are {}",
                    names.join(" ")
                ))
            })?;
            seats[role.0 as usize] = true;
        }
        Ok(seats)
    }

    /// The seats of one game: a search player seeded with `seed` in each
    /// seat `--ai` names, within `budget`.
    pub fn seats(&self, game: &Game, budget: Budget, seed: u64) -> Result<Seats, Failure> {
        Ok(self.seats_for(game, &self.roles(game)?, budget, seed))
    }

    /// The seats of one game, `ai` saying which roles (in role order) the
    /// search player plays (as `roles` gave them).
    pub fn seats_for(&self, game: &Game, ai: &[bool], budget: Budget, seed: u64) -> Seats {
        let threads = super::threads(self.ai_threads);
        let players = ai
            .iter()
            .copied()
            .enumerate()
            .map(|(i, ai)| {
                ai.then(|| {
                    search_player(
                        game,
                        Role(i as u32),
                        budget,
                        seed.wrapping_add(i as u64),
                        threads,
                    )
                })
            })
            .collect();
        Seats {
            players,
            iterations: 0,
            elapsed: Duration::ZERO,
        }
    }
}

/// The search player of `role` within `budget`, seeded with `seed`, on
/// `threads` threads: the one every command puts in a seat.
pub fn search_player(
    game: &Game,
    role: Role,
    budget: Budget,
    seed: u64,
    threads: usize,
) -> SearchPlayer {
    SearchPlayer::new(game, role, budget, seed).threads(threads)
}

/// A search player in some seats, the random player in the others.
pub struct Seats {
    players: Vec<Option<SearchPlayer>>,
    /// Search iterations and time, over every search so far.
    pub iterations: u64,
    /// See `iterations`.
    pub elapsed: Duration,
}

impl Seats {
    /// Whether the search player plays role number `role`.
    pub fn is_ai(&self, role: usize) -> bool {
        self.players.get(role).is_some_and(Option::is_some)
    }

    /// Whether any seat is the search player's.
    pub fn any(&self) -> bool {
        self.players.iter().any(Option::is_some)
    }

    /// The search player's move for role number `role`, which it plays.
    pub fn choose(
        &mut self,
        game: &mut Game,
        state: &State,
        role: usize,
    ) -> Result<Move, GameError> {
        let player = self.players[role].as_mut().expect("a search player's seat");
        let m = player.choose(game, state)?;
        self.iterations += player.stats().iterations;
        self.elapsed += player.stats().elapsed;
        Ok(m)
    }

    /// What the search player of role number `role` made of its last
    /// search: its iterations and its expected reward for the move.
    pub fn last(&self, role: usize) -> Option<(u64, f64)> {
        let stats = self.players.get(role)?.as_ref()?.stats();
        Some((stats.iterations, stats.root.first().map_or(0.0, |r| r.2)))
    }

    /// One joint move: the random player's moves (drawn for every role, so
    /// that a seed's random choices do not depend on the seats), replaced
    /// by the search player's in its seats.
    pub fn joint(
        &mut self,
        game: &mut Game,
        state: &State,
        random: &mut RandomPlayer,
    ) -> Result<Vec<Move>, GameError> {
        let mut joint = random.joint(game, state)?;
        for (role, m) in joint.iter_mut().enumerate() {
            if self.is_ai(role) {
                *m = self.choose(game, state, role)?;
            }
        }
        Ok(joint)
    }

    /// `joint`, told to every search player as the joint move played:
    /// the joint moves of `gdl trace` and `gdl random` with `--ai`.
    pub fn play_joint(
        &mut self,
        game: &mut Game,
        state: &State,
        random: &mut RandomPlayer,
    ) -> Result<Vec<Move>, GameError> {
        let joint = self.joint(game, state, random)?;
        self.observe(&joint);
        Ok(joint)
    }

    /// Tells every search player the joint move played.
    pub fn observe(&mut self, joint: &[Move]) {
        for p in self.players.iter_mut().flatten() {
            p.observe(joint);
        }
    }

    /// Makes every search player forget its tree (moves were taken back).
    pub fn reset(&mut self) {
        for p in self.players.iter_mut().flatten() {
            p.reset();
        }
    }

    /// `N search iterations in T s (R per second)`, for standard error.
    pub fn summary(&self) -> String {
        let secs = self.elapsed.as_secs_f64();
        let rate = if secs > 0.0 {
            self.iterations as f64 / secs
        } else {
            0.0
        };
        format!(
            "search: {} iterations in {secs:.2}s ({rate:.0} per second)",
            self.iterations
        )
    }
}
