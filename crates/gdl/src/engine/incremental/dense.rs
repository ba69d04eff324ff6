//! Networks of at most 64 atoms read whole: every rule evaluated in order
//! at every step, over one word of bits held in a register, with nothing
//! counted or queued.
//!
//! The incremental evaluation pays for each flip it propagates and for the
//! bookkeeping around it (inputs opened and shut, queues, the list of
//! watched flips, a position copied back at each playout's start): over
//! a thousand instructions a step however small the rules. Where every
//! atom is a bit of one word, a rule is a test of two masks (the bits it
//! needs set, those it needs clear) and an or into its head's bit, a few
//! instructions: buttons' 24 rules of its move part cost less read whole
//! than its flips propagated (a playout 14,571 instructions incremental,
//! 4,936 read whole, under callgrind). A first version over several words,
//! some 20 instructions a rule, won on the smallest networks and lost
//! beyond one word (lightsOn even, tictactoe2 twice and hanoi 2.4 times
//! the instructions), so `Shape::dense` writes such a program for
//! networks of one word alone. Random playouts then run on it (see
//! `Stepper::walk_dense`).

use super::cycles::Cycles;

/// The most atoms of a network read whole: one word's bits.
const DENSE_ATOMS: usize = 64;

/// A network's rules as three programs over one bit per atom: the state
/// part (what `true` alone gives: legal moves, `terminal`), the move part
/// (what `does` gives: `next`), and what only goals read.
#[derive(Debug)]
pub(crate) struct Dense {
    /// The atom that always holds.
    always: u32,
    state: Program,
    moves: Program,
    goals: Program,
}

/// Derived atoms' rules, each after the rules of every atom it reads.
#[derive(Debug, Default)]
struct Program {
    /// The bits of the atoms the program derives: cleared before it runs.
    derived: u64,
    rules: Vec<Rule>,
}

/// A rule: the bits that must be set and those that must be clear for it
/// to fire, and its head's bit.
#[derive(Clone, Copy, Debug)]
struct Rule {
    set: u64,
    clear: u64,
    head: u32,
}

impl Program {
    /// Derives each atom in order: clears it, then sets it where one of its
    /// rules fires.
    //
    // head :- lit, ..., lit   (each rule, after those of the atoms it reads)
    #[inline]
    fn run(&self, bits: u64) -> u64 {
        let mut bits = bits & !self.derived;
        for r in &self.rules {
            let fires = bits & r.set == r.set && bits & r.clear == 0;
            bits |= u64::from(fires) << r.head;
        }
        bits
    }
}

/// Which program an atom's rules go to.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Part {
    State,
    Moves,
    Goals,
}

impl Dense {
    /// The program of rules `(head, literals)` over `atoms` atoms, where
    /// `is_move` marks the atoms of relations that read `does` and `waits`
    /// those only goals read; `None` where the atoms are over one word's
    /// bits or on a cycle, or a part reads atoms of one after it.
    pub(super) fn new<'a>(
        rules: impl Iterator<Item = (u32, &'a [u32])>,
        (atoms, always): (usize, u32),
        (is_move, waits): (&[bool], &[bool]),
        cycles: &Cycles,
    ) -> Option<Dense> {
        if atoms > DENSE_ATOMS || cycles.len() > 0 {
            return None;
        }
        let part = |a: u32| match (waits[a as usize], is_move[a as usize]) {
            (true, _) => Part::Goals,
            (false, true) => Part::Moves,
            (false, false) => Part::State,
        };
        let mut of_head: Vec<Vec<Rule>> = vec![Vec::new(); atoms];
        for (head, lits) in rules {
            // A part reads its own atoms and those of the parts before it.
            if lits.iter().any(|&l| part(l >> 1) > part(head)) {
                return None;
            }
            let mut rule = Rule {
                set: 0,
                clear: 0,
                head,
            };
            for &l in lits {
                match l & 1 {
                    0 => rule.set |= 1 << (l >> 1),
                    _ => rule.clear |= 1 << (l >> 1),
                }
            }
            of_head[head as usize].push(rule);
        }
        // The derived atoms in an order where each comes after every atom
        // its rules read, in rounds: each takes the atoms whose derived
        // atoms read are all taken (the first, those reading none).
        let derived: u64 = (0..atoms)
            .filter(|&a| !of_head[a].is_empty())
            .map(|a| 1u64 << a)
            .sum();
        let reads = |a: usize| of_head[a].iter().fold(0, |b, r| b | r.set | r.clear);
        let mut done = 0u64;
        let mut order = Vec::new();
        while done != derived {
            let ready: Vec<usize> = (0..atoms)
                .filter(|&a| derived >> a & 1 == 1 && done >> a & 1 == 0)
                .filter(|&a| reads(a) & derived & !done == 0)
                .collect();
            // None ready: the rest wait on a cycle.
            if ready.is_empty() {
                return None;
            }
            for a in ready {
                done |= 1 << a;
                order.push(a);
            }
        }
        let mut dense = Dense {
            always,
            state: Program::default(),
            moves: Program::default(),
            goals: Program::default(),
        };
        for a in order {
            let program = match part(a as u32) {
                Part::State => &mut dense.state,
                Part::Moves => &mut dense.moves,
                Part::Goals => &mut dense.goals,
            };
            program.rules.extend_from_slice(&of_head[a]);
            program.derived |= 1 << a;
        }
        Some(dense)
    }

    /// How many rules the programs read.
    pub(crate) fn rules(&self) -> usize {
        self.state.rules.len() + self.moves.rules.len() + self.goals.rules.len()
    }

    /// The bits of an evaluation where only the always-true atom holds.
    pub(crate) fn empty(&self) -> u64 {
        1 << self.always
    }

    /// Derives the state part from the `true` atoms among `bits`.
    pub(crate) fn run_state(&self, bits: u64) -> u64 {
        self.state.run(bits)
    }

    /// Derives the move part from the `does` atoms (and the state part)
    /// among `bits`.
    pub(crate) fn run_moves(&self, bits: u64) -> u64 {
        self.moves.run(bits)
    }

    /// Derives what only goals read, from the state part among `bits`.
    pub(crate) fn run_goals(&self, bits: u64) -> u64 {
        self.goals.run(bits)
    }

    /// Whether atom `a` holds among `bits`.
    #[inline(always)]
    pub(crate) fn holds(bits: u64, a: u32) -> bool {
        bits >> a & 1 == 1
    }
}
