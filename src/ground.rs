//! Grounding: the rules instantiated over every state and move fact that
//! could ever hold, and the evaluation of those ground rules over one state
//! as a vector of truth values (one per ground fact, an "atom").
//!
//! The facts that could ever hold come from a relaxed fixpoint: starting
//! from `init`, derive with negation of state and move facts taken as true,
//! feed every `next` back as `true` and every `legal` back as `does`, until
//! nothing new appears. Every real state's facts are among them, so each
//! clause can be instantiated once, ahead of time, over them; static
//! literals are decided then and dropped. A state step then only tests bits.

use crate::error::GameError;
use crate::eval::{join, lookup_tuple, run_strata, Frame, Limits, Sink, Store, Target};
use crate::plan::{Pat, Phase, Program, RelId, Step};
use crate::symbol::Symbols;
use crate::term::{TermId, TermTable};
use rustc_hash::FxHashSet;

/// The budget of a grounding attempt: past it, the game is evaluated by the
/// interpreter instead.
pub const GROUNDING_LIMITS: Limits = Limits {
    max_facts: 400_000,
    max_term_depth: 64,
    max_nesting: usize::MAX,
};

/// The most body literals all ground rules together may have.
const MAX_GROUND_LITERALS: usize = 20_000_000;

/// A ground rule: `head` holds when every positive atom holds and no
/// negative atom does.
#[derive(Clone, Copy, Debug)]
struct GroundRule {
    head: u32,
    start: u32,
    pos: u32,
    neg: u32,
}

/// Every state and move fact that could hold, numbered as atoms, and the
/// ground rules over them, by stratum.
#[derive(Debug)]
pub struct Grounded {
    /// The facts that could ever hold; atom = `offset[rel] + row`.
    facts: Store,
    offset: Vec<u32>,
    atoms: usize,
    rules: Vec<GroundRule>,
    literals: Vec<u32>,
    /// The range of `rules` of each stratum.
    strata: Vec<(u32, u32)>,
    recursive: Vec<bool>,
}

impl Grounded {
    /// Grounds the program, or fails when the facts that could hold, or
    /// the ground rules, exceed the grounding budget.
    pub fn new(
        p: &Program,
        static_facts: &Store,
        init: &[TermId],
        terms: &mut TermTable,
        symbols: &Symbols,
    ) -> Result<Grounded, GameError> {
        let kw = p.keywords;
        let limits = GROUNDING_LIMITS;
        let dynamic: Vec<usize> = (0..p.components.len())
            .filter(|&c| p.components[c].phase != Phase::Static)
            .collect();
        let mut facts = Store::new(p);
        for &f in init {
            facts.insert(p, kw.true_, &[f], terms);
        }
        // The relaxed fixpoint.
        loop {
            let target = Target::Relaxed {
                static_: static_facts,
            };
            run_strata(p, &dynamic, &mut facts, target, terms, symbols, &limits)?;
            let next: Vec<TermId> = rows_of(p, kw.next, static_facts, &facts)
                .map(|r| r[0])
                .collect();
            let legal: Vec<[TermId; 2]> = rows_of(p, kw.legal, static_facts, &facts)
                .map(|r| [r[0], r[1]])
                .collect();
            let mut grew = false;
            for f in next {
                grew |= facts.insert(p, kw.true_, &[f], terms);
            }
            for m in legal {
                grew |= facts.insert(p, kw.does, &m, terms);
            }
            if facts.facts() > limits.max_facts {
                return Err(GameError::Limit {
                    limit: "facts",
                    value: limits.max_facts,
                    relation: "true".into(),
                    flag: "--max-facts",
                });
            }
            if !grew {
                break;
            }
        }
        let mut offset = vec![u32::MAX; p.relations.len()];
        let mut atoms = 0usize;
        for (i, r) in p.relations.iter().enumerate() {
            if r.phase != Phase::Static {
                offset[i] = atoms as u32;
                atoms += facts.relation(RelId(i as u32)).len();
            }
        }
        // Instantiate every clause of the dynamic strata.
        let mut rules = Vec::new();
        let mut literals = Vec::new();
        let mut strata = vec![(0u32, 0u32); p.components.len()];
        let empty = Store::default();
        for &c in &dynamic {
            let first = rules.len() as u32;
            let mut seen: FxHashSet<Vec<u32>> = FxHashSet::default();
            for &ci in &p.components[c].clauses {
                let cl = &p.clauses[ci];
                let mut sink = Instances {
                    p,
                    steps: &cl.full.steps,
                    head: cl.head,
                    head_args: &cl.head_args,
                    facts: &facts,
                    offset: &offset,
                    rules: &mut rules,
                    literals: &mut literals,
                    seen: &mut seen,
                    tuple: Vec::new(),
                };
                let layers = Target::Relaxed {
                    static_: static_facts,
                }
                .layers(&facts, &empty);
                join(p, &cl.full.steps, cl.vars, layers, terms, &[], &limits, &mut sink)?;
                if literals.len() > MAX_GROUND_LITERALS {
                    return Err(GameError::Limit {
                        limit: "ground literals",
                        value: MAX_GROUND_LITERALS,
                        relation: symbols.name(p.info(cl.head).name).to_string(),
                        flag: "--max-facts",
                    });
                }
            }
            strata[c] = (first, rules.len() as u32);
        }
        Ok(Grounded {
            facts,
            offset,
            atoms,
            rules,
            literals,
            strata,
            recursive: p.components.iter().map(|c| c.recursive).collect(),
        })
    }

    /// How many atoms (facts that could hold) there are.
    pub fn atoms(&self) -> usize {
        self.atoms
    }

    /// How many ground rules there are.
    pub fn rules(&self) -> usize {
        self.rules.len()
    }

    /// The atom of a fact of a state or move relation, if it could ever hold.
    pub fn atom(&self, rel: RelId, tuple: &[TermId]) -> Option<u32> {
        let row = self.facts.relation(rel).find(tuple)?;
        Some(self.offset[rel.0 as usize] + row)
    }

    /// Every fact of a state or move relation that could hold, with its atom.
    pub fn atoms_of(&self, rel: RelId) -> impl Iterator<Item = (u32, &[TermId])> {
        let base = self.offset[rel.0 as usize];
        self.facts
            .relation(rel)
            .rows()
            .enumerate()
            .map(move |(i, r)| (base + i as u32, r))
    }

    /// Derives the strata `comps` (in order) over `values`, one truth value
    /// per atom, in which the input atoms (`true`, and `does` for move
    /// strata) and the strata below are already set.
    //
    // For each stratum: head :- pos_1, ..., pos_n, not neg_1, ..., not neg_m,
    // over ground atoms; recursive strata repeat until nothing changes.
    pub fn run(&self, comps: &[usize], values: &mut [bool]) {
        for &c in comps {
            let (lo, hi) = self.strata[c];
            let rules = &self.rules[lo as usize..hi as usize];
            loop {
                let mut changed = false;
                for r in rules {
                    if values[r.head as usize] {
                        continue;
                    }
                    let start = r.start as usize;
                    let mid = start + r.pos as usize;
                    let end = mid + r.neg as usize;
                    if self.literals[start..mid].iter().all(|&a| values[a as usize])
                        && !self.literals[mid..end].iter().any(|&a| values[a as usize])
                    {
                        values[r.head as usize] = true;
                        changed = true;
                    }
                }
                if !changed || !self.recursive[c] {
                    break;
                }
            }
        }
    }
}

/// The facts of a relation wherever its phase keeps them.
fn rows_of<'a>(
    p: &Program,
    rel: RelId,
    static_facts: &'a Store,
    dynamic: &'a Store,
) -> impl Iterator<Item = &'a [TermId]> {
    let store = if p.info(rel).phase == Phase::Static {
        static_facts
    } else {
        dynamic
    };
    store.relation(rel).rows()
}

/// Records each match of a clause body over the relaxed facts as a ground
/// rule over atoms.
struct Instances<'a> {
    p: &'a Program,
    steps: &'a [Step],
    head: RelId,
    head_args: &'a [Pat],
    facts: &'a Store,
    offset: &'a [u32],
    rules: &'a mut Vec<GroundRule>,
    literals: &'a mut Vec<u32>,
    seen: &'a mut FxHashSet<Vec<u32>>,
    tuple: Vec<TermId>,
}

impl Sink for Instances<'_> {
    fn matched(
        &mut self,
        b: &[TermId],
        frames: &[Frame<'_>],
        terms: &mut TermTable,
        _: &Limits,
    ) -> Result<(), GameError> {
        let atom = |rel: RelId, row: u32| self.offset[rel.0 as usize] + row;
        // The head fact is among the relaxed facts: they are a fixpoint.
        if !lookup_tuple(self.head_args, b, terms, &mut self.tuple) {
            return Ok(());
        }
        let Some(head_row) = self.facts.relation(self.head).find(&self.tuple) else {
            return Ok(());
        };
        let mut pos = Vec::new();
        let mut neg = Vec::new();
        for (step, frame) in self.steps.iter().zip(frames) {
            match step {
                Step::Scan { rel, .. } if self.p.info(*rel).phase != Phase::Static => {
                    pos.push(atom(*rel, frame.current_row().expect("a scan has a row")));
                }
                Step::Absent { rel, args } if self.p.info(*rel).phase != Phase::Static => {
                    // A fact that can never hold is never there to negate.
                    if lookup_tuple(args, b, terms, &mut self.tuple) {
                        if let Some(row) = self.facts.relation(*rel).find(&self.tuple) {
                            neg.push(atom(*rel, row));
                        }
                    }
                }
                _ => {}
            }
        }
        pos.sort_unstable();
        pos.dedup();
        neg.sort_unstable();
        neg.dedup();
        let head = atom(self.head, head_row);
        let mut key = Vec::with_capacity(pos.len() + neg.len() + 2);
        key.push(head);
        key.push(pos.len() as u32);
        key.extend_from_slice(&pos);
        key.extend_from_slice(&neg);
        if !self.seen.insert(key) {
            return Ok(());
        }
        self.rules.push(GroundRule {
            head,
            start: self.literals.len() as u32,
            pos: pos.len() as u32,
            neg: neg.len() as u32,
        });
        self.literals.extend_from_slice(&pos);
        self.literals.extend_from_slice(&neg);
        Ok(())
    }
}
