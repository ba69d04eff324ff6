//! One model kept up to date by a network: its public calls, each checking
//! that it is given the network the evaluation was made for. The hot loop
//! is in `hot.rs`.

use super::network::{Gated, NO_BIT, Network, SHUT};

/// Whether an armed rule's gate (`atom << 1 | negated`, or `SHUT` for a
/// `does` gate, shut whenever another literal flips) holds among `atoms`.
#[inline(always)]
pub(super) fn gate_holds(atoms: &[AtomState], gate: u32) -> bool {
    gate != SHUT && atoms[(gate >> 1) as usize].truth != (gate & 1 == 1)
}

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
    /// What it is, fixed when the evaluation is made: `WATCHED`, `LEAF`, `GUARD`
    /// (one byte, so that the record fits in eight).
    pub(super) kind: u8,
}

/// The fewest rules and atoms in all of a network whose evaluations list
/// their flips for `restore`: below, a whole copy costs less. The crate's
/// own tests list them always, so that their small games step through
/// both ways of copying (integration tests copy small games whole).
const TRACK_MIN: usize = if cfg!(test) { 0 } else { 1 << 14 };

/// An atom whose flips are recorded in `Evaluation::changed`.
pub(super) const WATCHED: u8 = 1;
/// A leaf: no rule reads it and it gates none, so its value can follow its
/// support at once, with nothing to put in order.
pub(super) const LEAF: u8 = 2;
/// An atom armed rules read (see `Network::armed`).
pub(super) const ARMED: u8 = 4;
/// An atom whose flips are counted (see `Evaluation::count`).
pub(super) const COUNTED: u8 = 8;
/// An atom on a cycle of the ground rules (see `cycles`).
pub(super) const CYCLIC: u8 = 16;
/// A derived atom that guards rules (see `Network::armed_base`): it walks
/// its ready rules as it flips (an input, as it is set).
pub(super) const GUARD: u8 = 32;

/// One model kept up to date by a `Network`: truth values and counts.
#[derive(Clone, Debug)]
pub struct Evaluation {
    /// The network it evaluates (`Network::id`).
    pub(super) net: u64,
    /// Per rule and per atom, their counts and flags now.
    pub(super) unsatisfied: Vec<u8>,
    pub(super) atoms: Vec<AtomState>,
    /// Per level `l`: the atoms whose support crossed zero, the first
    /// `queued_len[l]` of `queued[net.level_start[l]..]` (each atom waits
    /// at most once, so a level's room is its number of atoms).
    pub(super) queued: Vec<u32>,
    pub(super) queued_len: Vec<u32>,
    /// A bit per level, set where `queued_len` is not 0.
    pub(super) queued_levels: Vec<u64>,
    /// The watched atoms that flipped, once each in the order of their
    /// first flip: the first `changed_len` of `changed`, whose room is
    /// every watched atom (drained by the caller).
    pub(super) changed: Vec<u32>,
    pub(super) changed_len: usize,
    /// The atoms flipped since the last `mark` (set, opened or shut
    /// inputs among them), once each: the first `touched_len` of
    /// `touched`, whose room is every atom; `touched_reads` counts their
    /// readers and gated rules. Only these atoms, the rules reading them or
    /// gated by them, and those rules' heads can differ from the model at
    /// the mark (see `restore`). `is_touched` has a flag per atom, set
    /// while it is listed. Both are empty where `track` is false.
    pub(super) touched: Vec<u32>,
    pub(super) is_touched: Vec<bool>,
    /// Whether flips are listed in `touched` at all: not in a network
    /// small enough that copying it whole costs less than listing.
    pub(super) track: bool,
    pub(super) touched_len: usize,
    pub(super) touched_reads: usize,
    /// The work done since it was made: one for each atom flipped, each
    /// rule read on a flip and each gated rule counted or stopped as its
    /// gate opens or shuts (what loading counts to weigh engines).
    pub(super) work: u64,
    /// Per armed rule (see the module's doc), its bit (see
    /// `Network::armed_base`): set while its other literals all hold; and
    /// per word of those bits, a bit set while the word has one (so that
    /// opening a gate skips its rules 4,096 at a time).
    pub(super) armed: Vec<u64>,
    pub(super) armed_words: Vec<u64>,
    /// Per atom, how often it flipped and how often it opened as a gate,
    /// where `count` asked for it (else empty): what
    /// `Network::worth_arming` weighs.
    pub(super) flips: Vec<u32>,
    pub(super) opens: Vec<u32>,
    /// Per rule, where `count` asked for it (else empty): how often it was
    /// read and how often idly (see `rule_counts`).
    pub(super) visits: Vec<u32>,
    pub(super) idle: Vec<u32>,
    /// Room to derive a component on a cycle anew (see `cycles`): per
    /// atom on a cycle, its new value, per rule of one, the atoms of its
    /// component it waits for, and the atoms to look at.
    pub(super) cycle_new: Vec<bool>,
    pub(super) cycle_need: Vec<u32>,
    pub(super) cycle_stack: Vec<u32>,
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
        // Lists with room for every atom, where they are needed: what each
        // of many evaluations (a batch of games) holds beside its model.
        let track = net.heads.len() + net.atoms.len() > TRACK_MIN;
        let tracked = if track { net.atoms.len() } else { 0 };
        let watched_atoms = watched.iter().filter(|&&w| w).count();
        let mut e = Evaluation {
            net: net.id,
            unsatisfied: net.unsatisfied.clone(),
            atoms: watched
                .iter()
                .zip(&net.atoms)
                .enumerate()
                .map(|(a, (&watched, info))| {
                    let armed =
                        !net.armed(a as u32).is_empty() || net.armed_base(a as u32) != NO_BIT;
                    let leaf = info.start == info.end && info.gate_start == info.gate_end && !armed;
                    let cyclic = net.cycles.has(a);
                    let guard = net.armed_base(a as u32) != NO_BIT && info.level > 0;
                    AtomState {
                        kind: if watched { WATCHED } else { 0 }
                            | if leaf { LEAF } else { 0 }
                            | if armed { ARMED } else { 0 }
                            | if cyclic { CYCLIC } else { 0 }
                            | if guard { GUARD } else { 0 },
                        ..AtomState::default()
                    }
                })
                .collect(),
            queued: vec![0; net.atoms.len()],
            queued_len: vec![0; net.top as usize + 1],
            queued_levels: vec![0; (net.top as usize + 1).div_ceil(64)],
            changed: vec![0; watched_atoms],
            changed_len: 0,
            touched: vec![0; tracked],
            is_touched: vec![false; tracked],
            track,
            touched_len: 0,
            touched_reads: 0,
            work: 0,
            armed: vec![0; net.armed_bits.div_ceil(64) as usize],
            armed_words: vec![0; net.armed_bits.div_ceil(64 * 64) as usize],
            flips: Vec::new(),
            opens: Vec::new(),
            visits: Vec::new(),
            idle: Vec::new(),
            cycle_new: vec![false; net.cycles.sizes().0],
            cycle_need: vec![0; net.cycles.sizes().1],
            cycle_stack: Vec::new(),
        };
        e.atoms[net.always as usize].truth = true;
        // An armed rule none of whose other literals is a positive atom is
        // ready, and fires where it reads its gate (never the always-true
        // atom) negated.
        let mut armed_rule = vec![false; e.unsatisfied.len()];
        let gates = net.atoms.iter().enumerate().take(net.armed_base.len());
        for (a, info) in gates {
            let base = net.armed_base(a as u32);
            if base == NO_BIT {
                continue;
            }
            let gates = &net.gates[info.gate_start as usize..info.gate_end as usize];
            for (i, g) in gates.iter().enumerate() {
                armed_rule[g.rule as usize] = true;
                if e.unsatisfied[g.rule as usize] == 0 {
                    e.arm(base + i as u32, true);
                    if g.negated {
                        e.gain(net, net.heads[g.rule as usize]);
                    }
                }
            }
        }
        // head :- (nothing false yet): every other rule without positive
        // atoms.
        for (r, armed) in armed_rule.into_iter().enumerate() {
            if e.unsatisfied[r] == 0 && !armed {
                e.gain(net, net.heads[r]);
            }
        }
        e.settle(net, net.top);
        e.drain_changed(|_, _| {});
        e.mark();
        e
    }

    /// Counts from now on how often each atom flips and each gate opens
    /// (see `counts`), at some cost: no atom is a leaf then.
    pub fn count(&mut self) {
        self.flips = vec![0; self.atoms.len()];
        self.opens = vec![0; self.atoms.len()];
        self.visits = vec![0; self.unsatisfied.len()];
        self.idle = vec![0; self.unsatisfied.len()];
        // A leaf's flips are not counted: every atom is flipped in turn.
        for a in &mut self.atoms {
            a.kind = a.kind & !LEAF | COUNTED;
        }
    }

    /// How often each atom flipped and each gate opened since `count`, by
    /// atom (empty without it).
    pub fn counts(&self) -> (&[u32], &[u32]) {
        (&self.flips, &self.opens)
    }

    /// How often each rule was read as a literal of it flipped since
    /// `count`, and how often of those its other literals did not all hold
    /// (an idle read: it neither started nor stopped firing), by rule
    /// (empty without it).
    pub fn rule_counts(&self) -> (&[u32], &[u32]) {
        (&self.visits, &self.idle)
    }

    /// Forgets which atoms flipped: `restore` and `save_into` then take
    /// the model as it is now for the one they copy from or to.
    pub fn mark(&mut self) {
        for &atom in &self.touched[..self.touched_len] {
            self.is_touched[atom as usize] = false;
        }
        self.touched_len = 0;
        self.touched_reads = 0;
    }

    /// Makes this evaluation a copy of `base` (of the same network), which
    /// must be the model this one was at its last `mark`: only what
    /// flipped since is copied, the rules reading it and their heads (or
    /// everything, when that is most of the rules). Then marks it.
    pub fn restore(&mut self, net: &Network, base: &Evaluation) {
        self.check(net);
        assert_eq!(
            self.net, base.net,
            "restored from another network's evaluation"
        );
        let touched = std::mem::take(&mut self.touched);
        let flipped = Some((&touched[..self.touched_len], self.touched_reads));
        Evaluation::copy_touched(net, flipped, base, self);
        self.touched = touched;
        self.mark();
    }

    /// Makes this evaluation a copy of `src` (of the same network),
    /// whatever model either is, without allocating: every count and
    /// flag copied. Then marks it.
    pub fn copy_from(&mut self, net: &Network, src: &Evaluation) {
        self.check(net);
        assert_eq!(
            self.net, src.net,
            "copied from another network's evaluation"
        );
        Evaluation::copy_touched(net, None, src, self);
        self.mark();
    }

    /// Makes `dst` (of the same network) a copy of this evaluation; `dst`
    /// must be the model this one was at its last `mark` (the converse of
    /// `restore`). Then marks this one.
    pub fn save_into(&mut self, net: &Network, dst: &mut Evaluation) {
        self.check(net);
        assert_eq!(self.net, dst.net, "saved into another network's evaluation");
        let flipped = Some((&self.touched[..self.touched_len], self.touched_reads));
        Evaluation::copy_touched(net, flipped, self, dst);
        self.mark();
    }

    /// Copies into `dst` what of `src` can differ from it given that only
    /// the atoms `flipped` lists (with as many readers and gated rules in
    /// all as it says) flipped in one of them since they were equal, or
    /// everything when it is `None`; the queues and the list of changed
    /// atoms whole. Touched marks are not copied (the caller marks).
    fn copy_touched(
        net: &Network,
        flipped: Option<(&[u32], usize)>,
        src: &Evaluation,
        dst: &mut Evaluation,
    ) {
        // Nothing listed: everything copied, as if all flipped.
        let (touched, reads, whole) = match flipped {
            Some((touched, reads)) => (touched, reads, !src.track),
            None => (&[][..], 0, true),
        };
        // A rule copied alone costs some 32 times what its byte costs in a
        // copy of the whole table (measured: brawl's 414,929 rules, 14 %
        // faster at 32 than at 8, mummymaze1p 10 %, nine others within 2 %).
        if whole || reads * 32 >= src.unsatisfied.len() {
            dst.unsatisfied.copy_from_slice(&src.unsatisfied);
            if !src.armed.is_empty() {
                dst.armed.copy_from_slice(&src.armed);
                dst.armed_words.copy_from_slice(&src.armed_words);
            }
        } else {
            for &atom in touched {
                let info = net.atoms[atom as usize];
                let readers = &net.readers[info.start as usize..info.end as usize];
                for &r in readers {
                    dst.unsatisfied[r as usize] = src.unsatisfied[r as usize];
                }
                // An armed rule's bit with its count, and the bits beside
                // it (those that differ are copied for their own reads).
                for &g in net.armed(atom) {
                    dst.unsatisfied[g.rule as usize] = src.unsatisfied[g.rule as usize];
                    let w = (g.bit / 64) as usize;
                    dst.armed[w] = src.armed[w];
                    dst.armed_words[w / 64] = src.armed_words[w / 64];
                }
                src.for_gated(net, atom, |r| {
                    dst.unsatisfied[r as usize] = src.unsatisfied[r as usize];
                });
            }
        }
        // The atoms that can differ: those touched and the heads of the
        // rules above.
        if whole || (reads + touched.len()) * 8 >= src.atoms.len() {
            dst.atoms.copy_from_slice(&src.atoms);
        } else {
            for &atom in touched {
                let a = atom as usize;
                dst.atoms[a] = src.atoms[a];
                let info = net.atoms[a];
                let mut copy_head = |r: u32| {
                    let h = net.heads[r as usize] as usize;
                    dst.atoms[h] = src.atoms[h];
                };
                let readers = &net.readers[info.start as usize..info.end as usize];
                readers.iter().for_each(|&r| copy_head(r));
                net.armed(atom).iter().for_each(|g| copy_head(g.rule));
                src.for_gated(net, atom, copy_head);
            }
        }
        // Only the atoms waiting in queues and in `changed` matter (an
        // empty copy is still a call to `memcpy`: most levels wait empty).
        for (w, &word) in src.queued_levels.iter().enumerate() {
            let mut word = word;
            while word != 0 {
                let l = w * 64 + word.trailing_zeros() as usize;
                word &= word - 1;
                let len = src.queued_len[l];
                let waiting = net.level_start[l] as usize..(net.level_start[l] + len) as usize;
                dst.queued[waiting.clone()].copy_from_slice(&src.queued[waiting]);
            }
        }
        dst.queued_len.copy_from_slice(&src.queued_len);
        dst.queued_levels.copy_from_slice(&src.queued_levels);
        let changed = ..src.changed_len;
        if src.changed_len > 0 {
            dst.changed[changed].copy_from_slice(&src.changed[changed]);
        }
        dst.changed_len = src.changed_len;
    }

    /// Hands `f` each rule an atom gates that can differ from another
    /// evaluation's as the gate opened or shut: every one, or of an armed
    /// gate, those ready here (one ready in the other alone has a literal
    /// that flipped, and is copied as its reader).
    fn for_gated(&self, net: &Network, atom: u32, mut f: impl FnMut(u32)) {
        let info = net.atoms[atom as usize];
        let gates = &net.gates[info.gate_start as usize..info.gate_end as usize];
        match net.armed_base(atom) {
            NO_BIT => gates.iter().for_each(|g| f(g.rule)),
            base => {
                let mut ready = self.ready_bits(base, gates);
                while let Some(bit) = ready.next(self) {
                    f(gates[(bit - base) as usize].rule);
                }
            }
        }
    }

    /// The work done since it was made: one for each atom flipped and each
    /// rule read on a flip, a count the same on every machine.
    pub fn work(&self) -> u64 {
        self.work
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
            if value && let Some(n) = self.opens.get_mut(atom as usize) {
                *n = n.saturating_add(1);
            }
            self.flip(net, atom, value);
            self.open_or_shut(net, atom, value);
        }
    }

    /// Counts the rules an input atom gates when it opens, and stops those
    /// that fired when it shuts (see the module's doc).
    fn open_or_shut(&mut self, net: &Network, atom: u32, open: bool) {
        let info = net.atoms[atom as usize];
        let gates = &net.gates[info.gate_start as usize..info.gate_end as usize];
        // An input's armed gate walks its ready rules here (a derived
        // guard's, as it flips in `flip_armed`).
        let base = net.armed_base(atom);
        if base != NO_BIT {
            return self.flip_gate(net, (base, gates), open);
        }
        // Each rule, and as it opens, each of their literals (which follow
        // one another in `gate_lits`).
        let lits = match (gates.first(), gates.last()) {
            (Some(first), Some(last)) if open => last.end - first.start,
            _ => 0,
        };
        self.work += gates.len() as u64 + u64::from(lits);
        for g in gates {
            let lits = &net.gate_lits[g.start as usize..g.end as usize];
            let (r, head) = (g.rule as usize, net.heads[g.rule as usize]);
            if open {
                let atoms = &self.atoms;
                let unsatisfied = lits
                    .iter()
                    .filter(|&&l| atoms[(l >> 1) as usize].truth == (l & 1 == 1))
                    .count() as u8;
                self.unsatisfied[r] = unsatisfied;
                if unsatisfied == 0 {
                    self.gain(net, head);
                }
            } else {
                let was = std::mem::replace(&mut self.unsatisfied[r], 1);
                if was == 0 {
                    self.lose(net, head);
                }
            }
        }
    }

    /// An armed gate (`base`, its rules `gates`) flipped to `value`: only
    /// the rules whose other literals all hold (their bits set) start or
    /// stop firing, as each reads it (a `does` gate positively, a guard
    /// either way).
    ///
    /// head :- gate, others (others all hold: the rule's bit is set).
    #[inline(always)]
    pub(super) fn flip_gate(&mut self, net: &Network, (base, gates): (u32, &[Gated]), value: bool) {
        let mut visited = 0;
        let mut ready = self.ready_bits(base, gates);
        while let Some(bit) = ready.next(self) {
            let g = gates[(bit - base) as usize];
            let head = net.heads[g.rule as usize];
            visited += 1;
            if value != g.negated {
                self.gain(net, head);
            } else {
                self.lose(net, head);
            }
        }
        self.work += visited as u64 + 1;
        if self.track {
            self.touched_reads += visited;
        }
    }

    /// The bits set of an armed gate's rules, `gates`, in order, read
    /// one by one, so that the caller may update the rules between two.
    fn ready_bits(&self, base: u32, gates: &[Gated]) -> ReadyBits {
        ReadyBits {
            at: base,
            end: base + gates.len() as u32,
        }
    }

    /// The first armed bit set at or after `at` and before `end`: in
    /// `at`'s word, else in the first word after it that has one, as
    /// `armed_words` says.
    #[inline(always)]
    fn next_ready(&self, at: u32, end: u32) -> Option<u32> {
        if at >= end {
            return None;
        }
        let mut w = at / 64;
        let word = self.armed[w as usize] & (!0u64 << (at % 64));
        if word != 0 {
            let bit = w * 64 + word.trailing_zeros();
            return (bit < end).then_some(bit);
        }
        let last = (end - 1) / 64;
        w += 1;
        while w <= last {
            let s = w / 64;
            let summary = self.armed_words[s as usize] & (!0u64 << (w % 64));
            if summary == 0 {
                w = (s + 1) * 64;
                continue;
            }
            w = s * 64 + summary.trailing_zeros();
            let bit = w * 64 + self.armed[w as usize].trailing_zeros();
            return (bit < end).then_some(bit);
        }
        None
    }

    /// Sets or clears an armed rule's bit, and its word's bit.
    #[inline(always)]
    pub(super) fn arm(&mut self, bit: u32, ready: bool) {
        let (w, b) = ((bit / 64) as usize, bit % 64);
        if ready {
            self.armed[w] |= 1 << b;
            self.armed_words[w / 64] |= 1 << (w % 64);
        } else {
            self.armed[w] &= !(1 << b);
            if self.armed[w] == 0 {
                self.armed_words[w / 64] &= !(1 << (w % 64));
            }
        }
    }

    /// Settles the queued atoms of state relations; those of move
    /// relations stay queued.
    pub fn settle_state(&mut self, net: &Network) {
        self.check(net);
        self.settle(net, net.state_top);
    }

    /// Settles every queued atom that play reads (legal moves, `next`,
    /// `terminal`): goals and what only they read stay queued.
    pub fn settle_play(&mut self, net: &Network) {
        self.check(net);
        self.settle(net, net.play_top);
    }

    /// Settles every queued atom, goals included.
    pub fn settle_goals(&mut self, net: &Network) {
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

/// A walk over the set bits of an armed gate's rules (see
/// `Evaluation::ready_bits`): those from `at` on, before `end`.
struct ReadyBits {
    at: u32,
    end: u32,
}

impl ReadyBits {
    /// The next bit set, as `e` has them now.
    #[inline(always)]
    fn next(&mut self, e: &Evaluation) -> Option<u32> {
        let bit = e.next_ready(self.at, self.end)?;
        self.at = bit + 1;
        Some(bit)
    }
}
