//! A game position played in place, for games with ground rules: the fast
//! path of random playouts.
//!
//! The position is one `Evaluation` of the game's ground rules, kept up to
//! date incrementally: playing a joint move sets its `does` atoms, settles
//! the model, and flips exactly the `true` atoms whose `next` atom differs
//! from them (a move changes a few cells, the control, a counter), so a
//! step costs what the move changes, not the size of the position. Legal
//! moves are kept as one bitset per role, in the order the general API
//! lists them; nothing is allocated per step.

use super::cone::Cone;
use super::ground::GroundTables;
use super::types::{Goals, Move, State, Stop};
use crate::engine::incremental::{Arming, Dense, Evaluation, LazyRules, Network, Shape};
use crate::error::GameError;
use crate::plan::{Phase, Program, RelId};
use crate::syntax::keywords::goal_value;
use crate::syntax::natural::natural_cmp;
use crate::syntax::symbol::Symbols;
use crate::syntax::term::TermId;
use crate::syntax::term::TermTable;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use rustc_hash::FxHashMap;
use std::sync::{Arc, OnceLock};

mod dense;

/// No atom.
const NONE: u32 = u32::MAX;

/// What a flip of an atom means to a stepper.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tag {
    /// Nothing: the stepper never reads it.
    None,
    /// A legal move: its group's count is `Stepper::legal_count[slot]`,
    /// its bit `bit` of `Stepper::legal`.
    Legal { slot: u32, bit: u32 },
    /// The `next` fact of the `true` fact number `local`. (`true` atoms
    /// are not watched: only the stepper sets them.)
    Next { local: u32 },
    /// The `next` fact number `index` of `Tables::escapes`, which no
    /// `true` atom is (see `Stepper::is_off`).
    Escape { index: u32 },
}

/// Per role: each goal atom with its value (`None` when not a whole number
/// from 0 to 100).
type GoalAtoms = Vec<Vec<(u32, Option<u8>)>>;

/// One role's legal moves, in the order the general API lists them.
#[derive(Clone, Debug)]
pub(crate) struct RoleMoves {
    /// The lists of hub literals the `legal` atoms are deferred under
    /// (empty for atoms that are not), and each move's group: its list's
    /// place in `hubs`.
    pub hubs: Vec<Vec<u32>>,
    pub group: Vec<u32>,
    /// The role's name.
    pub name: String,
    /// Each move, its `legal` atom, its `does` atom (`NONE` when no rule
    /// reads it) and its text.
    pub moves: Vec<Move>,
    pub legal: Vec<u32>,
    pub does: Vec<u32>,
    pub texts: Vec<String>,
    /// Each move's place in the natural order of the texts, and the move
    /// at each place (see `Stepper::nth_natural`); both empty when that
    /// order is the table's.
    pub rank: Vec<u32>,
    pub by_rank: Vec<u32>,
}

/// Each text's place in the natural order ([`natural_cmp`]) of `texts`, and
/// the text at each place; both empty when `texts` are in that order.
fn natural_ranks(texts: &[String]) -> (Vec<u32>, Vec<u32>) {
    let mut by_rank: Vec<u32> = (0..texts.len() as u32).collect();
    by_rank.sort_by(|&a, &b| natural_cmp(&texts[a as usize], &texts[b as usize]));
    if by_rank
        .iter()
        .enumerate()
        .all(|(place, &i)| i as usize == place)
    {
        return (Vec::new(), Vec::new());
    }
    let mut rank = vec![0; texts.len()];
    for (place, &i) in by_rank.iter().enumerate() {
        rank[i as usize] = place as u32;
    }
    (rank, by_rank)
}

/// What every stepper of a game shares: the network and which atoms answer
/// which question.
#[derive(Debug)]
pub(crate) struct Tables {
    net: Network,
    /// The first `true` atom; `true` atoms are numbered `first_true + local`.
    first_true: u32,
    /// Per `true` atom (by local number): its fact, and its `next` atom
    /// (`NONE` when no `next` fact can be it).
    true_facts: Vec<TermId>,
    true_next: Vec<u32>,
    /// The local number of each `true` fact.
    local_of: FxHashMap<TermId, u32>,
    roles: Vec<RoleMoves>,
    /// Per role: the slot of its first group among all roles' groups (see
    /// `Stepper::legal_count`); group `g` has slot `first_slot[r] + g`.
    first_slot: Vec<u32>,
    /// Per role: where its groups' bits start in `Stepper::legal`; each
    /// group takes `words(moves)` words, group `g` from `first_word[r] + g
    /// * words(moves)`.
    first_word: Vec<u32>,
    goals: GoalAtoms,
    /// The rules only goals depend on, where they are left out of `net`.
    lazy: Option<LazyRules>,
    terminal: Option<u32>,
    tags: Vec<Tag>,
    /// The `next` atoms whose facts no `true` atom is (where `base` bounds
    /// the ground rules), with their facts.
    escapes: Vec<(u32, TermId)>,
    /// Where the rules read relations of the state that no move changes
    /// from copies of `init` (`rewrite::fixed`): the local numbers of
    /// their facts, every one of which a state on the ground rules holds
    /// (set once, by loading).
    fixed_locals: OnceLock<Vec<u32>>,
    /// The `true` facts out of the cone of a stepper of random outcomes
    /// (see `cone`), a bit per local number: such a stepper never sets
    /// them, and its positions hold the others alone. Empty for the
    /// stepper of the whole game.
    idle: Vec<u64>,
    /// For a stepper of random outcomes, how many ground rules its cone
    /// keeps and leaves out (see `Cone::sizes`); `None` for the stepper
    /// of the whole game.
    cone: Option<(usize, usize)>,
    /// The evaluation of the empty position, made by the first stepper
    /// and copied by the others: settling the whole network from nothing
    /// costs more than a copy (a game whose playouts end at a fault of
    /// the rules makes a stepper for each).
    empty: OnceLock<Evaluation>,
    /// The network's rules read whole at each step, where its atoms are
    /// few (see `dense`): random outcomes are played on them.
    dense: Option<Dense>,
}

impl Tables {
    /// How many gates of the network are armed, and how many rules they
    /// gate (see `Network::worth_arming`).
    pub(crate) fn armed_gates(&self) -> (usize, usize) {
        self.net.armed_gates()
    }

    /// How many atoms of the network guard rules, and how many rules
    /// (see `Arming`).
    pub(crate) fn guards(&self) -> (usize, usize) {
        self.net.guards()
    }

    /// How many of the atoms that guard rules are `does` atoms (a noop
    /// that gates no rule).
    pub(crate) fn move_guards(&self) -> usize {
        self.net.move_guards()
    }

    /// How many heads of the network read a set of several roles' moves
    /// through what each role plays otherwise.
    pub(crate) fn role_sets(&self) -> usize {
        self.net.role_sets()
    }

    /// How many atoms the network merged into others that have the same
    /// rules.
    pub(crate) fn equivalents(&self) -> usize {
        self.net.equivalents()
    }

    /// How many rules of over 255 literals the network writes as chains,
    /// and the links it adds for them.
    pub(crate) fn long_rules(&self) -> (usize, usize) {
        self.net.long_rules()
    }

    /// How many components of atoms on a cycle the network derives a
    /// component at a time, their atoms and their rules.
    pub(crate) fn cycles(&self) -> (usize, usize, usize) {
        self.net.cycle_sizes()
    }

    /// Gathers the tables; `true_atoms` are the atoms of `true`, with their
    /// facts in order, and `next` the `next` atoms with their facts.
    pub(crate) fn new(
        net: Network,
        true_atoms: (u32, Vec<TermId>),
        next: &[(u32, TermId)],
        mut roles: Vec<RoleMoves>,
        (goals, lazy): (GoalAtoms, Option<LazyRules>),
        terminal: Option<u32>,
    ) -> Option<Tables> {
        for r in &mut roles {
            // A move no rule reads (noop, often) has nothing to set.
            for does in &mut r.does {
                if *does != NONE && !net.is_read(*does) {
                    *does = NONE;
                }
            }
            r.hubs.clear();
            r.group.clear();
            for &atom in &r.legal {
                let hub = net.deferred_under(atom);
                let g = match r.hubs.iter().position(|h| h == hub) {
                    Some(g) => g,
                    None => {
                        r.hubs.push(hub.to_vec());
                        r.hubs.len() - 1
                    }
                };
                r.group.push(g as u32);
            }
        }
        let (first_true, true_facts) = true_atoms;
        let local_of: FxHashMap<TermId, u32> = true_facts
            .iter()
            .enumerate()
            .map(|(l, &f)| (f, l as u32))
            .collect();
        let mut tags = vec![Tag::None; net.atoms()];
        let always = net.always();
        let mut true_next = vec![NONE; true_facts.len()];
        let mut escapes = Vec::new();
        for &(atom, fact) in next {
            // Every `next` fact was fed back as `true` when grounding,
            // but where `base` left it out.
            match local_of.get(&fact) {
                Some(&local) => {
                    true_next[local as usize] = atom;
                    if atom != always {
                        tags[atom as usize] = Tag::Next { local };
                    }
                }
                // Every state after the first would be off.
                None if atom == always => return None,
                None => {
                    tags[atom as usize] = Tag::Escape {
                        index: escapes.len() as u32,
                    };
                    escapes.push((atom, fact));
                }
            }
        }
        let (mut first_slot, mut first_word) = (Vec::new(), Vec::new());
        let (mut slot, mut word) = (0u32, 0u32);
        for r in &roles {
            first_slot.push(slot);
            first_word.push(word);
            slot += r.hubs.len() as u32;
            word += (r.hubs.len() * words(r.moves.len())) as u32;
        }
        for (role, r) in roles.iter().enumerate() {
            for (entry, &atom) in r.legal.iter().enumerate() {
                if atom != always {
                    let g = r.group[entry] as usize;
                    let first = first_word[role] as usize + g * words(r.moves.len());
                    tags[atom as usize] = Tag::Legal {
                        slot: first_slot[role] + g as u32,
                        bit: (first * 64) as u32 + entry as u32,
                    };
                }
            }
        }
        Some(Tables {
            net,
            first_true,
            true_facts,
            true_next,
            local_of,
            roles,
            first_slot,
            first_word,
            goals,
            lazy,
            terminal,
            tags,
            escapes,
            fixed_locals: OnceLock::new(),
            idle: Vec::new(),
            cone: None,
            empty: OnceLock::new(),
            dense: None,
        })
    }

    /// Records which `true` facts are of relations that no move changes
    /// (see `fixed_locals`).
    pub(crate) fn set_fixed(&self, is_fixed: impl Fn(TermId) -> bool) {
        let locals = (self.true_facts.iter().enumerate())
            .filter(|&(_, &f)| is_fixed(f))
            .map(|(l, _)| l as u32)
            .collect();
        let _ = self.fixed_locals.set(locals);
    }

    /// For a stepper of random outcomes, how many ground rules its cone
    /// keeps and leaves out (see `outcome_tables`).
    pub(crate) fn cone_sizes(&self) -> Option<(usize, usize)> {
        self.cone
    }

    /// Where random outcomes are played on the network read whole (see
    /// `dense`): its atoms and rules.
    pub(crate) fn dense_sizes(&self) -> Option<(usize, usize)> {
        let dense = self.dense.as_ref()?;
        Some((self.net.atoms(), dense.rules()))
    }

    /// Whether a position can leave the ground rules (see
    /// `Stepper::is_off`): some `next` fact is no `true` atom.
    pub(crate) fn can_leave(&self) -> bool {
        !self.escapes.is_empty()
    }
}

/// A position of a game with ground rules, played in place. Made by
/// `Game::stepper`; independent of the `Game` once made.
#[derive(Clone, Debug)]
pub struct Stepper {
    tables: Arc<Tables>,
    eval: Evaluation,
    /// Per role and group (see `RoleMoves`, and `Tables::first_word` for
    /// where each is): one bit per move, set when its `legal` atom holds
    /// as stored; and per group slot (`Tables::first_slot`), how many are set.
    legal: Vec<u64>,
    legal_count: Vec<u32>,
    /// One bit per `true` atom that holds.
    true_bits: Vec<u64>,
    /// One bit per `true` atom whose `next` atom differs from it; and,
    /// where those are over `SCANNED_WORDS` words, per word of them a bit
    /// set when the word may have one (so that a step skips the words of
    /// facts that stay: the Dresden pancake puzzles have 40,320 `true`
    /// atoms, of which a flip changes two), else none.
    mismatch: Vec<u64>,
    mismatch_words: Vec<u64>,
    /// One bit per escape (`Tables::escapes`) that holds, and how many do.
    escaped: Vec<u64>,
    escaped_count: u32,
    /// Whether the position is off the ground rules (see `is_off`).
    off: bool,
    /// Per role: the `does` atom set now (`NONE` for none).
    played: Vec<u32>,
    /// The `true` atoms of the state last given to `set_state` (kept, as
    /// playouts start from one state again and again).
    wanted: Vec<u64>,
    wanted_for: Option<State>,
    /// Whether that state holds a fact no `true` atom is.
    wanted_off: bool,
    /// The state last set or returned by `state`, while it is the position.
    known: Option<State>,
    /// A copy of the stepper in the last state `set_state` was given twice
    /// in a row (playouts start from one state again and again): copying
    /// it back costs less than playing every changed fact back.
    snapshot: Option<Box<Stepper>>,
    /// Scratch of `nth_natural`: a role's legal bits, then a bit per
    /// natural rank of its legal moves.
    ranked: Vec<u64>,
    /// The work of the rules left out of the network, decided top-down
    /// when goals are asked (`LazyRules::holds`).
    lazy_work: u64,
    /// Room of `walk_dense`, where the tables have a dense program.
    dense: dense::Scratch,
}

fn words(bits: usize) -> usize {
    bits.div_ceil(64)
}

fn put(bits: &mut [u64], i: u32, value: bool) {
    let (w, b) = ((i / 64) as usize, i % 64);
    if value {
        bits[w] |= 1 << b;
    } else {
        bits[w] &= !(1 << b);
    }
}

fn get(bits: &[u64], i: u32) -> bool {
    bits[(i / 64) as usize] >> (i % 64) & 1 == 1
}

/// Whether the `true` fact number `local` differs from its `next` fact.
fn differs(t: &Tables, eval: &Evaluation, local: u32) -> bool {
    let next = t.true_next[local as usize];
    eval.holds(t.first_true + local) != (next != NONE && eval.holds(next))
}

impl Stepper {
    /// A stepper in the empty position (no `true` fact); `set_state` gives
    /// it a real one.
    pub(crate) fn new(tables: Arc<Tables>) -> Stepper {
        let eval = (tables.empty)
            .get_or_init(|| {
                let watched: Vec<bool> = tables.tags.iter().map(|&t| t != Tag::None).collect();
                Evaluation::new(&tables.net, &watched)
            })
            .clone();
        let roles = tables.roles.len();
        let mut s = Stepper {
            legal: vec![
                0;
                (tables.roles.iter())
                    .map(|r| r.hubs.len() * words(r.moves.len()))
                    .sum()
            ],
            legal_count: vec![0; tables.roles.iter().map(|r| r.hubs.len()).sum()],
            true_bits: vec![0; words(tables.true_facts.len())],
            mismatch: vec![0; words(tables.true_facts.len())],
            mismatch_words: match words(tables.true_facts.len()) {
                n if n > SCANNED_WORDS => vec![0; words(n)],
                _ => Vec::new(),
            },
            escaped: vec![0; words(tables.escapes.len())],
            escaped_count: 0,
            off: false,
            played: vec![NONE; roles],
            wanted: vec![0; words(tables.true_facts.len())],
            wanted_for: None,
            wanted_off: false,
            known: None,
            snapshot: None,
            ranked: Vec::new(),
            lazy_work: 0,
            dense: dense::Scratch::new(&tables),
            eval,
            tables,
        };
        // Read every answer once; later only flips are read.
        for (role, r) in s.tables.roles.iter().enumerate() {
            for (entry, &atom) in r.legal.iter().enumerate() {
                if s.eval.holds(atom) {
                    let g = r.group[entry] as usize;
                    let first = s.tables.first_word[role] as usize + g * words(r.moves.len());
                    put(&mut s.legal, (first * 64) as u32 + entry as u32, true);
                    s.legal_count[s.tables.first_slot[role] as usize + g] += 1;
                }
            }
        }
        for (index, &(atom, _)) in s.tables.escapes.iter().enumerate() {
            if s.eval.holds(atom) {
                put(&mut s.escaped, index as u32, true);
                s.escaped_count += 1;
            }
        }
        s.find_mismatches();
        s
    }

    /// Marks every `true` fact that differs from its `next` fact.
    fn find_mismatches(&mut self) {
        for local in 0..self.tables.true_facts.len() as u32 {
            let differs = differs(&self.tables, &self.eval, local);
            put(&mut self.mismatch, local, differs);
        }
        if !self.mismatch_words.is_empty() {
            for (w, &word) in self.mismatch.iter().enumerate() {
                put(&mut self.mismatch_words, w as u32, word != 0);
            }
        }
    }

    /// Reads the flips of watched atoms into the legal and mismatch bits.
    fn sync(&mut self) {
        let t = &*self.tables;
        let (legal, legal_count) = (&mut self.legal, &mut self.legal_count);
        let (true_bits, mismatch) = (&self.true_bits, &mut self.mismatch);
        let mismatch_words = &mut self.mismatch_words;
        let (escaped, escaped_count) = (&mut self.escaped, &mut self.escaped_count);
        self.eval
            .drain_changed(|atom, value| match t.tags[atom as usize] {
                Tag::Legal { slot, bit } => {
                    if get(legal, bit) != value {
                        put(legal, bit, value);
                        if value {
                            legal_count[slot as usize] += 1;
                        } else {
                            legal_count[slot as usize] -= 1;
                        }
                    }
                }
                Tag::Next { local } => {
                    let differs = get(true_bits, local) != value;
                    put(mismatch, local, differs);
                    if differs && let Some(word) = mismatch_words.get_mut(local as usize / 4096) {
                        *word |= 1 << (local / 64 % 64);
                    }
                }
                Tag::Escape { index } => {
                    if get(escaped, index) != value {
                        put(escaped, index, value);
                        match value {
                            true => *escaped_count += 1,
                            false => *escaped_count -= 1,
                        }
                    }
                }
                Tag::None => {}
            });
    }

    /// Makes `state` the position; a state holding a fact that no `true`
    /// atom of the ground rules is, or without a fact of a relation that
    /// no move changes (which the ground rules read as `init` gives it),
    /// puts the stepper off them (see `is_off`).
    pub fn set_state(&mut self, state: &State) {
        if !self.off && self.known.as_ref() == Some(state) {
            return;
        }
        if let Some(snapshot) = self.snapshot.take() {
            let hit = snapshot.known.as_ref() == Some(state);
            if hit {
                self.restore(&snapshot);
            }
            self.snapshot = Some(snapshot);
            if hit {
                return;
            }
        }
        let again = self.wanted_for.as_ref() == Some(state);
        let (t, net) = (&*self.tables, &self.tables.net);
        for p in &mut self.played {
            if *p != NONE {
                self.eval.set_input(net, *p, false);
                *p = NONE;
            }
        }
        if self.wanted_for.as_ref() != Some(state) {
            self.wanted.iter_mut().for_each(|w| *w = 0);
            self.wanted_off = false;
            for f in state.0.iter() {
                match t.local_of.get(f) {
                    Some(&local) => put(&mut self.wanted, local, true),
                    None => self.wanted_off = true,
                }
            }
            // A fact of a relation no move changes missing: the ground
            // rules read those relations as `init` gives them.
            if let Some(fixed) = t.fixed_locals.get()
                && !fixed.iter().all(|&l| get(&self.wanted, l))
            {
                self.wanted_off = true;
            }
            for (w, idle) in self.wanted.iter_mut().zip(&t.idle) {
                *w &= !idle;
            }
            self.wanted_for = Some(state.clone());
        }
        if self.wanted_off {
            self.off = true;
            self.known = Some(state.clone());
            return;
        }
        self.off = false;
        for (w, (have, want)) in self.true_bits.iter_mut().zip(&self.wanted).enumerate() {
            let mut flips = *have ^ *want;
            *have = *want;
            while flips != 0 {
                let local = (w * 64) as u32 + flips.trailing_zeros();
                flips &= flips - 1;
                self.eval
                    .set_input(net, t.first_true + local, get(&self.wanted, local));
            }
        }
        self.eval.settle_state(net);
        self.sync();
        self.find_mismatches();
        self.known = Some(state.clone());
        if again {
            match &mut self.snapshot {
                Some(_) => {
                    let mut snapshot = self.snapshot.take().expect("a snapshot");
                    self.save_into(&mut snapshot);
                    self.snapshot = Some(snapshot);
                }
                None => {
                    self.eval.mark();
                    self.snapshot = Some(Box::new(self.clone()));
                }
            }
        }
    }

    /// Makes this stepper's position that of its snapshot `other`, which
    /// its evaluation was at its last mark (taken whenever the snapshot is
    /// made, saved or restored), without allocating.
    fn restore(&mut self, other: &Stepper) {
        self.eval.restore(&self.tables.net, &other.eval);
        self.copy_position_bits(other);
    }

    /// Makes this stepper's position that of `other`, a stepper of the same
    /// game or of a clone of it (on its ground rules or off them), copied
    /// whole without allocating. For many games restarting from one
    /// position: they copy it from one stepper kept at it, which stays in
    /// the cache, where `set_state` would give each game a snapshot of its
    /// own, as large as the stepper, to copy from.
    ///
    /// # Panics
    ///
    /// When `other` is a stepper of another game.
    pub fn set_position(&mut self, other: &Stepper) {
        assert!(
            Arc::ptr_eq(&self.tables, &other.tables),
            "a position copied from a stepper of another game"
        );
        self.eval.copy_from(&self.tables.net, &other.eval);
        self.copy_position_bits(other);
        // The snapshot was the evaluation at its last mark, which the copy
        // has moved.
        self.snapshot = None;
    }

    /// Makes `snapshot` this stepper's position (see `restore`).
    fn save_into(&mut self, snapshot: &mut Stepper) {
        self.eval.save_into(&self.tables.net, &mut snapshot.eval);
        snapshot.copy_position_bits(self);
    }

    /// Copies what a position is besides its evaluation from `other`, a
    /// stepper of the same tables.
    fn copy_position_bits(&mut self, other: &Stepper) {
        self.legal.copy_from_slice(&other.legal);
        self.legal_count.copy_from_slice(&other.legal_count);
        self.true_bits.copy_from_slice(&other.true_bits);
        self.mismatch.copy_from_slice(&other.mismatch);
        self.mismatch_words.copy_from_slice(&other.mismatch_words);
        self.escaped.copy_from_slice(&other.escaped);
        self.escaped_count = other.escaped_count;
        self.off = other.off;
        self.played.copy_from_slice(&other.played);
        self.known.clone_from(&other.known);
    }

    /// Whether this is a stepper of random outcomes (see `cone`), whose
    /// positions hold only the facts outcomes depend on.
    pub(crate) fn is_of_outcomes(&self) -> bool {
        self.tables.cone.is_some()
    }

    /// Whether the position is `state`, as last set or returned by `state`
    /// (false when unknown, or off the ground rules).
    pub fn is_at(&self, state: &State) -> bool {
        !self.off && self.known.as_ref() == Some(state)
    }

    /// Whether the position is off the ground rules: the last `set_state`
    /// or joint move reached a state holding a fact that no `true` atom
    /// is. That happens only where the rules declare with `base` fewer
    /// facts than states reach (the ground rules are bounded by `base`; see
    /// `Game::stepper`), or where `set_state` was given a state whose facts
    /// of a relation no move changes are not `init`'s (the ground rules
    /// read such a relation as `init` gives it; see `rewrite::fixed`).
    /// `state` is then that state, but nothing else is
    /// answered (`Game`'s queries answer it, by the interpreter) until
    /// `set_state` puts the stepper back on them.
    pub fn is_off(&self) -> bool {
        self.off
    }

    /// The position as a `State`.
    pub fn state(&mut self) -> State {
        if let Some(known) = &self.known {
            return known.clone();
        }
        let state = State::from_terms(self.holding().collect());
        self.known = Some(state.clone());
        state
    }

    /// The facts of the position, on the ground rules (see `is_off`),
    /// without building a `State`.
    pub(crate) fn holding(&self) -> impl Iterator<Item = TermId> + '_ {
        // The bits of the `true` atoms set, a word at a time: a position
        // holds a few of the facts it could, and an observation of every
        // step reads them.
        let t = &*self.tables;
        self.true_bits
            .iter()
            .enumerate()
            .flat_map(move |(w, &word)| {
                let mut bits = word;
                std::iter::from_fn(move || {
                    (bits != 0).then(|| {
                        let local = w * 64 + bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        t.true_facts[local]
                    })
                })
            })
    }

    /// The facts of the position, on the ground rules (see `is_off`), as
    /// bits: bit `i % 64` of word `i / 64` is set when the fact numbered
    /// `i` holds. The numbering is the same for every stepper of a game
    /// and of its clones; [`crate::FactIndex::stepper_positions`] gives
    /// the place of each fact in a list. Which bits changed since a
    /// position read before says which facts did.
    pub fn holding_bits(&self) -> &[u64] {
        &self.true_bits
    }

    /// The fact of each bit of `holding_bits`, by its number.
    pub(crate) fn bit_facts(&self) -> &[TermId] {
        &self.tables.true_facts
    }

    /// Whether the position is terminal.
    pub fn is_terminal(&self) -> bool {
        self.tables.terminal.is_some_and(|a| self.eval.holds(a))
    }

    /// Whether the moves of group `g` of role number `role` can be legal
    /// now: each of their hub literals holds.
    fn group_open(&self, role: usize, g: usize) -> bool {
        self.tables.roles[role].hubs[g]
            .iter()
            .all(|&lit| self.eval.holds(lit >> 1) != (lit & 1 == 1))
    }

    /// How many legal moves role number `role` has.
    pub fn legal_count(&self, role: usize) -> usize {
        let first = self.tables.first_slot[role] as usize;
        (0..self.tables.roles[role].hubs.len())
            .filter(|&g| self.group_open(role, g))
            .map(|g| self.legal_count[first + g] as usize)
            .sum()
    }

    /// Word `w` of the bitset of role number `role`'s legal moves.
    fn legal_word(&self, role: usize, w: usize) -> u64 {
        let t = &*self.tables;
        let n = words(t.roles[role].moves.len());
        (0..t.roles[role].hubs.len())
            .filter(|&g| self.group_open(role, g))
            .fold(0, |bits, g| {
                bits | self.legal[t.first_word[role] as usize + g * n + w]
            })
    }

    /// The move table of role number `role`: every move the ground rules
    /// can make legal for it, in the order of `Game::legal_moves`. The
    /// entries of [`Stepper::legal_entries`], [`Stepper::is_legal_entry`]
    /// and [`Stepper::play_entries`] (and `play_checked_entries`) are
    /// places in it; it is the same for every stepper of a game and of its
    /// clones.
    pub fn move_table(&self, role: usize) -> &[Move] {
        &self.tables.roles[role].moves
    }

    /// Whether the move at `entry` of role number `role`'s move table (see
    /// [`Stepper::move_table`]) is legal now (false past the table's end).
    pub fn is_legal_entry(&self, role: usize, entry: usize) -> bool {
        entry < self.tables.roles[role].moves.len()
            && self.legal_word(role, entry / 64) >> (entry % 64) & 1 == 1
    }

    /// The entries in role number `role`'s move table (see
    /// [`Stepper::move_table`]) of its legal moves, in the order of
    /// `Game::legal_moves`: one pass over the bitset, so that listing them
    /// all costs their number, not its square, and nothing is allocated.
    pub fn legal_entries(&self, role: usize) -> impl Iterator<Item = usize> + '_ {
        (0..words(self.tables.roles[role].moves.len())).flat_map(move |w| {
            let mut bits = self.legal_word(role, w);
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let entry = w * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    entry
                })
            })
        })
    }

    /// The `k`-th legal move of role number `role` (from 0, in the order of
    /// `Game::legal_moves`), as its entry in the role's move table.
    fn nth_entry(&self, role: usize, k: usize) -> u32 {
        let asked = k;
        let mut k = k;
        for w in 0..words(self.tables.roles[role].moves.len()) {
            let bits = self.legal_word(role, w);
            let n = bits.count_ones() as usize;
            if k < n {
                let mut bits = bits;
                for _ in 0..k {
                    bits &= bits - 1;
                }
                return (w * 64) as u32 + bits.trailing_zeros();
            }
            k -= n;
        }
        panic!("role {role} has no legal move number {asked} (from 0)")
    }

    /// The `k`-th legal move of role number `role` (from 0, in the order of
    /// `Game::legal_moves`); `k` must be below `legal_count(role)`.
    pub fn nth_legal(&self, role: usize, k: usize) -> Move {
        self.tables.roles[role].moves[self.nth_entry(role, k) as usize]
    }

    /// The place (from 0, in the order of `Game::legal_moves`) of the legal
    /// move of role number `role` that comes `r`-th (from 0) in the natural
    /// order of the move texts ([`natural_cmp`]): the move
    /// [`crate::RandomPlayer`] picks when it draws `r`, found without
    /// texts. Allocates nothing once it has seen the most legal moves.
    ///
    /// # Panics
    ///
    /// When `r` is not below `legal_count(role)`.
    pub fn nth_natural(&mut self, role: usize, r: usize) -> usize {
        let t = &self.tables.roles[role];
        if t.rank.is_empty() {
            // The natural order is the table's.
            assert!(
                r < self.legal_count(role),
                "role {role} has no legal move number {r} (from 0)"
            );
            return r;
        }
        let n = words(t.moves.len());
        let mut ranked = std::mem::take(&mut self.ranked);
        ranked.clear();
        ranked.extend((0..n).map(|w| self.legal_word(role, w)));
        ranked.resize(2 * n, 0);
        let (legal, by_rank) = ranked.split_at_mut(n);
        for (w, &word) in legal.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let q = t.rank[w * 64 + bits.trailing_zeros() as usize];
                bits &= bits - 1;
                by_rank[q as usize / 64] |= 1 << (q % 64);
            }
        }
        // The `r`-th rank held, its move, and that move's place among the
        // legal ones.
        let mut left = r as u32;
        let mut found = None;
        for (w, &word) in by_rank.iter().enumerate() {
            let c = word.count_ones();
            if left < c {
                let mut bits = word;
                for _ in 0..left {
                    bits &= bits - 1;
                }
                found = Some(w * 64 + bits.trailing_zeros() as usize);
                break;
            }
            left -= c;
        }
        let Some(q) = found else {
            panic!("role {role} has no legal move number {r} (from 0)")
        };
        let entry = t.by_rank[q] as usize;
        let (w, b) = (entry / 64, entry % 64);
        let before: u32 = legal[..w].iter().map(|x| x.count_ones()).sum::<u32>()
            + (legal[w] & ((1u64 << b) - 1)).count_ones();
        self.ranked = ranked;
        before as usize
    }

    /// The legal moves of role number `role`, in the order of
    /// `Game::legal_moves`.
    pub fn legal_moves(&self, role: usize) -> Vec<Move> {
        let moves = &self.tables.roles[role].moves;
        let mut legal = Vec::with_capacity(self.legal_count(role));
        legal.extend(self.legal_entries(role).map(|e| moves[e]));
        legal
    }

    /// Plays at random from the position, counting joint moves in
    /// `steps`, until a terminal position, `stop` (`stop.max_steps` counts
    /// the moves in `steps`, those before included), a position off the
    /// ground rules, or a role without a legal move; each role plays the
    /// `pick(stepper, role, n)`-th of its `n` legal moves. The one loop of
    /// every random playout on a stepper (see `game::random`), and of
    /// what loading plays to learn about ground rules.
    pub(crate) fn walk(
        &mut self,
        steps: &mut usize,
        stop: &Stop,
        mut pick: impl FnMut(&mut Stepper, usize, usize) -> usize,
    ) -> Walked {
        // The joint move's indices, on the stack for up to 8 roles: a
        // playout of the smallest games takes some 300 ns, of which an
        // allocation would be a tenth.
        let roles = self.tables.roles.len();
        let (mut inline, mut heap) = ([0; 8], Vec::new());
        let joint: &mut [usize] = if roles <= inline.len() {
            &mut inline[..roles]
        } else {
            heap.resize(roles, 0);
            &mut heap
        };
        let (looks, mut since) = (stop.looks(), 0usize);
        let mut played = *steps;
        let walked = loop {
            if self.off {
                break Walked::Off;
            }
            if self.is_terminal() {
                break Walked::Terminal;
            }
            if played >= stop.max_steps {
                break Walked::Limit;
            }
            if looks && since % STEPS_BETWEEN_LOOKS == STEPS_BETWEEN_LOOKS - 1 && stop.late() {
                break Walked::Stopped;
            }
            for (role, k) in joint.iter_mut().enumerate() {
                match self.legal_count(role) {
                    0 => {
                        *steps = played;
                        return Walked::NoMove(role);
                    }
                    n => *k = pick(self, role, n),
                }
            }
            self.play_nth(joint);
            played += 1;
            since += 1;
        };
        *steps = played;
        walked
    }

    /// The work done since it was made, in the network and top-down: a
    /// count the same on every machine (what loading weighs engines by).
    pub(crate) fn work(&self) -> u64 {
        self.eval.work() + self.lazy_work
    }

    /// Each role's goal value, in role order, when every role has exactly
    /// one that is a whole number from 0 to 100; `None` otherwise (the
    /// general API's `Game::goals` says what is wrong). The rules only
    /// goals read are evaluated here, not at every step (hence `&mut`).
    pub fn goals(&mut self) -> Option<Vec<u8>> {
        let mut goals = Vec::with_capacity(self.tables.goals.len());
        self.goals_each(|v| goals.push(v)).then_some(goals)
    }

    /// [`Stepper::goals`] as a playout's outcome keeps them, without
    /// allocating for up to [`Goals::INLINE`] roles.
    pub(crate) fn outcome_goals(&mut self) -> Option<Goals> {
        let mut goals = Goals::default();
        self.goals_each(|v| goals.push(v)).then_some(goals)
    }

    /// Gives each role's goal value to `push`, in role order, and says
    /// whether every role had exactly one (see [`Stepper::goals`]).
    fn goals_each(&mut self, mut push: impl FnMut(u8)) -> bool {
        // Goals and what only they read wait until asked, in the network
        // or left out of it.
        self.eval.settle_goals(&self.tables.net);
        let lazy = self.tables.lazy.as_ref();
        let mut memo = lazy.map(LazyRules::memo).unwrap_or_default();
        let work = &mut self.lazy_work;
        let mut holds = |a: u32| match lazy.filter(|l| l.is_lazy(a)) {
            Some(l) => l.holds(a, |b| self.eval.holds(b), &mut memo, work),
            None => self.eval.holds(a),
        };
        // The one goal value of each role that holds (a plain loop: the
        // smallest games' playouts are a few hundred instructions).
        for role in &self.tables.goals {
            let (mut held, mut value) = (0, None);
            for &(a, v) in role {
                if holds(a) {
                    held += 1;
                    value = v;
                }
            }
            match (held, value) {
                (1, Some(v)) => push(v),
                _ => return false,
            }
        }
        true
    }

    /// Plays the joint move whose moves are the `k[i]`-th legal move of
    /// each role `i` (the fast path of `play`, for callers that chose them
    /// from `legal_count`); the position must not be terminal.
    ///
    /// # Panics
    ///
    /// When `k` does not have one index per role, or an index is not below
    /// its role's `legal_count`.
    pub fn play_nth(&mut self, k: &[usize]) {
        assert_eq!(k.len(), self.tables.roles.len(), "one move per role");
        self.play_by(|s, role| s.nth_entry(role, k[role]));
    }

    /// Plays the joint move whose moves are at `entries[i]` in the move
    /// table of each role `i` (see [`Stepper::move_table`]): for callers
    /// that number a role's moves once and read the legal ones with
    /// [`Stepper::legal_entries`]. The position must not be terminal.
    ///
    /// # Panics
    ///
    /// When `entries` does not have one entry per role, or the move at an
    /// entry is not legal ([`Stepper::is_legal_entry`]).
    pub fn play_entries(&mut self, entries: &[usize]) {
        assert_eq!(entries.len(), self.tables.roles.len(), "one move per role");
        for (role, &e) in entries.iter().enumerate() {
            assert!(
                self.is_legal_entry(role, e),
                "role {role}: entry {e} of its move table is not a legal move"
            );
        }
        self.play_by(|_, role| entries[role] as u32);
    }

    /// [`Stepper::play_entries`] for entries its caller has checked against
    /// this very position (read from [`Stepper::legal_entries`] or
    /// [`Stepper::is_legal_entry`] since the last move): the same joint
    /// move, without looking at the legal moves again (where many
    /// positions are stepped in turn, that look is a cache miss). An entry
    /// that is not legal is the caller's bug: the stepper then plays a
    /// move the rules do not allow, and what it answers means nothing
    /// (nothing unsound happens) until `set_state` or `set_position`;
    /// debug builds panic as `play_entries` does.
    ///
    /// # Panics
    ///
    /// When `entries` does not have one entry per role, or an entry is past
    /// the end of its role's move table.
    pub fn play_checked_entries(&mut self, entries: &[usize]) {
        assert_eq!(entries.len(), self.tables.roles.len(), "one move per role");
        for (role, &e) in entries.iter().enumerate() {
            debug_assert!(
                self.is_legal_entry(role, e),
                "role {role}: entry {e} of its move table is not a legal move"
            );
        }
        self.play_by(|_, role| entries[role] as u32);
    }

    /// Plays the joint move of the entry `entry(self, role)` of each role's
    /// move table, each legal: `play_nth` and `play_entries`.
    fn play_by(&mut self, entry: impl Fn(&Stepper, usize) -> u32) {
        self.known = None;
        for role in 0..self.tables.roles.len() {
            let entry = entry(self, role);
            let does = self.tables.roles[role].does[entry as usize];
            let old = self.played[role];
            if old != does {
                let net = &self.tables.net;
                if old != NONE {
                    self.eval.set_input(net, old, false);
                }
                if does != NONE {
                    self.eval.set_input(net, does, true);
                }
                self.played[role] = does;
            }
        }
        // The joint move's consequences, `next` among them.
        self.eval.settle_play(&self.tables.net);
        self.sync();
        if self.escaped_count > 0 {
            self.leave();
            return;
        }
        // The move is undone before the state changes when it opened
        // gates (see `Evaluation::set_input`); what it undoes waits for
        // the next joint move.
        let (t, net) = (&*self.tables, &self.tables.net);
        for p in &mut self.played {
            if *p != NONE && net.has_gates() {
                self.eval.set_input(net, *p, false);
                *p = NONE;
            }
        }
        // true(f) := next(f) for every fact where they differ; then none
        // differs until a `next` atom flips.
        let scanned = self
            .mismatch_words
            .is_empty()
            .then_some(self.mismatch.len());
        let mut play_word = |w: usize| {
            let mut bits = std::mem::take(&mut self.mismatch[w]);
            self.true_bits[w] ^= bits;
            while bits != 0 {
                let local = (w * 64) as u32 + bits.trailing_zeros();
                bits &= bits - 1;
                let value = get(&self.true_bits, local);
                self.eval.set_input(net, t.first_true + local, value);
            }
        };
        if let Some(n) = scanned {
            (0..n).for_each(&mut play_word);
        }
        for s in 0..self.mismatch_words.len() {
            let mut words = std::mem::take(&mut self.mismatch_words[s]);
            while words != 0 {
                play_word(s * 64 + words.trailing_zeros() as usize);
                words &= words - 1;
            }
        }
        // The move part waits for the next joint move.
        self.eval.settle_state(net);
        self.sync();
    }

    /// Puts the stepper off the ground rules, at the state the joint move
    /// just settled leads to: every `next` fact that holds, escapes
    /// included.
    fn leave(&mut self) {
        let t = &*self.tables;
        let eval = &self.eval;
        let next = (0..t.true_facts.len())
            .filter(|&l| t.true_next[l] != NONE && eval.holds(t.true_next[l]))
            .map(|l| t.true_facts[l]);
        let escapes = (t.escapes.iter())
            .filter(|&&(atom, _)| eval.holds(atom))
            .map(|&(_, fact)| fact);
        self.known = Some(State::from_terms(next.chain(escapes).collect()));
        self.off = true;
    }

    /// Plays a joint move (one move per role, in role order), refusing a
    /// terminal position, a wrong number of moves, illegal moves and a
    /// position off the ground rules.
    pub fn play(&mut self, joint: &[Move]) -> Result<(), GameError> {
        if self.off {
            return Err(GameError::OffGround);
        }
        let roles = &self.tables.roles;
        if joint.len() != roles.len() {
            return Err(GameError::WrongMoveCount {
                expected: roles.len(),
                given: joint.len(),
            });
        }
        if self.is_terminal() {
            return Err(GameError::Terminal);
        }
        for (role, &m) in joint.iter().enumerate() {
            if self.nth_of(role, m).is_none() {
                let r = &self.tables.roles[role];
                let played = (r.moves.iter().position(|&x| x == m))
                    .map_or_else(|| "a move never legal".to_string(), |e| r.texts[e].clone());
                let legal = (self.legal_entries(role))
                    .map(|e| r.texts[e].clone())
                    .collect();
                return Err(GameError::IllegalMove {
                    role: r.name.clone(),
                    played,
                    legal,
                });
            }
        }
        self.play_moves(joint);
        Ok(())
    }

    /// Plays a joint move its caller has checked (one move per role, each
    /// legal, the position on the ground rules and not terminal), without
    /// checking it again: false, and nothing played, where a move is not
    /// among its role's legal moves.
    pub(crate) fn play_moves(&mut self, joint: &[Move]) -> bool {
        // The joint move's indices, on the stack for up to 8 roles.
        let (mut inline, mut heap) = ([0; 8], Vec::new());
        let nth: &mut [usize] = if joint.len() <= inline.len() {
            &mut inline[..joint.len()]
        } else {
            heap.resize(joint.len(), 0);
            &mut heap
        };
        for (role, (&m, k)) in joint.iter().zip(nth.iter_mut()).enumerate() {
            match self.nth_of(role, m) {
                Some(n) => *k = n,
                None => return false,
            }
        }
        self.play_nth(nth);
        true
    }

    /// Where `m` stands among the legal moves of `role` (see `nth_legal`):
    /// its entry found in the move table, then the legal entries before it
    /// counted a word at a time.
    fn nth_of(&self, role: usize, m: Move) -> Option<usize> {
        let moves = &self.tables.roles[role].moves;
        let is_legal = |e: usize| self.legal_word(role, e / 64) >> (e % 64) & 1 == 1;
        let entry = (0..moves.len()).find(|&e| moves[e] == m && is_legal(e))?;
        let (w, b) = (entry / 64, entry % 64);
        let before: u32 = (0..w)
            .map(|x| self.legal_word(role, x).count_ones())
            .sum::<u32>()
            + (self.legal_word(role, w) & ((1u64 << b) - 1)).count_ones();
        Some(before as usize)
    }

    /// Whether `m` is a legal move of role number `role`.
    pub(crate) fn is_legal(&self, role: usize, m: Move) -> bool {
        self.nth_of(role, m).is_some()
    }
}

/// The tables of the stepper over the ground rules, or `None` when a
/// ground rule reads negated an atom of its own cycle. Gates worth arming (see
/// `Network::worth_arming`) are armed, as counted on seeded random
/// playouts from `initial` ([`seeded_playouts`]). Where many rules are
/// read by goals only, of the two ways to evaluate them (`table_variants`)
/// the one that spends less work on the same playouts is kept. Both are
/// counts, the same on every machine, and either choice gives the same
/// answers.
pub(super) fn step_tables(
    g: &GroundTables,
    p: &Program,
    roles: &[TermId],
    role_names: &[String],
    names: (&TermTable, &Symbols),
    initial: &State,
) -> Option<Tables> {
    tables_over(g, p, (roles, role_names), names, initial, None)
}

/// The tables of a stepper of random outcomes (see `cone`), over the
/// rules of the cone alone, where the cone leaves out enough rules
/// (`Cone::is_worth_a_stepper`) and no position leaves the ground rules
/// (`whole`, the game's tables, says): there, the cone of the ground
/// rules would not bound what a position off them reads.
pub(super) fn outcome_tables(
    g: &GroundTables,
    p: &Program,
    (roles, role_names): (&[TermId], &[String]),
    names: (&TermTable, &Symbols),
    (initial, whole): (&State, &Tables),
) -> Option<Tables> {
    if whole.can_leave() {
        return None;
    }
    let cone = Cone::new(g, p);
    if !cone.is_worth_a_stepper(g.program.rules()) {
        return None;
    }
    let mut tables = tables_over(g, p, (roles, role_names), names, initial, Some(&cone))?;
    tables.cone = Some(cone.sizes());
    Some(tables)
}

/// The tables of `step_tables`, or of `outcome_tables` with the `cone`.
fn tables_over(
    g: &GroundTables,
    p: &Program,
    (roles, role_names): (&[TermId], &[String]),
    (terms, symbols): (&TermTable, &Symbols),
    initial: &State,
    cone: Option<&Cone>,
) -> Option<Tables> {
    let base = Base::new(g, p, (roles, role_names), (terms, symbols), cone)?;
    let variants = |of_roles: bool| Variants::new(g, &base, of_roles);
    let with_sets = variants(true)?;
    let (waiting, top_down) = with_sets.tables(&Arming::default())?;
    // Sets of several roles' moves read through what each role plays
    // otherwise stop flipping as turns go by (knightfight), unless the
    // roles often play what most sets leave out at once (both a noop, in
    // hallway): kept unless seeded playouts cost far more work with them
    // (see `ROLE_SETS_MARGIN`).
    let without_sets = match waiting.net.role_sets() {
        0 => None,
        _ => variants(false).and_then(|v| Some((v.tables(&Arming::default())?, v))),
    };
    let ((waiting, top_down), chosen) = match without_sets {
        None => ((waiting, top_down), with_sets),
        Some(((other, other_top_down), other_variants)) => {
            let (waiting, work) = seeded_work(waiting, initial);
            let (other, other_work) = seeded_work(other, initial);
            match (other_work as f64) * ROLE_SETS_MARGIN < work as f64 {
                true => {
                    drop((waiting, top_down, with_sets));
                    ((other, other_top_down), other_variants)
                }
                false => ((waiting, top_down), with_sets),
            }
        }
    };
    // Armed, the tables are made again from the rules as `chosen` keeps
    // them (those unarmed are let go first: a network is most of the
    // memory loading takes).
    let (waiting, arm) = worth_arming(waiting, initial);
    let (waiting, top_down) = match arm {
        Some(arm) => {
            drop((waiting, top_down));
            chosen.tables(&arm)?
        }
        None => (waiting, top_down),
    };
    drop(chosen);
    let Some(top_down) = top_down else {
        return Some(waiting);
    };
    let (waiting, top_down) = (Arc::new(waiting), Arc::new(top_down));
    let work = |tables: &Arc<Tables>| {
        let mut stepper = Stepper::new(Arc::clone(tables));
        seeded_playouts(&mut stepper, initial);
        stepper.work()
    };
    let (a, b) = (work(&waiting), work(&top_down));
    Arc::into_inner(if (b as f64) * LAZY_MARGIN < a as f64 {
        top_down
    } else {
        waiting
    })
}

/// `tables` back, and the work a stepper on them spends on the seeded
/// playouts from `initial`.
fn seeded_work(tables: Tables, initial: &State) -> (Tables, u64) {
    let tables = Arc::new(tables);
    let mut stepper = Stepper::new(Arc::clone(&tables));
    seeded_playouts(&mut stepper, initial);
    let work = stepper.work();
    drop(stepper);
    let tables = Arc::into_inner(tables).expect("the stepper that measured is dropped");
    (tables, work)
}

/// `tables` back, and what of its network is worth arming, as counted on
/// the seeded playouts from `initial`: its gates worth it, by atom, and,
/// where some rule is worth guarding, how often each atom flipped and
/// each rule was read and read idly, which choose the guards (see
/// `Arming`); `None` where nothing is worth arming.
fn worth_arming(tables: Tables, initial: &State) -> (Tables, Option<Arming>) {
    let tables = Arc::new(tables);
    let mut stepper = Stepper::new(Arc::clone(&tables));
    stepper.eval.count();
    seeded_playouts(&mut stepper, initial);
    let (flips, opens) = stepper.eval.counts();
    let gates = match tables.net.has_big_gates() {
        true => tables.net.worth_arming(flips, opens),
        false => None,
    };
    let reads = stepper.eval.rule_counts();
    let arming = match (gates, tables.net.would_guard(flips, reads)) {
        (None, false) => None,
        (gates, false) => Some(Arming {
            gates: gates.unwrap_or_default(),
            ..Arming::default()
        }),
        (gates, true) => Some(Arming {
            gates: gates.unwrap_or_default(),
            flips: flips.to_vec(),
            visits: reads.0.to_vec(),
            idle: reads.1.to_vec(),
            heads: tables.net.heads_hash(),
        }),
    };
    drop(stepper);
    let tables = Arc::into_inner(tables).expect("the stepper that counted is dropped");
    (tables, arming)
}

/// The tables of `step_tables` armed as `arm` says (see `Variants`).
#[cfg(test)]
fn table_variants(
    g: &GroundTables,
    p: &Program,
    roles: &[TermId],
    role_names: &[String],
    names: (&TermTable, &Symbols),
    (arm, of_roles): (&Arming, bool),
    cone: Option<&Cone>,
) -> Option<(Tables, Option<Tables>)> {
    let base = Base::new(g, p, (roles, role_names), names, cone)?;
    Variants::new(g, &base, of_roles)?.tables(arm)
}

/// Each role's moves as a stepper lists them, and each role's goal atoms
/// with their values: the same in every variant of the tables.
fn moves_and_goals(
    g: &GroundTables,
    p: &Program,
    (roles, role_names): (&[TermId], &[String]),
    (terms, symbols): (&TermTable, &Symbols),
) -> (Vec<RoleMoves>, GoalAtoms) {
    let kw = p.keywords;
    let dynamic = |rel: RelId| p.info(rel).phase != Phase::Static;
    let does = |role: TermId, m: TermId| {
        dynamic(kw.does)
            .then(|| g.program.atom(kw.does, &[role, m]))
            .flatten()
            .unwrap_or(u32::MAX)
    };
    let moves: Vec<RoleMoves> = roles
        .iter()
        .zip(role_names)
        .zip(&g.legal)
        .map(|((&role, name), legal)| {
            let texts: Vec<String> = legal.iter().map(|&(_, m)| terms.text(m, symbols)).collect();
            let (rank, by_rank) = natural_ranks(&texts);
            RoleMoves {
                hubs: Vec::new(),
                group: Vec::new(),
                name: name.clone(),
                moves: legal.iter().map(|&(_, m)| Move(m)).collect(),
                legal: legal.iter().map(|&(a, _)| a).collect(),
                does: legal.iter().map(|&(_, m)| does(role, m)).collect(),
                rank,
                by_rank,
                texts,
            }
        })
        .collect();
    let goals: GoalAtoms = g
        .goal
        .iter()
        .map(|values| {
            values
                .iter()
                .map(|&(a, v)| (a, goal_value(&terms.text(v, symbols))))
                .collect()
        })
        .collect();
    (moves, goals)
}

/// What every variant of the tables of `step_tables` shares: the facts,
/// moves and goals the stepper reads, which atoms the network must keep,
/// and the rules only goals read, where they are many enough to be tried
/// top-down (see `LazyRules`).
struct Base<'a> {
    next: Vec<(u32, TermId)>,
    true_atoms: (u32, Vec<TermId>),
    moves: Vec<RoleMoves>,
    goals: GoalAtoms,
    terminal: Option<u32>,
    cone: Option<&'a Cone>,
    move_atoms: Vec<std::ops::Range<u32>>,
    exclusive: Vec<Vec<u32>>,
    /// The atoms read outside the network, those never deferred, and
    /// those play reads (see `Shape::new`).
    read: Vec<bool>,
    real: Vec<bool>,
    play: Vec<bool>,
    /// The rules only goals read, where they are many (see `LAZY_SHARE`).
    lazy: Option<Lazy>,
}

/// The rules only goals read, decided top-down: the atoms they leave out
/// of the network, and `read` and `real` with the atoms they read (read
/// outside the network then).
struct Lazy {
    rules: LazyRules,
    left_out: Vec<bool>,
    read: Vec<bool>,
    real: Vec<bool>,
}

impl<'a> Base<'a> {
    fn new(
        g: &GroundTables,
        p: &Program,
        roles: (&[TermId], &[String]),
        names: (&TermTable, &Symbols),
        cone: Option<&'a Cone>,
    ) -> Option<Base<'a>> {
        let kw = p.keywords;
        // The `next` facts the stepper reads: of the cone alone for one of
        // random outcomes.
        let next: Vec<(u32, TermId)> = (g.next.iter())
            .filter(|&&(a, _)| cone.is_none_or(|c| c.needs(a)))
            .copied()
            .collect();
        let dynamic = |rel: RelId| p.info(rel).phase != Phase::Static;
        let move_atoms: Vec<std::ops::Range<u32>> = (0..p.relations.len() as u32)
            .map(RelId)
            .filter(|&r| p.info(r).phase == Phase::Move)
            .map(|r| g.program.atom_range(r))
            .collect();
        // What the stepper reads besides legal moves must be stored as is.
        let mut real = vec![false; g.program.atoms() + 1];
        let goal_atoms = g.goal.iter().flatten().map(|&(a, _)| a);
        for a in next
            .iter()
            .map(|&(a, _)| a)
            .chain(goal_atoms)
            .chain(g.terminal)
        {
            real[a as usize] = true;
        }
        let mut read = real.clone();
        for &(a, _) in g.legal.iter().flatten() {
            read[a as usize] = true;
        }
        // What play reads at every step; goals are asked at the end.
        let mut play = read.clone();
        for a in g.goal.iter().flatten().map(|&(a, _)| a) {
            play[a as usize] = false;
        }
        for a in next.iter().map(|&(a, _)| a).chain(g.terminal) {
            play[a as usize] = true;
        }
        // Each role's `does` atoms: a joint move sets exactly one of them, as
        // every legal move has one (grounding feeds `legal` back as `does`).
        let exclusive: Vec<Vec<u32>> = (roles.0.iter())
            .map(|&role| {
                let mut atoms: Vec<u32> = match dynamic(kw.does) {
                    true => (g.program.atoms_of(kw.does))
                        .filter(|(_, r)| r[0] == role)
                        .map(|(a, _)| a)
                        .collect(),
                    false => Vec::new(),
                };
                atoms.sort_unstable();
                atoms
            })
            .collect();
        if !dynamic(kw.true_) {
            return None;
        }
        let true_atoms = (
            g.program.atom_range(kw.true_).start,
            g.program.atoms_of(kw.true_).map(|(_, r)| r[0]).collect(),
        );
        let (moves, goals) = moves_and_goals(g, p, roles, names);
        let lazy = LazyRules::split(&g.program, &play)
            .filter(|(lazy, _)| lazy.rules() * LAZY_SHARE >= g.program.rules())
            .map(|(lazy, left_out)| {
                // The network's atoms the lazy rules read are read outside it.
                let (mut read, mut real) = (read.clone(), real.clone());
                for a in lazy.network_reads() {
                    (read[a as usize], real[a as usize]) = (true, true);
                }
                Lazy {
                    rules: lazy,
                    left_out,
                    read,
                    real,
                }
            });
        Some(Base {
            next,
            true_atoms,
            moves,
            goals,
            terminal: g.terminal,
            cone,
            move_atoms,
            exclusive,
            read,
            real,
            play,
            lazy,
        })
    }
}

/// What the tables of `step_tables` are made of, for one choice of
/// `of_roles` (sets of several roles' moves read through what each plays
/// otherwise, see the network's `factor`): the rules rewritten for the
/// network with the rules only goals read in it, waiting until goals are
/// asked, and, where those rules are many, with them left out of the
/// network and decided top-down (see `LazyRules`). Made once; `tables`
/// builds networks from them, armed as loading finds worth it, without
/// rewriting the rules again.
struct Variants<'a> {
    base: &'a Base<'a>,
    waiting: Shape,
    top_down: Option<Shape>,
}

impl<'a> Variants<'a> {
    fn new(g: &GroundTables, base: &'a Base<'a>, of_roles: bool) -> Option<Variants<'a>> {
        let b = base;
        let shape = |sets: (&[bool], &[bool], &[bool]), left_out: &[bool]| {
            let (atoms, exclusive) = (&b.move_atoms[..], &b.exclusive[..]);
            Shape::new(&g.program, atoms, exclusive, sets, (left_out, of_roles))
        };
        let waiting = shape((&b.read, &b.real, &b.play), &[])?;
        let top_down =
            (b.lazy.as_ref()).and_then(|l| shape((&l.read, &l.real, &b.play), &l.left_out));
        Some(Variants {
            base,
            waiting,
            top_down,
        })
    }

    /// The tables with the rules only goals read in the network, and those
    /// with them decided top-down where they are many, the gates and
    /// guards `arm` marks armed: `None` where the first cannot be made
    /// (see `Tables::new`).
    fn tables(&self, arm: &Arming) -> Option<(Tables, Option<Tables>)> {
        let b = self.base;
        let tables = |shape: &Shape, lazy: Option<&LazyRules>| {
            let net = shape.network(arm)?;
            let goals = (b.goals.clone(), lazy.cloned());
            let (true_atoms, moves) = (b.true_atoms.clone(), b.moves.clone());
            let first_true = true_atoms.0;
            let mut tables = Tables::new(net, true_atoms, &b.next, moves, goals, b.terminal)?;
            // Where no goal is decided top-down and no position leaves
            // the ground rules, which a dense walk does not follow.
            if lazy.is_none() && !tables.can_leave() {
                tables.dense = shape.dense();
            }
            if let Some(cone) = b.cone {
                tables.idle = vec![0; words(tables.true_facts.len())];
                for local in 0..tables.true_facts.len() as u32 {
                    put(&mut tables.idle, local, !cone.needs(first_true + local));
                }
            }
            Some(tables)
        };
        let waiting = tables(&self.waiting, None)?;
        let lazy = b.lazy.as_ref().map(|l| &l.rules);
        let top_down = (self.top_down.as_ref()).and_then(|shape| tables(shape, lazy));
        Some((waiting, top_down))
    }
}

/// The share of the ground rules (one in this many) that rules only goals
/// read must reach to be tried top-down.
const LAZY_SHARE: usize = 10;

/// How much less work the top-down goals must spend to be kept.
const LAZY_MARGIN: f64 = 1.1;

/// How much more work seeded playouts may cost with sets of several
/// roles' moves read through what each role plays otherwise, and the
/// sets still be kept: work counts rule reads and flips, not the size of
/// the network, which the sets shrink (skirmishFinal3: 143,298 rules
/// without them, 37,914 with; 19 % more work, 21 % more playouts a
/// second; ttcc4 1.35 times the work, 1.27 times the playouts). Where
/// they cost more (othello-fourway: 1.42 times the work, 10 % fewer
/// playouts; hallway, whose roles both play a noop at once, 2.4 times
/// the work, 20 % fewer), they are not kept. Fitted on the 54 files of
/// the corpus and the other collections that have such sets: a rule of
/// thumb, not a model.
const ROLE_SETS_MARGIN: f64 = 1.4;

/// How many joint moves a stepper plays between two looks at the clock
/// when a playout has a deadline (see [`Stop`]), the first look after as
/// many: a look costs some 20 ns, a step of the stepper from some 50 ns
/// up, and the caller has just looked when a playout starts (a benchmark,
/// timing each playout; a search, between its iterations).
const STEPS_BETWEEN_LOOKS: usize = 16;

/// Where [`Stepper::walk`] stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Walked {
    /// At a terminal position.
    Terminal,
    /// At the step limit.
    Limit,
    /// At the deadline, or its flag set.
    Stopped,
    /// Off the ground rules (see [`Stepper::is_off`]).
    Off,
    /// Where the role of this number has no legal move.
    NoMove(usize),
}

/// The most words of `true` atoms a step scans whole for those to play
/// (see `Stepper::mismatch`).
const SCANNED_WORDS: usize = 16;

/// How many random playouts [`seeded_playouts`] plays, and how many joint
/// moves in all at most.
const SEEDED_PLAYOUTS: usize = 32;
const SEEDED_STEPS: usize = 4096;

/// Plays [`SEEDED_PLAYOUTS`] random playouts from `initial` on `stepper`
/// (seed 0, at most [`SEEDED_STEPS`] joint moves in all), asking the goals
/// at each end: what loading plays to learn about ground rules, the same
/// moves on any of their tables. Stops where a position leaves the ground
/// rules (and says so) or a role has no move.
pub(crate) fn seeded_playouts(stepper: &mut Stepper, initial: &State) -> bool {
    let mut rng = Pcg64::seed_from_u64(0);
    let (mut steps, stop) = (0, Stop::steps(SEEDED_STEPS));
    for _ in 0..SEEDED_PLAYOUTS {
        stepper.set_state(initial);
        match stepper.walk(&mut steps, &stop, |_, _, n| rng.gen_range(0..n)) {
            Walked::Terminal => {
                stepper.goals();
            }
            Walked::Off => return true,
            Walked::Limit | Walked::Stopped | Walked::NoMove(_) => return false,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::{Arming, Stepper, get, outcome_tables, table_variants};
    use crate::engine::incremental::Evaluation;
    use crate::{EngineChoice, Game, Limits, LoadOptions};
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64;
    use std::sync::Arc;

    /// Four tokens placed on a 4 by 4 board; the goal counts the tokens of
    /// each row down a chain of rules (`cnt x y m n`: from column x on,
    /// starting from m, the row holds n), and is 100 when no row has two:
    /// the rules of `cnt` and `crowded` are read by goals only.
    const ROWS: &str = "(role player) (init (step 0))
        (index 1) (index 2) (index 3) (index 4)
        (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5)
        (num 0) (num 1) (num 2) (num 3) (num 4) (big 2) (big 3) (big 4)
        (<= (legal player (place ?x ?y)) (index ?x) (index ?y) (not (true (cell ?x ?y))))
        (<= (next (cell ?x ?y)) (does player (place ?x ?y)))
        (<= (next (cell ?x ?y)) (true (cell ?x ?y)))
        (<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
        (<= terminal (true (step 4)))
        (<= (cnt 5 ?y ?n ?n) (index ?y) (num ?n))
        (<= (cnt ?x ?y ?m ?n) (index ?x) (true (cell ?x ?y)) (succ ?m ?k) (succ ?x ?z)
            (cnt ?z ?y ?k ?n))
        (<= (cnt ?x ?y ?m ?n) (index ?x) (index ?y) (not (true (cell ?x ?y))) (succ ?x ?z)
            (cnt ?z ?y ?m ?n))
        (<= (crowded ?y) (cnt 1 ?y 0 ?n) (big ?n))
        (<= (goal player 100) (not (crowded 1)) (not (crowded 2)) (not (crowded 3))
            (not (crowded 4)))
        (<= (goal player 0) (crowded ?y))";

    /// Both ways of evaluating the rules only goals read give the goals the
    /// interpreter gives, playout after playout from one stepper. (Not
    /// under Miri, where loading the game twice takes minutes: the
    /// `stepper::` tests of `tests/main.rs` run the hot loop there, goals
    /// included.)
    #[test]
    #[cfg_attr(miri, ignore)]
    fn goals_wait_in_the_network_or_are_decided_top_down_alike() {
        let game = Game::from_source("rows.gdl", ROWS).unwrap();
        let g = game.rules.ground.as_ref().expect("rows grounds");
        let r = &game.rules;
        let names = (&game.terms, &game.symbols);
        let (waiting, top_down) = table_variants(
            g,
            &r.program,
            &r.roles,
            &r.role_names,
            names,
            (&Arming::default(), true),
            None,
        )
        .unwrap();
        let top_down = top_down.expect("the rules only goals read are many");
        assert!(top_down.lazy.is_some() && waiting.lazy.is_none());
        let off = LoadOptions {
            limits: Limits::default(),
            engine: EngineChoice::Interpreter,
        };
        let mut interpreted = Game::from_source_with("rows.gdl", ROWS, off).unwrap();
        let mut outcomes = std::collections::BTreeSet::new();
        for tables in [waiting, top_down] {
            let mut stepper = Stepper::new(Arc::new(tables));
            let mut rng = Pcg64::seed_from_u64(3);
            for _ in 0..200 {
                // A random playout, played again on the interpreter.
                stepper.set_state(&r.initial);
                let mut state = interpreted.initial_state();
                while !stepper.is_terminal() {
                    let k = rng.gen_range(0..stepper.legal_count(0));
                    let played = game.move_text(stepper.nth_legal(0, k));
                    stepper.play_nth(&[k]);
                    let m = interpreted.parse_move(&played).unwrap();
                    state = interpreted.next_state(&state, &[m]).unwrap();
                }
                let goals = stepper.goals().expect("one goal");
                assert_eq!(goals, interpreted.goals(&state).unwrap());
                outcomes.insert(goals);
            }
        }
        // Both goals came up.
        assert_eq!(outcomes.len(), 2, "{outcomes:?}");
    }

    /// Every gate armed, however small (loading arms only those it
    /// counts worth it): the stepper gives the legal moves, states and
    /// goals the interpreter gives, and returns to earlier states (its
    /// snapshot, restored) alike.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn every_gate_armed_steps_like_the_interpreter() {
        let source = include_str!("../../tests/games/armed.gdl");
        let game = Game::from_source("armed.gdl", source).unwrap();
        let all = Arming {
            gates: vec![true; tables_arming(&game, &Arming::default()).net.atoms()],
            ..Arming::default()
        };
        let tables = tables_arming(&game, &all);
        let (gates, rules) = tables.armed_gates();
        assert!(gates >= 5 && rules >= 600, "{gates} gates, {rules} rules");
        let outcomes = beside_the_interpreter(&game, ("armed.gdl", source), tables);
        assert_eq!(outcomes.len(), 2, "{outcomes:?}");
    }

    /// Rules guarded by literals chosen at random (`Arming::at_random`:
    /// counts of flips by atom drawn from a wide range, so that in many
    /// rules one literal outflips the rest), in games with gates, cycles,
    /// hubs, factoring and waiting goals; the
    /// stepper gives the legal moves, states and goals the interpreter
    /// gives, and returns to earlier states alike.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn rules_guarded_at_random_step_like_the_interpreter() {
        let games = [
            ("armed.gdl", include_str!("../../tests/games/armed.gdl")),
            ("cycles.gdl", include_str!("../../tests/games/cycles.gdl")),
            ("hubs.gdl", include_str!("../../tests/games/hubs.gdl")),
            (
                "factoring.gdl",
                include_str!("../../tests/games/factoring.gdl"),
            ),
            (
                "tictactoe.gdl",
                include_str!("../../tests/games/tictactoe.gdl"),
            ),
        ];
        for (name, source) in games {
            let game = Game::from_source(name, source).unwrap();
            let counted = tables_arming(&game, &Arming::default());
            let tables = tables_arming(&game, &Arming::at_random(&counted.net, 7));
            let (guards, rules) = tables.guards();
            assert!(
                guards >= 3 && rules >= 10,
                "{name}: {guards} guards, {rules} rules"
            );
            let outcomes = beside_the_interpreter(&game, (name, source), tables);
            assert!(!outcomes.is_empty(), "{name}");
        }
    }

    /// A noop that sets of several roles' moves read (`tests/games/
    /// role_sets.gdl`) flips at every step, and guards the rules that read
    /// it beside what the other role plays where loading's own counts say
    /// so: the stepper then gives what the interpreter gives.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn a_noop_guards_rules_and_steps_like_the_interpreter() {
        let source = include_str!("../../tests/games/role_sets.gdl");
        let game = Game::from_source("role_sets.gdl", source).unwrap();
        let counted = tables_arming(&game, &Arming::default());
        assert!(counted.role_sets() > 0, "the sets are read through noops");
        let (_, arm) = super::worth_arming(counted, &game.rules.initial);
        let tables = tables_arming(&game, &arm.expect("some rule is worth guarding"));
        let (guards, rules) = tables.guards();
        assert!(
            tables.move_guards() >= 1,
            "{guards} guards of {rules} rules, none a move"
        );
        let outcomes = beside_the_interpreter(&game, ("role_sets.gdl", source), tables);
        assert!(!outcomes.is_empty());
    }

    /// Components on a cycle of ground atoms (`tests/games/cycles.gdl`),
    /// derived anew as they lose rules, their flips listed for the
    /// snapshot's restore (the crate's own tests list flips always).
    #[test]
    #[cfg_attr(miri, ignore)]
    fn components_on_cycles_step_like_the_interpreter() {
        let source = include_str!("../../tests/games/cycles.gdl");
        let game = Game::from_source("cycles.gdl", source).unwrap();
        let tables = tables_arming(&game, &Arming::default());
        assert!(tables.cycles().0 >= 3, "{:?}", tables.cycles());
        let outcomes = beside_the_interpreter(&game, ("cycles.gdl", source), tables);
        assert_eq!(outcomes.len(), 2, "{outcomes:?}");
    }

    /// The stepper of random outcomes of a game whose state keeps a log
    /// no outcome reads (`tests/games/idle.gdl`) never sets the log's
    /// facts, and gives the legal moves, the rest of the states and the
    /// goals the interpreter gives, going back to earlier states alike.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn the_cone_of_outcomes_steps_like_the_interpreter() {
        let source = include_str!("../../tests/games/idle.gdl");
        let game = Game::from_source("idle.gdl", source).unwrap();
        let (g, r) = (game.rules.ground.as_ref().unwrap(), &game.rules);
        let whole = r.stepper.as_ref().unwrap();
        let (roles, names) = (
            (&r.roles[..], &r.role_names[..]),
            (&game.terms, &game.symbols),
        );
        let tables = outcome_tables(g, &r.program, roles, names, (&r.initial, whole));
        let tables = tables.expect("the log is left out");
        let idle = idle_facts(&game, &tables);
        // Rounds 0 to 6 (grounding does not know the game ends at 6).
        assert_eq!(idle.len(), 7 * 2 * 3 + 7 * 2 + 4, "{idle:?}");
        assert!(idle.iter().all(|f| !f.contains("parity")), "{idle:?}");
        let outcomes = beside_the_interpreter(&game, ("idle.gdl", source), tables);
        assert_eq!(outcomes.len(), 2, "{outcomes:?}");
    }

    /// The facts a stepper of `tables` never sets, as text.
    fn idle_facts(game: &Game, tables: &super::Tables) -> std::collections::BTreeSet<String> {
        (0..tables.true_facts.len() as u32)
            .filter(|&l| !tables.idle.is_empty() && get(&tables.idle, l))
            .map(|l| {
                game.terms
                    .text(tables.true_facts[l as usize], &game.symbols)
            })
            .collect()
    }

    /// The stepper's tables of a game that grounds, with the gates marked
    /// in `arm` armed (see `table_variants`): the variant where goals wait.
    fn tables_arming(game: &Game, arm: &Arming) -> super::Tables {
        let g = game.rules.ground.as_ref().expect("the game grounds");
        let r = &game.rules;
        let names = (&game.terms, &game.symbols);
        let tables = table_variants(
            g,
            &r.program,
            &r.roles,
            &r.role_names,
            names,
            (arm, true),
            None,
        );
        tables.expect("the game has a stepper").0
    }

    /// Plays 100 random games of `game` (from the rules `source`) on a
    /// stepper of `tables` beside the interpreter, now and then going back
    /// to an earlier state (the stepper's snapshot, restored): the same
    /// legal moves, states (but for the facts the stepper never sets) and
    /// goals everywhere. The goals reached.
    fn beside_the_interpreter(
        game: &Game,
        (name, source): (&str, &str),
        tables: super::Tables,
    ) -> std::collections::BTreeSet<Vec<u8>> {
        let r = &game.rules;
        let off = LoadOptions {
            limits: Limits::default(),
            engine: EngineChoice::Interpreter,
        };
        let mut interpreted = Game::from_source_with(name, source, off).unwrap();
        let roles = interpreted.roles();
        let idle = idle_facts(game, &tables);
        let mut stepper = Stepper::new(Arc::new(tables));
        let mut rng = Pcg64::seed_from_u64(5);
        let mut outcomes = std::collections::BTreeSet::new();
        for playout in 0..100 {
            let mut state = interpreted.initial_state();
            stepper.set_state(&r.initial);
            // Each state reached, as each game names it.
            let mut seen = vec![(state.clone(), r.initial.clone())];
            while !interpreted.is_terminal(&state).unwrap() {
                let at = format!("playout {playout}, step {}", seen.len());
                let facts = |g: &Game, s: &crate::State| {
                    let mut facts = g.state_facts(s);
                    facts.retain(|f| !idle.contains(f));
                    facts
                };
                assert_eq!(
                    facts(game, &stepper.state()),
                    facts(&interpreted, &state),
                    "{at}"
                );
                assert!(!stepper.is_terminal(), "{at}");
                let mut joint = Vec::new();
                for (i, &role) in roles.iter().enumerate() {
                    let mut mine: Vec<String> = (stepper.legal_moves(i).iter())
                        .map(|&m| game.move_text(m))
                        .collect();
                    let theirs = interpreted.legal_moves(&state, role).unwrap();
                    let mut texts: Vec<String> =
                        theirs.iter().map(|&m| interpreted.move_text(m)).collect();
                    mine.sort();
                    texts.sort();
                    assert_eq!(mine, texts, "{at}: legal moves of role {i}");
                    joint.push(theirs[rng.gen_range(0..theirs.len())]);
                }
                let texts: Vec<String> = joint.iter().map(|&m| interpreted.move_text(m)).collect();
                let mine: Vec<crate::Move> = (texts.iter().enumerate())
                    .map(|(i, t)| {
                        let legal = stepper.legal_moves(i);
                        *legal.iter().find(|&&m| game.move_text(m) == *t).unwrap()
                    })
                    .collect();
                assert!(stepper.play_moves(&mine), "{at}");
                state = interpreted.next_state(&state, &joint).unwrap();
                seen.push((state.clone(), stepper.state()));
                // Now and then, back to an earlier state and on from it.
                if rng.gen_range(0..5) == 0 {
                    let (theirs, mine) = seen[rng.gen_range(0..seen.len())].clone();
                    state = theirs;
                    stepper.set_state(&mine);
                }
            }
            assert!(stepper.is_terminal());
            let goals = stepper.goals().expect("a goal each");
            assert_eq!(goals, interpreted.goals(&state).unwrap());
            outcomes.insert(goals);
        }
        outcomes
    }

    /// An evaluation is made only with a watch list of its network's size:
    /// its hot loop indexes the atoms unchecked.
    #[test]
    #[should_panic(expected = "an evaluation watches each atom of its network or not")]
    fn an_evaluation_refuses_a_watch_list_of_another_size() {
        let game = crate::Game::from_source(
            "nim.gdl",
            "(role player) (init (count 2))
             (<= (legal player take) (true (count ?n)) (distinct ?n 0))
             (<= (next (count ?m)) (true (count ?n)) (does player take) (minus ?n ?m))
             (minus 2 1) (minus 1 0)
             (<= terminal (true (count 0))) (goal player 100)",
        )
        .unwrap();
        let tables = game.rules.stepper.as_ref().expect("nim has a stepper");
        Evaluation::new(&tables.net, &[false]);
    }
}
