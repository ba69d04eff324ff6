//! Atoms on a cycle of the ground rules, and how an evaluation settles
//! them.
//!
//! Counting the rules that fire for an atom tells whether it holds only
//! where the atoms do not support one another round a cycle: on a cycle,
//! an atom that lost the support it had from outside keeps the one its
//! neighbours give it, which they have from it. Reachability over a graph
//! with cycles is such a rule set: linesOfAction's `connected` (are all
//! of a player's pieces one group?), amazonsTorus's `openPath` (a line of
//! empty squares that wraps round the board), a maze's reachable squares.
//! Stratified negation keeps negation off every such cycle (else the
//! network is not built), so each strongly connected component of the
//! atoms' dependency graph is a least fixpoint of positive rules over
//! what lies below it.
//!
//! A component sits at one level, above every atom its rules read outside
//! it. Its rules are counted as any rule; but where one of its atoms
//! loses a supporting rule, even without its support crossing zero, the
//! component is marked dirty and queued, and when its level is settled
//! its atoms are derived anew from what lies below (semi-naively, from the
//! rules reading no atom of it up), and those whose value differs flip.
//! Settling a component costs its rules, so a game pays for it only on
//! the steps that change what a component reads.

use super::evaluation::Evaluation;
use super::network::{Network, Rule};

/// No component: the atom is on no cycle.
pub(super) const NO_CYCLE: u32 = u32::MAX;

/// The components of the ground rules that have a cycle (two atoms or
/// more, or an atom a rule of its own reads), and their rules.
#[derive(Clone, Debug, Default)]
pub(super) struct Cycles {
    /// Per atom, the number of its component, or `NO_CYCLE`; empty when no
    /// atom is on a cycle.
    pub(super) of: Vec<u32>,
    /// The atoms of component `c`: `atoms[atom_start[c]..atom_start[c +
    /// 1]]`; an atom's index in `atoms` is its slot.
    atom_start: Vec<u32>,
    atoms: Vec<u32>,
    /// The rules for the atoms of component `c`:
    /// `rules[rule_start[c]..rule_start[c + 1]]`.
    rule_start: Vec<u32>,
    rules: Vec<CycleRule>,
    /// The rules' literals (see `CycleRule`).
    lits: Vec<u32>,
    /// The rules of its component reading the atom of slot `s`:
    /// `reading[read_start[s]..read_start[s + 1]]`, by index in `rules`.
    read_start: Vec<u32>,
    reading: Vec<u32>,
}

/// A rule for an atom on a cycle: the slot of its head; the slots of its
/// atoms of the same component, `lits[start..inside]` (all positive);
/// its other literals, `lits[inside..end]` (`atom << 1 | negated`).
#[derive(Clone, Copy, Debug)]
struct CycleRule {
    head: u32,
    start: u32,
    inside: u32,
    end: u32,
}

impl Cycles {
    /// The components with a cycle of `rules`, whose readers are
    /// `readers` (`rule << 1 | negated` per atom); `None` when
    /// a rule reads an atom of its head's component negated (negation
    /// through a cycle: no least fixpoint is the model).
    pub(super) fn new(rules: &[Rule], readers: &[Vec<u32>]) -> Option<Cycles> {
        let (of, components) = components_with_cycles(rules, readers);
        if components == 0 {
            return Some(Cycles::default());
        }
        let mut members = vec![Vec::new(); components as usize];
        for (a, &c) in of.iter().enumerate() {
            if c != NO_CYCLE {
                members[c as usize].push(a as u32);
            }
        }
        let mut rules_for = vec![Vec::new(); components as usize];
        for (r, rule) in rules.iter().enumerate() {
            let c = of[rule.head as usize];
            if c != NO_CYCLE {
                rules_for[c as usize].push(r);
            }
        }
        let mut cycles = Cycles {
            of,
            atom_start: vec![0],
            rule_start: vec![0],
            ..Cycles::default()
        };
        let mut slot = vec![NO_CYCLE; cycles.of.len()];
        let mut reading: Vec<Vec<u32>> = Vec::new();
        for (c, atoms) in members.iter().enumerate() {
            for &a in atoms {
                slot[a as usize] = cycles.atoms.len() as u32;
                cycles.atoms.push(a);
                reading.push(Vec::new());
            }
            for &r in &rules_for[c] {
                let rule = &rules[r];
                let here = |l: &&u32| cycles.of[(**l >> 1) as usize] == c as u32;
                if rule.lits.iter().filter(here).any(|&l| l & 1 == 1) {
                    return None;
                }
                let index = cycles.rules.len() as u32;
                let start = cycles.lits.len() as u32;
                for &l in rule.lits.iter().filter(here) {
                    let s = slot[(l >> 1) as usize];
                    reading[s as usize].push(index);
                    cycles.lits.push(s);
                }
                let inside = cycles.lits.len() as u32;
                cycles.lits.extend(rule.lits.iter().filter(|l| !here(l)));
                cycles.rules.push(CycleRule {
                    head: slot[rule.head as usize],
                    start,
                    inside,
                    end: cycles.lits.len() as u32,
                });
            }
            cycles.atom_start.push(cycles.atoms.len() as u32);
            cycles.rule_start.push(cycles.rules.len() as u32);
        }
        cycles.read_start.push(0);
        for of in reading {
            cycles.reading.extend(of);
            cycles.read_start.push(cycles.reading.len() as u32);
        }
        Some(cycles)
    }

    /// How many components have a cycle.
    pub(super) fn len(&self) -> usize {
        self.atom_start.len().saturating_sub(1)
    }

    /// How many atoms are on a cycle, and how many rules derive them.
    pub(super) fn sizes(&self) -> (usize, usize) {
        (self.atoms.len(), self.rules.len())
    }

    /// The atoms of component `c`.
    pub(super) fn atoms_of(&self, c: usize) -> &[u32] {
        &self.atoms[self.atom_start[c] as usize..self.atom_start[c + 1] as usize]
    }

    /// Whether atom `a` is on a cycle.
    pub(super) fn has(&self, a: usize) -> bool {
        self.of.get(a).is_some_and(|&c| c != NO_CYCLE)
    }

    /// Panics unless every index the evaluation follows is within its
    /// table, for a network of `atoms` atoms.
    pub(super) fn check(&self, atoms: usize) {
        assert!(self.of.is_empty() || self.of.len() == atoms);
        assert!((self.of.iter()).all(|&c| c == NO_CYCLE || (c as usize) < self.len()));
        assert!(self.atoms.iter().all(|&a| (a as usize) < atoms));
        assert!(self.atom_start.windows(2).all(|w| w[0] <= w[1]));
        assert!(self.rule_start.windows(2).all(|w| w[0] <= w[1]));
        let slots = self.atoms.len() as u32;
        assert!(self.rules.iter().all(|r| {
            r.head < slots
                && r.start <= r.inside
                && r.inside <= r.end
                && r.end as usize <= self.lits.len()
                && self.lits[r.start as usize..r.inside as usize]
                    .iter()
                    .all(|&s| s < slots)
                && self.lits[r.inside as usize..r.end as usize]
                    .iter()
                    .all(|&l| ((l >> 1) as usize) < atoms)
        }));
        let no_cycle = self.atom_start.is_empty() && self.read_start.is_empty();
        assert!(no_cycle || self.read_start.len() == self.atoms.len() + 1);
        assert!(
            self.reading
                .iter()
                .all(|&r| (r as usize) < self.rules.len())
        );
    }
}

/// Per atom, the number of its strongly connected component in the graph
/// with an edge from each literal's atom to its rule's head, for the
/// components with a cycle (numbered from 0), else `NO_CYCLE`; and how
/// many such components there are. Tarjan's algorithm, its recursion kept
/// on a stack of its own (a chain of a million atoms is no deep call).
fn components_with_cycles(rules: &[Rule], readers: &[Vec<u32>]) -> (Vec<u32>, u32) {
    let n = readers.len();
    let head = |e: u32| rules[(e >> 1) as usize].head as usize;
    let mut walk = Walk {
        index: vec![UNSEEN; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        calls: Vec::new(),
        next: 0,
    };
    let mut of = vec![NO_CYCLE; n];
    let mut components = 0u32;
    for root in 0..n {
        if walk.index[root] != UNSEEN {
            continue;
        }
        walk.enter(root);
        while let Some(&(v, e)) = walk.calls.last() {
            let v = v as usize;
            if let Some(&edge) = readers[v].get(e as usize) {
                walk.calls.last_mut().expect("a call under way").1 += 1;
                let w = head(edge);
                if walk.index[w] == UNSEEN {
                    walk.enter(w);
                } else if walk.on_stack[w] {
                    walk.low[v] = walk.low[v].min(walk.index[w]);
                }
                continue;
            }
            walk.calls.pop();
            if let Some(&(u, _)) = walk.calls.last() {
                walk.low[u as usize] = walk.low[u as usize].min(walk.low[v]);
            }
            if walk.low[v] != walk.index[v] {
                continue;
            }
            // v roots a component: the atoms above it on the stack.
            let at = (walk.stack.iter())
                .rposition(|&a| a as usize == v)
                .expect("v on the stack");
            let members = walk.stack.split_off(at);
            let cyclic = members.len() > 1 || readers[v].iter().any(|&e| head(e) == v);
            for &a in &members {
                walk.on_stack[a as usize] = false;
                if cyclic {
                    of[a as usize] = components;
                }
            }
            components += u32::from(cyclic);
        }
    }
    (of, components)
}

/// An atom not reached yet by Tarjan's walk.
const UNSEEN: u32 = u32::MAX;

/// Tarjan's walk: per atom its number in the order reached and the lowest
/// number it reaches back to, whether it is on the stack of atoms not yet
/// put in a component; the calls under way (an atom and the next of its
/// edges to follow); the next number.
struct Walk {
    index: Vec<u32>,
    low: Vec<u32>,
    on_stack: Vec<bool>,
    stack: Vec<u32>,
    calls: Vec<(u32, u32)>,
    next: u32,
}

impl Walk {
    /// Reaches atom `a`: numbers it, and walks from it next.
    fn enter(&mut self, a: usize) {
        self.index[a] = self.next;
        self.low[a] = self.next;
        self.next += 1;
        self.stack.push(a as u32);
        self.on_stack[a] = true;
        self.calls.push((a as u32, 0));
    }
}

impl Evaluation {
    /// Derives the atoms of the component of `atom` anew from the atoms
    /// below it, as they stand, and flips those whose value differs (see
    /// the module's doc). Its atoms are marked queued meanwhile, so that
    /// the rules of the component, counting those flips, queue none of
    /// them again at the level being settled; and none is queued after, so
    /// that the rest of them waiting at this level are passed over.
    ///
    /// new(h) :- rule(h, inside, outside), new(a) for each a in inside,
    ///           each literal of outside holds.
    #[cold]
    #[inline(never)]
    pub(super) fn settle_cycle(&mut self, net: &Network, atom: u32) {
        let cy = &net.cycles;
        let c = cy.of[atom as usize] as usize;
        let slots = cy.atom_start[c] as usize..cy.atom_start[c + 1] as usize;
        let rules = cy.rule_start[c] as usize..cy.rule_start[c + 1] as usize;
        self.work += (slots.len() + rules.len()) as u64;
        let mut stack = std::mem::take(&mut self.cycle_stack);
        self.cycle_new[slots.clone()].fill(false);
        // The rules whose other literals hold, each waiting for its atoms
        // of the component (`u32::MAX`: never fires).
        for r in rules {
            let rule = cy.rules[r];
            let outside = &cy.lits[rule.inside as usize..rule.end as usize];
            let holds =
                (outside.iter()).all(|&l| self.atoms[(l >> 1) as usize].truth == (l & 1 == 0));
            let need = rule.inside - rule.start;
            self.cycle_need[r] = if holds { need } else { u32::MAX };
            if holds && need == 0 && !self.cycle_new[rule.head as usize] {
                self.cycle_new[rule.head as usize] = true;
                stack.push(rule.head);
            }
        }
        while let Some(s) = stack.pop() {
            let reading =
                cy.read_start[s as usize] as usize..cy.read_start[s as usize + 1] as usize;
            for &r in &cy.reading[reading] {
                let need = &mut self.cycle_need[r as usize];
                if *need == u32::MAX {
                    continue;
                }
                *need -= 1;
                let head = cy.rules[r as usize].head;
                if *need == 0 && !self.cycle_new[head as usize] {
                    self.cycle_new[head as usize] = true;
                    stack.push(head);
                }
            }
        }
        self.cycle_stack = stack;
        let atoms = &cy.atoms[slots.clone()];
        for &a in atoms {
            self.atoms[a as usize].queued = true;
        }
        for (s, &a) in slots.zip(atoms) {
            let value = self.cycle_new[s];
            if self.atoms[a as usize].truth != value {
                self.flip(net, a, value);
            }
        }
        for &a in atoms {
            self.atoms[a as usize].queued = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Cycles, NO_CYCLE, components_with_cycles};
    use crate::engine::incremental::network::{Rule, readers_of};

    fn rule(head: u32, lits: &[u32]) -> Rule {
        Rule {
            head,
            lits: lits.to_vec(),
        }
    }

    #[test]
    fn components_with_cycles_are_found_and_chains_are_not() {
        // 0 -> 1 -> 2 -> 1 (a cycle of 1 and 2), 2 -> 3, 4 reads itself,
        // 5 -> 6 (a chain).
        let rules = [
            rule(1, &[0 << 1]),
            rule(2, &[1 << 1]),
            rule(1, &[2 << 1]),
            rule(3, &[2 << 1]),
            rule(4, &[4 << 1, 5 << 1]),
            rule(6, &[5 << 1]),
        ];
        let readers = readers_of(&rules, 7);
        let (of, n) = components_with_cycles(&rules, &readers);
        assert_eq!(n, 2);
        assert_eq!(of[1], of[2]);
        assert_ne!(of[1], NO_CYCLE);
        assert_ne!(of[4], NO_CYCLE);
        assert_ne!(of[4], of[1]);
        for a in [0, 3, 5, 6] {
            assert_eq!(of[a], NO_CYCLE, "atom {a}");
        }
        let cycles = Cycles::new(&rules, &readers).unwrap();
        assert_eq!(cycles.len(), 2);
        assert_eq!(cycles.sizes(), (3, 4));
        cycles.check(7);
    }

    #[test]
    fn negation_through_a_cycle_builds_no_components() {
        // 1 :- 0, not 2.  2 :- 1.
        let rules = [rule(1, &[0 << 1, 2 << 1 | 1]), rule(2, &[1 << 1])];
        let readers = readers_of(&rules, 3);
        assert!(Cycles::new(&rules, &readers).is_none());
    }
}
