//! The fixed part of the incremental evaluation: the ground rules as
//! counters, the rules reading each atom, gates, hub deferral and levels,
//! built once per game and checked as it is built (see
//! [`Shape::network`]), so that the hot loop may index without bounds
//! checks.

use super::cycles::{Cycles, NO_CYCLE};
use super::dense::Dense;
use crate::engine::ground::Grounded;
use rustc_hash::FxHashMap;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::hash::Hasher;

/// An atom read by at least this many rules is a hub (see `defer_hubs`).
const HUB_READERS: usize = 4;

/// How much work `defer_hubs` may spend: each hub and each of its passes
/// counts as many as there are atoms (what it cost when every pass looked
/// at every atom), each atom looked at its rules and readers, and a hub
/// under which nothing can be deferred the rules of the atoms reading it.
/// Condensed rules (plan::condense) have thousands of hubs, most read by a
/// few rules; the hubs read by the most rules are taken first, and those
/// left when the work is spent are not deferred.
const MAX_DEFER_WORK: usize = 400_000_000;

/// Atoms read outside the network (legal moves) are deferred under a
/// second hub, or a negated one, only when at least this many of them are
/// and they then fall in at most `MOVE_GROUPS` sets of hubs: each set is a
/// group the stepper looks at to list legal moves (see `defer_hubs`).
const SECOND_HUB_MOVES: usize = 64;
const MOVE_GROUPS: usize = 6;

/// Atoms read outside the network take a first hub when at least this
/// many of them do, or they stay in `MOVE_GROUPS` sets of hubs: a hub of
/// one square's moves (gomoku_swap2_15x15 has 225) saves a flip or two a
/// game and costs the stepper a group to look at on every step.
const FIRST_HUB_MOVES: usize = 8;

/// The most sets of hubs one role's moves may fall in, first hubs of
/// `FIRST_HUB_MOVES` moves or more included: the stepper looks at every
/// set at every step (a sudoku whose cells' digits each took their blank
/// cell as a hub had 82, and its steps cost more than the flips saved).
const HUB_GROUPS: usize = 16;

/// A literal shared by at least `FACTOR_MIN` rules of one head, whose atom
/// at least `FACTOR_READS` rules read in all, is factored out of them (see
/// `factor`): below, the flips it saves cost less than the new atom's.
const FACTOR_MIN: usize = 8;
const FACTOR_READS: usize = 64;

/// A set of one role's moves is written through its complement (see
/// `factor`) when it has at least this many times as many moves.
const COMPLEMENT_RATIO: usize = 4;

/// A set of several roles' moves is written through the complements (see
/// `factor`) when its rules take at most this many bodies.
const COMPLEMENT_TERMS: usize = 16;

/// Sets of several roles' moves are written through the complements
/// (see `factor`) where at least this many heads read one: fewer save too
/// little to pay for the second network loading builds to weigh them
/// (see `stepper::tables_over`).
const ROLE_SETS_MIN: usize = 64;

/// The rules of a head that all share some literals are factored into one
/// rule reading a new atom for the rest (see `factor`) when at least this
/// many heads have the same rest: the new atom is then a hub.
const SHARED_REST_MIN: usize = 8;

/// The most literals a rule of a network has: an evaluation counts each
/// rule's unsatisfied literals in a byte, a quarter of the memory a `u32`
/// takes, which a step reads at random and a playout's restore copies
/// (see `split_long_bodies`).
pub(super) const MAX_LITERALS: usize = u8::MAX as usize;

/// The fixed part of the network, shared by every evaluation of a game.
#[derive(Debug)]
pub struct Network {
    /// Per rule: its head, and its literals not satisfied in the empty
    /// model (its positive atoms, all false; a gated rule counts its shut
    /// gate alone), the start of every evaluation's `unsatisfied`: at most
    /// `MAX_LITERALS`, the most literals a rule has. The
    /// heads are read here, by every evaluation: each keeps only its
    /// counts, which many evaluations stepped in turn (a batch of games)
    /// then hold in half the memory.
    pub(super) heads: Vec<u32>,
    pub(super) unsatisfied: Vec<u8>,
    /// Per atom: where its readers are in `readers`, and its level.
    pub(super) atoms: Vec<AtomInfo>,
    /// The rules reading each atom: those reading it positively, then
    /// those reading it negated (see `AtomInfo`).
    pub(super) readers: Vec<u32>,
    /// The armed rules (see the module's doc) reading each atom, where any
    /// gate is armed (else empty): those of atom `a` are
    /// `armed_readers[armed_reads[a].start..armed_reads[a].end]`, those
    /// reading it negated from `negated` on.
    pub(super) armed_reads: Vec<ArmedReads>,
    pub(super) armed_readers: Vec<ArmedReader>,
    /// Per atom, where any gate is armed (else empty): the bit of the
    /// first rule it gates when it is an armed gate, its other rules'
    /// following (each armed gate's from a word on), else `NO_BIT`.
    pub(super) armed_base: Vec<u32>,
    /// The rules each gate atom gates, and their other literals: those
    /// of `gates[i]` are `gate_lits[gates[i].start..gates[i].end]`.
    pub(super) gates: Vec<Gated>,
    pub(super) gate_lits: Vec<u32>,
    /// How many bits the armed rules take (see `armed_base`).
    pub(super) armed_bits: u32,
    /// Whether some rule is gated by a `does` atom.
    does_gates: bool,
    /// Per atom, whether it may guard rules (see `guardable`).
    may_guard: Vec<bool>,
    /// How many atoms guard rules (see `Arming`), and how many rules; and
    /// how many of those atoms are `does` atoms (see `guardable`).
    guards: (usize, usize),
    move_guards: usize,
    /// Per atom: the hub literals it is deferred under (`atom << 1 |
    /// negated`), none for most.
    pub(super) deferred: Vec<Vec<u32>>,
    /// Where each level's queue starts in `Evaluation::queued`: level `l`
    /// has room for its atoms at `level_start[l]..level_start[l + 1]`.
    pub(super) level_start: Vec<u32>,
    /// The highest level of a state relation's atom that play reads.
    pub(super) state_top: u32,
    /// The highest level of an atom that play reads (see `waiting_atoms`).
    pub(super) play_top: u32,
    /// The highest level.
    pub(super) top: u32,
    /// The atom that always holds.
    pub(super) always: u32,
    /// The components of atoms on a cycle (see `cycles`).
    pub(super) cycles: Cycles,
    /// How many heads read a set of several roles' moves through what
    /// each role plays otherwise (see `factor`).
    role_sets: usize,
    /// How many rules were too long for a count in a byte, and the links
    /// of the chains written for them (see `split_long_bodies`).
    long_rules: (usize, usize),
    /// How many atoms were merged into others that have the same rules
    /// (see `merge_equivalents`).
    equivalents: usize,
    /// This network's number among those made by the process: an
    /// evaluation works only with the network it was made for, which the
    /// unchecked indexing of its hot loop relies on.
    pub(super) id: u64,
}

/// What the network knows of an atom.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct AtomInfo {
    /// Its readers: `readers[start..end]`, those that read it negated
    /// from `negated` on.
    pub(super) start: u32,
    pub(super) negated: u32,
    pub(super) end: u32,
    /// Its level (0 for atoms no rule derives).
    pub(super) level: u32,
    /// The rules it gates: `gates[gate_start..gate_end]`.
    pub(super) gate_start: u32,
    pub(super) gate_end: u32,
}

/// A rule gated by an atom, and its other literals as `atom << 1 |
/// negated`: `gate_lits[start..end]`; `negated` where the rule reads its
/// gate negated (a guard, see `Arming`: a `does` gate is read positively).
#[derive(Clone, Copy, Debug)]
pub(super) struct Gated {
    pub(super) rule: u32,
    pub(super) start: u32,
    pub(super) end: u32,
    pub(super) negated: bool,
}

/// An armed rule reading an atom, its bit (see `Network::armed_base`),
/// set while its other literals all hold, and its gate as a literal
/// (`atom << 1 | negated`), or `SHUT` for a `does` gate (shut whenever a
/// state atom flips): the rule fires while its bit is set and its gate
/// holds.
#[derive(Clone, Copy, Debug)]
pub(super) struct ArmedReader {
    pub(super) rule: u32,
    pub(super) bit: u32,
    pub(super) gate: u32,
}

/// What loading arms, from seeded playouts counted on a network that arms
/// nothing (see `Network::worth_arming`).
#[derive(Clone, Debug, Default)]
pub struct Arming {
    /// By atom: the `does` gates armed (none where it is empty).
    pub gates: Vec<bool>,
    /// By atom: how often it flipped on those playouts (none counted
    /// where it is empty). A rule one of whose literals flips far more
    /// often than the others, and whose reads were mostly idle, is
    /// *guarded* by it (see `guard_among` and `guards_kept`): armed with
    /// it as its gate, so that the guard's flips visit only the rules
    /// whose other literals all hold. Whose turn it is flips at every step
    /// and is read by every rule that tallies a score for one role
    /// (dotsAndBoxes: a hundred), of which the one of the score now
    /// is ready.
    pub flips: Vec<u32>,
    /// By rule of the network counted: how often it was read and how often
    /// idly (see `Evaluation::rule_counts`), and a hash of its rules'
    /// heads in order (`heads_hash`), which a network built anew must
    /// match for its rules to be those counted.
    pub visits: Vec<u32>,
    pub idle: Vec<u32>,
    pub heads: u64,
}

#[cfg(test)]
impl Arming {
    /// Counts that guard rules of `net` (a network that arms nothing) at
    /// random: flips by atom a power of two up to 2^20, every read idle,
    /// so that a rule is guarded wherever one literal outflips the others
    /// `GUARD_RATIO` times over.
    pub fn at_random(net: &Network, seed: u64) -> Arming {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
        let rules = net.heads.len();
        Arming {
            gates: Vec::new(),
            flips: (0..net.atoms())
                .map(|_| 1 << rng.gen_range(0..=20))
                .collect(),
            visits: vec![1 << 30; rules],
            idle: vec![1 << 30; rules],
            heads: net.heads_hash(),
        }
    }
}

/// A hash of a network's rules' heads, in order (see `Arming::heads`).
pub(super) fn heads_hash(heads: impl Iterator<Item = u32>) -> u64 {
    let mut hasher = rustc_hash::FxHasher::default();
    for h in heads {
        hasher.write_u32(h);
    }
    hasher.finish()
}

/// A rule is guarded by a literal (see `Arming::flips`) that flips at least
/// this many times as often as its other literals together...
const GUARD_RATIO: u64 = 2;
/// ... and at least this many times on the counted playouts.
const GUARD_MIN_FLIPS: u64 = 16;
/// What a guard's flip costs beside the rules it visits, in reads of a
/// rule: a call out of the hot loop and a walk over its rules' bits
/// (measured with callgrind on copolymer_4_pie: some 60 instructions, a
/// read some 6).
const GUARD_FLIP: u64 = 10;
/// What a flip of another literal of a guarded rule costs, in reads of a
/// rule: the same call out of the hot loop, for an armed read.
const GUARD_READ: u64 = 8;

/// Whether each atom may guard rules: not the always-true one (it never
/// flips) nor a `does` atom that gates rules (`gates`, by atom: an atom's
/// rules are all gated or all guarded, see the module's doc). A noop read
/// by sets of several roles' moves (see `factor`) gates none: it flips
/// at every step of a game of turns, and may guard the rules that read it
/// beside what the other role plays (knightfight: 197 rules, 11 % fewer
/// instructions a playout).
fn guardable(always: u32, move_inputs: &[bool], gates: &[bool]) -> Vec<bool> {
    (0..move_inputs.len())
        .map(|a| a != always as usize && !(move_inputs[a] && gates[a]))
        .collect()
}

/// Which atoms, of those that would guard rules (listed as the atom and
/// the reads it saves, see `guard_among`), guard them: those whose rules
/// save more than its flips (`flips`, by atom) cost in walks.
fn guards_kept(flips: &[u32], candidates: impl Iterator<Item = (u32, u64)>) -> Vec<bool> {
    let mut saved = vec![0u64; flips.len()];
    for (a, gain) in candidates {
        saved[a as usize] += gain;
    }
    (saved.iter().zip(flips))
        .map(|(&saved, &f)| saved > u64::from(f) * GUARD_FLIP)
        .collect()
}

/// The place of the literal that would guard a rule (see `Arming`), and
/// the reads of the rule that saves, given for each of its literals in
/// order how often its atom flipped and whether it may guard, and how
/// often the rule was read and how often idly: the literal that flipped
/// most (the first of those), where it flipped `GUARD_RATIO` times as
/// often as the others together, and the idle reads (which a guard's flip
/// saves) outnumber what costs more guarded (each flip of another literal
/// reads the rule as an armed rule, `GUARD_READ`, and each read that was
/// not idle becomes a visit of the guard's walk, two reads).
fn guard_among(
    lits: impl Iterator<Item = (u64, bool)>,
    (visits, idle): (u64, u64),
) -> Option<(usize, u64)> {
    let (mut total, mut best, mut n) = (0u64, None::<(usize, u64)>, 0);
    for (i, (flips, may_guard)) in lits.enumerate() {
        total += flips;
        n += 1;
        if may_guard && best.is_none_or(|(_, most)| flips > most) {
            best = Some((i, flips));
        }
    }
    let (i, flips) = best?;
    let others = total - flips;
    if n < 2 || flips < GUARD_MIN_FLIPS || flips < GUARD_RATIO * (others + 1) {
        return None;
    }
    let cost = others * GUARD_READ + visits.saturating_sub(idle) * 2;
    idle.checked_sub(cost)
        .filter(|&gain| gain > 0)
        .map(|gain| (i, gain))
}

/// Where the armed rules reading an atom are in `Network::armed_readers`:
/// `start..end`, those reading it negated from `negated` on.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct ArmedReads {
    pub(super) start: u32,
    pub(super) negated: u32,
    pub(super) end: u32,
}

/// The bit of the rules of a gate that is not armed.
pub(super) const NO_BIT: u32 = u32::MAX;

/// The gate of an armed rule gated by a `does` atom, as its armed readers
/// see it (see `ArmedReader`).
pub(super) const SHUT: u32 = u32::MAX;

/// A gate may be armed (see `Network::worth_arming`) when it gates at
/// least this many rules: opening one of fewer costs little.
const ARMED_MIN: usize = 64;

/// What reading an armed rule as a literal flips costs, in reads of a
/// gated rule as its gate opens: it updates a bit beside a count, and is
/// read again where an evaluation is copied. At 4, atariGo_7x7,
/// kalaha6x2x4 and wargame01 armed gates whose counts came close and lost
/// 2 to 4 %; at 12, hex armed 119 of the 161 gates worth it.
const ARMED_READ: u64 = 8;

/// A ground rule as the network is built: its head and its literals, each
/// `atom << 1 | negated`.
pub(super) struct Rule {
    pub(super) head: u32,
    pub(super) lits: Vec<u32>,
}

/// The rules reading each atom, as `rule << 1 | negated` (the rule by its
/// number in `rules`).
pub(super) fn readers_of(rules: &[Rule], atoms: usize) -> Vec<Vec<u32>> {
    let mut readers = vec![Vec::new(); atoms];
    for (r, rule) in rules.iter().enumerate() {
        for &l in &rule.lits {
            readers[(l >> 1) as usize].push((r as u32) << 1 | (l & 1));
        }
    }
    readers
}

/// Factors the rules of each head that share a literal: where `c` is a
/// literal of at least `FACTOR_MIN` of the rules for `h`, those rules
/// `h :- c, b_i` become `h :- c, x` and `x :- b_i` for a new atom `x`, whose
/// rules are factored in turn; the others stay. An atom `x` is made once
/// for each set of bodies `b_i` and shared by every head that needs it.
/// How many atoms there are now (new atoms are numbered from `atoms` on)
/// is returned, and whether each new one reads `does` (`is_move` grows).
///
/// What a propnet builder does to an OR over AND gates of one shared
/// input: a literal that every rule of a head reads (whose turn it is) is
/// read once instead of once per rule, and a set of moves read alike by
/// many heads (any move but this square's) is counted once. The model is
/// the same: `h` holds when `c` and some `b_i` hold.
///
/// A new atom that stands for any of a set `S` of one role's `does` atoms
/// (any mark but on this square) is written through the complement when
/// that is far smaller (`COMPLEMENT_RATIO`): `x :- not y` and `y :- d` for
/// each `d` of the role's other `does` atoms (`exclusive`), as exactly one
/// of a role's moves is played; a move then updates the few sets it is
/// not in rather than the many it is in. This changes what `x` is while no joint move is set
/// (true instead of false), when nothing reads move atoms. A set of
/// several roles' moves is written through each role's complement `O_r`
/// alike: `x` fails when every role plays a move of its `O_r`, so `x :-
/// not z` and `z` holds for each choice of one move of each `O_r` (a
/// role's moves that most sets leave out, its noop, taken one by one, the
/// rest as one atom; see `Factoring::any_moves`).
///
/// Before anything else, with `sets_of_roles`, where at least
/// `ROLE_SETS_MIN` heads have rules `h :- C, m_i` with each `m_i` a `does`
/// atom or an atom standing for a set of them, of several roles in all
/// (knightfight's square keeps its piece when either role shoots an arrow
/// or moves from another square), those rules become `h :- C, x` with `x`
/// any move of the set: it stops flipping as turns go by. Returns the
/// number of atoms and how many heads took such a set.
///
/// Then, where every rule of a head shares the literals `C` and the rest
/// of their bodies `r_i` (the rest) is the same for at least
/// `SHARED_REST_MIN` heads, the rules `h :- C, r_i` become `h :- C, x` and
/// `x :- r_i`, with `x` shared by those heads: gomoku_swap2_15x15's
/// `legal(p, place(x, y)) :- empty(x, y), t` for each of three turn
/// conditions `t` of player `p`, on 225 squares. `x` (any turn of `p`) is
/// then a hub that the moves are deferred under (see `defer_hubs`), and a
/// change of turn flips it rather than 225 moves off and 225 on.
fn factor(
    rules: &mut Vec<Rule>,
    atoms: usize,
    is_move: &mut Vec<bool>,
    (exclusive, sets_of_roles): (&[Vec<u32>], bool),
) -> (usize, usize) {
    let mut by_head: Vec<Vec<Vec<u32>>> = vec![Vec::new(); atoms];
    for rule in rules.drain(..) {
        let mut lits = rule.lits;
        lits.sort_unstable();
        lits.dedup();
        by_head[rule.head as usize].push(lits);
    }
    let mut reads = vec![0usize; atoms];
    for b in by_head.iter().flatten() {
        for &l in b {
            reads[(l >> 1) as usize] += 1;
        }
    }
    // How many heads have each rest (see above).
    let mut rests: FxHashMap<Vec<Vec<u32>>, usize> = FxHashMap::default();
    for bodies in &mut by_head {
        bodies.sort_unstable();
        bodies.dedup();
        if let Some((_, rest)) = shared_and_rest(bodies) {
            *rests.entry(rest).or_default() += 1;
        }
    }
    rests.retain(|_, heads| *heads >= SHARED_REST_MIN);
    let mut role_of = vec![u32::MAX; atoms];
    for (r, does) in exclusive.iter().enumerate() {
        for &d in does {
            role_of[d as usize] = r as u32;
        }
    }
    // The heads that hold when they share some literals and a move of
    // several roles is played, with those and what each role plays
    // otherwise (see `moves_of_roles`).
    let mut of_roles: Vec<Option<RoleSet>> = Vec::new();
    if sets_of_roles {
        let any_of = any_of_moves(&by_head, &role_of);
        let mut others = OtherMoves::new(atoms, &role_of, exclusive);
        of_roles = (by_head.iter())
            .map(|bodies| {
                let m = moves_of_roles(bodies, &role_of, &any_of)?;
                let o = others.of(&m.lits, &any_of)?;
                Some((m, o))
            })
            .collect();
    }
    if of_roles.iter().flatten().count() < ROLE_SETS_MIN {
        of_roles.clear();
    }
    let hub = left_out_by_most(&of_roles, &role_of, exclusive.len(), atoms);
    let mut f = Factoring {
        reads,
        role_of,
        exclusive,
        hub,
        rules,
        made: FxHashMap::default(),
        made_of_roles: FxHashMap::default(),
        atoms,
        is_move,
    };
    let mut written = 0;
    for (head, bodies) in by_head.into_iter().enumerate() {
        if let Some((m, others)) = of_roles.get_mut(head).and_then(Option::take)
            && let Some(x) = f.any_moves_atom(others)
        {
            let kept = m.kept(bodies);
            let mut lits = m.shared;
            lits.push(x << 1);
            lits.sort_unstable();
            f.rules.push(Rule {
                head: head as u32,
                lits,
            });
            f.factor(head as u32, kept);
            written += 1;
            continue;
        }
        match shared_and_rest(&bodies) {
            Some((shared, rest)) if rests.contains_key(&rest) => {
                let x = f.atom_for(rest);
                let mut lits = shared;
                lits.push(x << 1);
                lits.sort_unstable();
                f.rules.push(Rule {
                    head: head as u32,
                    lits,
                });
            }
            _ => f.factor(head as u32, bodies),
        }
    }
    (f.atoms, written)
}

/// Per atom of the ground program, the `does` atoms it stands for when
/// every rule of it is one positive `does` literal (any move but one from
/// this square, a relation the planner split from a `next` rule), by role
/// then number.
fn any_of_moves(by_head: &[Vec<Vec<u32>>], role_of: &[u32]) -> Vec<Option<Vec<u32>>> {
    let does = |b: &Vec<u32>| match b.as_slice() {
        &[l] if l & 1 == 0 && role_of[(l >> 1) as usize] != u32::MAX => Some(l >> 1),
        _ => None,
    };
    let by_role = |mut of: Vec<u32>| {
        of.sort_unstable_by_key(|&d| (role_of[d as usize], d));
        of
    };
    (by_head.iter())
        .map(|bodies| match bodies.is_empty() {
            true => None,
            false => bodies
                .iter()
                .map(does)
                .collect::<Option<Vec<u32>>>()
                .map(by_role),
        })
        .collect()
}

/// A set of moves read alike by the rules of a head: where a body of
/// `bodies` (each sorted) is some literals and one positive literal of a
/// `does` atom or of an atom that stands for a set of them (`any_of`), the
/// others of those bodies that have most moves (`shared`), the atoms of
/// those literals (`lits`, sorted); the other bodies are kept (`kept`).
/// knightfight keeps a square's piece when either role shoots an arrow or
/// moves from another square: written through what each role plays
/// otherwise (a noop, a move from this square), the head stops flipping
/// as turns go by.
#[derive(Debug)]
struct MovesOfRoles {
    shared: Vec<u32>,
    lits: Vec<u32>,
}

/// A head's set of moves, with each role's moves outside it (by role, see
/// `OtherMoves::of`).
type RoleSet = (MovesOfRoles, Vec<Vec<u32>>);

/// The `MovesOfRoles` of a head's `bodies`, if any.
fn moves_of_roles(
    bodies: &[Vec<u32>],
    role_of: &[u32],
    any_of: &[Option<Vec<u32>>],
) -> Option<MovesOfRoles> {
    let moves = |a: u32| role_of[a as usize] != u32::MAX || any_of[a as usize].is_some();
    let size = |a: u32| any_of[a as usize].as_ref().map_or(1, Vec::len);
    // Most heads read too few moves, or the moves of one role (a set of
    // moves of several roles is told by its first and last, as `any_of`
    // lists a role's moves after the others'): they cost only this.
    let lits = bodies
        .iter()
        .flatten()
        .filter(|&&l| l & 1 == 0 && moves(l >> 1));
    let (mut n, mut roles) = (0, [u32::MAX; 2]);
    for &l in lits {
        let a = l >> 1;
        n += size(a);
        let (first, last) = match &any_of[a as usize] {
            Some(of) if role_of[a as usize] == u32::MAX => (of[0], of[of.len() - 1]),
            _ => (a, a),
        };
        for r in [role_of[first as usize], role_of[last as usize]] {
            if roles[0] == u32::MAX {
                roles[0] = r;
            } else if r != roles[0] {
                roles[1] = r;
            }
        }
    }
    if n < FACTOR_MIN || roles[1] == u32::MAX {
        return None;
    }
    // The place of the body's one literal of moves.
    let place = |b: &Vec<u32>| {
        let mut of_moves = (b.iter().enumerate()).filter(|&(_, &l)| l & 1 == 0 && moves(l >> 1));
        let (Some((i, _)), None) = (of_moves.next(), of_moves.next()) else {
            return None;
        };
        Some(i)
    };
    let places: Vec<Option<usize>> = bodies.iter().map(place).collect();
    let others = |b: usize, i: usize| (bodies[b].iter().enumerate()).filter(move |&(k, _)| k != i);
    // Each group's moves (counted with repeats) and first body, by a hash
    // of the others (a group is told apart exactly below).
    let mut groups: FxHashMap<u64, (usize, usize)> = FxHashMap::default();
    for (b, &i) in places.iter().enumerate() {
        let Some(i) = i else { continue };
        let mut hasher = rustc_hash::FxHasher::default();
        others(b, i).for_each(|(_, l)| hasher.write_u32(*l));
        let group = groups.entry(hasher.finish()).or_insert((0, b));
        group.0 += size(bodies[b][i] >> 1);
    }
    let (_, (n, first)) = (groups.into_iter()).max_by_key(|&(hash, (n, _))| (n, Reverse(hash)))?;
    if n < FACTOR_MIN {
        return None;
    }
    let first_place = places[first].expect("a body of the group");
    let shared: Vec<u32> = others(first, first_place).map(|(_, &l)| l).collect();
    let mut lits: Vec<u32> = (places.iter().enumerate())
        .filter_map(|(b, &i)| {
            let i = i?;
            (bodies[b].len() == shared.len() + 1 && others(b, i).map(|(_, l)| l).eq(&shared))
                .then_some(bodies[b][i] >> 1)
        })
        .collect();
    lits.sort_unstable();
    lits.dedup();
    Some(MovesOfRoles { shared, lits })
}

impl MovesOfRoles {
    /// The bodies of `bodies` other than the shared literals and a literal
    /// of the set.
    fn kept(&self, bodies: Vec<Vec<u32>>) -> Vec<Vec<u32>> {
        (bodies.into_iter())
            .filter(|b| {
                let of_set = |&l: &u32| l & 1 == 0 && self.lits.binary_search(&(l >> 1)).is_ok();
                let in_set = b.len() == self.shared.len() + 1
                    && b.iter().filter(|l| of_set(l)).count() == 1
                    && b.iter().filter(|l| !of_set(l)).eq(&self.shared);
                !in_set
            })
            .collect()
    }
}

/// What each role plays outside sets of moves, computed once for each
/// set of literals (many heads read the same: a square's pieces).
struct OtherMoves<'a> {
    role_of: &'a [u32],
    exclusive: &'a [Vec<u32>],
    /// Scratch: the moves of the set at hand.
    marked: Vec<bool>,
    known: FxHashMap<Vec<u32>, Option<Vec<Vec<u32>>>>,
}

impl<'a> OtherMoves<'a> {
    fn new(atoms: usize, role_of: &'a [u32], exclusive: &'a [Vec<u32>]) -> Self {
        OtherMoves {
            role_of,
            exclusive,
            marked: vec![false; atoms],
            known: FxHashMap::default(),
        }
    }

    /// For the moves of `lits` (`does` atoms and atoms of `any_of`), each
    /// role's other moves, by role, for the roles with a move in the set:
    /// when those are two or more, the set has at least `FACTOR_MIN`
    /// moves, and each role's other moves are at most a
    /// `COMPLEMENT_RATIO`th as many as its moves in the set.
    fn of(&mut self, lits: &[u32], any_of: &[Option<Vec<u32>>]) -> Option<Vec<Vec<u32>>> {
        if let Some(known) = self.known.get(lits) {
            return known.clone();
        }
        let mut set = Vec::new();
        for &a in lits {
            match &any_of[a as usize] {
                Some(of) if self.role_of[a as usize] == u32::MAX => set.extend(of),
                _ => set.push(a),
            }
        }
        set.retain(|&d| !std::mem::replace(&mut self.marked[d as usize], true));
        // Each role's moves in the set, counted: most sets are far from
        // all of a role's moves, and are told so before those are read.
        let mut in_set = vec![0usize; self.exclusive.len()];
        for &d in &set {
            in_set[self.role_of[d as usize] as usize] += 1;
        }
        let roles: Vec<u32> = (0..in_set.len() as u32)
            .filter(|&r| in_set[r as usize] > 0)
            .collect();
        let near_all = |r: &u32| {
            let (all, some) = (self.exclusive[*r as usize].len(), in_set[*r as usize]);
            (all - some) * COMPLEMENT_RATIO <= some
        };
        let others = (roles.len() >= 2 && set.len() >= FACTOR_MIN && roles.iter().all(near_all))
            .then(|| {
                (roles.iter())
                    .map(|&r| {
                        let all = &self.exclusive[r as usize];
                        all.iter()
                            .copied()
                            .filter(|&d| !self.marked[d as usize])
                            .collect()
                    })
                    .collect::<Vec<_>>()
            });
        for &d in &set {
            self.marked[d as usize] = false;
        }
        self.known.insert(lits.to_vec(), others.clone());
        others
    }
}

/// Per `does` atom, whether more than half the sets of `of_roles` that
/// have a move of its role leave it out (and at least two do): a noop,
/// which each set's complement reads apart from the rest (see
/// `Factoring::any_moves`).
fn left_out_by_most(
    of_roles: &[Option<RoleSet>],
    role_of: &[u32],
    roles: usize,
    atoms: usize,
) -> Vec<bool> {
    let mut left_out = vec![0u32; atoms];
    let mut with_role = vec![0u32; roles];
    for (_, others) in of_roles.iter().flatten() {
        for o in others {
            // A role whose moves are all in the set leaves none out, and
            // counts for none.
            let Some(&first) = o.first() else { continue };
            with_role[role_of[first as usize] as usize] += 1;
            for &d in o {
                left_out[d as usize] += 1;
            }
        }
    }
    (0..atoms)
        .map(|d| {
            let r = role_of[d];
            r != u32::MAX && left_out[d] >= 2 && left_out[d] * 2 > with_role[r as usize]
        })
        .collect()
}

/// The literals every body of `bodies` (each sorted, the list sorted and
/// without repeats) has, and the rest of each body, sorted: when there are
/// two bodies or more, some literals shared and every rest not empty.
fn shared_and_rest(bodies: &[Vec<u32>]) -> Option<(Vec<u32>, Vec<Vec<u32>>)> {
    let [first, others @ ..] = bodies else {
        return None;
    };
    if others.is_empty() {
        return None;
    }
    let shared: Vec<u32> = (first.iter().copied())
        .filter(|l| others.iter().all(|b| b.binary_search(l).is_ok()))
        .collect();
    if shared.is_empty() {
        return None;
    }
    let mut rest: Vec<Vec<u32>> = (bodies.iter())
        .map(|b| {
            b.iter()
                .copied()
                .filter(|l| shared.binary_search(l).is_err())
                .collect()
        })
        .collect();
    rest.sort_unstable();
    rest.dedup();
    rest.iter()
        .all(|r: &Vec<u32>| !r.is_empty())
        .then_some((shared, rest))
}

/// The state of `factor`: the rules made, and the new atoms by their bodies.
struct Factoring<'a> {
    /// How many rules read each atom of the ground program.
    reads: Vec<usize>,
    /// The role of each `does` atom (`u32::MAX` for other atoms), and each
    /// role's `does` atoms, sorted.
    role_of: Vec<u32>,
    exclusive: &'a [Vec<u32>],
    /// Per `does` atom, whether most sets of several roles' moves leave
    /// it out (see `left_out_by_most`).
    hub: Vec<bool>,
    rules: &'a mut Vec<Rule>,
    made: FxHashMap<Vec<Vec<u32>>, u32>,
    /// The atoms for any move but those listed, by role (see
    /// `any_moves_atom`).
    made_of_roles: FxHashMap<Vec<Vec<u32>>, u32>,
    atoms: usize,
    is_move: &'a mut Vec<bool>,
}

impl Factoring<'_> {
    /// When `bodies` are each one positive `does` atom: those atoms by
    /// role (in role order).
    fn moves_by_role(&self, bodies: &[Vec<u32>]) -> Option<Vec<(u32, Vec<u32>)>> {
        let mut by_role: Vec<(u32, Vec<u32>)> = Vec::new();
        for b in bodies {
            let &[l] = b.as_slice() else { return None };
            let r = *self.role_of.get((l >> 1) as usize)?;
            if l & 1 == 1 || r == u32::MAX {
                return None;
            }
            match by_role.iter_mut().find(|(q, _)| *q == r) {
                Some((_, some)) => some.push(l >> 1),
                None => by_role.push((r, vec![l >> 1])),
            }
        }
        by_role.sort_unstable();
        Some(by_role)
    }

    /// Each role's moves that `bodies` leave out, by role, when `bodies`
    /// are each one positive `does` atom and each role's moves left out
    /// are at most a `COMPLEMENT_RATIO`th as many as those in.
    fn complements(&self, bodies: &[Vec<u32>]) -> Option<Vec<Vec<u32>>> {
        let by_role = self.moves_by_role(bodies)?;
        (by_role.into_iter())
            .map(|(r, mut some)| {
                let all = &self.exclusive[r as usize];
                if (all.len() - some.len()) * COMPLEMENT_RATIO > some.len() {
                    return None;
                }
                some.sort_unstable();
                let others = all.iter().copied();
                Some(others.filter(|d| some.binary_search(d).is_err()).collect())
            })
            .collect()
    }

    /// How many bodies `any_moves` writes for these complements: per role,
    /// a term for each move most sets leave out and one for the others.
    fn terms(&self, others: &[Vec<u32>]) -> usize {
        (others.iter())
            .map(|o| {
                let hubs = o.iter().filter(|&&d| self.hub[d as usize]).count();
                hubs + usize::from(hubs < o.len())
            })
            .product()
    }

    /// Adds the rules of `x`, which holds when some body of `bodies` does,
    /// when they are each one positive `does` atom of one role and its
    /// other moves are at most a `COMPLEMENT_RATIO`th as many: written
    /// through that complement (see `factor`). False, adding nothing,
    /// otherwise.
    fn any_move(&mut self, x: u32, bodies: &[Vec<u32>]) -> bool {
        // Moves of several roles stay as they are here: read through each
        // role's complement without telling its noop apart (`hub`, known
        // only for the sets of `factor`'s first pass), each role's part
        // would flip whenever its turn comes or goes.
        match self.complements(bodies).as_deref() {
            Some([others]) => self.any_but(x, others.clone()),
            _ => return false,
        }
        true
    }

    /// Adds the rules of `x` holding when some role plays none of its
    /// moves in `others` (by role). Each role plays one move, so `x` fails
    /// when each plays one of its `others`: `x :- not z`, and `z` holds
    /// for each choice of a term per role, a role's terms being each move
    /// most sets leave out (a noop, read alone: were it in an atom with
    /// the others, that atom would flip as turns go by) and an atom for
    /// any of its other moves.
    ///
    /// z :- t_1, ..., t_k.   (t_r one of role r's terms)
    /// x :- not z.
    fn any_moves(&mut self, x: u32, others: Vec<Vec<u32>>) {
        let mut terms: Vec<Vec<u32>> = Vec::with_capacity(others.len());
        for o in others {
            let (hubs, rest): (Vec<u32>, Vec<u32>) =
                o.into_iter().partition(|&d| self.hub[d as usize]);
            let mut t: Vec<u32> = hubs.iter().map(|&d| d << 1).collect();
            match rest.as_slice() {
                [] => {}
                &[d] => t.push(d << 1),
                _ => t.push(self.any_of(rest) << 1),
            }
            terms.push(t);
        }
        let z = self.atoms as u32;
        self.atoms += 1;
        self.is_move.push(true);
        let mut bodies: Vec<Vec<u32>> = vec![Vec::new()];
        for t in &terms {
            bodies = (bodies.iter())
                .flat_map(|b| t.iter().map(move |&l| [b.as_slice(), &[l]].concat()))
                .collect();
        }
        for mut lits in bodies {
            lits.sort_unstable();
            self.rules.push(Rule { head: z, lits });
        }
        self.rules.push(Rule {
            head: x,
            lits: vec![z << 1 | 1],
        });
    }

    /// The atom for any move but those of `others` (by role, see
    /// `any_moves`): made the first time, shared after; `None` where that
    /// would take more than `COMPLEMENT_TERMS` bodies.
    fn any_moves_atom(&mut self, others: Vec<Vec<u32>>) -> Option<u32> {
        if let Some(&x) = self.made_of_roles.get(&others) {
            return Some(x);
        }
        if self.terms(&others) > COMPLEMENT_TERMS {
            return None;
        }
        let x = self.atoms as u32;
        self.atoms += 1;
        self.is_move.push(true);
        self.made_of_roles.insert(others.clone(), x);
        self.any_moves(x, others);
        Some(x)
    }

    /// Adds the rules of `x` holding when none of the `does` atoms
    /// `others` of one role does (see `any_move`).
    fn any_but(&mut self, x: u32, others: Vec<u32>) {
        match others.as_slice() {
            [] => self.rules.push(Rule {
                head: x,
                lits: Vec::new(),
            }),
            &[d] => self.rules.push(Rule {
                head: x,
                lits: vec![d << 1 | 1],
            }),
            _ => {
                let y = self.any_of(others);
                self.rules.push(Rule {
                    head: x,
                    lits: vec![y << 1 | 1],
                });
            }
        }
    }

    /// The atom that holds when one of the `does` atoms `moves` does: made
    /// with its rules the first time, shared after.
    fn any_of(&mut self, moves: Vec<u32>) -> u32 {
        let bodies: Vec<Vec<u32>> = moves.iter().map(|&d| vec![d << 1]).collect();
        if let Some(&y) = self.made.get(&bodies) {
            return y;
        }
        let y = self.atoms as u32;
        self.atoms += 1;
        self.is_move.push(true);
        self.made.insert(bodies.clone(), y);
        self.rules
            .extend(bodies.into_iter().map(|lits| Rule { head: y, lits }));
        y
    }

    /// The atom that holds when some body of `bodies` (each sorted, the
    /// list sorted and without repeats) does: made with its rules the
    /// first time, shared after.
    fn atom_for(&mut self, bodies: Vec<Vec<u32>>) -> u32 {
        if let Some(&x) = self.made.get(&bodies) {
            return x;
        }
        let x = self.atoms as u32;
        self.atoms += 1;
        let moves = (bodies.iter().flatten()).any(|&l| self.is_move[(l >> 1) as usize]);
        self.is_move.push(moves);
        self.made.insert(bodies.clone(), x);
        if !self.any_move(x, &bodies) {
            self.factor(x, bodies);
        }
        x
    }

    /// Whether literal `l` may be factored out: its atom is one of the
    /// ground program's that at least `FACTOR_READS` rules read.
    fn may_factor(&self, l: u32) -> bool {
        self.reads.get((l >> 1) as usize).copied().unwrap_or(0) >= FACTOR_READS
    }

    /// Adds the rules for `head` of `bodies` (each sorted, the list sorted
    /// and without repeats), factored: while `FACTOR_MIN` bodies or more
    /// are left, the literal most of them share (of the atoms that
    /// `FACTOR_READS` rules read; the smallest literal among equals) is
    /// taken out of the bodies that have it.
    ///
    /// The count of each literal is kept as bodies are taken, in a heap
    /// whose stale entries are skipped, so that a head of many bodies
    /// costs its literals once rather than once for each literal taken.
    fn factor(&mut self, head: u32, mut bodies: Vec<Vec<u32>>) {
        // holding(l, i) :- bodies(i, l), reads(l) >= FACTOR_READS.
        // As pairs sorted by literal, then body: each literal's bodies in
        // a row of one vector (a vector each cost skirmish's 2.8 million
        // rules a third of their factoring).
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        if bodies.len() >= FACTOR_MIN {
            for (i, b) in bodies.iter().enumerate() {
                for &l in b.iter().filter(|&&l| self.may_factor(l)) {
                    pairs.push((l, i as u32));
                }
            }
        }
        pairs.sort_unstable();
        let mut holding: FxHashMap<u32, &[(u32, u32)]> = FxHashMap::default();
        for of in pairs.chunk_by(|a, b| a.0 == b.0) {
            holding.insert(of[0].0, of);
        }
        let mut count: FxHashMap<u32, usize> =
            holding.iter().map(|(&l, of)| (l, of.len())).collect();
        let mut heap: BinaryHeap<(usize, Reverse<u32>)> =
            count.iter().map(|(&l, &n)| (n, Reverse(l))).collect();
        let mut taken = vec![false; bodies.len()];
        let mut left = bodies.len();
        while left >= FACTOR_MIN {
            let Some((n, Reverse(c))) = heap.pop() else {
                break;
            };
            if count[&c] != n {
                continue;
            }
            if n < FACTOR_MIN {
                break;
            }
            let mut rest: Vec<Vec<u32>> = Vec::with_capacity(n);
            for &(_, i) in holding[&c] {
                if std::mem::replace(&mut taken[i as usize], true) {
                    continue;
                }
                let mut b = std::mem::take(&mut bodies[i as usize]);
                for &l in b.iter().filter(|&&l| self.may_factor(l)) {
                    let k = count.get_mut(&l).expect("counted");
                    *k -= 1;
                    heap.push((*k, Reverse(l)));
                }
                b.retain(|&l| l != c);
                rest.push(b);
            }
            left -= rest.len();
            rest.sort_unstable();
            rest.dedup();
            if rest[0].is_empty() {
                // `h :- c` alone: the other rules with `c` add nothing.
                self.rules.push(Rule {
                    head,
                    lits: vec![c],
                });
                continue;
            }
            let x = self.atom_for(rest);
            let mut lits = vec![c, x << 1];
            lits.sort_unstable();
            self.rules.push(Rule { head, lits });
        }
        let kept = bodies.into_iter().zip(taken).filter(|(_, t)| !t);
        self.rules.extend(kept.map(|(lits, _)| Rule { head, lits }));
    }
}

/// Writes each rule of more than `MAX_LITERALS` literals as a chain of
/// rules that have at most that many, each link a new atom:
///
///   h :- l1, ..., ln   becomes   c :- l1, ..., l255   and   h :- c, l256, ..., ln
///
/// until the rule for `h` fits. The literals of move atoms stay in the
/// rule for `h` (a `does` atom read with state atoms alone still gates
/// it). Published games have no such rule; a rules file may. Returns the
/// number of atoms then, and how many rules were split into how many
/// links.
fn split_long_bodies(
    rules: &mut Vec<Rule>,
    mut atoms: usize,
    is_move: &mut Vec<bool>,
) -> (usize, (usize, usize)) {
    let mut links = Vec::new();
    let mut split = 0;
    for rule in rules.iter_mut().filter(|r| r.lits.len() > MAX_LITERALS) {
        split += 1;
        rule.lits.sort_by_key(|&l| is_move[(l >> 1) as usize]);
        while rule.lits.len() > MAX_LITERALS {
            let link = atoms as u32;
            atoms += 1;
            is_move.push(false);
            let lits: Vec<u32> = rule.lits.drain(..MAX_LITERALS).collect();
            rule.lits.insert(0, link << 1);
            links.push(Rule { head: link, lits });
        }
    }
    let long = (split, links.len());
    rules.extend(links);
    (atoms, long)
}

/// Merges each atom `b` into an atom `a` whose only rule is `a :- b`: the
/// rules for `b` become rules for `a`, and rules reading `b` read `a`, so
/// the copy no longer flips after its original (`legal` moves copied from
/// a relation that other rules read too, say). `b` must be derived, not
/// `read` outside the network, and of the same phase (`is_move`) as `a`.
fn merge_copies(
    rules: &mut Vec<Rule>,
    atoms: usize,
    read: &[bool],
    is_move: impl Fn(usize) -> bool,
) {
    let mut rules_for = vec![0u32; atoms];
    for rule in rules.iter() {
        rules_for[rule.head as usize] += 1;
    }
    // into[b]: the atom b is merged into (b itself when not merged).
    let mut into: Vec<u32> = (0..atoms as u32).collect();
    let mut copy_rule = vec![false; rules.len()];
    for (r, rule) in rules.iter().enumerate() {
        let (a, &[l]) = (rule.head as usize, rule.lits.as_slice()) else {
            continue;
        };
        let b = (l >> 1) as usize;
        if l & 1 == 0
            && rules_for[a] == 1
            && rules_for[b] > 0
            && !read[b]
            && into[b] == b as u32
            && is_move(a) == is_move(b)
        {
            into[b] = a as u32;
            copy_rule[r] = true;
        }
    }
    let mut r = 0;
    rules.retain(|_| {
        r += 1;
        !copy_rule[r - 1]
    });
    read_as_merged(rules, &into);
}

/// The atom `x` was merged into, through every merge since (`into[b]`:
/// the atom `b` was merged into, `b` itself when not merged).
fn merged_into(into: &[u32], mut x: u32) -> u32 {
    while into[x as usize] != x {
        x = into[x as usize];
    }
    x
}

/// Rewrites every rule's head and literals as the atoms they were merged
/// into (see `merged_into`), and drops the rules that read an atom and
/// its negation, which never fire.
fn read_as_merged(rules: &mut Vec<Rule>, into: &[u32]) {
    for rule in rules.iter_mut() {
        rule.head = merged_into(into, rule.head);
        for l in &mut rule.lits {
            *l = merged_into(into, *l >> 1) << 1 | (*l & 1);
        }
        rule.lits.sort_unstable();
        rule.lits.dedup();
    }
    // a and not a: the rule never fires.
    rules.retain(|rule| !rule.lits.windows(2).any(|w| w[0] >> 1 == w[1] >> 1));
}

/// Merges atoms that have the same rules: where `a` and `b` have the same
/// bodies, literal for literal once the atoms merged before are read as
/// those they were merged into, they hold in the same states; the rules
/// for `b` go and those reading it read `a`. Run to a fixpoint (an atom is
/// looked at again when an atom it reads is merged), so a relation copied
/// along a dimension that no rule tells apart collapses: queens carries
/// its count of attacked queens from square to square for each of the
/// twelve counts it could start from (`attack(x, y, m, m)` for every `m`
/// has the one rule `true(cell x y b)`), and becomes a count per square
/// and number added. `b` must not be `read` outside the network, and both
/// are of the same phase (`is_move`). Returns how many atoms were merged.
///
/// For each atom `h` with rules, in turn: key(h) = its phase and its set
/// of bodies, each a set of literals; h merges into the atom first seen
/// with key(h).
fn merge_equivalents(
    rules: &mut Vec<Rule>,
    atoms: usize,
    read: &[bool],
    is_move: impl Fn(usize) -> bool,
) -> usize {
    // into[b]: the atom b is merged into (b itself when not merged).
    let mut into: Vec<u32> = (0..atoms as u32).collect();
    let mut rules_of: Vec<Vec<u32>> = vec![Vec::new(); atoms];
    let mut readers: Vec<Vec<u32>> = vec![Vec::new(); atoms];
    for (r, rule) in rules.iter().enumerate() {
        rules_of[rule.head as usize].push(r as u32);
        for &l in &rule.lits {
            readers[(l >> 1) as usize].push(rule.head);
        }
    }
    let mut todo: Vec<u32> = (0..atoms as u32)
        .filter(|&a| !rules_of[a as usize].is_empty())
        .collect();
    let mut queued: Vec<bool> = rules_of.iter().map(|r| !r.is_empty()).collect();
    let mut first: FxHashMap<(bool, Vec<Vec<u32>>), u32> = FxHashMap::default();
    let mut merged = 0;
    while let Some(h) = todo.pop() {
        queued[h as usize] = false;
        if into[h as usize] != h {
            continue;
        }
        let mut bodies: Vec<Vec<u32>> = (rules_of[h as usize].iter())
            .map(|&r| {
                let lits = rules[r as usize].lits.iter();
                let mut lits: Vec<u32> = lits
                    .map(|&l| merged_into(&into, l >> 1) << 1 | (l & 1))
                    .collect();
                lits.sort_unstable();
                lits.dedup();
                lits
            })
            .collect();
        bodies.sort_unstable();
        bodies.dedup();
        let seen = first.entry((is_move(h as usize), bodies)).or_insert(h);
        let a = merged_into(&into, *seen);
        // The atom read outside stays; of two such atoms, both do.
        let (gone, stays) = match (read[h as usize], read[a as usize]) {
            _ if a == h => continue,
            (false, _) => (h, a),
            (true, false) => (a, h),
            (true, true) => continue,
        };
        *seen = stays;
        into[gone as usize] = stays;
        rules_of[gone as usize].clear();
        merged += 1;
        let moved = std::mem::take(&mut readers[gone as usize]);
        for &reader in &moved {
            if !queued[reader as usize] {
                queued[reader as usize] = true;
                todo.push(reader);
            }
        }
        readers[stays as usize].extend(moved);
    }
    if merged == 0 {
        return 0;
    }
    rules.retain(|rule| into[rule.head as usize] == rule.head);
    read_as_merged(rules, &into);
    merged
}

/// Takes hub literals out of the rules that need not read them, and
/// returns per atom the hub literals it was deferred under.
///
/// A hub `g` (a literal read by many rules, such as whose turn it is, or
/// that no jump is open) flips at every step or so, and every atom derived
/// from it would flip with it. An atom `h` is *deferred* under `g` when its
/// value can be computed as if `g` held and read only where `g` holds:
/// every rule for `h` has `g` or a deferred atom as a positive literal (so
/// `h` implies `g`), and its other literals are deferred or do not depend
/// on `g`'s atom; every rule reading `h` has `g` as a literal or derives a
/// deferred atom. Then `g` is dropped from the rules for deferred atoms,
/// which stop flipping with `g`; what the network stores for `h` is its
/// value were `g` true, and `h` holds when that value and `g` do. Hubs are
/// taken in turn on the rules the earlier ones rewrote, so an atom may be
/// deferred under several: it holds when its stored value and every one of
/// them do (each hub literal read as the network stores its atom). Atoms in
/// `real` (those read outside the network where that rewriting would not be
/// seen) are never deferred; those in `read` take a first positive hub
/// only when they stay in `MOVE_GROUPS` sets of hubs, or in `HUB_GROUPS`
/// when `FIRST_HUB_MOVES` of them take it, and a second or negated hub
/// only when `SECOND_HUB_MOVES` of them do and they stay in `MOVE_GROUPS`
/// sets. The stepper reads the
/// hubs of those outside the network too, as stored: such a hub is never
/// deferred itself, before or after (the Soar explorer games of level 10
/// listed moves towards a rock no longer there when it was). Found as the
/// greatest set meeting the conditions, by removing atoms that fail them.
fn defer_hubs(rules: &mut [Rule], atoms: usize, read: &[bool], real: &[bool]) -> Vec<Vec<u32>> {
    let mut deferred = vec![Vec::new(); atoms];
    // The atoms never deferred: those in `real`, and each hub of an atom
    // in `read`, whose value as stored is read outside the network with
    // it (a hub deferred in turn would be read there without its own hub).
    let mut real = real.to_vec();
    let mut readers = readers_of(rules, atoms);
    let mut rules_for = vec![Vec::new(); atoms];
    for (r, rule) in rules.iter().enumerate() {
        rules_for[rule.head as usize].push(r as u32);
    }
    // Each literal read by at least HUB_READERS rules, as (rules, literal).
    let mut hubs: Vec<(usize, u32)> = (0..atoms as u32)
        .flat_map(|a| {
            let neg = readers[a as usize].iter().filter(|&&e| e & 1 == 1).count();
            let pos = readers[a as usize].len() - neg;
            [(pos, a << 1), (neg, a << 1 | 1)]
        })
        .filter(|&(n, _)| n >= HUB_READERS)
        .collect();
    hubs.sort_by_key(|&(n, lit)| (std::cmp::Reverse(n), lit));
    // How many atoms read outside the network are deferred under each
    // list of hubs: the groups the stepper looks at (all under none, to
    // begin with).
    let mut group_sizes: FxHashMap<Vec<u32>, usize> = FxHashMap::default();
    let read_atoms = (0..atoms).filter(|&a| read[a]).count();
    if read_atoms > 0 {
        group_sizes.insert(Vec::new(), read_atoms);
    }
    // Kept across hubs, each hub putting back what it changed: the atoms
    // that depend on hub number `stamp` are marked `stamp`; `set` and
    // `marks` are clear outside the hub at hand.
    let mut depends = vec![0u32; atoms];
    let mut set = vec![false; atoms];
    let mut marks = vec![0u64; atoms.div_ceil(64)];
    let mut work = 0;
    for (number, (_, lit)) in hubs.into_iter().enumerate() {
        if work > MAX_DEFER_WORK {
            break;
        }
        let stamp = number as u32 + 1;
        let g = lit >> 1;
        // Nothing is deferred under a hub unless some atom has `lit` in
        // every one of its rules: were the deferred atoms without cycles,
        // one of them would read no other, and it would then have to
        // read `lit` in each rule; were they on a cycle, the network is
        // refused anyway (see `new`), as taking `lit` out breaks none.
        // Many hubs of big games have none: skipped, they cost only this.
        let mut seeded = false;
        for &e in &readers[g as usize] {
            let h = rules[(e >> 1) as usize].head as usize;
            work += rules_for[h].len();
            if e & 1 == lit & 1
                && h != g as usize
                && !real[h]
                && (rules_for[h].iter()).all(|&r| rules[r as usize].lits.contains(&lit))
            {
                seeded = true;
                break;
            }
        }
        if !seeded {
            continue;
        }
        // depends(g). depends(h) :- depends(a), reads(rule of h, a).
        depends[g as usize] = stamp;
        let mut reached = vec![g];
        let mut next = 0;
        while let Some(&a) = reached.get(next) {
            next += 1;
            for &e in &readers[a as usize] {
                let h = rules[(e >> 1) as usize].head;
                if depends[h as usize] != stamp {
                    depends[h as usize] = stamp;
                    reached.push(h);
                }
            }
        }
        // Counted as the pass over every atom it once was: the budget was
        // set by that count.
        work += atoms;
        // The candidates in the order of their numbers, through a bitset
        // (cheaper than sorting them when many atoms depend on the hub).
        for &a in &reached {
            if a != g && !real[a as usize] && !rules_for[a as usize].is_empty() {
                marks[a as usize / 64] |= 1 << (a % 64);
            }
        }
        let mut members: Vec<u32> = Vec::with_capacity(reached.len());
        for (w, word) in marks.iter_mut().enumerate() {
            while *word != 0 {
                members.push((w * 64) as u32 + word.trailing_zeros());
                *word &= *word - 1;
            }
        }
        for &a in &members {
            set[a as usize] = true;
        }
        loop {
            // The greatest set meeting the conditions: passes over the
            // atoms in order take out those that fail them, until none
            // does.
            loop {
                let mut changed = false;
                work += atoms;
                for &h in &members {
                    let h = h as usize;
                    if !set[h] {
                        continue;
                    }
                    work += rules_for[h].len() + readers[h].len();
                    let rule_ok = |r: &u32| {
                        let lits = &rules[*r as usize].lits;
                        let implies_g = lits
                            .iter()
                            .any(|&l| l == lit || (l & 1 == 0 && set[(l >> 1) as usize]));
                        implies_g
                            && lits.iter().all(|&l| {
                                let a = (l >> 1) as usize;
                                l == lit || set[a] || depends[a] != stamp
                            })
                    };
                    let reader_ok = |e: &u32| {
                        let rule = &rules[(*e >> 1) as usize];
                        set[rule.head as usize] || rule.lits.contains(&lit)
                    };
                    if !(rules_for[h].iter().all(rule_ok) && readers[h].iter().all(reader_ok)) {
                        set[h] = false;
                        changed = true;
                    }
                }
                if !changed {
                    break;
                }
            }
            // The moves that would take a hub here: a first positive
            // one as long as the moves stay in few sets of hubs
            // (gomoku_swap2_15x15's squares would each make one), a
            // second or negated one only for many moves.
            let few: Vec<u32> = (members.iter().copied())
                .filter(|&a| set[a as usize] && read[a as usize])
                .collect();
            if few.is_empty() {
                break;
            }
            // A hub deferred itself is no hub of moves: its value as
            // stored is not its value.
            if !deferred[g as usize].is_empty() {
                for a in few {
                    set[a as usize] = false;
                }
                continue;
            }
            let first = few.iter().all(|&a| deferred[a as usize].is_empty()) && lit & 1 == 0;
            if first || few.len() >= SECOND_HUB_MOVES {
                let most = match first && few.len() >= FIRST_HUB_MOVES {
                    true => HUB_GROUPS,
                    false => MOVE_GROUPS,
                };
                if groups_with(&group_sizes, few.iter().map(|&a| &deferred[a as usize][..])) <= most
                {
                    break;
                }
            }
            for a in few {
                set[a as usize] = false;
            }
        }
        for &h in &members {
            if set[h as usize] {
                real[g as usize] |= read[h as usize];
                if read[h as usize] {
                    let group = &deferred[h as usize];
                    let size = group_sizes.get_mut(group).expect("a read atom's group");
                    *size -= 1;
                    if *size == 0 {
                        group_sizes.remove(group);
                    }
                    let mut group = group.clone();
                    group.push(lit);
                    *group_sizes.entry(group).or_default() += 1;
                }
                deferred[h as usize].push(lit);
                for &r in &rules_for[h as usize] {
                    rules[r as usize].lits.retain(|&l| l != lit);
                }
            }
        }
        readers[g as usize]
            .retain(|&e| e & 1 != lit & 1 || !set[rules[(e >> 1) as usize].head as usize]);
        for &h in &members {
            set[h as usize] = false;
        }
    }
    deferred
}

/// How many groups the atoms read outside the network would fall in, were
/// `moving` (the lists of hubs of some of them, one each) deferred under
/// one hub more, given how many are under each list now (`sizes`): the
/// lists of those that move, and those of the others that some atom left
/// behind still has.
fn groups_with<'a>(
    sizes: &FxHashMap<Vec<u32>, usize>,
    moving: impl Iterator<Item = &'a [u32]>,
) -> usize {
    let mut moved: FxHashMap<&[u32], usize> = FxHashMap::default();
    for group in moving {
        *moved.entry(group).or_default() += 1;
    }
    let emptied = (moved.iter())
        .filter(|&(group, &n)| sizes.get(*group) == Some(&n))
        .count();
    moved.len() + sizes.len() - emptied
}

/// The atoms that wait until goals are asked: those with rules that no atom
/// in `play` depends on (through rules, or as a hub it is deferred under).
/// A playout asks the goals once, at its end, but would settle every atom
/// at every step: in queens, the rules that count the queens attacked
/// (98% of the ground rules) are read by `goal` alone. Settled only when
/// asked, each flips at most once however many steps changed what it
/// reads (Sancho's propnet leaves goals out of its playouts likewise).
/// Play's atoms never read one that waits, so they settle without them.
fn waiting_atoms(rules: &[Rule], atoms: usize, play: &[bool], deferred: &[Vec<u32>]) -> Vec<bool> {
    let mut rules_for = vec![Vec::new(); atoms];
    for (r, rule) in rules.iter().enumerate() {
        rules_for[rule.head as usize].push(r);
    }
    // An atom reads its rules' literals and the hubs it is deferred under.
    let has_rules = |a: usize| !rules_for[a].is_empty();
    unread_by_play(atoms, play, has_rules, |a, todo| {
        let lits = rules_for[a as usize].iter().flat_map(|&r| &rules[r].lits);
        todo.extend(lits.chain(&deferred[a as usize]).map(|&l| l >> 1));
    })
}

/// Leaves out the rules of the atoms that no atom marked in `read` (those
/// read outside the network) depends on: nothing can observe them. Queens
/// derives which squares are attacked, and rows and columns, that no rule
/// of legal moves, `next`, `terminal` or goals reads (a quarter of its
/// ground rules); kept, they would wait for the goals and be settled at
/// the end of every playout (see `waiting_atoms`).
///
/// observed(a) :- read(a).
/// observed(b) :- observed(a), a rule for a reads b.
fn leave_out_unobserved(rules: &mut Vec<Rule>, atoms: usize, read: &[bool]) {
    let mut rules_for = vec![Vec::new(); atoms];
    for (r, rule) in rules.iter().enumerate() {
        rules_for[rule.head as usize].push(r);
    }
    let has_rules = |a: usize| !rules_for[a].is_empty();
    let unobserved = unread_by_play(atoms, read, has_rules, |a, todo| {
        let lits = rules_for[a as usize].iter().flat_map(|&r| &rules[r].lits);
        todo.extend(lits.map(|&l| l >> 1));
    });
    rules.retain(|rule| !unobserved[rule.head as usize]);
}

/// The atoms with rules (`has_rules`) that no atom marked in `play`
/// depends on, marked; `reads(a, todo)` pushes onto `todo` every atom that
/// atom `a` reads.
///
/// needed(a) :- play(a).
/// needed(b) :- needed(a), reads(a, b).
pub(super) fn unread_by_play(
    atoms: usize,
    play: &[bool],
    has_rules: impl Fn(usize) -> bool,
    mut reads: impl FnMut(u32, &mut Vec<u32>),
) -> Vec<bool> {
    let mut needed = vec![false; atoms];
    let mut todo: Vec<u32> = (0..atoms as u32)
        .filter(|&a| play.get(a as usize).is_some_and(|&p| p))
        .collect();
    while let Some(a) = todo.pop() {
        if !std::mem::replace(&mut needed[a as usize], true) {
            reads(a, &mut todo);
        }
    }
    (0..atoms).map(|a| !needed[a] && has_rules(a)).collect()
}

/// Lists of numbers in a row: list `i` is `items[start[i]..start[i + 1]]`.
#[derive(Debug)]
struct Rows {
    start: Vec<u32>,
    items: Vec<u32>,
}

impl Rows {
    /// The lists in a row, in order.
    fn new<'a>(lists: impl Iterator<Item = &'a [u32]> + Clone) -> Rows {
        let mut rows = Rows {
            start: vec![0],
            items: Vec::with_capacity(lists.clone().map(<[u32]>::len).sum()),
        };
        for list in lists {
            rows.items.extend_from_slice(list);
            rows.start.push(rows.items.len() as u32);
        }
        rows
    }

    /// The lists, in order.
    fn iter(&self) -> impl Iterator<Item = &[u32]> {
        (0..self.start.len() - 1).map(|i| &self[i])
    }
}

impl std::ops::Index<usize> for Rows {
    type Output = [u32];

    fn index(&self, i: usize) -> &[u32] {
        &self.items[self.start[i] as usize..self.start[i + 1] as usize]
    }
}

/// A rule of a `Shape`: its head and its literals.
struct RuleRef<'a> {
    head: u32,
    lits: &'a [u32],
}

/// The ground rules of a network as it reads them, rewritten (factored,
/// merged, deferred under hubs: see `Shape::new`) but not yet armed:
/// loading builds a network from them once, counts what its seeded
/// playouts read, then builds it again armed as the counts say, without
/// rewriting the rules twice.
///
/// Kept in rows of one allocation each (skirmish's 2.8 million rules
/// took 170 MB more as a vector a rule).
#[derive(Debug)]
pub struct Shape {
    /// Per rule, its head and its literals.
    heads: Vec<u32>,
    lits: Rows,
    atoms: usize,
    always: u32,
    /// Per atom, whether it is of a move relation; the hubs it is
    /// deferred under; the rules reading it (`rule << 1 | negated`);
    /// whether it waits until goals are asked.
    is_move: Vec<bool>,
    deferred: Vec<Vec<u32>>,
    readers_of: Rows,
    waits: Vec<bool>,
    cycles: Cycles,
    role_sets: usize,
    long_rules: (usize, usize),
    equivalents: usize,
}

impl Shape {
    /// The rules of the network of a ground program whose atoms in
    /// `move_atoms` (ranges) belong to relations that read `does`;
    /// `exclusive` lists each role's `does` atoms, sorted, exactly one of
    /// which holds in a joint move (see `factor`; with `sets_of_roles`,
    /// sets of several roles' moves are read through what each plays
    /// otherwise). Atoms marked in `read` are read outside the network, so
    /// keep their numbers (see `merge_copies`); those in `real` are never
    /// deferred (see `defer_hubs`); those in `play` are read at every step
    /// (legal moves, `next`, `terminal`), and the atoms none of them
    /// depends on wait until goals are asked (see `waiting_atoms`). The
    /// rules of the atoms marked in `left_out` are left out (see
    /// `LazyRules`). Atoms on a cycle of ground atoms are settled a
    /// component at a time (see `cycles`); `None` when a rule reads an
    /// atom of its own component negated.
    pub fn new(
        g: &Grounded,
        move_atoms: &[std::ops::Range<u32>],
        exclusive: &[Vec<u32>],
        (read, real, play): (&[bool], &[bool], &[bool]),
        (left_out, sets_of_roles): (&[bool], bool),
    ) -> Option<Shape> {
        // Atoms are numbered 0..atoms: the ground program's, the
        // always-true one, then those `factor` makes.
        let always = g.atoms() as u32;
        let atoms = g.atoms() + 1;
        let mut rules: Vec<Rule> = g
            .ground_rules()
            .filter(|&(head, _, _)| !left_out.get(head as usize).is_some_and(|&l| l))
            // a and not a: the rule never fires.
            .filter(|(_, pos, neg)| !pos.iter().any(|a| neg.contains(a)))
            .map(|(head, pos, neg)| Rule {
                head,
                lits: pos
                    .iter()
                    .map(|&a| a << 1)
                    .chain(neg.iter().map(|&a| a << 1 | 1))
                    .collect(),
            })
            .collect();
        leave_out_unobserved(&mut rules, atoms, read);
        // One flag per atom: a game whose rules are condensed has many
        // move relations, and so many ranges to look through.
        let mut is_move = vec![false; atoms];
        for r in move_atoms {
            is_move[r.start as usize..r.end as usize].fill(true);
        }
        let (atoms, role_sets) =
            factor(&mut rules, atoms, &mut is_move, (exclusive, sets_of_roles));
        // An atom whose moves `factor` wrote into the sets of others (a
        // move from another square) may be read by none now.
        if role_sets > 0 {
            let mut observed = read.to_vec();
            observed.resize(atoms, false);
            leave_out_unobserved(&mut rules, atoms, &observed);
        }
        let (atoms, long_rules) = split_long_bodies(&mut rules, atoms, &mut is_move);
        let is_move_of = is_move;
        let is_move = |a: usize| is_move_of[a];
        let (mut read, mut real) = (read.to_vec(), real.to_vec());
        read.resize(atoms, false);
        real.resize(atoms, false);
        merge_copies(&mut rules, atoms, &read, is_move);
        let equivalents = merge_equivalents(&mut rules, atoms, &read, is_move);
        // An atom on a cycle is never deferred (its component is derived
        // from its rules as written), so deferring leaves the rules of
        // the components as they are.
        let cycles = Cycles::new(&rules, &readers_of(&rules, atoms))?;
        for (a, real) in real.iter_mut().enumerate() {
            *real |= cycles.has(a);
        }
        let deferred = defer_hubs(&mut rules, atoms, &read, &real);
        let readers_of = readers_of(&rules, atoms);
        let waits = waiting_atoms(&rules, atoms, play, &deferred);
        Some(Shape {
            heads: rules.iter().map(|r| r.head).collect(),
            lits: Rows::new(rules.iter().map(|r| &r.lits[..])),
            atoms,
            always,
            is_move: is_move_of,
            deferred,
            readers_of: Rows::new(readers_of.iter().map(|r| &r[..])),
            waits,
            cycles,
            role_sets,
            long_rules,
            equivalents,
        })
    }

    /// These rules as a program read whole at each step (see `dense`),
    /// where they are few and acyclic.
    pub fn dense(&self) -> Option<Dense> {
        let rules = (self.heads.iter().enumerate()).map(|(r, &head)| (head, &self.lits[r]));
        let atoms = (self.atoms, self.always);
        Dense::new(rules, atoms, (&self.is_move, &self.waits), &self.cycles)
    }

    /// The network of these rules, the gates and guards `arming` marks
    /// armed (see the module's doc and `Arming`); `None` where its atoms
    /// cannot be put in levels.
    pub fn network(&self, arming: &Arming) -> Option<Network> {
        let rules: Vec<RuleRef> = (self.heads.iter().enumerate())
            .map(|(r, &head)| RuleRef {
                head,
                lits: &self.lits[r],
            })
            .collect();
        let (rules, atoms, always) = (&rules, self.atoms, self.always);
        let (readers_of, waits, cycles) = (&self.readers_of, &self.waits, &self.cycles);
        let is_move = |a: usize| self.is_move[a];
        // Gates: move atoms no rule derives (`does`), read positively by a
        // rule whose other literals are all of state relations.
        let mut derived = vec![false; atoms];
        for rule in rules {
            derived[rule.head as usize] = true;
        }
        let gate_of: Vec<Option<u32>> = rules
            .iter()
            .map(|rule| {
                let gate = rule.lits.iter().position(|&l| {
                    l & 1 == 0 && is_move((l >> 1) as usize) && !derived[(l >> 1) as usize]
                })?;
                let others_state = (rule.lits.iter().enumerate())
                    .all(|(i, &l)| i == gate || !is_move((l >> 1) as usize));
                // A gate counts its rule from atoms as they stand when it
                // opens, which waiting atoms may not be; a component on a
                // cycle counts its rules always.
                let waiting = waits[rule.head as usize];
                let plain = !waiting && !cycles.has(rule.head as usize);
                (others_state && rule.lits.len() > 1 && plain).then_some(gate as u32)
            })
            .collect();
        let does_gates = gate_of.iter().any(Option::is_some);
        // Guards (see `Arming::flips`): a literal of a rule that is neither
        // gated nor on a cycle, whose atom may guard (`guardable`: not the
        // always-true one nor a `does` atom that gates rules), which flips
        // far more often than the others.
        let move_inputs: Vec<bool> = (0..atoms).map(|a| is_move(a) && !derived[a]).collect();
        let mut gates_some = vec![false; atoms];
        for (rule, gate) in rules.iter().zip(&gate_of) {
            if let Some(g) = gate {
                gates_some[(rule.lits[*g as usize] >> 1) as usize] = true;
            }
        }
        let may_guard = guardable(always, &move_inputs, &gates_some);
        let flipped = |a: u32| arming.flips.get(a as usize).map_or(0, |&f| u64::from(f));
        // The rules counted are these only where the heads are the same.
        let counted = !arming.flips.is_empty()
            && arming.visits.len() == rules.len()
            && arming.heads == heads_hash(rules.iter().map(|r| r.head));
        let candidates: Vec<Option<(usize, u64)>> = (rules.iter().zip(&gate_of).enumerate())
            .map(|(r, (rule, gate))| {
                if gate.is_some() || !counted || cycles.has(rule.head as usize) {
                    return None;
                }
                let lits = rule.lits.iter().map(|&l| {
                    let a = l >> 1;
                    (flipped(a), may_guard[a as usize])
                });
                let reads = (u64::from(arming.visits[r]), u64::from(arming.idle[r]));
                // A guard read twice by its rule would be counted once.
                let (i, gain) = guard_among(lits, reads)?;
                let guard = rule.lits[i] >> 1;
                let once = rule.lits.iter().filter(|&&l| l >> 1 == guard).count() == 1;
                once.then_some((i, gain))
            })
            .collect();
        let guard_atom = |r: usize| candidates[r].map(|(i, _)| rules[r].lits[i] >> 1);
        let mut flips_by_atom = arming.flips.clone();
        flips_by_atom.resize(atoms, 0);
        let kept = guards_kept(
            &flips_by_atom,
            (0..rules.len()).filter_map(|r| Some((guard_atom(r)?, candidates[r]?.1))),
        );
        let mut guarded = vec![false; rules.len()];
        let gate_of: Vec<Option<u32>> = (gate_of.into_iter().enumerate())
            .map(|(r, gate)| {
                let guard =
                    candidates[r].filter(|_| kept[guard_atom(r).expect("a guard") as usize]);
                guarded[r] = guard.is_some();
                gate.or(guard.map(|(i, _)| i as u32))
            })
            .collect();
        let mut info = vec![AtomInfo::default(); atoms];
        let mut readers = Vec::with_capacity(readers_of.items.len());
        let mut gated_by = vec![Vec::new(); atoms];
        for (r, (rule, gate)) in rules.iter().zip(&gate_of).enumerate() {
            if let Some(gate) = gate {
                gated_by[(rule.lits[*gate as usize] >> 1) as usize].push(r);
            }
        }
        // Each gate's rules, numbered in `gates`; those of an armed gate
        // (see the module's doc) each with a bit (`bit_of`), a gate's bits
        // starting a word.
        let (mut gates, mut gate_lits) = (Vec::new(), Vec::new());
        let mut bit_of = vec![NO_BIT; rules.len()];
        let mut armed_base = vec![NO_BIT; atoms];
        let mut armed_bits = 0u32;
        let (mut guards, mut move_guards) = ((0, 0), 0);
        for (a, gated) in gated_by.iter().enumerate() {
            // A guard's rules are all guarded (its atom gates none).
            let guard = gated.first().is_some_and(|&r| guarded[r]);
            if guard {
                guards = (guards.0 + 1, guards.1 + gated.len());
                move_guards += usize::from(move_inputs[a]);
            }
            if (guard || arming.gates.get(a).is_some_and(|&arm| arm)) && !gated.is_empty() {
                armed_base[a] = armed_bits.next_multiple_of(64);
                armed_bits = armed_base[a];
            }
            info[a].gate_start = gates.len() as u32;
            for &r in gated {
                let start = gate_lits.len() as u32;
                let gate = gate_of[r].expect("a gated rule") as usize;
                let others = rules[r].lits.iter().enumerate().filter(|&(i, _)| i != gate);
                gate_lits.extend(others.map(|(_, &l)| l));
                gates.push(Gated {
                    rule: r as u32,
                    start,
                    end: gate_lits.len() as u32,
                    negated: rules[r].lits[gate] & 1 == 1,
                });
                if armed_base[a] != NO_BIT {
                    bit_of[r] = armed_bits;
                    armed_bits += 1;
                }
            }
            info[a].gate_end = gates.len() as u32;
        }
        let armed_rule = |r: usize| bit_of[r] != NO_BIT;
        let gate_lit = |r: usize| gate_of[r].map(|g| rules[r].lits[g as usize]);
        let gate_atom = |r: usize| gate_lit(r).map(|l| (l >> 1) as usize);
        for (a, of) in readers_of.iter().enumerate() {
            let counted = |e: &&u32| gate_of[(**e >> 1) as usize].is_none();
            info[a].start = readers.len() as u32;
            readers.extend(
                of.iter()
                    .filter(counted)
                    .filter(|&&e| e & 1 == 0)
                    .map(|e| e >> 1),
            );
            info[a].negated = readers.len() as u32;
            readers.extend(
                of.iter()
                    .filter(counted)
                    .filter(|&&e| e & 1 == 1)
                    .map(|e| e >> 1),
            );
            info[a].end = readers.len() as u32;
        }
        // An armed rule reads its other literals (not its gate).
        let (mut armed_reads, mut armed_readers) = (Vec::new(), Vec::new());
        if armed_bits == 0 {
            armed_base = Vec::new();
        } else {
            armed_reads = vec![ArmedReads::default(); atoms];
            for (a, of) in readers_of.iter().enumerate() {
                let armed = |negated: u32| {
                    of.iter()
                        .filter(move |&&e| e & 1 == negated)
                        .map(|e| (e >> 1) as usize)
                        .filter(|&r| armed_rule(r) && gate_atom(r) != Some(a))
                        .map(|r| ArmedReader {
                            rule: r as u32,
                            bit: bit_of[r],
                            gate: match guarded[r] {
                                true => gate_lit(r).expect("a guarded rule has a guard"),
                                false => SHUT,
                            },
                        })
                };
                let start = armed_readers.len() as u32;
                armed_readers.extend(armed(0));
                let negated = armed_readers.len() as u32;
                armed_readers.extend(armed(1));
                let end = armed_readers.len() as u32;
                armed_reads[a] = ArmedReads {
                    start,
                    negated,
                    end,
                };
            }
        }
        // Levels by a topological sort of the atoms (Kahn): an atom is
        // placed once every body literal of every rule for it is placed;
        // a component on a cycle, once every literal of its rules outside
        // it is, all its atoms at one level.
        let component = |a: usize| cycles.of.get(a).copied().filter(|&c| c != NO_CYCLE);
        let mut waiting = vec![0u32; atoms];
        let mut component_waiting = vec![0u32; cycles.len()];
        let mut component_level = vec![1u32; cycles.len()];
        for rule in rules {
            let h = rule.head as usize;
            match component(h) {
                Some(c) => {
                    let outside = rule
                        .lits
                        .iter()
                        .filter(|&&l| component((l >> 1) as usize) != Some(c));
                    component_waiting[c as usize] += outside.count() as u32;
                }
                None => waiting[h] += rule.lits.len() as u32,
            }
        }
        let mut ready: Vec<u32> = (0..atoms as u32)
            .filter(|&a| waiting[a as usize] == 0 && !cycles.has(a as usize))
            .collect();
        for (c, _) in component_waiting
            .iter()
            .enumerate()
            .filter(|&(_, &w)| w == 0)
        {
            ready.extend(cycles.atoms_of(c));
            for &a in cycles.atoms_of(c) {
                info[a as usize].level = 1;
            }
        }
        let mut placed = 0;
        while let Some(a) = ready.pop() {
            placed += 1;
            let level = info[a as usize].level + 1;
            for &e in &readers_of[a as usize] {
                let h = rules[(e >> 1) as usize].head as usize;
                match component(h) {
                    Some(c) => {
                        let c = c as usize;
                        if component(a as usize) == Some(c as u32) {
                            continue;
                        }
                        component_level[c] = component_level[c].max(level);
                        component_waiting[c] -= 1;
                        if component_waiting[c] == 0 {
                            for &m in cycles.atoms_of(c) {
                                info[m as usize].level = component_level[c];
                                ready.push(m);
                            }
                        }
                    }
                    None => {
                        info[h].level = info[h].level.max(level);
                        waiting[h] -= 1;
                        if waiting[h] == 0 {
                            ready.push(h as u32);
                        }
                    }
                }
            }
        }
        if placed < atoms {
            return None;
        }
        // The atoms play reads of state relations, then those of move
        // relations, then those that wait, each above the one before.
        let state_top = (0..atoms)
            .filter(|&a| !is_move(a) && !waits[a])
            .map(|a| info[a].level)
            .max()
            .unwrap_or(0);
        for (a, i) in info.iter_mut().enumerate() {
            if is_move(a) && !waits[a] && i.level > 0 {
                i.level += state_top + 1;
            }
        }
        let play_top = (0..atoms)
            .filter(|&a| !waits[a])
            .map(|a| info[a].level)
            .max()
            .unwrap_or(0);
        for (a, i) in info.iter_mut().enumerate() {
            if waits[a] {
                i.level += play_top + 1;
            }
        }
        let top = info.iter().map(|i| i.level).max().unwrap_or(0);
        let mut level_start = vec![0u32; top as usize + 2];
        for i in &info {
            level_start[i.level as usize + 1] += 1;
        }
        for l in 1..level_start.len() {
            level_start[l] += level_start[l - 1];
        }
        // Each rule's count fits a byte (see `split_long_bodies`).
        assert!(rules.iter().all(|r| r.lits.len() <= MAX_LITERALS));
        let network = Network {
            heads: rules.iter().map(|r| r.head).collect(),
            unsatisfied: (rules.iter().zip(&gate_of).enumerate())
                .map(|(i, (r, gate))| {
                    let positive = r.lits.iter().filter(|&&l| l & 1 == 0).count() as u8;
                    match gate {
                        // An armed rule counts its other positive atoms.
                        Some(g) if armed_rule(i) => {
                            positive - u8::from(r.lits[*g as usize] & 1 == 0)
                        }
                        // Another gated rule counts its shut gate alone.
                        Some(_) => 1,
                        None => positive,
                    }
                })
                .collect(),
            armed_bits,
            does_gates,
            may_guard,
            guards,
            move_guards,
            atoms: info,
            readers,
            armed_reads,
            armed_readers,
            armed_base,
            gates,
            gate_lits,
            deferred: self.deferred.clone(),
            level_start,
            state_top,
            play_top,
            top,
            always,
            cycles: cycles.clone(),
            role_sets: self.role_sets,
            long_rules: self.long_rules,
            equivalents: self.equivalents,
            id: {
                static NETWORKS: std::sync::atomic::AtomicU64 =
                    std::sync::atomic::AtomicU64::new(0);
                NETWORKS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            },
        };
        network.check_invariants();
        Some(network)
    }
}

impl Network {
    /// Panics unless the invariants that the hot loop's unchecked indexing
    /// relies on hold (see `hot.rs`): every rule's head is an atom; every
    /// reader is a rule; the readers, gates and gate literals of each atom
    /// are ranges within their tables and name atoms and rules; each level
    /// has a queue whose room is its number of atoms, and the queues
    /// together are one slot per atom. Run once, as the network is built.
    fn check_invariants(&self) {
        let (atoms, rules) = (self.atoms.len(), self.heads.len());
        assert!((self.always as usize) < atoms, "the always-true atom");
        assert_eq!(self.unsatisfied.len(), rules, "a count per rule");
        assert!(self.heads.iter().all(|&h| (h as usize) < atoms));
        assert!(self.readers.iter().all(|&r| (r as usize) < rules));
        assert!(self.armed_reads.is_empty() || self.armed_reads.len() == atoms);
        assert!(self.armed_reads.iter().all(|a| a.start <= a.negated
            && a.negated <= a.end
            && a.end as usize <= self.armed_readers.len()));
        assert!(self.armed_readers.iter().all(|r| (r.rule as usize) < rules
            && r.bit < self.armed_bits
            && (r.gate == SHUT || ((r.gate >> 1) as usize) < atoms)));
        assert!(self.armed_base.is_empty() || self.armed_base.len() == atoms);
        assert!(
            self.armed_base
                .iter()
                .zip(&self.atoms)
                .all(|(&base, a)| base == NO_BIT
                    || base % 64 == 0 && base + (a.gate_end - a.gate_start) <= self.armed_bits)
        );
        assert!(self.gates.iter().all(|g| (g.rule as usize) < rules
            && g.start <= g.end
            && g.end as usize <= self.gate_lits.len()));
        assert!(self.gate_lits.iter().all(|&l| ((l >> 1) as usize) < atoms));
        let levels = self.top as usize + 1;
        assert_eq!(self.level_start.len(), levels + 1);
        assert_eq!(self.level_start[levels] as usize, atoms);
        assert!(self.level_start.windows(2).all(|w| w[0] <= w[1]));
        assert!(self.state_top <= self.play_top && self.play_top <= self.top);
        let mut room = vec![0u32; levels];
        for a in &self.atoms {
            assert!(a.start <= a.negated && a.negated <= a.end);
            assert!(a.end as usize <= self.readers.len());
            assert!(a.gate_start <= a.gate_end && a.gate_end as usize <= self.gates.len());
            assert!((a.level as usize) < levels);
            room[a.level as usize] += 1;
        }
        assert!((0..levels).all(|l| self.level_start[l + 1] - self.level_start[l] == room[l]));
        assert_eq!(self.deferred.len(), atoms);
        self.cycles.check(atoms);
    }

    /// The hub literals (`atom << 1 | negated`) an atom is deferred under,
    /// none for most: the atom holds when it (as stored) and every one of
    /// them hold (see `defer_hubs`).
    pub fn deferred_under(&self, atom: u32) -> &[u32] {
        &self.deferred[atom as usize]
    }

    /// Whether some rule reads the atom or is gated by it: setting an
    /// input atom that is not read changes nothing else.
    pub fn is_read(&self, atom: u32) -> bool {
        let info = &self.atoms[atom as usize];
        info.start < info.end || info.gate_start < info.gate_end || !self.armed(atom).is_empty()
    }

    /// The armed rules reading an atom.
    pub(super) fn armed(&self, atom: u32) -> &[ArmedReader] {
        match self.armed_reads.get(atom as usize) {
            Some(a) => &self.armed_readers[a.start as usize..a.end as usize],
            None => &[],
        }
    }

    /// How many components of atoms are on a cycle, how many atoms they
    /// have, and how many rules derive them.
    pub fn cycle_sizes(&self) -> (usize, usize, usize) {
        let (atoms, rules) = self.cycles.sizes();
        (self.cycles.len(), atoms, rules)
    }

    /// A hash of the rules' heads in order (see `Arming::heads`).
    pub fn heads_hash(&self) -> u64 {
        heads_hash(self.heads.iter().copied())
    }

    /// Whether some rule is gated by a `does` atom (see the module's doc).
    pub fn has_gates(&self) -> bool {
        self.does_gates
    }

    /// How many atoms guard rules (see `Arming`), and how many rules.
    pub fn guards(&self) -> (usize, usize) {
        self.guards
    }

    /// How many of the atoms that guard rules are `does` atoms (a noop,
    /// see `guardable`).
    pub fn move_guards(&self) -> usize {
        self.move_guards
    }

    /// Whether a network built with these counts of flips by atom and of
    /// reads by rule (see `Arming`), counted on this network, would guard
    /// some rule: this network's rules (it guards none) read through
    /// their atoms' readers, each rule's literals in another order than
    /// its own, which changes which of two literals that flipped alike
    /// guards it but not whether one does.
    pub fn would_guard(&self, flips: &[u32], (visits, idle): (&[u32], &[u32])) -> bool {
        let rules = self.heads.len();
        let (mut total, mut most, mut lits) =
            (vec![0u64; rules], vec![None; rules], vec![0u32; rules]);
        for (a, info) in self.atoms.iter().enumerate() {
            let f = flips.get(a).map_or(0, |&f| u64::from(f));
            let may_guard = self.may_guard[a];
            for &r in &self.readers[info.start as usize..info.end as usize] {
                let r = r as usize;
                total[r] += f;
                lits[r] += 1;
                if may_guard && most[r].is_none_or(|(m, _)| f > m) {
                    most[r] = Some((f, a as u32));
                }
            }
        }
        let candidates = (0..rules).filter_map(|r| {
            let head = self.heads[r] as usize;
            let (f, a) = most[r].filter(|_| !self.cycles.has(head))?;
            // The rule's literals as if the most flipped came first (a
            // guard flips more than all the others, so no other ties it).
            let rest = (1..lits[r]).map(|i| (if i == 1 { total[r] - f } else { 0 }, false));
            let reads = (u64::from(visits[r]), u64::from(idle[r]));
            guard_among(std::iter::once((f, true)).chain(rest), reads).map(|(_, gain)| (a, gain))
        });
        let mut flips = flips.to_vec();
        flips.resize(self.atoms.len(), 0);
        guards_kept(&flips, candidates).contains(&true)
    }

    /// How many heads read a set of several roles' moves through what
    /// each role plays otherwise (see `factor`).
    pub fn role_sets(&self) -> usize {
        self.role_sets
    }

    /// How many rules had more than `MAX_LITERALS` literals, and how many
    /// links the chains that stand for them add (see
    /// `split_long_bodies`).
    pub fn long_rules(&self) -> (usize, usize) {
        self.long_rules
    }

    /// How many atoms were merged into others that have the same rules
    /// (see `merge_equivalents`).
    pub fn equivalents(&self) -> usize {
        self.equivalents
    }

    /// How many `does` gates are armed, and how many rules they gate.
    pub fn armed_gates(&self) -> (usize, usize) {
        let armed = (self.armed_base.iter().zip(&self.atoms)).filter(|&(&base, _)| base != NO_BIT);
        let (gates, rules) = armed.fold((0, 0), |(gates, rules), (_, a)| {
            (gates + 1, rules + (a.gate_end - a.gate_start) as usize)
        });
        (gates - self.guards.0, rules - self.guards.1)
    }

    /// The bit of the first rule an atom gates when it is an armed gate,
    /// its other rules' following; else `NO_BIT`.
    #[inline]
    pub(super) fn armed_base(&self, atom: u32) -> u32 {
        self.armed_base
            .get(atom as usize)
            .copied()
            .unwrap_or(NO_BIT)
    }

    /// Whether some gate gates at least `ARMED_MIN` rules, and so might
    /// be worth arming (see `worth_arming`).
    pub fn has_big_gates(&self) -> bool {
        (self.atoms.iter()).any(|a| (a.gate_end - a.gate_start) as usize >= ARMED_MIN)
    }

    /// The gates worth arming, by atom (`None` when none is), given how
    /// often each atom flipped and each gate opened in some playouts on
    /// this network (see `Evaluation::count`), when it arms none.
    ///
    /// A gate of at least `ARMED_MIN` rules is armed where that costs
    /// less: opening and shutting it reads each of its rules and their
    /// other literals, where armed, its rules are read as their other
    /// literals flip (at `ARMED_READ` the read), and opening it costs
    /// only the rules ready then. In the Dresden pancake puzzles, each
    /// flip gates a rule per order of the stack (40,320), of which one
    /// fires; in tron, a move's rules read squares that seldom change.
    pub fn worth_arming(&self, flips: &[u32], opens: &[u32]) -> Option<Vec<bool>> {
        let mut arm = vec![false; self.atoms.len()];
        for (a, info) in self.atoms.iter().enumerate() {
            let gates = &self.gates[info.gate_start as usize..info.gate_end as usize];
            if gates.len() < ARMED_MIN || opens[a] == 0 {
                continue;
            }
            let lits = |g: &Gated| &self.gate_lits[g.start as usize..g.end as usize];
            let open = (gates.iter())
                .map(|g| 2 + lits(g).len() as u64)
                .sum::<u64>()
                * u64::from(opens[a]);
            let armed = (gates.iter().flat_map(lits))
                .map(|&l| u64::from(flips[(l >> 1) as usize]))
                .sum::<u64>()
                * ARMED_READ;
            arm[a] = armed < open;
        }
        arm.contains(&true).then_some(arm)
    }

    /// How many atoms there are, the always-true one and those made by
    /// factoring included (numbered after the ground program's).
    pub fn atoms(&self) -> usize {
        self.atoms.len()
    }

    /// The atom that always holds.
    pub fn always(&self) -> u32 {
        self.always
    }
}

#[cfg(test)]
mod tests {
    use super::{Rule, defer_hubs, factor};

    /// Heads `0..heads`, each with a rule per turn condition `t` (atoms
    /// from `2 * heads` on): `h :- e_h, t`, with `e_h` (atom `heads + h`)
    /// its own square.
    fn rules_with_turns(heads: u32, turns: u32) -> (Vec<Rule>, usize) {
        let mut rules = Vec::new();
        for h in 0..heads {
            for t in 0..turns {
                rules.push(Rule {
                    head: h,
                    lits: vec![(heads + h) << 1, (2 * heads + t) << 1],
                });
            }
        }
        (rules, (2 * heads + turns) as usize)
    }

    #[test]
    fn heads_sharing_their_rest_share_one_atom_for_it() {
        // gomoku_swap2_15x15's squares: each move holds on an empty square
        // under any of three turn conditions of its player.
        let (mut rules, atoms) = rules_with_turns(super::SHARED_REST_MIN as u32, 3);
        let mut is_move = vec![false; atoms];
        let now = factor(&mut rules, atoms, &mut is_move, (&[], true)).0;
        assert_eq!(now, atoms + 1, "one new atom");
        let x = atoms as u32;
        for h in 0..super::SHARED_REST_MIN as u32 {
            let of_h: Vec<&Vec<u32>> = (rules.iter().filter(|r| r.head == h))
                .map(|r| &r.lits)
                .collect();
            let square = (super::SHARED_REST_MIN as u32 + h) << 1;
            assert_eq!(of_h, [&vec![square, x << 1]], "head {h}");
        }
        let mut of_x: Vec<&Vec<u32>> = (rules.iter().filter(|r| r.head == x))
            .map(|r| &r.lits)
            .collect();
        of_x.sort();
        let turn = |t: u32| vec![(2 * super::SHARED_REST_MIN as u32 + t) << 1];
        assert_eq!(of_x, [&turn(0), &turn(1), &turn(2)]);
    }

    #[test]
    fn a_rest_of_few_heads_is_left_as_it_is() {
        let heads = super::SHARED_REST_MIN as u32 - 1;
        let (mut rules, atoms) = rules_with_turns(heads, 3);
        let before = rules.len();
        let mut is_move = vec![false; atoms];
        assert_eq!(
            factor(&mut rules, atoms, &mut is_move, (&[], true)).0,
            atoms
        );
        assert_eq!(rules.len(), before);
    }

    /// Atoms: 0..n moves (read outside), then per move its own hub, then a
    /// shared hub, then heads of the rules that make each hub one.
    fn rules_with_hubs(moves: u32, shared: bool) -> (Vec<Rule>, usize) {
        let hub = |m: u32| if shared { 2 * moves } else { moves + m };
        let mut rules = Vec::new();
        let mut next = 2 * moves + 1;
        for m in 0..moves {
            rules.push(Rule {
                head: m,
                lits: vec![hub(m) << 1],
            });
        }
        // Three more readers of each hub, so that it is one.
        for m in 0..moves {
            for _ in 0..3 {
                rules.push(Rule {
                    head: next,
                    lits: vec![hub(m) << 1],
                });
                next += 1;
            }
        }
        (rules, next as usize)
    }

    #[test]
    fn a_hub_of_each_move_alone_defers_moves_into_few_groups() {
        // gomoku_swap2_15x15's squares: a group per move to look at on
        // every step would cost more than the flips it saves.
        let (mut rules, atoms) = rules_with_hubs(10, false);
        let read: Vec<bool> = (0..atoms).map(|a| a < 10).collect();
        let deferred = defer_hubs(&mut rules, atoms, &read, &vec![false; atoms]);
        let groups: std::collections::HashSet<&Vec<u32>> = deferred[..10].iter().collect();
        assert_eq!(groups.len(), super::MOVE_GROUPS, "{deferred:?}");
    }

    #[test]
    fn a_hub_of_many_moves_defers_them() {
        // Whose turn it is: every move of the role under one hub.
        let (mut rules, atoms) = rules_with_hubs(10, true);
        let read: Vec<bool> = (0..atoms).map(|a| a < 10).collect();
        let deferred = defer_hubs(&mut rules, atoms, &read, &vec![false; atoms]);
        assert!(
            deferred[..10].iter().all(|d| d == &[20 << 1]),
            "{deferred:?}"
        );
    }
}
