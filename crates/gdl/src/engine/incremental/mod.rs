//! Incremental evaluation of the ground rules: a model kept up to date as
//! input atoms (`true`, `does`) change, touching only what depends on them.
//!
//! Each ground rule counts its unsatisfied literals (positive atoms false,
//! negated atoms true) in a byte (a longer rule is written as a chain, see
//! `network::split_long_bodies`); it fires when the count is zero. Each
//! derived atom counts the rules for it that fire; it holds when the count
//! is positive.
//! Flipping an input atom updates the counts of the rules that read it, and
//! a head whose count crosses zero is queued at its level. Levels follow
//! the ground dependency graph (a head is above every atom of its bodies),
//! so queued atoms are settled level by level and each flips at most once
//! per propagation. Counting is exact only where that graph is acyclic:
//! stratified negation makes it so apart from recursive strata, which may
//! recurse through a cycle of ground atoms (reachability over a graph with
//! cycles; a ray growing square by square does not). The atoms of such a
//! cycle sit at one level and are derived anew, a component at a time,
//! when one of them loses a rule (see `cycles`).
//!
//! Atoms of move relations (those that read `does`) sit above every atom of
//! state relations, so a state's own model can be settled alone and the
//! move part left queued until a joint move is set. Atoms that play never
//! reads (goals, and what only goals read) sit above both and stay queued
//! until goals are asked (see `network::waiting_atoms`); or, where they are
//! many, their rules are left out of the network and decided top-down when
//! asked (`lazy`).
//!
//! Some atoms are read by many rules and flip at every step (whose turn it
//! is). Atoms derived from such a hub that are only read where the hub
//! holds are *deferred*: computed as if it held, they no longer flip with
//! it (see `defer_hubs`).
//!
//! A rule of a move relation with a positive `does` atom (a *gate*) and
//! otherwise only atoms of state relations (the moving piece's square, the
//! squares beside its landing) cannot fire while its gate is false, which
//! is nearly always: such a rule is not counted while its gate is shut. It
//! is counted afresh when the gate opens, and forgotten when it shuts, so
//! the board's flips no longer touch it. This needs the state part settled
//! when a gate opens and left alone while one is open (the stepper shuts
//! every gate before it plays the `next` facts into `true`).
//!
//! A gate of many rules, of which few can fire at once, is *armed* where
//! loading counts that cheaper (`Network::worth_arming`): each of its rules
//! counts its other literals while the gate is shut, as any rule does, and
//! has a bit set while they all hold; opening the gate visits only the
//! rules whose bits are set. A Dresden pancake puzzle's `(flip p3)` gates
//! a rule per order of the stack, 40,320, of which the one of the order
//! now fires; armed, a flip of the stack updates the eight rules that read
//! each of the two orders that changed.
//!
//! Any rule may be armed so, with one of its literals as its gate (its
//! *guard*, positive or negated), where that literal flips far more often
//! than the rest of the rule on the same counted playouts and the rule's
//! reads were mostly idle there (see `network::Arming`). Whose turn it is
//! flips at every step, and gt_ultimatum's rules that carry a score over
//! read it beside one possible score each, of which one holds: 2,093 of
//! its rules wait on 13 guards, and a playout costs 41 % fewer
//! instructions. A role's noop, read beside what the other role plays by
//! the sets of several roles' moves that `factor` writes, guards alike
//! where it gates no rule (knightfight: 197 rules, 11 % fewer). An armed
//! rule counts its other literals always, is ready at zero, and fires
//! while it is ready and its gate holds; a flip of its gate visits only
//! the ready rules.
//!
//! A *leaf* (an atom no rule reads and that gates none: legal moves,
//! `next`, goals) takes its value as soon as its support crosses zero,
//! without a turn in the queues. The hot loop (flip, gain, lose, queue)
//! indexes without bounds checks: every index comes from the network, and
//! an evaluation asserts at each public call that it is given the network
//! it was made for.
//!
//! Where every atom of a network is a bit of one word, random playouts
//! read its rules whole at each step instead (see `dense`): two masks a
//! rule cost less than the bookkeeping of a flip.

mod cycles;
mod dense;
mod evaluation;
mod hot;
mod lazy;
mod network;

pub(crate) use dense::Dense;
pub(crate) use evaluation::Evaluation;
pub(crate) use lazy::LazyRules;
pub(crate) use network::{Arming, Network, Shape};
