//! Rules only goals read, left out of the network and evaluated top-down
//! when goals are asked.
//!
//! A playout asks the goals once, at its end. Where the network keeps
//! such rules, they wait in its queues until then (see the network's
//! `waiting_atoms`), but each flip of an atom they read still counts in
//! them. Left out of the network, they cost nothing while play goes on:
//! when a goal is asked, it is decided from the goal atom down, each atom
//! at most once, and a body stops at its first literal that fails, so a
//! goal that fails early (hitori's first repeated number in a row) reads
//! little. Which of the two costs less depends on the game (a count
//! chained through every square, as in queens, is cheaper bottom-up), so
//! the stepper measures both (see `stepper::step_tables`).

use super::network::unread_by_play;
use crate::engine::ground::Grounded;

/// No local number: the atom is the network's.
const NONE: u32 = u32::MAX;

/// What a question knows of a lazy atom.
const UNKNOWN: u8 = 0;
const TRUE: u8 = 1;
const FALSE: u8 = 2;

/// The rules of the atoms only goals depend on, by head.
#[derive(Clone, Debug)]
pub(crate) struct LazyRules {
    /// Per atom of the ground program: its local number when it is lazy,
    /// else `NONE`.
    local: Vec<u32>,
    /// Per local atom: its rules, `rule_start[l]..rule_start[l + 1]`.
    rule_start: Vec<u32>,
    /// Per rule: its literals (`atom << 1 | negated`),
    /// `lit_start[r]..lit_start[r + 1]`.
    lit_start: Vec<u32>,
    lits: Vec<u32>,
}

/// One atom being decided: the rule of its own being tried, and the literal
/// of that rule being checked.
struct Frame {
    local: u32,
    rule: u32,
    lit: u32,
}

impl LazyRules {
    /// The rules of `g` whose heads no atom marked in `play` (those read
    /// at every step: legal moves, `next`, `terminal`) depends on, and
    /// those heads marked per atom, when there are some and they depend on
    /// one another through no cycle.
    pub(crate) fn split(g: &Grounded, play: &[bool]) -> Option<(LazyRules, Vec<bool>)> {
        let atoms = g.atoms() + 1;
        let rules: Vec<(u32, &[u32], &[u32])> = g.ground_rules().collect();
        let mut rules_for: Vec<Vec<u32>> = vec![Vec::new(); atoms];
        for (r, &(head, _, _)) in rules.iter().enumerate() {
            rules_for[head as usize].push(r as u32);
        }
        // An atom reads its rules' literals.
        let has_rules = |a: usize| !rules_for[a].is_empty();
        let lazy = unread_by_play(atoms, play, has_rules, |a, todo| {
            for &r in &rules_for[a as usize] {
                let (_, pos, neg) = rules[r as usize];
                todo.extend(pos.iter().chain(neg));
            }
        });
        let mut local = vec![NONE; atoms];
        let (mut rule_start, mut lit_start, mut lits) = (vec![0u32], vec![0u32], Vec::new());
        for a in (0..atoms).filter(|&a| lazy[a]) {
            local[a] = rule_start.len() as u32 - 1;
            for &r in &rules_for[a] {
                let (_, pos, neg) = rules[r as usize];
                lits.extend(pos.iter().map(|&b| b << 1));
                lits.extend(neg.iter().map(|&b| b << 1 | 1));
                lit_start.push(lits.len() as u32);
            }
            rule_start.push(lit_start.len() as u32 - 1);
        }
        if rule_start.len() == 1 {
            return None;
        }
        let lazy_rules = LazyRules {
            local,
            rule_start,
            lit_start,
            lits,
        };
        lazy_rules.is_acyclic().then_some((lazy_rules, lazy))
    }

    /// How many lazy atoms there are.
    fn len(&self) -> usize {
        self.rule_start.len() - 1
    }

    /// How many rules the lazy atoms have.
    pub(crate) fn rules(&self) -> usize {
        self.lit_start.len() - 1
    }

    /// Whether the lazy atoms depend on one another through no cycle (a
    /// topological order exists: Kahn's algorithm over the lazy atoms).
    fn is_acyclic(&self) -> bool {
        let n = self.len();
        let mut waiting = vec![0u32; n];
        let mut readers: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (l, wait) in waiting.iter_mut().enumerate() {
            for lit in self.lits_of(l as u32) {
                let b = self.local[(lit >> 1) as usize];
                if b != NONE {
                    *wait += 1;
                    readers[b as usize].push(l as u32);
                }
            }
        }
        let mut ready: Vec<u32> = (0..n as u32)
            .filter(|&l| waiting[l as usize] == 0)
            .collect();
        let mut placed = 0;
        while let Some(l) = ready.pop() {
            placed += 1;
            for &h in &readers[l as usize] {
                waiting[h as usize] -= 1;
                if waiting[h as usize] == 0 {
                    ready.push(h);
                }
            }
        }
        placed == n
    }

    /// Every literal of every rule of local atom `l`.
    fn lits_of(&self, l: u32) -> &[u32] {
        let rules = self.rule_start[l as usize] as usize..self.rule_start[l as usize + 1] as usize;
        let (from, to) = (self.lit_start[rules.start], self.lit_start[rules.end]);
        &self.lits[from as usize..to as usize]
    }

    /// The network's atoms the lazy rules read (some more than once).
    pub(crate) fn network_reads(&self) -> impl Iterator<Item = u32> + '_ {
        (self.lits.iter())
            .map(|&lit| lit >> 1)
            .filter(|&b| self.local[b as usize] == NONE)
    }

    /// Whether the atom is lazy (decided by `holds`, not the network).
    pub(crate) fn is_lazy(&self, atom: u32) -> bool {
        self.local.get(atom as usize).is_some_and(|&l| l != NONE)
    }

    /// A blank memo for `holds`: one entry per lazy atom.
    pub(crate) fn memo(&self) -> Vec<u8> {
        vec![UNKNOWN; self.len()]
    }

    /// Whether the lazy atom `atom` holds, the network's atoms holding as
    /// `network` says; `memo` (from `memo`, kept between the questions
    /// about one position) remembers the lazy atoms decided.
    ///
    /// `atom :- l1, ..., ln` for each of its rules, tried in order; a rule
    /// stops at its first literal that fails. An undecided lazy literal is
    /// decided first (a frame pushed), then its rule goes on. Each step
    /// (a literal read, a rule or atom decided) adds one to `work`.
    pub(crate) fn holds(
        &self,
        atom: u32,
        network: impl Fn(u32) -> bool,
        memo: &mut [u8],
        work: &mut u64,
    ) -> bool {
        let root = self.local[atom as usize];
        if memo[root as usize] != UNKNOWN {
            return memo[root as usize] == TRUE;
        }
        let mut stack = vec![self.frame(root)];
        while let Some(top) = stack.last_mut() {
            *work += 1;
            let (rule, end) = (top.rule, self.rule_start[top.local as usize + 1]);
            if rule == end {
                // No rule fired.
                memo[top.local as usize] = FALSE;
                stack.pop();
                continue;
            }
            let lits =
                self.lit_start[rule as usize] as usize..self.lit_start[rule as usize + 1] as usize;
            let Some(&lit) = self.lits[lits].get(top.lit as usize) else {
                // Every literal holds.
                memo[top.local as usize] = TRUE;
                stack.pop();
                continue;
            };
            let (b, negated) = (lit >> 1, lit & 1 == 1);
            let value = match self.local[b as usize] {
                NONE => network(b),
                l => match memo[l as usize] {
                    TRUE => true,
                    FALSE => false,
                    _ => {
                        let frame = self.frame(l);
                        stack.push(frame);
                        continue;
                    }
                },
            };
            if value != negated {
                top.lit += 1;
            } else {
                top.rule += 1;
                top.lit = 0;
            }
        }
        memo[root as usize] == TRUE
    }

    /// The frame deciding local atom `l`, at its first rule.
    fn frame(&self, l: u32) -> Frame {
        Frame {
            local: l,
            rule: self.rule_start[l as usize],
            lit: 0,
        }
    }
}
