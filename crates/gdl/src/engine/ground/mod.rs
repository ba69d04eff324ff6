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
//!
//! That fixpoint cannot see that two facts never hold together: a snake
//! on a 4 by 4 board moving up from row 4 reaches row 20 in it, however
//! `legal` forbids the move. Where the rules declare the facts of states
//! (`base`, derived among the static facts), only those are fed back as
//! `true`, as Sancho's propnet does: a `next` fact outside them stays an
//! atom of `next` and no rule reads it. A state holding one is outside the
//! ground rules, and the game answers it by the interpreter (see
//! `game::queries::new_model` and the stepper's `is_off`), so a `base`
//! that leaves out a reachable fact costs speed, never a wrong answer.

use crate::engine::interp::{
    Frame, Sink, SizeHints, Store, Target, join, lookup_tuple, run_strata,
};
use crate::error::GameError;
use crate::limits::{LimitKind, Limits};
use crate::plan::{self, Pat, Phase, Program, RelId, Step};
use crate::source::Span;
use crate::syntax::ast::{Sentence, Term};
use crate::syntax::normal::{Clause, NLit};
use crate::syntax::symbol::Symbol;
use crate::syntax::symbol::Symbols;
use crate::syntax::term::{TermId, TermTable};
use hashbrown::HashTable;
use rustc_hash::{FxBuildHasher, FxHashMap};
use std::cell::Cell;
use std::hash::BuildHasher;
use std::sync::Arc;

/// The most body literals all ground rules together may have.
const MAX_GROUND_LITERALS: usize = 20_000_000;

/// A ground rule: `head` holds when every positive atom holds and no
/// negative atom does.
#[derive(Clone, Copy, Debug)]
struct GroundRule {
    head: u32,
    stratum: u32,
    start: u32,
    pos: u32,
    neg: u32,
}

/// The truth values of one state's (or joint move's) atoms, and the rules
/// that became worth checking as atoms turned true.
#[derive(Debug, Default)]
pub struct Values {
    /// One truth value per atom.
    pub truth: Vec<bool>,
    /// One bit per rule: its trigger atom turned true and it is not yet
    /// checked. Rules are numbered stratum by stratum, so a stratum's bits
    /// are one range.
    pending: Vec<u64>,
    /// Atoms of a recursive stratum turned true and not yet followed (the
    /// work list of [`Grounded::run`], kept for its capacity).
    queue: Vec<u32>,
}

impl Clone for Values {
    fn clone(&self) -> Values {
        Values {
            truth: self.truth.clone(),
            pending: self.pending.clone(),
            queue: Vec::new(),
        }
    }

    /// Copies into the vectors already held (a derived `clone_from`
    /// would allocate new ones): each joint move of a state is evaluated
    /// on such a copy of the state's values.
    fn clone_from(&mut self, source: &Values) {
        self.truth.clone_from(&source.truth);
        self.pending.clone_from(&source.pending);
        self.queue.clear();
    }
}

impl Values {
    /// How many bytes it holds on the heap.
    pub fn heap_bytes(&self) -> usize {
        self.truth.capacity() + self.pending.capacity() * 8 + self.queue.capacity() * 4
    }
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
    /// Rules to check whenever an atom turns true (CSR by atom): each
    /// non-recursive rule is watched by one positive atom, its trigger.
    watch_start: Vec<u32>,
    watch_rules: Vec<u32>,
    /// Per stratum: rules with no positive atom, always checked.
    always: Vec<Vec<u32>>,
    /// Rules of recursive strata to check again when an atom of their own
    /// stratum turns true (CSR by atom): each such rule is watched by every
    /// positive atom of its body that its stratum derives.
    recursion_start: Vec<u32>,
    recursion_rules: Vec<u32>,
    /// Per recursive stratum: its rules with no positive atom that the
    /// stratum derives, the ones to check first.
    seeds: Vec<Vec<u32>>,
}

impl Grounded {
    /// Grounds the program (planned from `clauses`), or fails when the facts that could hold, the
    /// ground rules (more than `max_rules`) or the work exceed the grounding budget (the work is
    /// `limits.max_ground_work`). With `within_base`, the facts of `base` in `static_facts` bound
    /// the `true` facts fed back (see the module's doc).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        p: &Program,
        clauses: &[Clause],
        static_facts: &Store,
        init: &[TermId],
        terms: &mut TermTable,
        symbols: &Symbols,
        limits: &Limits,
        max_rules: usize,
        within_base: bool,
    ) -> Result<Grounded, GameError> {
        // Grounding is bounded by its share of the memory budget (the
        // facts that could hold, then the ground rules) and by its work;
        // a count of atoms only where the caller sets one. It counts its
        // own bytes (facts at `ATOM_BYTES` each, its rules and literals),
        // not the process's heap, so that whether a game grounds depends
        // on the game and the limits alone, never on what other threads
        // of the process hold.
        let share = limits.max_memory / GROUND_SHARE;
        let asked_atoms = limits.max_ground_atoms.min(limits.max_facts);
        let atoms_in_share = share / ATOM_BYTES;
        let limits = Limits {
            max_facts: asked_atoms.min(atoms_in_share),
            max_memory: usize::MAX,
            ..*limits
        };
        let dynamic: Vec<usize> = (0..p.components.len())
            .filter(|&c| p.components[c].phase != Phase::Static)
            .collect();
        let budget = Cell::new(limits.max_ground_work);
        let facts = reachable(
            p,
            clauses,
            static_facts,
            init,
            terms,
            symbols,
            &limits,
            &budget,
            within_base,
        )
        .map_err(|e| match e {
            // Past the atoms the share holds (and not past a count asked
            // for): the memory limit stopped it.
            GameError::Limit {
                kind: LimitKind::Facts,
                relation,
                ..
            } if atoms_in_share < asked_atoms => GameError::Limit {
                kind: LimitKind::Memory,
                value: share,
                relation,
            },
            e => e,
        })?;
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
            let mut seen = HashTable::new();
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
                    pos: Vec::new(),
                    neg: Vec::new(),
                    stratum: c as u32,
                    max_rules,
                    share,
                    facts_bytes: atoms * ATOM_BYTES,
                };
                let layers = Target::Relaxed {
                    static_: static_facts,
                    budget: &budget,
                }
                .layers(&facts, &empty);
                join(
                    p,
                    &cl.full.steps,
                    cl.vars,
                    layers,
                    terms,
                    &[],
                    &limits,
                    &mut sink,
                )?;
                if literals.len() > MAX_GROUND_LITERALS {
                    return Err(GameError::Limit {
                        kind: LimitKind::GroundLiterals,
                        value: MAX_GROUND_LITERALS,
                        relation: symbols.spelling(p.info(cl.head).name).to_string(),
                    });
                }
            }
            strata[c] = (first, rules.len() as u32);
        }
        let recursive: Vec<bool> = p.components.iter().map(|c| c.recursive).collect();
        // The trigger of a rule: its positive atom of the largest family,
        // facts of one relation whose first argument has one function
        // symbol (`(true (cell ...))` apart from `(true (control ...))`):
        // the least likely to be true.
        let mut family_size = vec![0u32; atoms];
        for (r, &o) in offset.iter().enumerate() {
            if o == u32::MAX {
                continue;
            }
            let rows = facts.relation(RelId(r as u32));
            let family = |row: &[TermId]| row.first().map(|&t| terms.functor(t));
            let mut sizes: FxHashMap<Option<Symbol>, u32> = FxHashMap::default();
            for row in rows.rows() {
                *sizes.entry(family(row)).or_default() += 1;
            }
            for (i, row) in rows.rows().enumerate() {
                family_size[o as usize + i] = sizes[&family(row)];
            }
        }
        let mut triggers: Vec<(u32, u32)> = Vec::new();
        let mut always = vec![Vec::new(); p.components.len()];
        for (i, r) in rules.iter_mut().enumerate() {
            if recursive[r.stratum as usize] {
                continue;
            }
            let start = r.start as usize;
            let pos = &mut literals[start..start + r.pos as usize];
            let trigger = pos
                .iter()
                .enumerate()
                .max_by_key(|&(k, &a)| (family_size[a as usize], -(k as i64)));
            match trigger {
                Some((k, &a)) => {
                    // Check the trigger first: it is the likeliest to fail.
                    pos.swap(0, k);
                    triggers.push((a, i as u32));
                }
                None => always[r.stratum as usize].push(i as u32),
            }
        }
        triggers.sort_unstable();
        let mut watch_start = vec![0u32; atoms + 1];
        for &(a, _) in &triggers {
            watch_start[a as usize + 1] += 1;
        }
        for a in 0..atoms {
            watch_start[a + 1] += watch_start[a];
        }
        let watch_rules = triggers.iter().map(|&(_, r)| r).collect();
        let (recursion_start, recursion_rules, seeds) =
            recursion_watches(&rules, &literals, &recursive, atoms);
        Ok(Grounded {
            facts,
            offset,
            atoms,
            rules,
            literals,
            strata,
            recursive,
            watch_start,
            watch_rules,
            always,
            recursion_start,
            recursion_rules,
            seeds,
        })
    }

    /// How many atoms (facts that could hold) there are.
    pub fn atoms(&self) -> usize {
        self.atoms
    }

    /// An atom that is always true: it stands for static facts among the
    /// answers to queries (a `legal` given as a fact, say).
    pub fn always(&self) -> u32 {
        self.atoms as u32
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

    /// The atoms of a state or move relation: a range of atom numbers.
    pub(crate) fn atom_range(&self, rel: RelId) -> std::ops::Range<u32> {
        let base = self.offset[rel.0 as usize];
        base..base + self.facts.relation(rel).len() as u32
    }

    /// Every ground rule as its head atom, positive atoms and negated atoms.
    pub(crate) fn ground_rules(&self) -> impl Iterator<Item = (u32, &[u32], &[u32])> {
        self.rules.iter().map(|r| {
            let start = r.start as usize;
            let mid = start + r.pos as usize;
            let end = mid + r.neg as usize;
            (r.head, &self.literals[start..mid], &self.literals[mid..end])
        })
    }

    /// Empty values: no atom true, nothing pending.
    pub fn empty_values(&self) -> Values {
        let mut truth = vec![false; self.atoms + 1];
        truth[self.atoms] = true;
        Values {
            truth,
            pending: vec![0; self.rules.len().div_ceil(64)],
            queue: Vec::new(),
        }
    }

    /// Makes an atom true and queues the rules it triggers.
    pub fn set(&self, values: &mut Values, atom: u32) {
        let truth = &mut values.truth[atom as usize];
        if *truth {
            return;
        }
        *truth = true;
        let (lo, hi) = (
            self.watch_start[atom as usize] as usize,
            self.watch_start[atom as usize + 1] as usize,
        );
        for &r in &self.watch_rules[lo..hi] {
            values.pending[r as usize / 64] |= 1 << (r % 64);
        }
    }

    /// Derives the strata `comps` (in order) over `values`, in which the
    /// input atoms (`true`, and `does` for move strata) and the strata below
    /// are already set. Returns the rules it checked: its work, a count the
    /// same on every machine.
    //
    // For each stratum: head :- pos_1, ..., pos_n, not neg_1, ..., not neg_m,
    // over ground atoms. A non-recursive stratum checks only the rules whose
    // trigger atom turned true (and those with no positive atom). A
    // recursive one is derived semi-naively: first its rules with no
    // positive atom of the stratum's own (its seeds), then a rule only when
    // an atom of its body that the stratum derives turns true (the others
    // are settled below it, and its negated atoms are of lower strata), so
    // that a transitive closure costs each rule a check per atom of its
    // own that turns true, not a pass over every rule per link of the
    // longest chain. Each stratum is derived once over values in which its
    // atoms are all false (a state's model, or a joint move's on a copy of
    // it), so every atom it derives turns true here and is followed.
    pub fn run(&self, comps: &[usize], values: &mut Values) -> u64 {
        let mut work = 0;
        for &c in comps {
            if self.recursive[c] {
                let mut queue = std::mem::take(&mut values.queue);
                work += self.seeds[c].len() as u64;
                for &r in &self.seeds[c] {
                    if self.fire(r, values) {
                        queue.push(self.rules[r as usize].head);
                    }
                }
                while let Some(atom) = queue.pop() {
                    let (from, to) = (
                        self.recursion_start[atom as usize] as usize,
                        self.recursion_start[atom as usize + 1] as usize,
                    );
                    work += (to - from) as u64;
                    for &r in &self.recursion_rules[from..to] {
                        if self.fire(r, values) {
                            queue.push(self.rules[r as usize].head);
                        }
                    }
                }
                values.queue = queue;
            } else {
                // Heads of this stratum trigger only later strata, so no
                // bit of this range is set while it is read.
                let (lo, hi) = (self.strata[c].0 as usize, self.strata[c].1 as usize);
                let mut word = lo / 64;
                while word * 64 < hi {
                    let base = word * 64;
                    let mut bits = values.pending[word];
                    if base < lo {
                        bits &= !0 << (lo - base);
                    }
                    if hi - base < 64 {
                        bits &= (1 << (hi - base)) - 1;
                    }
                    values.pending[word] &= !bits;
                    work += u64::from(bits.count_ones());
                    while bits != 0 {
                        let r = base + bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        self.fire(r as u32, values);
                    }
                    word += 1;
                }
                work += self.always[c].len() as u64;
                for &r in &self.always[c] {
                    self.fire(r, values);
                }
            }
        }
        work
    }

    /// Sets the head of rule `r` if its body holds; true if it changed.
    fn fire(&self, r: u32, values: &mut Values) -> bool {
        let rule = self.rules[r as usize];
        if values.truth[rule.head as usize] {
            return false;
        }
        let start = rule.start as usize;
        let mid = start + rule.pos as usize;
        let end = mid + rule.neg as usize;
        let truth = &values.truth;
        if self.literals[start..mid].iter().all(|&a| truth[a as usize])
            && !self.literals[mid..end].iter().any(|&a| truth[a as usize])
        {
            self.set(values, rule.head);
            return true;
        }
        false
    }
}

/// The watches of the rules of recursive strata, as a CSR by atom (see
/// `Grounded::recursion_start`): rule `r` under atom `a` where `a` is a
/// positive atom of `r`'s body and the head of some rule of `r`'s stratum;
/// and each stratum's seeds, its rules with no such atom.
fn recursion_watches(
    rules: &[GroundRule],
    literals: &[u32],
    recursive: &[bool],
    atoms: usize,
) -> (Vec<u32>, Vec<u32>, Vec<Vec<u32>>) {
    // The stratum whose rules derive each atom (rules of one head are all
    // in its relation's stratum).
    let mut derived_in = vec![u32::MAX; atoms + 1];
    for r in rules {
        derived_in[r.head as usize] = r.stratum;
    }
    let mut watches: Vec<(u32, u32)> = Vec::new();
    let mut seeds = vec![Vec::new(); recursive.len()];
    for (i, r) in rules.iter().enumerate() {
        if !recursive[r.stratum as usize] {
            continue;
        }
        let start = r.start as usize;
        let mut own: Vec<u32> = literals[start..start + r.pos as usize]
            .iter()
            .copied()
            .filter(|&a| derived_in[a as usize] == r.stratum)
            .collect();
        own.sort_unstable();
        own.dedup();
        if own.is_empty() {
            seeds[r.stratum as usize].push(i as u32);
        }
        watches.extend(own.into_iter().map(|a| (a, i as u32)));
    }
    watches.sort_unstable();
    let mut start = vec![0u32; atoms + 2];
    for &(a, _) in &watches {
        start[a as usize + 1] += 1;
    }
    for a in 0..=atoms {
        start[a + 1] += start[a];
    }
    (start, watches.into_iter().map(|(_, r)| r).collect(), seeds)
}

/// The static facts of `p` (in `static_facts`) that `q`, another plan of
/// the same rules or of rules derived from them, reads as static: a store
/// of `q` sized by `hints`.
pub fn static_facts_for(
    q: &Program,
    hints: &Arc<SizeHints>,
    p: &Program,
    static_facts: &Store,
    terms: &TermTable,
) -> Store {
    let mut out = Store::new(q, hints);
    for (i, r) in q.relations.iter().enumerate() {
        let Some(from) = p.relation(r.name) else {
            continue;
        };
        if p.info(from).phase == Phase::Static && r.phase == Phase::Static {
            for row in static_facts.relation(from).rows() {
                out.insert(q, RelId(i as u32), row, terms);
            }
        }
    }
    out
}

/// Every state and move fact that could ever hold, in a store of `p`: the
/// least model of the relaxed rules, those of `p`'s state and move
/// relations without their negations of state and move facts, with `next`
/// fed back as `true` and `legal` as `does` (and `init` as `true`), the
/// way propnet builders find what a game can reach (`next` fed back only
/// where `base` holds, with `within_base`). The feedback makes the
/// relaxed rules one recursive stratum, derived semi-naively: each round
/// joins only what the last one found, where deriving the strata again and
/// again from the start, once per move of the longest game, cost skirmish
/// and its kin hundreds of millions of rounds.
#[allow(clippy::too_many_arguments)]
fn reachable(
    p: &Program,
    clauses: &[Clause],
    static_facts: &Store,
    init: &[TermId],
    terms: &mut TermTable,
    symbols: &Symbols,
    limits: &Limits,
    budget: &Cell<u64>,
    within_base: bool,
) -> Result<Store, GameError> {
    let kw = p.keywords;
    let dynamic =
        |name: Symbol| (p.relation(name)).is_some_and(|r| p.info(r).phase != Phase::Static);
    let mut symbols = symbols.clone();
    let mut relaxed: Vec<Clause> = (clauses.iter())
        .filter(|c| dynamic(c.head.name))
        .map(|c| {
            let mut c = c.clone();
            c.body
                .retain(|l| !matches!(l, NLit::Neg(s) if dynamic(s.name)));
            c
        })
        .collect();
    // `true` from `next`, `does` from `legal`, where those change.
    let var = |symbols: &mut Symbols, name: &str| Term::Var(symbols.intern(name), Span::default());
    let sentence = |name: Symbol, args: Vec<Term>| Sentence {
        name,
        name_span: Span::default(),
        args,
        span: Span::default(),
    };
    let feedback = |symbols: &mut Symbols, head: RelId, body: RelId| {
        let args: Vec<Term> = (0..p.info(head).arity)
            .map(|i| var(symbols, &format!("?x{i}")))
            .collect();
        Clause {
            head: sentence(p.info(head).name, args.clone()),
            body: vec![NLit::Pos(sentence(p.info(body).name, args))],
            rule: 0,
            span: Span::default(),
        }
    };
    let base = (symbols.get("base").and_then(|s| p.relation(s)))
        .filter(|&r| within_base && p.info(r).phase == Phase::Static && p.info(r).arity == 1);
    for (head, body) in [(kw.true_, kw.next), (kw.does, kw.legal)] {
        if p.info(body).phase != Phase::Static {
            let mut fed = feedback(&mut symbols, head, body);
            // true(?x0) :- next(?x0), base(?x0)
            if let Some(base) = base.filter(|_| head == kw.true_) {
                let x = fed.head.args.clone();
                fed.body.push(NLit::Pos(sentence(p.info(base).name, x)));
            }
            relaxed.push(fed);
        }
    }
    let q = plan::plan(&relaxed, terms, &mut symbols);
    // The static facts the relaxed rules read, and the facts to start from.
    let hints = Arc::new(SizeHints::new(q.relations.len()));
    let mut static_q = static_facts_for(&q, &hints, p, static_facts, terms);
    let mut facts_q = Store::new(&q, &hints);
    let (true_q, does_q) = (q.keywords.true_, q.keywords.does);
    for &f in init {
        facts_q.insert(&q, true_q, &[f], terms);
    }
    for (to, from) in [(true_q, kw.next), (does_q, kw.legal)] {
        if p.info(from).phase == Phase::Static {
            for row in static_facts.relation(from).rows() {
                facts_q.insert(&q, to, row, terms);
            }
        }
    }
    // A relation that read state or move facts only under `not` reads
    // none in the relaxed rules: it is derived first, as a static one.
    let (fixed, strata): (Vec<usize>, Vec<usize>) = (0..q.components.len())
        .filter(|&c| !q.components[c].clauses.is_empty())
        .partition(|&c| q.components[c].phase == Phase::Static);
    run_strata(
        &q,
        &fixed,
        &mut static_q,
        Target::Static,
        terms,
        &symbols,
        limits,
    )?;
    let target = Target::Relaxed {
        static_: &static_q,
        budget,
    };
    run_strata(&q, &strata, &mut facts_q, target, terms, &symbols, limits)?;
    // The same facts, in a store of `p`.
    let mut facts = Store::new(p, &Arc::new(SizeHints::new(p.relations.len())));
    for (i, r) in p.relations.iter().enumerate() {
        if r.phase == Phase::Static {
            continue;
        }
        if let Some(from) = q.relation(r.name) {
            let store = match q.info(from).phase {
                Phase::Static => &static_q,
                _ => &facts_q,
            };
            for row in store.relation(from).rows() {
                facts.insert(p, RelId(i as u32), row, terms);
            }
        }
    }
    if facts.facts() > limits.max_facts {
        return Err(GameError::Limit {
            kind: LimitKind::Facts,
            value: limits.max_facts,
            relation: "true".into(),
        });
    }
    Ok(facts)
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
    /// The rules of the component made so far, by their index in
    /// `rules`, each with its [`rule_hash`]: where a rule made twice is
    /// found (its literals are read from `literals`, not kept again; its
    /// hash is kept, as the table grows, so that they are not read).
    seen: &'a mut HashTable<(u32, u32)>,
    tuple: Vec<TermId>,
    /// Room for a rule's positive and negated atoms, kept from one rule to
    /// the next.
    pos: Vec<u32>,
    neg: Vec<u32>,
    stratum: u32,
    /// The most ground rules there may be.
    max_rules: usize,
    /// Grounding's share of the memory budget, and what its facts take of
    /// it (the ground rules take the rest, see [`Instances::bytes`]).
    share: usize,
    facts_bytes: usize,
}

impl Instances<'_> {
    /// The bytes the ground rules take: each rule, and each literal twice.
    /// The set that finds a rule made twice kept a copy of its literals
    /// until it kept an index instead; the budget still counts them, so
    /// that the games grounding gives up on are those it gave up on.
    fn bytes(&self) -> usize {
        self.rules.len() * (std::mem::size_of::<GroundRule>() + SEEN_RULE_BYTES)
            + self.literals.len() * 2 * std::mem::size_of::<u32>()
    }
}

/// The bytes an atom of grounding's relaxed facts takes, with its terms
/// and its slots in the store's indexes: brazilian draughts's flying kings
/// hold some 430 MB at a million atoms (so the default share holds a
/// million).
const ATOM_BYTES: usize = 512;

/// The bytes the budget counts for a rule's entry in the set that finds a
/// rule made twice, beside its literals: what the entry took when the set
/// kept a vector of each rule (its header and the table's slot), where it
/// now takes 8 (see [`Instances::bytes`]).
const SEEN_RULE_BYTES: usize = 32;

/// How many ground rules are made between two checks of the memory budget.
const GROUND_CHECK_EVERY: usize = 4096;

/// The share of the memory budget grounding may fill, the facts that could
/// hold and the ground rules over them: an eighth (512 MiB of the default
/// 4 GiB). Ground rules that outgrow it play slower than the
/// interpreter would (blockerParallel's 5.65 million ground rules played
/// 45 games a second where the interpreter plays 6,000), and leave the
/// game's play too little room.
const GROUND_SHARE: usize = 8;

impl Sink for Instances<'_> {
    fn matched(
        &mut self,
        b: &[TermId],
        frames: &[Frame<'_>],
        terms: &mut TermTable,
        _limits: &Limits,
    ) -> Result<(), GameError> {
        // Grounding is optional (the interpreter plays any game): it gives
        // up at its share of the memory budget, or where its literals would
        // outgrow their `u32` offsets, leaving the game to the interpreter.
        if self.rules.len().is_multiple_of(GROUND_CHECK_EVERY)
            && (self.facts_bytes + self.bytes() > self.share
                || self.literals.len() > (u32::MAX / 2) as usize)
        {
            return Err(GameError::Limit {
                kind: LimitKind::Memory,
                value: self.share,
                relation: "ground rules".into(),
            });
        }
        let atom = |rel: RelId, row: u32| self.offset[rel.0 as usize] + row;
        // The head fact is among the relaxed facts: they are a fixpoint.
        if !lookup_tuple(self.head_args, b, terms, &mut self.tuple) {
            return Ok(());
        }
        let Some(head_row) = self.facts.relation(self.head).find(&self.tuple) else {
            return Ok(());
        };
        let (pos, neg) = (&mut self.pos, &mut self.neg);
        pos.clear();
        neg.clear();
        for (step, frame) in self.steps.iter().zip(frames) {
            match step {
                Step::Scan { rel, .. } if self.p.info(*rel).phase != Phase::Static => {
                    pos.push(atom(*rel, frame.current_row().expect("a scan has a row")));
                }
                // A fact that can never hold is never there to negate.
                Step::Absent { rel, args }
                    if self.p.info(*rel).phase != Phase::Static
                        && lookup_tuple(args, b, terms, &mut self.tuple) =>
                {
                    if let Some(row) = self.facts.relation(*rel).find(&self.tuple) {
                        neg.push(atom(*rel, row));
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
        let (rules, literals) = (&*self.rules, &*self.literals);
        let hash = rule_hash(head, pos, neg);
        let same = |&(r, _): &(u32, u32)| {
            let rule = &rules[r as usize];
            let start = rule.start as usize;
            let (p, n) = (rule.pos as usize, rule.neg as usize);
            rule.head == head
                && literals[start..start + p] == pos[..]
                && literals[start + p..start + p + n] == neg[..]
        };
        if self.seen.find(spread(hash), same).is_some() {
            return Ok(());
        }
        if self.rules.len() >= self.max_rules {
            return Err(GameError::Limit {
                kind: LimitKind::GroundLiterals,
                value: self.max_rules,
                relation: "ground rules".into(),
            });
        }
        let entry = (self.rules.len() as u32, hash);
        self.seen
            .insert_unique(spread(hash), entry, |&(_, hash)| spread(hash));
        self.rules.push(GroundRule {
            head,
            stratum: self.stratum,
            start: self.literals.len() as u32,
            pos: pos.len() as u32,
            neg: neg.len() as u32,
        });
        self.literals.extend_from_slice(pos);
        self.literals.extend_from_slice(neg);
        Ok(())
    }
}

/// The hash of a ground rule by its head and its positive and negated
/// atoms (each sorted, without repeats), for `Instances::seen`: 32 bits,
/// so that the table keeps it beside the rule in 8 bytes.
fn rule_hash(head: u32, pos: &[u32], neg: &[u32]) -> u32 {
    let hash = FxBuildHasher.hash_one((head, pos, neg));
    (hash >> 32) as u32 ^ hash as u32
}

/// A 32-bit hash as the table's 64 bits: its buckets are read from the
/// low bits, its tags from the high ones.
fn spread(hash: u32) -> u64 {
    u64::from(hash) << 32 | u64::from(hash)
}
