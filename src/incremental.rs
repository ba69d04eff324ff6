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

use crate::ground::Grounded;

/// The fixed part of the network, shared by every evaluation of a game.
#[derive(Debug)]
pub struct Network {
    /// Per rule: its head atom.
    heads: Vec<u32>,
    /// Per rule: its positive atoms, all false in the empty model.
    unsatisfied: Vec<u32>,
    /// Per atom (CSR): the rules reading it, as `rule << 1 | negated`.
    reader_start: Vec<u32>,
    readers: Vec<u32>,
    /// Per atom: its level (0 for atoms no rule derives).
    level: Vec<u32>,
    /// The highest level of a state relation's atom.
    state_top: u32,
    /// The highest level.
    top: u32,
}

impl Network {
    /// Builds the network of a ground program whose atoms in `move_atoms`
    /// (ranges) belong to relations that read `does`; `None` when a
    /// recursive stratum recurses through a cycle of ground atoms.
    pub fn new(g: &Grounded, move_atoms: &[std::ops::Range<u32>]) -> Option<Network> {
        // Atoms are numbered 0..atoms, and `atoms` is the always-true one.
        let atoms = g.atoms() + 1;
        let mut heads = Vec::with_capacity(g.rules());
        let mut unsatisfied = Vec::with_capacity(g.rules());
        let mut reader_start = vec![0u32; atoms + 1];
        for (head, pos, neg) in g.ground_rules() {
            heads.push(head);
            unsatisfied.push(pos.len() as u32);
            for &a in pos.iter().chain(neg) {
                reader_start[a as usize + 1] += 1;
            }
        }
        for a in 0..atoms {
            reader_start[a + 1] += reader_start[a];
        }
        let mut fill = reader_start.clone();
        let mut readers = vec![0u32; reader_start[atoms] as usize];
        for (r, (_, pos, neg)) in g.ground_rules().enumerate() {
            let signed = pos
                .iter()
                .map(|&a| (a, 0))
                .chain(neg.iter().map(|&a| (a, 1)));
            for (a, negated) in signed {
                readers[fill[a as usize] as usize] = (r as u32) << 1 | negated;
                fill[a as usize] += 1;
            }
        }
        // Levels by a topological sort of the atoms (Kahn): an atom is
        // placed once every body literal of every rule for it is placed.
        let mut waiting = vec![0u32; atoms];
        for (head, pos, neg) in g.ground_rules() {
            waiting[head as usize] += (pos.len() + neg.len()) as u32;
        }
        let mut level = vec![0u32; atoms];
        let mut ready: Vec<u32> = (0..atoms as u32)
            .filter(|&a| waiting[a as usize] == 0)
            .collect();
        let mut placed = 0;
        while let Some(a) = ready.pop() {
            placed += 1;
            let (lo, hi) = (reader_start[a as usize], reader_start[a as usize + 1]);
            for &e in &readers[lo as usize..hi as usize] {
                let h = heads[(e >> 1) as usize] as usize;
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
            reader_start,
            readers,
            level,
            state_top,
            top,
        })
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
    /// Per rule: its literals not satisfied now.
    unsatisfied: Vec<u32>,
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
        let mut e = Evaluation {
            truth: vec![false; atoms],
            unsatisfied: net.unsatisfied.clone(),
            support: vec![0; atoms],
            queued: vec![false; atoms],
            queues: vec![Vec::new(); net.top as usize + 1],
            watched,
            changed: Vec::new(),
        };
        e.truth[atoms - 1] = true;
        // head :- (nothing false yet): every rule without positive atoms.
        for (r, &n) in net.unsatisfied.iter().enumerate() {
            if n == 0 {
                let h = net.heads[r] as usize;
                e.support[h] += 1;
                e.queue(net, h as u32);
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

    fn queue(&mut self, net: &Network, atom: u32) {
        if !self.queued[atom as usize] {
            self.queued[atom as usize] = true;
            self.queues[net.level[atom as usize] as usize].push(atom);
        }
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

    /// Flips an atom and updates the counts of the rules that read it.
    //
    // For each rule r reading the atom: a literal that became satisfied
    // lowers r's count, and r starts firing at zero (its head gains a
    // support); one that became unsatisfied raises it, and r stops firing
    // when it leaves zero (its head loses a support). A head whose support
    // crosses zero is queued.
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
            let satisfied = (e & 1 == 0) == value;
            let h = net.heads[r];
            if satisfied {
                self.unsatisfied[r] -= 1;
                if self.unsatisfied[r] == 0 {
                    self.support[h as usize] += 1;
                    if self.support[h as usize] == 1 {
                        self.queue(net, h);
                    }
                }
            } else {
                self.unsatisfied[r] += 1;
                if self.unsatisfied[r] == 1 {
                    self.support[h as usize] -= 1;
                    if self.support[h as usize] == 0 {
                        self.queue(net, h);
                    }
                }
            }
        }
    }
}
