//! Direct Rust implementations of the games in `rules/` (no GDL in them), the
//! pieces several of them share, and the drivers that play a rules file and
//! its oracle side by side.

use gdl::State;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_pcg::Pcg64;
use std::fmt::Debug;
use std::hash::Hash;

/// The roles of every oracle game, in the order of the rules files.
pub const ROLES: [&str; 2] = ["white", "black"];

/// A game implemented directly in Rust. Its move texts and state facts are
/// written exactly as the matching rules file prints them (lower-case KIF,
/// single spaces), so that the two can be compared string for string.
pub trait Oracle: Clone + Debug {
    /// A move of one role.
    type Move: Clone + Eq + Hash + Debug;
    /// The initial position.
    fn initial() -> Self;
    /// The legal moves of role `role` (0 = white, 1 = black). Empty only when
    /// the position is terminal.
    fn legal(&self, role: usize) -> Vec<Self::Move>;
    /// Plays one move per role.
    fn apply(&mut self, joint: &[Self::Move; 2]);
    /// Whether the game is over.
    fn is_terminal(&self) -> bool;
    /// Goal values of white and black (meaningful when terminal).
    fn goals(&self) -> [u8; 2];
    /// The move as the rules file writes it, e.g. `(move a 2 b 3)` or `noop`.
    fn move_text(m: &Self::Move) -> String;
    /// The position as the rules file's state facts, e.g. `(cell a 2 wp)`,
    /// sorted; compared set for set with the GDL state.
    fn facts(&self) -> Vec<String>;

    /// The legal moves of role `role` as sorted texts.
    fn legal_texts(&self, role: usize) -> Vec<String> {
        sorted(self.legal(role).iter().map(Self::move_text).collect())
    }

    /// The legal move of role `role` written `text`, if there is one.
    fn legal_move(&self, role: usize, text: &str) -> Option<Self::Move> {
        self.legal(role)
            .into_iter()
            .find(|m| Self::move_text(m) == text)
    }
}

/// The legal moves of `role` in a game where the role in `control` acts and
/// the other waits: none once the game is `over`, only `noop` for the role
/// waiting, and `moves()` for the role in control.
pub fn turn_moves<M>(
    over: bool,
    role: usize,
    control: usize,
    noop: M,
    moves: impl FnOnce() -> Vec<M>,
) -> Vec<M> {
    if over {
        Vec::new()
    } else if role != control {
        vec![noop]
    } else {
        moves()
    }
}

/// A cell of a board with lettered files, both coordinates 0-based, as the
/// rules files write it: file 4, rank 3 is `e 4`.
pub fn cell_text(file: impl Into<usize>, rank: impl Into<usize>) -> String {
    let file = u8::try_from(file.into()).expect("a file within a to z");
    format!("{} {}", char::from(b'a' + file), rank.into() + 1)
}

/// A move of one role on a board with lettered files: a piece from one cell
/// to another, or a pass. Cells are (file, rank), both 0-based.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CellMove {
    /// `(move x1 y1 x2 y2)`.
    Step { from: (u8, u8), to: (u8, u8) },
    /// `noop`.
    Noop,
}

impl CellMove {
    /// The move as the rules files write it: `(move e 2 e 3)` or `noop`.
    pub fn text(&self) -> String {
        match self {
            CellMove::Noop => "noop".to_string(),
            CellMove::Step { from, to } => format!(
                "(move {} {})",
                cell_text(from.0, from.1),
                cell_text(to.0, to.1)
            ),
        }
    }
}

/// The goals of a game won by one role: 100 to the `winner` and 0 to the
/// other, or `no_winner` when there is none.
pub fn winner_goals(winner: Option<usize>, no_winner: [u8; 2]) -> [u8; 2] {
    match winner {
        Some(0) => [100, 0],
        Some(_) => [0, 100],
        None => no_winner,
    }
}

/// What a side-by-side run saw.
#[derive(Debug, Default)]
pub struct Compared {
    /// Games played to the end.
    pub games: usize,
    /// States compared.
    pub states: usize,
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

/// Plays `games` random games of `rules` and of `O` side by side from `seed`,
/// requiring the same legal moves for each role, the same next state, the
/// same end and the same goals at every step. Panics with the game number,
/// the step and both views of the position on the first disagreement.
pub fn compare<O: Oracle>(rules: &str, games: usize, seed: u64, max_steps: usize) -> Compared {
    let mut game = crate::games::load(rules);
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut seen = Compared::default();
    for g in 0..games {
        let mut state = game.initial_state();
        let mut oracle = O::initial();
        for step in 0.. {
            assert!(
                step <= max_steps,
                "game {g}: no end after {max_steps} steps"
            );
            seen.states += 1;
            let where_ = || format!("game {g} (seed {seed}), step {step}\noracle: {oracle:?}");
            assert_eq!(
                sorted(game.state_facts(&state)),
                sorted(oracle.facts()),
                "state differs at {}",
                where_()
            );
            let terminal = game.is_terminal(&state).unwrap();
            assert_eq!(
                terminal,
                oracle.is_terminal(),
                "terminal differs at {}",
                where_()
            );
            if terminal {
                let goals = game.goals(&state).unwrap();
                assert_eq!(
                    goals,
                    oracle.goals().to_vec(),
                    "goals differ at {}",
                    where_()
                );
                break;
            }
            let mut joint = Vec::new();
            let mut oracle_joint = Vec::new();
            for (i, name) in ROLES.iter().enumerate() {
                let gdl_moves = crate::games::legal(&mut game, &state, i);
                let mut oracle_moves = oracle.legal(i);
                oracle_moves.sort_by_key(O::move_text);
                let oracle_texts: Vec<String> = oracle_moves.iter().map(O::move_text).collect();
                assert_eq!(
                    gdl_moves,
                    oracle_texts,
                    "legal moves of {name} differ at {}",
                    where_()
                );
                let chosen = oracle_moves
                    .choose(&mut rng)
                    .unwrap_or_else(|| panic!("{name} has no move at {}", where_()))
                    .clone();
                joint.push(game.parse_move(&O::move_text(&chosen)).unwrap());
                oracle_joint.push(chosen);
            }
            state = game.next_state(&state, &joint).unwrap();
            oracle.apply(&[oracle_joint[0].clone(), oracle_joint[1].clone()]);
        }
        seen.games += 1;
    }
    seen
}

/// What random playouts of a rules file saw.
#[derive(Debug, Default)]
pub struct Playouts {
    /// Games played to a terminal state.
    pub games: usize,
    /// Non-terminal states met.
    pub states: usize,
    /// Longest game, in steps.
    pub longest: usize,
}

/// Plays `games` random games of `rules` from `seed` and requires that every
/// game ends within `max_steps`, that every role has a legal move in every
/// non-terminal state met, and that every terminal state gives each role
/// exactly one goal (the API refuses zero or several).
pub fn random_playouts(rules: &str, games: usize, seed: u64, max_steps: usize) -> Playouts {
    let mut game = crate::games::load(rules);
    let roles = game.roles();
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut seen = Playouts::default();
    for g in 0..games {
        let mut state: State = game.initial_state();
        let mut step = 0;
        while !game.is_terminal(&state).unwrap() {
            assert!(step < max_steps, "game {g}: no end after {max_steps} steps");
            seen.states += 1;
            let mut joint = Vec::new();
            for &role in &roles {
                let moves = game.legal_moves(&state, role).unwrap();
                let m = *moves.choose(&mut rng).unwrap_or_else(|| {
                    panic!(
                        "game {g}, step {step}: {} has no legal move in {:?}",
                        game.role_name(role),
                        game.state_facts(&state)
                    )
                });
                joint.push(m);
            }
            state = game.next_state(&state, &joint).unwrap();
            step += 1;
        }
        game.goals(&state)
            .unwrap_or_else(|e| panic!("game {g}: bad goals at the end: {e}"));
        seen.longest = seen.longest.max(step);
        seen.games += 1;
    }
    seen
}
