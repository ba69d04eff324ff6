//! Incremental evaluation of the ground rules: a model kept up to date as
//! input atoms (`true`, `does`) change, touching only what depends on them.
//!
//! Each ground rule counts its unsatisfied literals (positive atoms false,
//! negated atoms true); it fires when the count is zero. Each derived atom
//! counts the rules for it that fire; it holds when the count is positive.
//! Flipping an input atom updates the counts of the rules that read it, and
//! a head whose count crosses zero is queued at its level. Levels follow
//! the ground dependency graph (a head is above every atom of its bodies),
//! so queued atoms are settled level by level and each flips at most once
//! per propagation. Counting is exact only when that graph is acyclic:
//! stratified negation makes it so apart from recursive strata, which must
//! not recurse through a cycle of ground atoms (a ray growing square by
//! square does not; reachability over a graph with cycles does), else no
//! network is built.
//!
//! Atoms of move relations (those that read `does`) sit above every atom of
//! state relations, so a state's own model can be settled alone and the
//! move part left queued until a joint move is set.
//!
//! Some atoms are read by many rules and flip at every step (whose turn it
//! is). Atoms derived from such a hub that are only read where the hub
//! holds are *deferred*: computed as if it held, they no longer flip with
//! it (see `defer_hubs`). Of the other rules, one reading a *gate* atom does not count that literal:
//! it counts the others, and while they are all satisfied it waits in its
//! gate's list of ready rules. A gate's flip then touches only its ready
//! rules (a few legal moves) instead of every rule that reads it.

use crate::ground::Grounded;

/// No gate, no slot.
const NONE: u32 = u32::MAX;

/// An atom read by at least this many rules gates them.
const GATE_READERS: u32 = 24;

/// The fixed part of the network, shared by every evaluation of a game.
#[derive(Debug)]
pub struct Network {
    /// Per rule: its head atom.
    heads: Vec<u32>,
    /// Per rule: its positive atoms other than its gate, all false in the
    /// empty model.
    unsatisfied: Vec<u32>,
    /// Per rule: its gate literal as `atom << 1 | negated`, or `NONE`.
    gate: Vec<u32>,
    /// Per atom (CSR): the rules reading it other than as their gate, as
    /// `rule << 1 | negated`.
    reader_start: Vec<u32>,
    readers: Vec<u32>,
    /// Per gate literal `atom << 1 | negated` (CSR over 2 x atoms): the
    /// room of its list of ready rules, as many slots as rules it gates.
    gated_start: Vec<u32>,
    /// Per atom: the hub it is deferred under, or `NONE`.
    deferred: Vec<u32>,
    /// Per atom: its level (0 for atoms no rule derives).
    level: Vec<u32>,
    /// The highest level of a state relation's atom.
    state_top: u32,
    /// The highest level.
    top: u32,
}

/// A ground rule as the network is built: its head and its literals, each
/// `atom << 1 | negated`.
struct Rule {
    head: u32,
    lits: Vec<u32>,
}

/// The rules reading each atom (by number in `rules`).
fn readers_of(rules: &[Rule], atoms: usize) -> Vec<Vec<u32>> {
    let mut readers = vec![Vec::new(); atoms];
    for (r, rule) in rules.iter().enumerate() {
        for &l in &rule.lits {
            readers[(l >> 1) as usize].push(r as u32);
        }
    }
    readers
}

/// Takes hub atoms out of the rules that need not read them, and returns
/// per atom the hub it was deferred under (`NONE` for none).
///
/// A hub `g` (read by many rules, such as whose turn it is) flips at every
/// step, and every atom derived from it would flip with it. An atom `h` is
/// *deferred* under `g` when its value can be computed as if `g` held and
/// read only where `g` holds: every rule for `h` has `g` or a deferred atom
/// as a positive literal (so `h` implies `g`), and its other literals are
/// deferred or do not depend on `g`; every rule reading `h` has `g` as a
/// positive literal or derives a deferred atom. Then `g` is dropped from
/// the rules for deferred atoms, which stop flipping with `g`; what the
/// network stores for `h` is its value were `g` true, and `h` holds when
/// that value and `g` do. Atoms in `real` (those read outside the network
/// where that rewriting would not be seen) are never deferred. Found as the
/// greatest set meeting the conditions, by removing atoms that fail them.
fn defer_hubs(rules: &mut [Rule], atoms: usize, real: &[bool]) -> Vec<u32> {
    let mut deferred = vec![NONE; atoms];
    let mut readers = readers_of(rules, atoms);
    let mut rules_for = vec![Vec::new(); atoms];
    for (r, rule) in rules.iter().enumerate() {
        rules_for[rule.head as usize].push(r as u32);
    }
    let mut hubs: Vec<u32> = (0..atoms as u32)
        .filter(|&a| readers[a as usize].len() >= GATE_READERS as usize)
        .collect();
    hubs.sort_by_key(|&a| std::cmp::Reverse(readers[a as usize].len()));
    for g in hubs {
        if deferred[g as usize] != NONE {
            continue;
        }
        let lit = g << 1;
        // The atoms that depend on g.
        let mut depends = vec![false; atoms];
        depends[g as usize] = true;
        let mut stack = vec![g];
        while let Some(a) = stack.pop() {
            for &r in &readers[a as usize] {
                let h = rules[r as usize].head as usize;
                if !depends[h] {
                    depends[h] = true;
                    stack.push(h as u32);
                }
            }
        }
        let mut set: Vec<bool> = (0..atoms)
            .map(|a| {
                depends[a]
                    && a != g as usize
                    && !real[a]
                    && !rules_for[a].is_empty()
                    && deferred[a] == NONE
            })
            .collect();
        loop {
            let mut changed = false;
            for h in 0..atoms {
                if !set[h] {
                    continue;
                }
                let rule_ok = |r: &u32| {
                    let lits = &rules[*r as usize].lits;
                    let implies_g = lits
                        .iter()
                        .any(|&l| l == lit || (l & 1 == 0 && set[(l >> 1) as usize]));
                    implies_g
                        && lits.iter().all(|&l| {
                            let a = (l >> 1) as usize;
                            l == lit || set[a] || !depends[a]
                        })
                };
                let reader_ok = |r: &u32| {
                    let rule = &rules[*r as usize];
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
        for h in 0..atoms {
            if set[h] {
                deferred[h] = g;
                for &r in &rules_for[h] {
                    rules[r as usize].lits.retain(|&l| l != lit);
                }
            }
        }
        readers[g as usize].retain(|&r| !set[rules[r as usize].head as usize]);
    }
    deferred
}

impl Network {
    /// Builds the network of a ground program whose atoms in `move_atoms`
    /// (ranges) belong to relations that read `does`; atoms marked in
    /// `real` are read outside the network and never deferred (see
    /// `defer_hubs`). `None` when a recursive stratum recurses through a
    /// cycle of ground atoms.
    pub fn new(
        g: &Grounded,
        move_atoms: &[std::ops::Range<u32>],
        real: &[bool],
    ) -> Option<Network> {
        // Atoms are numbered 0..atoms, and `atoms` is the always-true one.
        let atoms = g.atoms() + 1;
        let mut rules: Vec<Rule> = g
            .ground_rules()
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
        let deferred = defer_hubs(&mut rules, atoms, real);
        let readers_all = readers_of(&rules, atoms);
        // Each rule's gate: its literal whose atom has the most readers,
        // if that atom has enough of them.
        let mut heads = Vec::with_capacity(rules.len());
        let mut unsatisfied = Vec::with_capacity(rules.len());
        let mut gate = Vec::with_capacity(rules.len());
        let mut reader_start = vec![0u32; atoms + 1];
        let mut gated_start = vec![0u32; 2 * atoms + 1];
        for rule in &rules {
            heads.push(rule.head);
            let hub = rule
                .lits
                .iter()
                .copied()
                .max_by_key(|&l| readers_all[(l >> 1) as usize].len())
                .filter(|&l| readers_all[(l >> 1) as usize].len() >= GATE_READERS as usize);
            gate.push(hub.unwrap_or(NONE));
            let positive = rule.lits.iter().filter(|&&l| l & 1 == 0).count() as u32;
            unsatisfied.push(positive - hub.map_or(0, |l| (l & 1 == 0) as u32));
            for &l in &rule.lits {
                if Some(l) != hub {
                    reader_start[(l >> 1) as usize + 1] += 1;
                }
            }
            if let Some(l) = hub {
                gated_start[l as usize + 1] += 1;
            }
        }
        for a in 0..atoms {
            reader_start[a + 1] += reader_start[a];
        }
        for l in 0..2 * atoms {
            gated_start[l + 1] += gated_start[l];
        }
        let mut fill = reader_start.clone();
        let mut readers = vec![0u32; reader_start[atoms] as usize];
        for (r, rule) in rules.iter().enumerate() {
            for &l in &rule.lits {
                if l != gate[r] {
                    let a = (l >> 1) as usize;
                    readers[fill[a] as usize] = (r as u32) << 1 | (l & 1);
                    fill[a] += 1;
                }
            }
        }
        // Levels by a topological sort of the atoms (Kahn): an atom is
        // placed once every body literal of every rule for it is placed.
        let mut waiting = vec![0u32; atoms];
        for rule in &rules {
            waiting[rule.head as usize] += rule.lits.len() as u32;
        }
        let mut level = vec![0u32; atoms];
        let mut ready: Vec<u32> = (0..atoms as u32)
            .filter(|&a| waiting[a as usize] == 0)
            .collect();
        let mut placed = 0;
        while let Some(a) = ready.pop() {
            placed += 1;
            for &r in &readers_all[a as usize] {
                let h = heads[r as usize] as usize;
                level[h] = level[h].max(level[a as usize] + 1);
                waiting[h] -= 1;
                if waiting[h] == 0 {
                    ready.push(h as u32);
                }
            }
        }
        if placed < atoms {
            return None;
        }
        let is_move = |a: usize| move_atoms.iter().any(|r| r.contains(&(a as u32)));
        let state_top = (0..atoms)
            .filter(|&a| !is_move(a))
            .map(|a| level[a])
            .max()
            .unwrap_or(0);
        for (a, l) in level.iter_mut().enumerate() {
            if is_move(a) && *l > 0 {
                *l += state_top + 1;
            }
        }
        let top = level.iter().copied().max().unwrap_or(0);
        Some(Network {
            heads,
            unsatisfied,
            gate,
            reader_start,
            readers,
            gated_start,
            deferred,
            level,
            state_top,
            top,
        })
    }

    /// The hub an atom is deferred under, if any: the atom holds when both
    /// it (as stored) and the hub hold (see `defer_hubs`).
    pub fn deferred_under(&self, atom: u32) -> Option<u32> {
        let g = self.deferred[atom as usize];
        (g != NONE).then_some(g)
    }

    /// How many atoms there are, the always-true one included.
    pub fn atoms(&self) -> usize {
        self.level.len()
    }
}

/// One model kept up to date by a `Network`: truth values and counts.
#[derive(Clone, Debug)]
pub struct Evaluation {
    /// One truth value per atom.
    truth: Vec<bool>,
    /// Per rule: its literals other than its gate not satisfied now.
    unsatisfied: Vec<u32>,
    /// Per gate literal: how many of its slots hold ready rules.
    ready_len: Vec<u32>,
    /// The ready rules of each gate literal, in its room (see
    /// `Network::gated_start`), and per rule its slot (`NONE` if not ready).
    ready: Vec<u32>,
    slot: Vec<u32>,
    /// Per atom: the rules for it that fire now.
    support: Vec<u32>,
    /// Per atom: whether it waits in its level's queue.
    queued: Vec<bool>,
    /// Per level: the atoms whose support crossed zero.
    queues: Vec<Vec<u32>>,
    /// Per atom: whether its flips are recorded in `changed`.
    watched: Vec<bool>,
    /// The watched atoms that flipped, in order (drained by the caller).
    changed: Vec<u32>,
}

impl Evaluation {
    /// The model of no input atom true (only the always-true atom), fully
    /// settled; `watched` atoms have their flips recorded.
    pub fn new(net: &Network, watched: Vec<bool>) -> Evaluation {
        let atoms = net.atoms();
        let rules = net.heads.len();
        let mut e = Evaluation {
            truth: vec![false; atoms],
            unsatisfied: net.unsatisfied.clone(),
            ready_len: vec![0; 2 * atoms],
            ready: vec![NONE; net.gated_start[2 * atoms] as usize],
            slot: vec![NONE; rules],
            support: vec![0; atoms],
            queued: vec![false; atoms],
            queues: (0..=net.top).map(|_| Vec::with_capacity(64)).collect(),
            watched,
            changed: Vec::with_capacity(256),
        };
        e.truth[atoms - 1] = true;
        // head :- (nothing false yet): every rule without positive atoms
        // (but its gate).
        for r in 0..rules {
            if net.unsatisfied[r] == 0 {
                e.now_ready(net, r);
            }
        }
        e.settle(net, net.top);
        e.changed.clear();
        e
    }

    /// Whether an atom holds.
    #[inline]
    pub fn holds(&self, atom: u32) -> bool {
        self.truth[atom as usize]
    }

    /// Sets an input atom (one no rule derives) and queues what reads it;
    /// `settle` brings the model up to date.
    pub fn set_input(&mut self, net: &Network, atom: u32, value: bool) {
        if self.truth[atom as usize] != value {
            self.flip(net, atom, value);
        }
    }

    /// Settles the queued atoms of state relations; those of move
    /// relations stay queued.
    pub fn settle_state(&mut self, net: &Network) {
        self.settle(net, net.state_top);
    }

    /// Settles every queued atom.
    pub fn settle_all(&mut self, net: &Network) {
        self.settle(net, net.top);
    }

    /// The watched atoms that flipped since the last call, in order.
    pub fn take_changed(&mut self) -> std::vec::Drain<'_, u32> {
        self.changed.drain(..)
    }

    #[inline]
    fn queue(&mut self, net: &Network, atom: u32) {
        if !self.queued[atom as usize] {
            self.queued[atom as usize] = true;
            self.queues[net.level[atom as usize] as usize].push(atom);
        }
    }

    #[inline]
    fn gain(&mut self, net: &Network, head: u32) {
        self.support[head as usize] += 1;
        if self.support[head as usize] == 1 {
            self.queue(net, head);
        }
    }

    #[inline]
    fn lose(&mut self, net: &Network, head: u32) {
        self.support[head as usize] -= 1;
        if self.support[head as usize] == 0 {
            self.queue(net, head);
        }
    }

    /// Rule `r`'s literals but its gate became all satisfied: it fires if
    /// its gate is (or it has none), and waits in its gate's ready list.
    fn now_ready(&mut self, net: &Network, r: usize) {
        let g = net.gate[r];
        if g != NONE {
            let at = net.gated_start[g as usize] + self.ready_len[g as usize];
            self.ready[at as usize] = r as u32;
            self.slot[r] = at;
            self.ready_len[g as usize] += 1;
            if self.truth[(g >> 1) as usize] == (g & 1 == 1) {
                return;
            }
        }
        self.gain(net, net.heads[r]);
    }

    /// Rule `r` was ready and one of its literals but its gate is no
    /// longer satisfied: it leaves its gate's ready list, and stops firing
    /// if it fired.
    fn not_ready(&mut self, net: &Network, r: usize) {
        let g = net.gate[r];
        if g != NONE {
            // Move the last ready rule into r's slot.
            self.ready_len[g as usize] -= 1;
            let last = net.gated_start[g as usize] + self.ready_len[g as usize];
            let at = self.slot[r];
            let moved = self.ready[last as usize];
            self.ready[at as usize] = moved;
            self.slot[moved as usize] = at;
            self.slot[r] = NONE;
            if self.truth[(g >> 1) as usize] == (g & 1 == 1) {
                return;
            }
        }
        self.lose(net, net.heads[r]);
    }

    /// Settles levels `0..=upto`: each queued atom takes the value its
    /// support gives, and a flip updates the rules reading it.
    fn settle(&mut self, net: &Network, upto: u32) {
        for l in 0..=upto as usize {
            while let Some(a) = self.queues[l].pop() {
                self.queued[a as usize] = false;
                let value = self.support[a as usize] > 0;
                if value != self.truth[a as usize] {
                    self.flip(net, a, value);
                }
            }
        }
    }

    /// Flips an atom and updates the rules that read it.
    //
    // For each rule r reading the atom (not as its gate): a literal that
    // became satisfied lowers r's count, and r becomes ready at zero; one
    // that became unsatisfied raises it, and r is no longer ready when it
    // leaves zero. For each ready rule the atom gates: the gate became
    // satisfied (its head gains a support) or not (loses one). A head
    // whose support crosses zero is queued.
    fn flip(&mut self, net: &Network, atom: u32, value: bool) {
        self.truth[atom as usize] = value;
        if self.watched[atom as usize] {
            self.changed.push(atom);
        }
        let (lo, hi) = (
            net.reader_start[atom as usize] as usize,
            net.reader_start[atom as usize + 1] as usize,
        );
        for &e in &net.readers[lo..hi] {
            let r = (e >> 1) as usize;
            if (e & 1 == 0) == value {
                self.unsatisfied[r] -= 1;
                if self.unsatisfied[r] == 0 {
                    self.now_ready(net, r);
                }
            } else {
                self.unsatisfied[r] += 1;
                if self.unsatisfied[r] == 1 {
                    self.not_ready(net, r);
                }
            }
        }
        for negated in [0, 1] {
            let g = (atom << 1 | negated) as usize;
            let start = net.gated_start[g] as usize;
            let satisfied = (negated == 0) == value;
            for i in start..start + self.ready_len[g] as usize {
                let head = net.heads[self.ready[i] as usize];
                if satisfied {
                    self.gain(net, head);
                } else {
                    self.lose(net, head);
                }
            }
        }
    }
}
