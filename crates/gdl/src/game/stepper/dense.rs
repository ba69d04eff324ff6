//! Random playouts on a network of one word read whole (see
//! `engine::incremental::dense`): the walk of a stepper whose tables have
//! a dense program, from its position, which it leaves where it stands.
//! A step derives the state part from the `true` bits, reads each role's
//! legal moves, sets the joint move's `does` bits, derives the move part
//! and copies each `next` bit into its `true` bit: the same playouts as
//! `Stepper::walk` (the same draws, the moves in the same order).

use super::{NONE, STEPS_BETWEEN_LOOKS, Stepper, Tables, Walked, get};
use crate::engine::incremental::Dense;
use crate::game::types::{Goals, State, Stop};

/// What a dense walk reads besides the program, and where it ended; empty
/// where the tables have no dense program.
#[derive(Clone, Debug, Default)]
pub(super) struct Scratch {
    /// A bit per atom of the network, as the last walk left them.
    bits: u64,
    /// The bits of the `true` atoms; and each `true` atom that a position
    /// of the stepper can hold, with its `next` atom.
    trues: u64,
    next_of: Vec<(u32, u32)>,
    /// Each role's move (by its place in its move table) of the joint
    /// move played; one role's legal moves, where they are drawn in the
    /// natural order.
    joint: Vec<u32>,
    legal: Vec<u32>,
}

impl Scratch {
    pub(super) fn new(t: &Tables) -> Scratch {
        let Some(dense) = &t.dense else {
            return Scratch::default();
        };
        let mut scratch = Scratch {
            bits: dense.empty(),
            joint: vec![0; t.roles.len()],
            ..Scratch::default()
        };
        for (local, &next) in t.true_next.iter().enumerate() {
            let atom = t.first_true + local as u32;
            scratch.trues |= 1 << atom;
            // A fact out of the cone (see `cone`) is never set.
            let idle = !t.idle.is_empty() && get(&t.idle, local as u32);
            if next != NONE && !idle {
                scratch.next_of.push((atom, next));
            }
        }
        scratch
    }
}

impl Stepper {
    /// Whether random outcomes from the position are played by
    /// `walk_dense`: where the tables have a dense program and the
    /// position is on the ground rules.
    pub(crate) fn walks_dense(&self) -> bool {
        self.tables.dense.is_some() && !self.off
    }

    /// `walk` on the network read whole, from the position, which stays
    /// where it is: each role plays the legal move `draw(n)` indexes
    /// among its `n` (in the natural order of their texts where `natural`
    /// says so). `dense_goals` and `dense_state` read where it ended.
    ///
    /// # Panics
    ///
    /// Unless `walks_dense`.
    pub(crate) fn walk_dense(
        &mut self,
        steps: &mut usize,
        stop: &Stop,
        natural: bool,
        mut draw: impl FnMut(usize) -> usize,
    ) -> Walked {
        assert!(self.walks_dense(), "a dense walk without a dense program");
        let t = &*self.tables;
        let dense = t.dense.as_ref().expect("a dense program");
        let s = &mut self.dense;
        let holds = Dense::holds;
        // The position's `true` bits (no `does` bit is set between walks).
        let mut bits = s.bits & !s.trues;
        for local in 0..t.true_facts.len() as u32 {
            bits |= u64::from(get(&self.true_bits, local)) << (t.first_true + local);
        }
        bits = dense.run_state(bits);
        let (looks, mut since) = (stop.looks(), 0usize);
        let mut played = *steps;
        let walked = loop {
            if t.terminal.is_some_and(|a| holds(bits, a)) {
                break Walked::Terminal;
            }
            if played >= stop.max_steps {
                break Walked::Limit;
            }
            if looks && since % STEPS_BETWEEN_LOOKS == STEPS_BETWEEN_LOOKS - 1 && stop.late() {
                break Walked::Stopped;
            }
            for (role, r) in t.roles.iter().enumerate() {
                // A legal move's atom holds, as do the hub literals its
                // group is deferred under.
                let is_legal = |entry: usize| {
                    let hubs = &r.hubs[r.group[entry] as usize];
                    let open = |&l: &u32| holds(bits, l >> 1) != (l & 1 == 1);
                    holds(bits, r.legal[entry]) && hubs.iter().all(open)
                };
                let n = (0..r.legal.len()).filter(|&e| is_legal(e)).count();
                if n == 0 {
                    s.bits = bits;
                    *steps = played;
                    return Walked::NoMove(role);
                }
                let k = draw(n);
                let mut legal = (0..r.legal.len() as u32).filter(|&e| is_legal(e as usize));
                s.joint[role] = match natural && !r.rank.is_empty() {
                    // The legal move of the `k`-th lowest rank.
                    true => {
                        s.legal.clear();
                        s.legal.extend(legal);
                        *s.legal
                            .select_nth_unstable_by_key(k, |&e| r.rank[e as usize])
                            .1
                    }
                    false => legal.nth(k).expect("a draw below the count"),
                };
            }
            let mut does = 0u64;
            for (r, &entry) in t.roles.iter().zip(&s.joint) {
                let atom = r.does[entry as usize];
                if atom != NONE {
                    does |= 1 << atom;
                }
            }
            let after = dense.run_moves(bits | does);
            // true(f) := next(f)
            bits = after & !s.trues & !does;
            for &(atom, next) in &s.next_of {
                bits |= u64::from(holds(after, next)) << atom;
            }
            bits = dense.run_state(bits);
            played += 1;
            since += 1;
        };
        s.bits = bits;
        *steps = played;
        walked
    }

    /// Each role's goal value where `walk_dense` ended, when every role
    /// has exactly one that is a whole number from 0 to 100 (as
    /// `Stepper::goals`).
    pub(crate) fn dense_goals(&mut self) -> Option<Goals> {
        let t = &*self.tables;
        let bits = t.dense.as_ref()?.run_goals(self.dense.bits);
        let mut goals = Goals::default();
        for role in &t.goals {
            let mut held = role.iter().filter(|&&(a, _)| Dense::holds(bits, a));
            match (held.next(), held.next()) {
                (Some(&(_, Some(v))), None) => goals.push(v),
                _ => return None,
            }
        }
        Some(goals)
    }

    /// The state where `walk_dense` ended.
    pub(crate) fn dense_state(&self) -> State {
        let t = &*self.tables;
        let holding = (t.true_facts.iter().enumerate())
            .filter(|&(local, _)| Dense::holds(self.dense.bits, t.first_true + local as u32))
            .map(|(_, &fact)| fact);
        State::from_terms(holding.collect())
    }
}

#[cfg(test)]
mod tests {
    use super::super::Stepper;
    use crate::game::types::{State, Stop};
    use crate::{Game, RandomPlayer};
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64;

    /// Two roles moving at once, whose moves' natural order is not the
    /// table's (`pick 9` before `pick 10`): `a` picks numbers, `b` waits
    /// or plays a noop; three steps.
    const PICKS: &str = "(role a) (role b) (init (t 0))
        (num 10) (num 9) (num 11) (num 2)
        (succ 0 1) (succ 1 2) (succ 2 3)
        (<= (legal a (pick ?n)) (num ?n) (not (true (picked ?n))))
        (<= (legal b noop) (true (t ?x)))
        (<= (legal b (wait ?n)) (num ?n) (true (t 0)))
        (<= (next (picked ?n)) (does a (pick ?n)))
        (<= (next (picked ?n)) (true (picked ?n)))
        (<= (next (waited ?n)) (does b (wait ?n)))
        (<= (next (t ?y)) (true (t ?x)) (succ ?x ?y))
        (<= terminal (true (t 3)))
        (<= (goal a 100) (true (picked 10)))
        (<= (goal a 0) (not (true (picked 10))))
        (<= (goal b 100) (true (waited 9)))
        (<= (goal b 0) (not (true (waited 9))))";

    /// A role with two goal values where the game ends after `b` moved:
    /// the general API names the fault.
    const TWO_GOALS: &str = "(role p) (init s)
        (<= (legal p a) (true s)) (<= (legal p b) (true s))
        (<= (next done) (does p a)) (<= (next both) (does p b))
        (<= terminal (true done)) (<= terminal (true both))
        (<= (goal p 100) (true done)) (<= (goal p 100) (true both))
        (<= (goal p 0) (true both))";

    /// Walks from `initial` with the draws of `seed`, on the network read
    /// whole and then by `walk`: both end alike (where, after how many
    /// steps, in which state, with which goals).
    fn walks_alike(stepper: &mut Stepper, initial: &State, seed: u64, natural: bool) {
        let stop = Stop::steps(60);
        stepper.set_state(initial);
        let mut rng = Pcg64::seed_from_u64(seed);
        let mut dense_steps = 0;
        let dense = stepper.walk_dense(&mut dense_steps, &stop, natural, |n| rng.gen_range(0..n));
        let (dense_goals, dense_state) = (stepper.dense_goals(), stepper.dense_state());
        let mut rng = Pcg64::seed_from_u64(seed);
        let mut steps = 0;
        let walked = stepper.walk(&mut steps, &stop, |s, role, n| match rng.gen_range(0..n) {
            r if natural => s.nth_natural(role, r),
            r => r,
        });
        assert_eq!((dense, dense_steps), (walked, steps), "seed {seed}");
        assert_eq!(dense_state, stepper.state(), "seed {seed}");
        assert_eq!(dense_goals, stepper.outcome_goals(), "seed {seed}");
    }

    /// A game's random outcomes on the network read whole are the general
    /// API's games of the same players (both orders of moves), and each
    /// walk ends where `walk` ends, on the game's stepper and its stepper
    /// of outcomes. Panics unless the latter walks dense.
    fn check(game: &mut Game, walks: u64) {
        let initial = game.initial_state();
        let mut outcomes = game.take_outcome_stepper().expect("a stepper");
        assert!(outcomes.walks_dense(), "random outcomes walk dense");
        let mut whole = game.stepper().expect("a stepper");
        for seed in 0..walks {
            for natural in [false, true] {
                walks_alike(&mut outcomes, &initial, seed, natural);
                if whole.walks_dense() {
                    walks_alike(&mut whole, &initial, seed, natural);
                }
            }
        }
        game.put_stepper(outcomes);
        let stop = Stop::steps(60);
        for seed in 0..walks {
            let players = [RandomPlayer::new, RandomPlayer::in_engine_order];
            for player in players {
                let fast = game.random_outcome(&initial, &mut player(seed), stop);
                let general = game.play(&initial, &mut player(seed), stop);
                match (fast, general) {
                    (Ok(o), Ok(p)) => {
                        assert_eq!((o.steps, o.stopped), (p.steps, p.stopped));
                        assert_eq!(o.goals.map(Vec::from), p.goals, "seed {seed}");
                    }
                    (Err((i, e)), Err((j, f))) => {
                        assert_eq!((i, e.to_string()), (j, f.to_string()))
                    }
                    (fast, general) => panic!("seed {seed}: {fast:?} against {general:?}"),
                }
            }
        }
    }

    #[test]
    fn small_games_walk_dense_as_they_walk_incrementally() {
        for (name, text) in [("picks.gdl", PICKS), ("two_goals.gdl", TWO_GOALS)] {
            let mut game = Game::from_source(name, text).unwrap();
            check(&mut game, 200);
        }
        let game = Game::from_source("picks.gdl", PICKS).unwrap();
        let stepper = game.stepper().expect("a stepper");
        let ranked = stepper.tables.roles.iter().any(|r| !r.rank.is_empty());
        assert!(ranked, "some moves' natural order differs from the table's");
    }

    /// Every corpus game of a few kilobytes that walks dense, where the
    /// corpus is at hand (`../shared/corpus` beside the project).
    #[test]
    fn corpus_games_walk_dense_as_they_walk_incrementally() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus");
        let Ok(entries) = std::fs::read_dir(dir) else {
            eprintln!("skipped: no corpus at {dir}");
            return;
        };
        let mut checked = 0;
        for path in entries.flatten().map(|e| e.path()) {
            let small = std::fs::metadata(&path).is_ok_and(|m| m.len() < 8_000);
            if path.extension().is_none_or(|x| x != "kif") || !small {
                continue;
            }
            let Ok(mut game) = Game::load(&path) else {
                continue;
            };
            let dense = (game.take_outcome_stepper()).map(|s| {
                let dense = s.walks_dense();
                game.put_stepper(s);
                dense
            });
            if dense == Some(true) {
                check(&mut game, 30);
                checked += 1;
            }
        }
        assert!(checked > 0, "some corpus game walks dense");
        eprintln!("{checked} corpus games walk dense as they walk incrementally");
    }
}
