//! A search player: Monte Carlo tree search with decoupled UCT.
//!
//! Each iteration walks down the tree from the position to play, choosing
//! at every node one move per role; adds the first position not in the
//! tree (while the tree is within its memory bound); plays the game out at
//! random from there; and adds the goals of the end (scaled from 0..100 to
//! 0..1) to the statistics of every move chosen on the way down. After the
//! budget (a number of iterations or a time), the player plays the move of
//! its role chosen most often at the root.
//!
//! A fault of the rules met below the root (a role without a legal move in
//! a state that is not terminal, a terminal state without one goal value a
//! role) is no fault of the move being chosen: the line that meets it is
//! worth 0 to every role, and the fault is told when the game reaches it.
//!
//! # Why decoupled UCT
//!
//! GDL moves are simultaneous in general: every role moves at every step,
//! and a turn-taking game is one where all roles but one have a single
//! legal move (`noop`). A tree per role (each role searching the game as if
//! the others played at random, or as a sequence of moves) does not fit
//! simultaneous moves; *decoupled* UCT (DUCT) does, with one tree: at each
//! node, each role keeps its own visit count and reward sum per legal move
//! of its own, and picks its move by its own UCB1 value (mean reward plus
//! `C·sqrt(ln N / n)`), not knowing what the others pick; the joint move is
//! the combination of the picks and names the child. In a turn-taking game
//! the roles that wait have one move, so the node's statistics are those of
//! the mover alone and DUCT is ordinary UCT, each role maximising its own
//! goal (a max^n search in the limit); with several movers at once it is
//! the usual simultaneous-move MCTS of general game players.
//!
//! # The fast path
//!
//! Games with a [`Stepper`] (the games whose rules ground) are
//! searched on one: the walk down the tree and the random playout play the
//! joint moves in place, with no `State` built per step. Other games go
//! through the general API ([`Game::next_state`], [`Game::play`]).
//!
//! # Memory and reuse
//!
//! The tree is bounded: it stops growing at a node cap (by default one
//! that keeps its estimated bytes within a quarter of
//! [`crate::Limits::max_memory`]); iterations go on, playing out from the
//! tree's leaves. Between moves, [`SearchPlayer::observe`] tells the player
//! the joint move played, and the next search starts from the child of
//! that joint move, keeping what was learned below it.

use crate::error::GameError;
use crate::game::random::{Ended, InEngineOrder, on_dense, on_stepper};
use crate::game::stepper::Stepper;
use crate::game::{Game, Move, Role, State, Stop};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How long a search may run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// This many iterations (per thread): a seed then gives one move.
    Iterations(u64),
    /// As many iterations as fit in this time (at least one, unless the
    /// position itself took all of it to evaluate: a player on a clock
    /// then plays the move its tree prefers so far, or its first legal
    /// move).
    Time(Duration),
}

/// The default UCB1 exploration constant, for rewards in 0..1.
pub const DEFAULT_EXPLORATION: f64 = 0.7;

/// The default most joint moves a random playout plays before it stops
/// (and counts as worth 0.5 to every role, unless its last state gives
/// every role a goal).
pub const DEFAULT_PLAYOUT_STEPS: usize = 1_000;

/// What the last search did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchStats {
    /// Iterations run, over all threads.
    pub iterations: u64,
    /// Nodes in the trees after the search, over all threads.
    pub nodes: usize,
    /// Of those, the nodes kept from the search before (tree reuse).
    pub reused: usize,
    /// How long the search took.
    pub elapsed: Duration,
    /// The searching role's moves at the root with their visits and mean
    /// reward (0..1), most visited first.
    pub root: Vec<(Move, u64, f64)>,
}

/// A Monte Carlo tree search player for one role: decoupled UCT (see the
/// module documentation), seeded, bounded in memory, reusing its tree
/// between moves.
///
/// ```
/// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../rules/tictactoe.gdl");
/// let mut game = gdl::Game::load(path)?;
/// let x = game.roles()[0];
/// let mut player = gdl::SearchPlayer::new(&game, x, gdl::Budget::Iterations(500), 1);
/// let mut random = gdl::RandomPlayer::new(1);
/// let mut state = game.initial_state();
/// while !game.is_terminal(&state)? {
///     let mut joint = random.joint(&mut game, &state)?;
///     joint[0] = player.choose(&mut game, &state)?;
///     player.observe(&joint);
///     state = game.next_state(&state, &joint)?;
/// }
/// assert!(game.goals(&state)?[0] >= 50); // x does not lose to random play
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct SearchPlayer {
    role: Role,
    budget: Budget,
    seed: u64,
    threads: usize,
    exploration: f64,
    playout_steps: usize,
    max_nodes: usize,
    /// One tree per thread (root parallelisation), all rooted at `root`.
    trees: Vec<Tree>,
    /// The state the trees are rooted at, when they are.
    root: Option<State>,
    /// The joint moves observed since the trees were rooted at `root`.
    pending: Vec<Vec<Move>>,
    /// How many searches have run (varies the seed from move to move).
    searches: u64,
    stats: SearchStats,
}

impl SearchPlayer {
    /// A player of `role` in `game` searching within `budget` per move,
    /// its random choices following from `seed`, on one thread.
    pub fn new(game: &Game, role: Role, budget: Budget, seed: u64) -> SearchPlayer {
        // A quarter of the memory budget, at the bytes a node of a game
        // with some 16 moves per role takes.
        let per_node = 200 + 64 * game.roles().len();
        SearchPlayer {
            role,
            budget,
            seed,
            threads: 1,
            exploration: DEFAULT_EXPLORATION,
            playout_steps: DEFAULT_PLAYOUT_STEPS,
            max_nodes: (game.limits().max_memory / 4 / per_node).max(1),
            trees: Vec::new(),
            root: None,
            pending: Vec::new(),
            searches: 0,
            stats: SearchStats::default(),
        }
    }

    /// Searches on `threads` threads (at least 1), each growing a tree of
    /// its own from its own seed; the move is chosen by the visits of the
    /// root moves summed over the trees (root parallelisation). With an
    /// iteration budget, each thread runs that many iterations.
    pub fn threads(mut self, threads: usize) -> SearchPlayer {
        self.threads = threads.max(1);
        self
    }

    /// Sets the UCB1 exploration constant (default
    /// [`DEFAULT_EXPLORATION`]).
    pub fn exploration(mut self, c: f64) -> SearchPlayer {
        self.exploration = if c.is_finite() && c >= 0.0 {
            c
        } else {
            DEFAULT_EXPLORATION
        };
        self
    }

    /// Sets the most joint moves of a random playout (default
    /// [`DEFAULT_PLAYOUT_STEPS`]).
    pub fn playout_steps(mut self, steps: usize) -> SearchPlayer {
        self.playout_steps = steps.max(1);
        self
    }

    /// Sets the most nodes a tree may hold (over all threads, shared
    /// evenly); past it the tree stops growing.
    pub fn max_nodes(mut self, nodes: usize) -> SearchPlayer {
        self.max_nodes = nodes.max(1);
        self
    }

    /// Changes the budget of the searches to come (a game player under a
    /// clock gives each move the time left before its deadline), keeping
    /// the tree.
    pub fn set_budget(&mut self, budget: Budget) {
        self.budget = budget;
    }

    /// The role this player plays.
    pub fn role(&self) -> Role {
        self.role
    }

    /// What the last search did.
    pub fn stats(&self) -> &SearchStats {
        &self.stats
    }

    /// Tells the player the joint move played (every role's move, in role
    /// order), so that its next search reuses the subtree below it.
    pub fn observe(&mut self, joint: &[Move]) {
        if self.root.is_some() {
            self.pending.push(joint.to_vec());
        }
    }

    /// Forgets the trees (a new game starts).
    pub fn reset(&mut self) {
        self.trees.clear();
        self.root = None;
        self.pending.clear();
    }

    /// Searches `state` within the budget and returns the move of this
    /// player's role. A role with one legal move plays it at once. Errors
    /// are those of `state` itself (terminal, a role without a legal move)
    /// and limits reached; a fault of the rules met further down only makes
    /// its line worth 0 (see the module documentation).
    pub fn choose(&mut self, game: &mut Game, state: &State) -> Result<Move, GameError> {
        let best = self.search(game, state, None, false)?;
        Ok(best.expect("a search that may not skip chooses a move"))
    }

    /// Searches `state` until `stop` is set (by another thread: the
    /// opponent's move came), or within the budget when that comes first,
    /// growing the tree without choosing: a player thinks while its
    /// opponent is to move, and on a turn where its own move is forced.
    /// The tree is kept for the next [`SearchPlayer::choose`] (of `state`,
    /// or of a state [`SearchPlayer::observe`] leads to from it). Returns
    /// the iterations run; [`SearchPlayer::stats`] tells the rest. A
    /// terminal `state` runs none.
    pub fn ponder(
        &mut self,
        game: &mut Game,
        state: &State,
        stop: &AtomicBool,
    ) -> Result<u64, GameError> {
        if game.is_terminal(state)? {
            return Ok(0);
        }
        self.search(game, state, Some(stop), true)?;
        Ok(self.stats.iterations)
    }

    /// The search of `state` (see `choose`), until `stop` is set when one
    /// is given; `pondering`, it runs even when this role has one move,
    /// and chooses none. The move chosen, unless pondering.
    fn search(
        &mut self,
        game: &mut Game,
        state: &State,
        stop: Option<&AtomicBool>,
        pondering: bool,
    ) -> Result<Option<Move>, GameError> {
        let start = Instant::now();
        if game.is_terminal(state)? {
            return Err(GameError::Terminal);
        }
        let roles = game.roles();
        let mine = game.legal_moves(state, self.role)?;
        if mine.is_empty() {
            return Err(GameError::NoLegalMove {
                role: game.role_name(self.role).to_string(),
            });
        }
        // Each role's legal moves at the root, from `game` itself: the
        // trees' root moves must be these (threads search on clones).
        let mut root_moves = Vec::with_capacity(roles.len());
        for &r in &roles {
            root_moves.push(game.legal_moves(state, r)?);
        }
        let reused = self.advance(game, state, &root_moves);
        self.root = Some(state.clone());
        self.stats = SearchStats {
            reused,
            ..SearchStats::default()
        };
        if mine.len() == 1 && !pondering {
            self.stats.elapsed = start.elapsed();
            self.stats.root = vec![(mine[0], 0, 0.0)];
            return Ok(Some(mine[0]));
        }
        self.searches += 1;
        let deadline = match self.budget {
            Budget::Time(t) => Some(start + t),
            Budget::Iterations(_) => None,
        };
        let iterations = match self.budget {
            Budget::Iterations(n) => n.max(1),
            Budget::Time(_) => u64::MAX,
        };
        self.trees.resize_with(self.threads, Tree::default);
        let config = Config {
            exploration: self.exploration,
            playout_steps: self.playout_steps,
            max_nodes: (self.max_nodes / self.threads).max(1),
            iterations,
            deadline,
            stop,
        };
        let seed = |t: usize| {
            self.seed
                .wrapping_add(self.searches.wrapping_mul(0x9E37_79B9_7F4A_7C15))
                .wrapping_add((t as u64).wrapping_mul(0xD1B5_4A32_D192_ED03))
        };
        let mut total = 0;
        if self.threads == 1 {
            let tree = &mut self.trees[0];
            total += tree.search(game, state, &root_moves, &config, seed(0))?;
        } else {
            // The threads stop under the caller's cancel flag too.
            let cancel = crate::cancel::current();
            let results: Vec<Result<u64, GameError>> = std::thread::scope(|scope| {
                let handles: Vec<_> = (self.trees.iter_mut().enumerate())
                    .map(|(t, tree)| {
                        let mut game = game.clone();
                        let (state, root_moves, config) = (state, &root_moves, &config);
                        let seed = seed(t);
                        let cancel = cancel.clone();
                        scope.spawn(move || {
                            crate::cancel::under(cancel.as_ref(), || {
                                tree.search(&mut game, state, root_moves, config, seed)
                            })
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                    .collect()
            });
            for r in results {
                total += r?;
            }
        }
        // The root moves of this role, by visits summed over the trees.
        let role = self.role.0 as usize;
        let mut root: Vec<(Move, u64, f64)> = mine.iter().map(|&m| (m, 0, 0.0)).collect();
        for tree in &self.trees {
            let node = &tree.nodes[tree.root as usize];
            for (k, entry) in root.iter_mut().enumerate() {
                let i = node.first[role] as usize + k;
                entry.1 += node.visits[i] as u64;
                entry.2 += node.reward[i];
            }
        }
        for entry in &mut root {
            entry.2 = if entry.1 > 0 {
                entry.2 / entry.1 as f64
            } else {
                0.0
            };
        }
        // Most visited first; ties to the higher mean, then the earlier move.
        root.sort_by(|a, b| b.1.cmp(&a.1).then(b.2.total_cmp(&a.2)));
        self.stats.iterations = total;
        self.stats.nodes = self.trees.iter().map(|t| t.nodes.len()).sum();
        self.stats.elapsed = start.elapsed();
        let best = root[0].0;
        self.stats.root = root;
        Ok((!pondering).then_some(best))
    }

    /// Moves the trees' roots down the joint moves observed, when they lead
    /// to `state` and the root moves are still `root_moves`; forgets them
    /// otherwise. Returns the nodes kept.
    fn advance(&mut self, game: &mut Game, state: &State, root_moves: &[Vec<Move>]) -> usize {
        let pending = std::mem::take(&mut self.pending);
        let mut ok = self.root.is_some() && !self.trees.is_empty();
        if ok {
            let mut at = self.root.clone().expect("checked");
            // Down each joint move observed, in order.
            for joint in &pending {
                match game.next_state(&at, joint) {
                    Ok(next) => at = next,
                    Err(_) => {
                        ok = false;
                        break;
                    }
                }
                for tree in &mut self.trees {
                    tree.advance(joint);
                }
            }
            ok = ok && at == *state;
        }
        if !ok {
            self.trees.clear();
            return 0;
        }
        for tree in &mut self.trees {
            if !tree.nodes.is_empty() && !tree.root_moves_are(root_moves) {
                *tree = Tree::default();
            }
        }
        self.trees.iter().map(|t| t.nodes.len()).sum()
    }
}

/// The settings of one search, shared by its threads.
struct Config<'a> {
    exploration: f64,
    playout_steps: usize,
    max_nodes: usize,
    iterations: u64,
    deadline: Option<Instant>,
    /// Stops the search once set (a ponder's flag).
    stop: Option<&'a AtomicBool>,
}

impl Config<'_> {
    /// Whether the search is to stop: past its deadline, its flag set.
    fn over(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
            || self.stop.is_some_and(|s| s.load(Ordering::Relaxed))
    }
}

/// A position of the tree: each role's legal moves with their statistics,
/// and the children met so far.
#[derive(Debug)]
struct Node {
    /// The goals (0..1) when the position is terminal.
    goals: Option<Box<[f64]>>,
    /// Where each role's moves begin in `moves` (one entry per role, and
    /// the end).
    first: Box<[u32]>,
    /// Every role's legal moves, role after role, in the game's order.
    moves: Box<[Move]>,
    /// How often each move was chosen here, and the rewards it brought.
    visits: Box<[u32]>,
    reward: Box<[f64]>,
    /// How often a joint move was chosen here.
    total: u32,
    /// The children: the joint move's key (see `Node::key`) and the node.
    children: Vec<(u64, u32)>,
}

impl Node {
    /// A position where the rules fail (a fault): an end worth 0 to every
    /// role.
    fn fault(roles: usize) -> Node {
        Node {
            goals: Some(vec![0.0; roles].into()),
            first: vec![0; roles + 1].into(),
            visits: Box::new([]),
            reward: Box::new([]),
            moves: Box::new([]),
            total: 0,
            children: Vec::new(),
        }
    }

    /// The key of the joint move whose role `r` plays its `picks[r]`-th
    /// move: the picks as digits of a mixed-radix number.
    fn key(&self, picks: &[usize]) -> u64 {
        let mut key = 0u64;
        for (r, &k) in picks.iter().enumerate() {
            let n = (self.first[r + 1] - self.first[r]) as u64;
            key = key.wrapping_mul(n).wrapping_add(k as u64);
        }
        key
    }

    fn child(&self, key: u64) -> Option<u32> {
        self.children
            .iter()
            .find(|&&(k, _)| k == key)
            .map(|&(_, c)| c)
    }
}

/// One search tree in an arena; the root is `nodes[root]`.
#[derive(Default)]
struct Tree {
    nodes: Vec<Node>,
    root: u32,
}

/// Where an iteration stands in the game: a stepper (the fast path), or a
/// state of the general API. A stepper off its ground rules (see
/// `Stepper::is_off`) stands for its state, answered by the general API.
enum Cursor {
    Stepper(Box<Stepper>),
    Api(State),
}

impl Cursor {
    fn at(game: &Game, state: &State) -> Cursor {
        match game.stepper() {
            Some(mut s) => {
                s.set_state(state);
                Cursor::Stepper(Box::new(s))
            }
            None => Cursor::Api(state.clone()),
        }
    }

    fn set(&mut self, state: &State) {
        match self {
            Cursor::Stepper(s) => s.set_state(state),
            Cursor::Api(at) => at.clone_from(state),
        }
    }

    /// The stepper, while the position is on its ground rules.
    fn stepper(&mut self) -> Option<&mut Stepper> {
        match self {
            Cursor::Stepper(s) if !s.is_off() => Some(s),
            _ => None,
        }
    }

    /// The position as a state of the general API.
    fn state(&mut self) -> State {
        match self {
            Cursor::Stepper(s) => s.state(),
            Cursor::Api(at) => at.clone(),
        }
    }

    fn is_terminal(&mut self, game: &mut Game) -> Result<bool, GameError> {
        match self.stepper() {
            Some(s) => Ok(s.is_terminal()),
            None => game.is_terminal(&self.state()),
        }
    }

    /// The goals of a terminal position, scaled to 0..1.
    fn goals(&mut self, game: &mut Game) -> Result<Box<[f64]>, GameError> {
        // Missing, several or bad goals: the general API says which.
        let goals = match self.stepper().and_then(|s| s.goals()) {
            Some(g) => g,
            None => game.goals(&self.state())?,
        };
        Ok(goals.iter().map(|&g| g as f64 / 100.0).collect())
    }

    /// A new node for the position (terminal or not).
    fn node(&mut self, game: &mut Game, roles: usize) -> Result<Node, GameError> {
        let goals = if self.is_terminal(game)? {
            Some(self.goals(game)?)
        } else {
            None
        };
        let mut first = Vec::with_capacity(roles + 1);
        let mut moves = Vec::new();
        if goals.is_none() {
            for r in 0..roles {
                first.push(moves.len() as u32);
                let legal = match self.stepper() {
                    Some(s) => s.legal_moves(r),
                    None => game.legal_moves(&self.state(), Role(r as u32))?,
                };
                if legal.is_empty() {
                    return Err(GameError::NoLegalMove {
                        role: game.role_name(Role(r as u32)).to_string(),
                    });
                }
                moves.extend(legal);
            }
        } else {
            first.resize(roles, 0);
        }
        first.push(moves.len() as u32);
        Ok(Node {
            goals,
            first: first.into(),
            visits: vec![0; moves.len()].into(),
            reward: vec![0.0; moves.len()].into(),
            moves: moves.into(),
            total: 0,
            children: Vec::new(),
        })
    }

    /// Plays the joint move of `picks` (each role's move by its index in
    /// `node`'s lists).
    fn play(
        &mut self,
        game: &mut Game,
        node: &Node,
        picks: &[usize],
        joint: &mut Vec<Move>,
    ) -> Result<(), GameError> {
        if let Some(s) = self.stepper() {
            s.play_nth(picks);
            return Ok(());
        }
        joint.clear();
        joint.extend(
            (picks.iter().enumerate()).map(|(r, &k)| node.moves[node.first[r] as usize + k]),
        );
        let next = game.next_state(&self.state(), joint)?;
        self.set(&next);
        Ok(())
    }

    /// Plays at random to the end, `max_steps` joint moves or the
    /// deadline (looked at within the playout: one playout of a large
    /// game may take minutes), and gives each role's reward: its goal
    /// scaled to 0..1, or where the game did not end, its goal in the
    /// last state when that gives every role one, 0.5 otherwise.
    fn playout(
        &mut self,
        game: &mut Game,
        rng: &mut Pcg64,
        stop: &Stop,
        roles: usize,
    ) -> Result<Vec<f64>, GameError> {
        let scale = |g: &[u8]| g.iter().map(|&g| g as f64 / 100.0).collect();
        let picker = &mut InEngineOrder(rng);
        // A small network read whole: the stepper stays where it is, and
        // the goals are read where the walk ended.
        if let Some(s) = self.stepper().filter(|s| s.walks_dense()) {
            let o = on_dense(game, s, picker, stop).map_err(|(_, e)| e)?;
            let goals = o.goals.or_else(|| s.dense_goals());
            return Ok(goals.map_or_else(|| vec![0.5; roles], |g| scale(&g)));
        }
        let played = match self.stepper() {
            Some(s) => on_stepper(game, s, picker, stop).map_err(|(_, e)| e)?,
            None => {
                let state = self.state();
                Ended::Api(game.play(&state, picker, *stop).map_err(|(_, e)| e)?)
            }
        };
        Ok(match played {
            Ended::Stepper(o) => match (o.goals, self.stepper()) {
                (Some(g), _) => scale(&g),
                (None, Some(s)) => s.goals().map_or_else(|| vec![0.5; roles], |g| scale(&g)),
                (None, None) => vec![0.5; roles],
            },
            Ended::Api(p) => match p.goals {
                Some(g) => scale(&g),
                None => (game.goals(&p.last)).map_or_else(|_| vec![0.5; roles], |g| scale(&g)),
            },
        })
    }
}

/// Whether `e` is a fault of the rules in the state where it was met,
/// rather than of the search (a limit reached).
fn is_fault(e: &GameError) -> bool {
    matches!(
        e,
        GameError::NoLegalMove { .. }
            | GameError::NoGoal { .. }
            | GameError::SeveralGoals { .. }
            | GameError::BadGoal { .. }
    )
}

impl Tree {
    /// Whether the root's moves are `root_moves`, role by role.
    fn root_moves_are(&self, root_moves: &[Vec<Move>]) -> bool {
        let node = &self.nodes[self.root as usize];
        node.goals.is_none()
            && root_moves.iter().enumerate().all(|(r, moves)| {
                node.moves[node.first[r] as usize..node.first[r + 1] as usize] == moves[..]
            })
    }

    /// Makes the child of `joint` the root, keeping only the nodes below
    /// it; an empty tree when it has no such child.
    fn advance(&mut self, joint: &[Move]) {
        if self.nodes.is_empty() {
            return;
        }
        let node = &self.nodes[self.root as usize];
        let picks: Option<Vec<usize>> = (joint.iter().enumerate())
            .map(|(r, m)| {
                let moves = node.moves.get(
                    node.first.get(r).copied()? as usize..node.first.get(r + 1).copied()? as usize,
                )?;
                moves.iter().position(|x| x == m)
            })
            .collect();
        let child = picks.and_then(|p| node.child(node.key(&p)));
        match child {
            Some(c) => self.compact(c),
            None => *self = Tree::default(),
        }
    }

    /// Keeps only the nodes below `root`, renumbered from 0 in breadth-first
    /// order.
    fn compact(&mut self, root: u32) {
        let mut old: Vec<Option<Node>> = std::mem::take(&mut self.nodes)
            .into_iter()
            .map(Some)
            .collect();
        let mut nodes: Vec<Node> = Vec::new();
        let mut queue = std::collections::VecDeque::from([root]);
        // Breadth first: a node's new number is its place in the queue
        // order, given when it is queued.
        let mut next_number = 1u32;
        while let Some(i) = queue.pop_front() {
            let mut node = old[i as usize].take().expect("a tree node has one parent");
            for (_, c) in node.children.iter_mut() {
                queue.push_back(*c);
                *c = next_number;
                next_number += 1;
            }
            nodes.push(node);
        }
        self.nodes = nodes;
        self.root = 0;
    }

    /// Runs the iterations of one search from `state` (whose legal moves
    /// are `root_moves`), returning how many ran.
    fn search(
        &mut self,
        game: &mut Game,
        state: &State,
        root_moves: &[Vec<Move>],
        config: &Config<'_>,
        seed: u64,
    ) -> Result<u64, GameError> {
        let roles = root_moves.len();
        let mut rng = Pcg64::seed_from_u64(seed);
        let mut cursor = Cursor::at(game, state);
        if self.nodes.is_empty() {
            let root = cursor.node(game, roles)?;
            self.nodes.push(root);
            self.root = 0;
        }
        let mut path: Vec<(u32, Vec<usize>)> = Vec::new();
        let mut picks = vec![0; roles];
        let mut joint = Vec::with_capacity(roles);
        let mut done = 0;
        // The states of the walks down the tree and of the playouts are
        // interned from here on, and the tree keeps none of them: only the
        // moves of new nodes, past which the mark moves. Off the fast path
        // (the interpreter interns a term for every new fact) they are
        // forgotten between iterations once they outgrow their share of
        // the memory budget, and all of them at the end, so that a long
        // search and a long game of searches stay in bounded memory.
        let mut mark = game.term_mark();
        let stop = Stop {
            max_steps: config.playout_steps,
            deadline: config.deadline,
            cancel: config.stop,
        };
        // One iteration per pass: select, expand, play out, back up. A
        // choice runs one at least; a ponder stopped before it, none. A
        // cancel flag over the search ends it (`Cancelled`).
        // Past the deadline already (the root took it all): no iteration.
        let late = config.deadline.is_some_and(|d| Instant::now() >= d);
        let ran = (|| -> Result<(), GameError> {
            while done < config.iterations {
                if (done > 0 || config.stop.is_some() || late) && config.over() {
                    break;
                }
                crate::cancel::check()?;
                game.forget_terms_over_share(mark);
                cursor.set(state);
                path.clear();
                let mut at = self.root;
                // Selection: down the tree while the joint move picked has a
                // child; each role picks by its own UCB1 value.
                let rewards = loop {
                    let node = &self.nodes[at as usize];
                    if let Some(goals) = &node.goals {
                        break goals.to_vec();
                    }
                    for (r, pick) in picks.iter_mut().enumerate() {
                        *pick = self.pick(at, r, config.exploration, &mut rng);
                    }
                    let node = &self.nodes[at as usize];
                    cursor.play(game, node, &picks, &mut joint)?;
                    path.push((at, picks.clone()));
                    let key = node.key(&picks);
                    if let Some(child) = node.child(key) {
                        at = child;
                        continue;
                    }
                    // Expansion, while the tree is within its bound; then the
                    // playout from the new position.
                    if self.nodes.len() < config.max_nodes {
                        let child = match cursor.node(game, roles) {
                            Err(e) if is_fault(&e) => Node::fault(roles),
                            child => child?,
                        };
                        mark = game.mark_past(mark, &child.moves);
                        let terminal = child.goals.clone();
                        let id = self.nodes.len() as u32;
                        self.nodes.push(child);
                        self.nodes[at as usize].children.push((key, id));
                        if let Some(goals) = terminal {
                            break goals.to_vec();
                        }
                    }
                    match cursor.playout(game, &mut rng, &stop, roles) {
                        Err(e) if is_fault(&e) => break vec![0.0; roles],
                        rewards => break rewards?,
                    }
                };
                // Backup: every move picked on the way down earns its role's
                // reward.
                for (id, picked) in &path {
                    let node = &mut self.nodes[*id as usize];
                    node.total += 1;
                    for (r, &k) in picked.iter().enumerate() {
                        let i = node.first[r] as usize + k;
                        node.visits[i] += 1;
                        node.reward[i] += rewards[r];
                    }
                }
                done += 1;
            }
            Ok(())
        })();
        game.forget_terms(mark);
        match ran {
            Ok(()) => Ok(done),
            // A ponder whose flag stopped an evaluation under way (its
            // cancel scope): the iterations done stand.
            Err(GameError::Cancelled) if config.stop.is_some_and(|s| s.load(Ordering::Relaxed)) => {
                Ok(done)
            }
            Err(e) => Err(e),
        }
    }

    /// Role `r`'s pick at node `at`: an untried move (at random) while it
    /// has some, else the move of the highest UCB1 value.
    fn pick(&self, at: u32, r: usize, c: f64, rng: &mut Pcg64) -> usize {
        let node = &self.nodes[at as usize];
        let (lo, hi) = (node.first[r] as usize, node.first[r + 1] as usize);
        if hi - lo == 1 {
            return 0;
        }
        let untried = node.visits[lo..hi].iter().filter(|&&v| v == 0).count();
        if untried > 0 {
            let nth = rng.gen_range(0..untried);
            return (node.visits[lo..hi].iter().enumerate())
                .filter(|&(_, &v)| v == 0)
                .nth(nth)
                .map_or(0, |(k, _)| k);
        }
        let log_n = (node.total.max(1) as f64).ln();
        let mut best = (0, f64::NEG_INFINITY);
        // UCB1: mean reward plus c·sqrt(ln N / n).
        for k in 0..hi - lo {
            let n = node.visits[lo + k] as f64;
            let value = node.reward[lo + k] / n + c * (log_n / n).sqrt();
            if value > best.1 {
                best = (k, value);
            }
        }
        best.0
    }
}
