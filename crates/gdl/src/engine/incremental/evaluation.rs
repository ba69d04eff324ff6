//! One model kept up to date by a network: its public calls, each checking
//! that it is given the network the evaluation was made for. The hot loop
//! is in `hot.rs`.

use super::network::{Network, RuleState};

/// An atom in an evaluation.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct AtomState {
    /// The rules for it that fire now.
    pub(super) support: u32,
    /// Whether it holds.
    pub(super) truth: bool,
    /// Whether it waits in its level's queue.
    pub(super) queued: bool,
    /// Whether it is in `Evaluation::changed` now.
    pub(super) listed: bool,
    /// What it is, fixed when the evaluation is made: `WATCHED`, `LEAF`
    /// (one byte, so that the record fits in eight).
    pub(super) kind: u8,
}

/// An atom whose flips are recorded in `Evaluation::changed`.
pub(super) const WATCHED: u8 = 1;
/// A leaf: no rule reads it and it gates none, so its value can follow its
/// support at once, with nothing to put in order.
pub(super) const LEAF: u8 = 2;

/// One model kept up to date by a `Network`: truth values and counts.
#[derive(Clone, Debug)]
pub struct Evaluation {
    /// The network it evaluates (`Network::id`).
    pub(super) net: u64,
    /// Per rule and per atom, their counts and flags now.
    pub(super) rules: Vec<RuleState>,
    pub(super) atoms: Vec<AtomState>,
    /// Per level `l`: the atoms whose support crossed zero, the first
    /// `queued_len[l]` of `queued[net.level_start[l]..]` (each atom waits
    /// at most once, so a level's room is its number of atoms).
    pub(super) queued: Vec<u32>,
    pub(super) queued_len: Vec<u32>,
    /// The watched atoms that flipped, once each in the order of their
    /// first flip: the first `changed_len` of `changed`, whose room is
    /// every atom (drained by the caller).
    pub(super) changed: Vec<u32>,
    pub(super) changed_len: usize,
}

impl Evaluation {
    /// The model of no input atom true (only the always-true atom), fully
    /// settled; `watched` atoms have their flips recorded. Panics unless
    /// `watched` has one entry per atom of the network (the hot loop
    /// indexes the atoms' records by the network's atom numbers).
    pub fn new(net: &Network, watched: &[bool]) -> Evaluation {
        assert_eq!(
            watched.len(),
            net.atoms(),
            "an evaluation watches each atom of its network or not"
        );
        let mut e = Evaluation {
            net: net.id,
            rules: net.rules.clone(),
            atoms: watched
                .iter()
                .zip(&net.atoms)
                .map(|(&watched, info)| AtomState {
                    kind: if watched { WATCHED } else { 0 }
                        | if info.start == info.end && info.gate_start == info.gate_end {
                            LEAF
                        } else {
                            0
                        },
                    ..AtomState::default()
                })
                .collect(),
            queued: vec![0; net.atoms.len()],
            queued_len: vec![0; net.top as usize + 1],
            changed: vec![0; net.atoms.len()],
            changed_len: 0,
        };
        e.atoms.last_mut().expect("the always-true atom").truth = true;
        // head :- (nothing false yet): every rule without positive atoms.
        for r in 0..e.rules.len() {
            if e.rules[r].unsatisfied == 0 {
                e.gain(net, e.rules[r].head);
            }
        }
        e.settle(net, net.top);
        e.drain_changed(|_, _| {});
        e
    }

    /// Makes this evaluation a copy of `other` (of the same network)
    /// without allocating.
    pub fn copy_from(&mut self, net: &Network, other: &Evaluation) {
        self.check(net);
        assert_eq!(
            self.net, other.net,
            "copied from another network's evaluation"
        );
        self.rules.copy_from_slice(&other.rules);
        self.atoms.copy_from_slice(&other.atoms);
        // Only the atoms waiting in queues and in `changed` matter.
        for (l, &len) in other.queued_len.iter().enumerate() {
            let waiting = net.level_start[l] as usize..(net.level_start[l] + len) as usize;
            self.queued[waiting.clone()].copy_from_slice(&other.queued[waiting]);
        }
        self.queued_len.copy_from_slice(&other.queued_len);
        let changed = ..other.changed_len;
        self.changed[changed].copy_from_slice(&other.changed[changed]);
        self.changed_len = other.changed_len;
    }

    /// Whether an atom holds (as stored: see `Network::deferred_under`).
    #[inline]
    pub fn holds(&self, atom: u32) -> bool {
        self.atoms[atom as usize].truth
    }

    /// Sets an input atom (one no rule derives) and queues what reads it;
    /// `settle` brings the model up to date. A `does` atom (a gate, see
    /// the module's doc) must be set true only when the state part is
    /// settled, and no state input may change while one is true.
    pub fn set_input(&mut self, net: &Network, atom: u32, value: bool) {
        self.check(net);
        if self.atoms[atom as usize].truth != value {
            self.flip(net, atom, value);
            self.open_or_shut(net, atom, value);
        }
    }

    /// Counts the rules an input atom gates when it opens, and stops those
    /// that fired when it shuts (see the module's doc).
    fn open_or_shut(&mut self, net: &Network, atom: u32, open: bool) {
        let info = net.atoms[atom as usize];
        for g in &net.gates[info.gate_start as usize..info.gate_end as usize] {
            let lits = &net.gate_lits[g.start as usize..g.end as usize];
            let rule = self.rules[g.rule as usize];
            if open {
                let atoms = &self.atoms;
                let unsatisfied = lits
                    .iter()
                    .filter(|&&l| atoms[(l >> 1) as usize].truth == (l & 1 == 1))
                    .count() as u32;
                self.rules[g.rule as usize].unsatisfied = unsatisfied;
                if unsatisfied == 0 {
                    self.gain(net, rule.head);
                }
            } else {
                self.rules[g.rule as usize].unsatisfied = 1;
                if rule.unsatisfied == 0 {
                    self.lose(net, rule.head);
                }
            }
        }
    }

    /// Settles the queued atoms of state relations; those of move
    /// relations stay queued.
    pub fn settle_state(&mut self, net: &Network) {
        self.check(net);
        self.settle(net, net.state_top);
    }

    /// Settles every queued atom.
    pub fn settle_all(&mut self, net: &Network) {
        self.check(net);
        self.settle(net, net.top);
    }

    /// Hands each watched atom that flipped since the last call to `f`
    /// with its value now, once each in the order of their first flip
    /// (an atom that flipped back is handed too), and forgets them.
    #[inline]
    pub fn drain_changed(&mut self, mut f: impl FnMut(u32, bool)) {
        for &atom in &self.changed[..self.changed_len] {
            let a = &mut self.atoms[atom as usize];
            a.listed = false;
            f(atom, a.truth);
        }
        self.changed_len = 0;
    }

    /// Panics unless `net` is the network this evaluation was made for.
    #[inline(always)]
    fn check(&self, net: &Network) {
        assert_eq!(self.net, net.id, "an evaluation used with another network");
    }
}
