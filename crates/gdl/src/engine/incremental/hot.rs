//! The hot loop of the incremental evaluation (flip, gain, lose, queue),
//! and every unchecked index of it. Each is sound by the invariants that
//! `Shape::network` checks before it returns a network (every rule's head is
//! an atom, every reader a rule, every level's queue has room for each of
//! its atoms) and that `Evaluation::new` and every public call of an
//! evaluation keep (it is used only with the network it was made for, and
//! has one record per rule and per atom of it).

use super::evaluation::{ARMED, COUNTED, CYCLIC, Evaluation, GUARD, LEAF, WATCHED, gate_holds};
use super::network::{NO_BIT, Network};

impl Evaluation {
    /// A rule for `head` starts firing.
    #[inline(always)]
    pub(super) fn gain(&mut self, net: &Network, head: u32) {
        // SAFETY: `head` is a rule's head, an atom of the network (checked
        // by `Network::check_invariants`), and `atoms` has a record per atom
        // (`Evaluation::new`).
        let a = unsafe { self.atoms.get_unchecked_mut(head as usize) };
        a.support += 1;
        if a.support == 1 {
            self.queue_or_set(net, head, true);
        }
    }

    /// A rule for `head` stops firing. An atom on a cycle may have lost
    /// what held it even where some support is left (see `cycles`): it is
    /// queued all the same.
    #[inline(always)]
    pub(super) fn lose(&mut self, net: &Network, head: u32) {
        // SAFETY: as in `gain`.
        let a = unsafe { self.atoms.get_unchecked_mut(head as usize) };
        a.support -= 1;
        if a.support == 0 || a.kind & CYCLIC != 0 {
            self.queue_or_set(net, head, false);
        }
    }

    /// An atom's support crossed zero, so that its value should be
    /// `value`: a leaf takes it now, others are queued at their level
    /// (unless they wait already).
    #[inline(always)]
    pub(super) fn queue_or_set(&mut self, net: &Network, atom: u32, value: bool) {
        // SAFETY: `atom` is a rule's head, an atom of the network (as in
        // `gain`); its level is at most `top`, so `queued_len` (`top + 1`
        // entries), `queued_levels` (a bit for each of those) and
        // `level_start` (`top + 2`) have it; the level's queue
        // has room for each of its atoms, and an atom waits at most once
        // (`queued`), so the slot is within the level's room in `queued`,
        // which has a slot per atom (all checked by
        // `Network::check_invariants`).
        unsafe {
            let a = self.atoms.get_unchecked_mut(atom as usize);
            if a.kind & LEAF != 0 {
                a.truth = value;
                self.note_flip(atom);
            } else if !a.queued {
                a.queued = true;
                let level = net.atoms.get_unchecked(atom as usize).level as usize;
                let len = self.queued_len.get_unchecked_mut(level);
                let slot = (net.level_start.get_unchecked(level) + *len) as usize;
                *self.queued.get_unchecked_mut(slot) = atom;
                if *len == 0 {
                    *self.queued_levels.get_unchecked_mut(level / 64) |= 1 << (level % 64);
                }
                *len += 1;
            }
        }
    }

    /// Lists a watched atom that flipped in `changed` (once).
    #[inline(always)]
    pub(super) fn note_flip(&mut self, atom: u32) {
        let a = &mut self.atoms[atom as usize];
        if a.kind & WATCHED != 0 && !a.listed {
            a.listed = true;
            self.changed[self.changed_len] = atom;
            self.changed_len += 1;
        }
    }

    /// Settles levels `0..=upto`: each queued atom takes the value its
    /// support gives, and a flip updates the rules reading it. A flip only
    /// queues atoms above its own level, so a level's queue is complete
    /// when it is reached. Only levels with a queue are visited (a deep
    /// network settles a handful of its levels a step): the bits of
    /// `queued_levels`, lowest first, each word read again after a level
    /// as that level's flips may have queued the levels above it.
    pub(super) fn settle(&mut self, net: &Network, upto: u32) {
        let last = upto as usize / 64;
        let mut w = 0;
        while w <= last {
            let mut word = self.queued_levels[w];
            if w == last {
                word &= u64::MAX >> (63 - upto % 64);
            }
            if word == 0 {
                w += 1;
                continue;
            }
            let l = w * 64 + word.trailing_zeros() as usize;
            self.queued_levels[w] &= !(1 << (l % 64));
            let (base, len) = (net.level_start[l] as usize, self.queued_len[l] as usize);
            self.queued_len[l] = 0;
            for i in base..base + len {
                let atom = self.queued[i];
                let a = &mut self.atoms[atom as usize];
                if a.kind & CYCLIC != 0 {
                    // Its component, unless it was derived anew since the
                    // atom was queued (which left it not queued).
                    if a.queued {
                        self.settle_cycle(net, atom);
                    }
                    continue;
                }
                a.queued = false;
                let value = a.support > 0;
                if value != a.truth {
                    self.flip(net, atom, value);
                }
            }
        }
    }

    /// Flips an atom and updates the rules that read it.
    //
    // For each rule r reading the atom: a literal that became satisfied
    // lowers r's count, and r starts firing at zero (its head gains a
    // support); one that became unsatisfied raises it, and r stops firing
    // when it leaves zero (its head loses one). A head whose support
    // crosses zero is queued.
    #[inline(always)]
    pub(super) fn flip(&mut self, net: &Network, atom: u32, value: bool) {
        let info = &net.atoms[atom as usize];
        let state = &mut self.atoms[atom as usize];
        state.truth = value;
        let armed = state.kind & (ARMED | COUNTED) != 0;
        if self.track && !self.is_touched[atom as usize] {
            self.is_touched[atom as usize] = true;
            self.touched[self.touched_len] = atom;
            self.touched_len += 1;
            // An armed gate counts the rules it opens or shuts as it does.
            let gated = match net.armed_base(atom) {
                NO_BIT => info.gate_end - info.gate_start,
                _ => 0,
            };
            self.touched_reads += (info.end - info.start + gated) as usize;
        }
        self.note_flip(atom);
        self.work += u64::from(info.end - info.start) + 1;
        let (pos, neg) = (
            info.start as usize..info.negated as usize,
            info.negated as usize..info.end as usize,
        );
        // The literals that became satisfied, then those that did not.
        let (sat, unsat) = if value { (pos, neg) } else { (neg, pos) };
        for &r in &net.readers[sat] {
            // SAFETY: every reader is a rule of the network (checked by
            // `Network::check_invariants`), and `unsatisfied` has a count
            // per rule (`Evaluation::new` copies the network's), as
            // `heads` has a head (checked with the rest).
            let count = unsafe { self.unsatisfied.get_unchecked_mut(r as usize) };
            *count -= 1;
            if *count == 0 {
                // SAFETY: as above.
                let head = unsafe { *net.heads.get_unchecked(r as usize) };
                self.gain(net, head);
            }
        }
        for &r in &net.readers[unsat] {
            // SAFETY: as above.
            let count = unsafe { self.unsatisfied.get_unchecked_mut(r as usize) };
            *count += 1;
            if *count == 1 {
                // SAFETY: as above.
                let head = unsafe { *net.heads.get_unchecked(r as usize) };
                self.lose(net, head);
            }
        }
        if armed {
            self.flip_armed(net, atom, value);
        }
    }

    /// Counts the reads of the rules that read a flipped atom, each idle
    /// where it did not start or stop firing (see `rule_counts`): as
    /// `flip` left them, the rules that now count its literal satisfied
    /// fire at zero, the others at one.
    fn count_reads(&mut self, net: &Network, atom: u32, value: bool) {
        let info = &net.atoms[atom as usize];
        let (pos, neg) = (
            info.start as usize..info.negated as usize,
            info.negated as usize..info.end as usize,
        );
        let (sat, unsat) = if value { (pos, neg) } else { (neg, pos) };
        let reads = (net.readers[sat].iter().map(|&r| (r, 0)))
            .chain(net.readers[unsat].iter().map(|&r| (r, 1)));
        for (r, firing) in reads {
            let r = r as usize;
            self.visits[r] = self.visits[r].saturating_add(1);
            let idle = u32::from(self.unsatisfied[r] != firing);
            self.idle[r] = self.idle[r].saturating_add(idle);
        }
    }

    /// Updates the armed rules reading a flipped atom (see the module's
    /// doc): each counts its other literals that do not hold, is ready
    /// (its bit set) at zero, and fires while ready where its gate holds.
    /// Where the atom is a derived guard, its ready rules start or stop
    /// firing (an input's, in `set_input`). And counts the flip, where
    /// flips are counted.
    #[inline(never)]
    fn flip_armed(&mut self, net: &Network, atom: u32, value: bool) {
        if let Some(n) = self.flips.get_mut(atom as usize) {
            *n = n.saturating_add(1);
            self.count_reads(net, atom, value);
        }
        // A derived guard (an input's walks in `set_input`).
        if self.atoms[atom as usize].kind & GUARD != 0 {
            let info = &net.atoms[atom as usize];
            let gates = &net.gates[info.gate_start as usize..info.gate_end as usize];
            self.flip_gate(net, (net.armed_base(atom), gates), value);
        }
        let Some(&reads) = net.armed_reads.get(atom as usize) else {
            return;
        };
        if self.track {
            self.touched_reads += (reads.end - reads.start) as usize;
        }
        self.work += u64::from(reads.end - reads.start);
        let (pos, neg) = (
            reads.start as usize..reads.negated as usize,
            reads.negated as usize..reads.end as usize,
        );
        let (sat, unsat) = if value { (pos, neg) } else { (neg, pos) };
        for &g in &net.armed_readers[sat] {
            let count = &mut self.unsatisfied[g.rule as usize];
            *count -= 1;
            if *count == 0 {
                self.arm(g.bit, true);
                if gate_holds(&self.atoms, g.gate) {
                    self.gain(net, net.heads[g.rule as usize]);
                }
            }
        }
        for &g in &net.armed_readers[unsat] {
            let count = &mut self.unsatisfied[g.rule as usize];
            *count += 1;
            if *count == 1 {
                self.arm(g.bit, false);
                if gate_holds(&self.atoms, g.gate) {
                    self.lose(net, net.heads[g.rule as usize]);
                }
            }
        }
    }
}
