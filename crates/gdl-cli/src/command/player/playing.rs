//! A match followed move by move: the game, the player's role, the
//! current state and the search player, whose tree follows the moves
//! played (tree reuse) and grows between messages too (see
//! [`super::worker`]).

use crate::http::left;
use gdl::{Budget, Game, GameError, Move, RandomPlayer, Role, SearchPlayer, State};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// The shortest search worth starting; with less time left, a random
/// legal move goes back at once.
const MIN_SEARCH: std::time::Duration = std::time::Duration::from_millis(5);

/// A match followed move by move.
pub struct Playing {
    /// The game.
    pub game: Game,
    role: Role,
    state: State,
    search: SearchPlayer,
    random: RandomPlayer,
    /// A description of the game, for the log.
    pub about: String,
}

/// What the search made of a turn.
pub struct Chosen {
    /// The move.
    pub played: Move,
    /// The iterations of the search of this turn (0 for a forced move).
    pub iterations: u64,
    /// The nodes of the tree kept from the searches before.
    pub reused: usize,
    /// Whether it was the role's only legal move.
    pub forced: bool,
}

impl Playing {
    /// Ready to play `role` (the first role when `None`) of `game`.
    pub fn new(
        game: Game,
        role: Option<&str>,
        seed: u64,
        threads: usize,
        about: String,
    ) -> Result<Playing, String> {
        let role = match role {
            None => game.roles().first().copied().unwrap_or(Role(0)),
            Some(name) => game.role_by_name(name).ok_or_else(|| {
                let names: Vec<&str> = game.roles().iter().map(|&r| game.role_name(r)).collect();
                format!("{name} is not a role of the game ({})", names.join(" "))
            })?,
        };
        let search =
            crate::command::ai::search_player(&game, role, Budget::Iterations(1), seed, threads);
        Ok(Playing {
            state: game.initial_state(),
            role,
            search,
            random: RandomPlayer::new(seed),
            game,
            about,
        })
    }

    /// Plays the joint move the manager sent (one move per role, legal).
    pub fn follow(&mut self, joint: &[String]) -> Result<(), String> {
        let roles = self.game.roles();
        if joint.len() != roles.len() {
            return Err(format!("{} moves for {} roles", joint.len(), roles.len()));
        }
        let mut played = Vec::with_capacity(roles.len());
        for (&role, text) in roles.iter().zip(joint) {
            let m = gdl::record::legal_move(&mut self.game, &self.state, role, text)
                .map_err(|e| describe(&e))?;
            played.push(m);
        }
        self.state = (self.game.next_state(&self.state, &played)).map_err(|e| describe(&e))?;
        self.search.observe(&played);
        Ok(())
    }

    /// Plays every joint move of `history` from the initial state (a game
    /// loaded late catching up with the match).
    pub fn catch_up(&mut self, history: &[Vec<String>]) -> Result<(), String> {
        history.iter().try_for_each(|joint| self.follow(joint))
    }

    /// Searches the current state until `deadline`: the move. A forced
    /// move goes back at once (the thinking goes on after the answer);
    /// past the deadline, a random legal move.
    pub fn search_until(&mut self, deadline: Instant) -> Result<Chosen, String> {
        let time = left(deadline);
        if time < MIN_SEARCH {
            let played = self.random_move().map_err(|e| describe(&e))?;
            return Ok(Chosen {
                played,
                iterations: 0,
                reused: 0,
                forced: false,
            });
        }
        self.search.set_budget(Budget::Time(time));
        let played = (self.search.choose(&mut self.game, &self.state)).map_err(|e| describe(&e))?;
        let stats = self.search.stats();
        Ok(Chosen {
            played,
            iterations: stats.iterations,
            reused: stats.reused,
            forced: stats.root.len() == 1,
        })
    }

    /// A legal move drawn at random.
    pub fn random_move(&mut self) -> Result<Move, GameError> {
        let legal = self.game.legal_moves(&self.state, self.role)?;
        if legal.is_empty() {
            return Err(GameError::NoLegalMove {
                role: self.game.role_name(self.role).to_string(),
            });
        }
        Ok(self.random.choose(&self.game, &legal))
    }

    /// The goals of the current state, in words (`goals x 100, o 0`).
    pub fn goals(&mut self) -> String {
        match self.game.goals(&self.state) {
            Ok(goals) => {
                let parts: Vec<String> = (self.game.roles().iter().zip(&goals))
                    .map(|(&r, g)| format!("{} {g}", self.game.role_name(r)))
                    .collect();
                format!("goals {}", parts.join(", "))
            }
            Err(e) => format!("no goals: {e}"),
        }
    }

    /// Thinks about the current state until `stop` is set or for `slice`
    /// at most (whichever comes first), growing the tree without
    /// choosing: the iterations run. The flag stops the search between
    /// playout steps, never inside the evaluation of a state, which is
    /// kept for the turn that follows.
    pub fn ponder(&mut self, stop: &AtomicBool, slice: std::time::Duration) -> Result<u64, String> {
        self.search.set_budget(Budget::Time(slice));
        (self.search.ponder(&mut self.game, &self.state, stop)).map_err(|e| describe(&e))
    }

    /// Whether the current state is terminal (an error counts as not).
    pub fn is_over(&mut self) -> bool {
        self.game.is_terminal(&self.state).unwrap_or(false)
    }
}

/// A game error in one line.
pub fn describe(e: &GameError) -> String {
    crate::command::describe(e).replace('\n', " ")
}
