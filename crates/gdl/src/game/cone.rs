//! The atoms a playout's outcome depends on, on the ground rules.
//!
//! A random playout reads the legal moves and `terminal` at every step and
//! the goals at its end, and throws its positions away. A fact of the
//! state that none of those depends on, through rules and through `next`
//! from one state to the next, changes no outcome: a memory game keeps
//! every choice made and a thousand facts it never reads, firefighter
//! keeps where the fire was, a Soar war game the path each unit walked.
//! Every step still derives their `next` facts, and in those games that
//! is most of the work (four rules of five in firefighter). The stepper of
//! random outcomes (`Game::random_outcome`) leaves them out: its network
//! keeps the rules of the cone alone, and its positions hold only the
//! facts of the cone (see `Tables::idle`).

use super::ground::GroundTables;
use crate::plan::Program;

/// The rules the cone must leave out, one in this many of the ground
/// rules at least, for the game to get a stepper of its own for random
/// outcomes: below, a second network costs more memory and loading than
/// its playouts save.
const IDLE_SHARE: usize = 10;

/// The cone of influence of a playout's outcome.
#[derive(Debug)]
pub(super) struct Cone {
    /// Per atom of the ground program: whether an outcome depends on it.
    needed: Vec<bool>,
    /// How many ground rules derive atoms of the cone.
    kept_rules: usize,
    /// How many ground rules derive the `next` facts of facts out of the
    /// cone, and no atom of it: what every step of the full stepper
    /// settles in vain.
    idle_rules: usize,
}

impl Cone {
    /// The cone of `g`'s legal moves, goals and `terminal`:
    ///
    /// needed(a) :- legal(_, a) ; goal(_, a) ; terminal(a).
    /// needed(b) :- needed(a), a rule for a reads b.
    /// needed(n) :- needed(t), t is `true` of fact f, n is `next` of f.
    pub(super) fn new(g: &GroundTables, p: &Program) -> Cone {
        let atoms = g.program.atoms() + 1;
        let rules: Vec<(u32, &[u32], &[u32])> = g.program.ground_rules().collect();
        let mut rules_for: Vec<Vec<u32>> = vec![Vec::new(); atoms];
        for (r, &(head, _, _)) in rules.iter().enumerate() {
            rules_for[head as usize].push(r as u32);
        }
        let mut next_of = vec![u32::MAX; atoms];
        for &(next, fact) in &g.next {
            if let Some(t) = g.program.atom(p.keywords.true_, &[fact]) {
                next_of[t as usize] = next;
            }
        }
        let roots = (g.legal.iter().chain(&g.goal).flatten().map(|&(a, _)| a)).chain(g.terminal);
        let mut needed = vec![false; atoms];
        let reach = |needed: &mut Vec<bool>, todo: &mut Vec<u32>| {
            while let Some(a) = todo.pop() {
                if std::mem::replace(&mut needed[a as usize], true) {
                    continue;
                }
                for &r in &rules_for[a as usize] {
                    let (_, pos, neg) = rules[r as usize];
                    todo.extend(pos.iter().chain(neg));
                }
                if next_of[a as usize] != u32::MAX {
                    todo.push(next_of[a as usize]);
                }
            }
        };
        reach(&mut needed, &mut roots.collect());
        // What the full network derives besides: every `next` fact and
        // what it reads.
        let mut derived = needed.clone();
        reach(&mut derived, &mut g.next.iter().map(|&(a, _)| a).collect());
        let kept_rules = (rules.iter())
            .filter(|&&(head, _, _)| needed[head as usize])
            .count();
        let idle_rules = (rules.iter())
            .filter(|&&(head, _, _)| derived[head as usize] && !needed[head as usize])
            .count();
        Cone {
            needed,
            kept_rules,
            idle_rules,
        }
    }

    /// Whether the cone leaves out enough rules for a stepper of its own.
    pub(super) fn is_worth_a_stepper(&self, rules: usize) -> bool {
        self.idle_rules > 0 && self.idle_rules * IDLE_SHARE >= rules
    }

    /// Whether an outcome depends on `atom`.
    pub(super) fn needs(&self, atom: u32) -> bool {
        self.needed.get(atom as usize).is_some_and(|&n| n)
    }

    /// How many ground rules the cone keeps, and how many it leaves out
    /// that the full network settles at every step.
    pub(super) fn sizes(&self) -> (usize, usize) {
        (self.kept_rules, self.idle_rules)
    }
}
