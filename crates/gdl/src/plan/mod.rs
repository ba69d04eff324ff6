//! From checked clauses to an evaluation plan: relations with ids and the
//! phase in which their facts become known, the strata (strongly connected
//! components in dependency order), and for every clause a join plan that
//! fixes once the order of its body literals and the index each one uses.

use crate::analysis::graph::DepGraph;
use crate::syntax::ast::{Sentence, Term};
use crate::syntax::keywords::KEYWORDS;
use crate::syntax::normal::{Clause, NLit};
use crate::syntax::symbol::Symbol;
use crate::syntax::term::{TermId, TermTable};
use rustc_hash::FxHashMap;
use std::collections::BinaryHeap;
use std::fmt::Write;

/// A relation of the program: an index into `Program::relations`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RelId(pub u32);

/// When a relation's facts become known.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Phase {
    /// Independent of the state: derived once per rules file.
    Static,
    /// Depends on `true`: derived once per state.
    State,
    /// Depends on `does`: derived for each joint move.
    Move,
}

/// What the program knows of a relation.
#[derive(Clone, Debug)]
pub struct RelInfo {
    /// Its name.
    pub name: Symbol,
    /// Its number of arguments.
    pub arity: usize,
    /// When its facts become known.
    pub phase: Phase,
    /// The stratum that derives it.
    pub component: usize,
    /// The indexes the join plans look it up by.
    pub indexes: Vec<IndexSpec>,
}

/// A term pattern of a clause: ground parts are interned terms, variables
/// are numbered per clause.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Pat {
    /// A ground term.
    Const(TermId),
    /// A variable, by its number in the clause.
    Var(u16),
    /// A function term with at least one variable inside.
    Func(Symbol, Box<[Pat]>),
}

/// How an index reads one argument of a fact.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// The argument (or sub-term) is part of the lookup key.
    Key,
    /// The argument is not looked at.
    Free,
    /// The argument must be a term `f(...)` of this arity; look inside.
    Func(Symbol, u32, Box<[Shape]>),
}

/// An index of a relation: facts whose arguments fit the shapes, keyed by
/// the sub-terms at the `Key` positions (left to right).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IndexSpec {
    /// One shape per argument.
    pub columns: Box<[Shape]>,
}

impl IndexSpec {
    /// How many terms its key has.
    pub fn key_len(&self) -> usize {
        fn keys(s: &Shape) -> usize {
            match s {
                Shape::Key => 1,
                Shape::Free => 0,
                Shape::Func(_, _, subs) => subs.iter().map(keys).sum(),
            }
        }
        self.columns.iter().map(keys).sum()
    }
}

/// One step of a join plan.
#[derive(Clone, Debug)]
pub enum Step {
    /// For each fact of `rel` matching `args` (found through `index` by the
    /// values of `key`, or by scanning all facts when `index` is `None`, or
    /// only the facts new since the last round when `delta`), bind the
    /// variables and go on.
    Scan {
        /// The relation scanned.
        rel: RelId,
        /// The pattern of the literal.
        args: Box<[Pat]>,
        /// Which index of the relation to use.
        index: Option<usize>,
        /// The bound patterns whose values form the key.
        key: Box<[Pat]>,
        /// Scan only the facts derived in the previous round (semi-naive).
        delta: bool,
    },
    /// Go on only if the ground fact is not in `rel` (negation).
    Absent {
        /// The relation.
        rel: RelId,
        /// The fully bound pattern.
        args: Box<[Pat]>,
    },
    /// Go on only if the two bound terms differ.
    Distinct(Pat, Pat),
    /// Go on only if the two bound terms are equal.
    Same(Pat, Pat),
}

/// The steps of one way to evaluate a clause body.
#[derive(Clone, Debug, Default)]
pub struct JoinPlan {
    /// Steps in order; the head is produced after the last.
    pub steps: Vec<Step>,
    /// How many leading steps bind every variable of the head. The steps
    /// after them bind none, so once they have matched, their other
    /// matches would only derive the same head fact again: the join may
    /// go back to step `head_bound - 1` (or stop, at 0).
    pub head_bound: usize,
    /// Per step: a scan whose variables nothing after it reads (neither a
    /// later step nor the head). What follows it is the same whichever
    /// fact it matched, so one match is enough: `(<= (p ?x) (q ?x) (r ?y))`
    /// needs one `r` fact, not each of them.
    pub once: Vec<bool>,
    /// Per step: the rows a lookup of the scan was expected to return when
    /// it was placed, where the planner knew them (a relation whose facts
    /// were counted, see [`FanOut`]); `gdl plan` prints them.
    pub rows: Vec<Option<f32>>,
}

/// A clause ready to run.
#[derive(Clone, Debug)]
pub struct ClausePlan {
    /// The relation it derives.
    pub head: RelId,
    /// The head's argument patterns.
    pub head_args: Box<[Pat]>,
    /// How many variables the clause has.
    pub vars: usize,
    /// The plan over whole relations.
    pub full: JoinPlan,
    /// For a recursive clause, one plan per recursive body literal, with
    /// that literal reading only the previous round's new facts.
    pub deltas: Vec<JoinPlan>,
    /// The variables' names, by number.
    pub var_names: Vec<Symbol>,
    /// Index of the source rule in the description.
    pub rule: usize,
}

/// A stratum: relations that depend on each other, derived together.
#[derive(Clone, Debug)]
pub struct Component {
    /// Its relations.
    pub relations: Vec<RelId>,
    /// The clauses deriving them (indices into `Program::clauses`).
    pub clauses: Vec<usize>,
    /// Whether a relation of it depends on itself (needs rounds to a fixpoint).
    pub recursive: bool,
    /// When it runs.
    pub phase: Phase,
}

/// The relations that GDL gives a meaning to.
#[derive(Clone, Copy, Debug)]
pub struct Keywords {
    /// `role/1`
    pub role: RelId,
    /// `init/1`
    pub init: RelId,
    /// `true/1`
    pub true_: RelId,
    /// `does/2`
    pub does: RelId,
    /// `legal/2`
    pub legal: RelId,
    /// `next/1`
    pub next: RelId,
    /// `terminal/0`
    pub terminal: RelId,
    /// `goal/2`
    pub goal: RelId,
}

/// The whole evaluation plan of a rules file.
#[derive(Clone, Debug)]
pub struct Program {
    /// Every relation, by `RelId`.
    pub relations: Vec<RelInfo>,
    /// Every clause (facts included), grouped by stratum in `components`.
    pub clauses: Vec<ClausePlan>,
    /// Strata in dependency order.
    pub components: Vec<Component>,
    /// The keyword relations.
    pub keywords: Keywords,
    by_name: FxHashMap<Symbol, RelId>,
}

impl Program {
    /// The relation with this name, if the program has it.
    pub fn relation(&self, name: Symbol) -> Option<RelId> {
        self.by_name.get(&name).copied()
    }

    /// What the program knows of a relation.
    pub fn info(&self, r: RelId) -> &RelInfo {
        &self.relations[r.0 as usize]
    }

    /// The strata that must run, in order, to know all facts of `target`.
    pub fn needed(&self, target: RelId) -> Vec<usize> {
        let mut used_by_target = vec![false; self.relations.len()];
        let mut stack = vec![target];
        used_by_target[target.0 as usize] = true;
        while let Some(r) = stack.pop() {
            let comp = &self.components[self.info(r).component];
            for &c in &comp.clauses {
                for rel in self.clauses[c].full.steps.iter().filter_map(Step::relation) {
                    if !used_by_target[rel.0 as usize] {
                        used_by_target[rel.0 as usize] = true;
                        stack.push(rel);
                    }
                }
            }
            for &other in &comp.relations {
                if !used_by_target[other.0 as usize] {
                    used_by_target[other.0 as usize] = true;
                    stack.push(other);
                }
            }
        }
        let mut comps: Vec<usize> = (0..self.relations.len())
            .filter(|&r| used_by_target[r])
            .map(|r| self.relations[r].component)
            .collect();
        comps.sort_unstable();
        comps.dedup();
        comps
    }
}

impl Step {
    /// The relation a step reads, if any.
    pub fn relation(&self) -> Option<RelId> {
        match self {
            Step::Scan { rel, .. } | Step::Absent { rel, .. } => Some(*rel),
            Step::Distinct(..) | Step::Same(..) => None,
        }
    }
}

/// Plans a checked description. Interns every ground term the clauses
/// mention into `terms`.
pub fn plan(
    clauses: &[Clause],
    terms: &mut TermTable,
    symbols: &mut crate::syntax::symbol::Symbols,
) -> Program {
    plan_with(clauses, terms, symbols, None)
}

/// [`plan`], weighing the literals of the relations whose facts `fan`
/// counts by the rows a lookup of them returns (see [`rank`]). The
/// relations, their ids and strata are those of [`plan`]; only the order
/// of the bodies and the indexes may differ.
pub fn plan_with(
    clauses: &[Clause],
    terms: &mut TermTable,
    symbols: &mut crate::syntax::symbol::Symbols,
    fan: Option<&FanOut<'_>>,
) -> Program {
    let mut graph = DepGraph::new(clauses);
    let mut arity: FxHashMap<Symbol, usize> = FxHashMap::default();
    for c in clauses {
        arity.entry(c.head.name).or_insert(c.head.args.len());
        for lit in &c.body {
            if let NLit::Pos(s) | NLit::Neg(s) = lit {
                arity.entry(s.name).or_insert(s.args.len());
            }
        }
    }
    // The keywords of the game loop (all but `base` and `input`), by their
    // position in the table.
    let kw: Vec<usize> = KEYWORDS[..8]
        .iter()
        .map(|k| {
            let s = symbols.intern(k.name);
            arity.entry(s).or_insert(k.arity);
            graph.index(s)
        })
        .collect();
    let (comp_of, comps) = graph.components();
    // A relation's phase: Move if it depends on `does`, else State if it
    // depends on `true`, else Static.
    let (true_i, does_i) = (kw[2], kw[3]);
    let reach = graph.depends_on(&[true_i, does_i]);
    let phase_of = |r: usize| {
        if r == does_i || reach[r][1] {
            Phase::Move
        } else if r == true_i || reach[r][0] {
            Phase::State
        } else {
            Phase::Static
        }
    };
    let mut relations: Vec<RelInfo> = (0..graph.relations.len())
        .map(|r| RelInfo {
            name: graph.name(r),
            arity: arity[&graph.name(r)],
            phase: phase_of(r),
            component: comp_of[r],
            indexes: Vec::new(),
        })
        .collect();
    let by_name: FxHashMap<Symbol, RelId> = relations
        .iter()
        .enumerate()
        .map(|(i, r)| (r.name, RelId(i as u32)))
        .collect();

    let mut components: Vec<Component> = comps
        .iter()
        .map(|members| Component {
            relations: members.iter().map(|&r| RelId(r as u32)).collect(),
            clauses: Vec::new(),
            recursive: false,
            phase: phase_of(members[0]),
        })
        .collect();
    for e in &graph.edges {
        if comp_of[e.head] == comp_of[e.body] {
            components[comp_of[e.head]].recursive = true;
        }
    }

    // Relations given by facts alone (no rule body): tables such as `succ`,
    // one row per key more often than derived relations such as `lt`; and
    // the state, `true`, whose facts are few.
    let mut listed = vec![false; relations.len()];
    for c in clauses {
        listed[by_name[&c.head.name].0 as usize] = true;
    }
    for c in clauses.iter().filter(|c| !c.body.is_empty()) {
        listed[by_name[&c.head.name].0 as usize] = false;
    }
    listed[true_i] = true;
    // The demand relations of `rewrite::demand` (`r?`: the questions asked
    // of `r`), which no rules file can name (a name ending in `?`).
    let asked: Vec<bool> = (relations.iter())
        .map(|r| symbols.name(r.name).ends_with('?'))
        .collect();
    let names: Vec<Symbol> = relations.iter().map(|r| r.name).collect();
    let mut planner = Planner {
        terms,
        relations: &mut relations,
        by_name: &by_name,
        comp_of: &comp_of,
        listed: &listed,
        asked: &asked,
        does: RelId(does_i as u32),
        fan,
        names: &names,
    };
    let mut plans = Vec::with_capacity(clauses.len());
    let mut order: Vec<(usize, usize)> = Vec::new();
    for c in clauses {
        let head = by_name[&c.head.name];
        let comp = comp_of[head.0 as usize];
        order.push((comp, plans.len()));
        plans.push(planner.clause(c, head, components[comp].recursive));
    }
    // Keep file order within a stratum.
    order.sort_by_key(|&(comp, i)| (comp, i));
    for (comp, i) in order {
        components[comp].clauses.push(i);
    }
    let rel = |i: usize| RelId(i as u32);
    Program {
        clauses: plans,
        components,
        keywords: Keywords {
            role: rel(kw[0]),
            init: rel(kw[1]),
            true_: rel(kw[2]),
            does: rel(kw[3]),
            legal: rel(kw[4]),
            next: rel(kw[5]),
            terminal: rel(kw[6]),
            goal: rel(kw[7]),
        },
        relations,
        by_name,
    }
}

/// A body literal compiled to patterns.
#[derive(Clone, Debug)]
enum Lit {
    Pos(RelId, Vec<Pat>),
    Neg(RelId, Vec<Pat>),
    Distinct(Pat, Pat),
    Same(Pat, Pat),
}

struct Planner<'a> {
    terms: &'a mut TermTable,
    relations: &'a mut Vec<RelInfo>,
    by_name: &'a FxHashMap<Symbol, RelId>,
    comp_of: &'a [usize],
    /// Per relation: given by facts alone, no rule (or `true`).
    listed: &'a [bool],
    /// Per relation: a demand relation, the questions asked of another.
    asked: &'a [bool],
    /// `does/2`, which holds one fact per role.
    does: RelId,
    /// What is known of the relations' facts.
    fan: Option<&'a FanOut<'a>>,
    /// The relations' names, by id.
    names: &'a [Symbol],
}

impl Planner<'_> {
    fn clause(&mut self, c: &Clause, head: RelId, recursive: bool) -> ClausePlan {
        let mut vars: Vec<Symbol> = Vec::new();
        let head_args: Box<[Pat]> = c.head.args.iter().map(|t| self.pat(t, &mut vars)).collect();
        let lits: Vec<Lit> = c
            .body
            .iter()
            .map(|l| match l {
                NLit::Pos(s) => Lit::Pos(self.by_name[&s.name], self.args(s, &mut vars)),
                NLit::Neg(s) => Lit::Neg(self.by_name[&s.name], self.args(s, &mut vars)),
                NLit::Distinct(a, b, _) => {
                    Lit::Distinct(self.pat(a, &mut vars), self.pat(b, &mut vars))
                }
                NLit::Same(a, b, _) => Lit::Same(self.pat(a, &mut vars), self.pat(b, &mut vars)),
            })
            .collect();
        let nvars = vars.len();
        let head_comp = self.comp_of[head.0 as usize];
        let own = recursive.then_some(head_comp);
        let mut full = self.join(&lits, None, nvars, own);
        full.head_bound = head_bound_after(&full.steps, &head_args, nvars);
        full.once = once_steps(&full.steps, &head_args, nvars);
        let deltas = if recursive {
            lits.iter()
                .enumerate()
                .filter(
                    |(_, l)| matches!(l, Lit::Pos(r, _) if self.comp_of[r.0 as usize] == head_comp),
                )
                .map(|(i, _)| {
                    let mut jp = self.join(&lits, Some(i), nvars, own);
                    jp.head_bound = head_bound_after(&jp.steps, &head_args, nvars);
                    jp.once = once_steps(&jp.steps, &head_args, nvars);
                    jp
                })
                .collect()
        } else {
            Vec::new()
        };
        ClausePlan {
            head,
            head_args,
            vars: nvars,
            full,
            deltas,
            var_names: vars,
            rule: c.rule,
        }
    }

    fn args(&mut self, s: &Sentence, vars: &mut Vec<Symbol>) -> Vec<Pat> {
        s.args.iter().map(|t| self.pat(t, vars)).collect()
    }

    fn pat(&mut self, t: &Term, vars: &mut Vec<Symbol>) -> Pat {
        match t {
            Term::Atom(a, _) => Pat::Const(self.terms.atom(*a)),
            Term::Var(v, _) => {
                let i = vars.iter().position(|x| x == v).unwrap_or_else(|| {
                    vars.push(*v);
                    vars.len() - 1
                });
                // Never wraps: the checker refused clauses of more than
                // crate::limits::MAX_CLAUSE_VARIABLES (a wrapped number would alias `?v0`).
                Pat::Var(u16::try_from(i).expect("the checker bounds a clause's variables"))
            }
            Term::Func(f, args, _) => {
                let args: Vec<Pat> = args.iter().map(|a| self.pat(a, vars)).collect();
                if args.iter().all(|a| matches!(a, Pat::Const(_))) {
                    let ids: Vec<TermId> = args
                        .iter()
                        .map(|a| match a {
                            Pat::Const(id) => *id,
                            _ => unreachable!(),
                        })
                        .collect();
                    Pat::Const(self.terms.intern(*f, &ids))
                } else {
                    Pat::Func(*f, args.into())
                }
            }
        }
    }

    /// Orders the body greedily: filters as soon as their variables are
    /// bound; among positive literals, one whose arguments are all bound
    /// first (a test of one fact, such as a 0-ary guard: it can only cut
    /// the join short), then `does` (one fact per role),
    /// then one that shares a bound variable with those placed (so no
    /// cross product is made while a join on a variable is possible), then
    /// one of the clause's own recursive stratum `own` (it holds only the
    /// facts derived so far, few in the first round), then the one whose
    /// lookup returns the fewest rows (counted where the facts are known,
    /// else guessed from its bound and free argument positions: see
    /// [`rank`]), ties kept in the order written. With `delta`, that
    /// literal comes first and reads only the previous round's new facts.
    fn join(
        &mut self,
        lits: &[Lit],
        delta: Option<usize>,
        nvars: usize,
        own: Option<usize>,
    ) -> JoinPlan {
        let mut order = Order::new(lits, nvars);
        let mut steps = Vec::new();
        let mut rows = Vec::new();
        if let Some(i) = delta {
            let Lit::Pos(rel, args) = &lits[i] else {
                unreachable!("delta literals are positive")
            };
            steps.push(Step::Scan {
                rel: *rel,
                args: args.clone().into(),
                index: None,
                key: Box::new([]),
                delta: true,
            });
            rows.push(None);
            order.place(i, lits, |_, _| None);
        }
        // A literal's rank changes only when one of its variables is bound,
        // so each is ranked again then, and the best is kept at the top of
        // a heap: linear in the body's size but for the heap's logarithm.
        let (comp_of, does) = (self.comp_of, self.does);
        let kinds = Kinds {
            listed: self.listed,
            asked: self.asked,
            fan: self.fan.map(|fan| Fan {
                fan,
                terms: &*self.terms,
                names: self.names,
            }),
        };
        let relations = &mut *self.relations;
        let mut rank =
            |i: usize, bound: &[bool]| rank(i, &lits[i], bound, comp_of, kinds, does, own);
        for (i, l) in lits.iter().enumerate() {
            if matches!(l, Lit::Pos(..)) && !order.placed[i] {
                order.rank(i, rank(i, &order.bound));
            }
        }
        loop {
            // Filters whose variables are all bound go first.
            for i in order.ready() {
                steps.push(match &lits[i] {
                    Lit::Neg(rel, args) => Step::Absent {
                        rel: *rel,
                        args: args.clone().into(),
                    },
                    Lit::Distinct(a, b) => Step::Distinct(a.clone(), b.clone()),
                    Lit::Same(a, b) => Step::Same(a.clone(), b.clone()),
                    Lit::Pos(..) => unreachable!("positive literals are not filters"),
                });
                rows.push(None);
            }
            let Some(i) = order.best() else { break };
            let Lit::Pos(rel, args) = &lits[i] else {
                unreachable!()
            };
            // Rows are counted for the literals with a free place: a test
            // of one fact returns it or none.
            let free = !args.iter().all(|a| is_bound(a, &order.bound));
            let estimate =
                (kinds.fan.filter(|_| free)).and_then(|f| f.rows(*rel, args, &order.bound));
            rows.push(estimate.map(|r| r as f32));
            steps.push(scan(relations, *rel, args, &order.bound));
            order.place(i, lits, &mut rank);
        }
        // Unsafe literals cannot reach here (the checker refuses them), but
        // keep any leftover filter so a plan never silently drops a condition.
        for (i, l) in lits.iter().enumerate() {
            if !order.placed[i] {
                steps.push(match l {
                    Lit::Neg(rel, args) => Step::Absent {
                        rel: *rel,
                        args: args.clone().into(),
                    },
                    Lit::Distinct(a, b) => Step::Distinct(a.clone(), b.clone()),
                    Lit::Same(a, b) => Step::Same(a.clone(), b.clone()),
                    Lit::Pos(..) => unreachable!("every positive literal is placed"),
                });
                rows.push(None);
            }
        }
        JoinPlan {
            steps,
            head_bound: 0,
            once: Vec::new(),
            rows,
        }
    }
}

/// A scan of `rel` by the index that fits what is bound (added to the
/// relation's indexes where it is new).
fn scan(relations: &mut [RelInfo], rel: RelId, args: &[Pat], bound: &[bool]) -> Step {
    let mut key = Vec::new();
    let columns: Box<[Shape]> = args.iter().map(|a| shape(a, bound, &mut key)).collect();
    let index = if columns.iter().all(|c| *c == Shape::Free) {
        None
    } else {
        let spec = IndexSpec { columns };
        let indexes = &mut relations[rel.0 as usize].indexes;
        Some(indexes.iter().position(|s| *s == spec).unwrap_or_else(|| {
            indexes.push(spec);
            indexes.len() - 1
        }))
    };
    Step::Scan {
        rel,
        args: args.into(),
        index,
        key: key.into(),
        delta: false,
    }
}

/// What [`rank`] knows of each relation beside its stratum.
#[derive(Clone, Copy)]
struct Kinds<'a> {
    /// Given by facts alone, no rule (or `true`).
    listed: &'a [bool],
    /// A demand relation (`r?`).
    asked: &'a [bool],
    /// The facts counted, where some are.
    fan: Option<Fan<'a>>,
}

/// The facts counted, with what a lookup needs to read them.
#[derive(Clone, Copy)]
struct Fan<'a> {
    fan: &'a FanOut<'a>,
    terms: &'a TermTable,
    names: &'a [Symbol],
}

impl Fan<'_> {
    /// The rows a lookup of `(rel args)` returns, given what is bound, if
    /// the facts of `rel` are counted.
    fn rows(&self, rel: RelId, args: &[Pat], bound: &[bool]) -> Option<f64> {
        (self.fan)
            .rows(self.names[rel.0 as usize], args, bound, self.terms)
            .map(Rows::rows)
    }

    /// [`Fan::rows`], as [`Rank`] weighs it.
    fn weight(&self, rel: RelId, args: &[Pat], bound: &[bool]) -> Option<i64> {
        (self.fan)
            .rows(self.names[rel.0 as usize], args, bound, self.terms)
            .map(Rows::weight)
    }
}

/// How good a positive literal is to join next, given what is bound: one
/// with every argument bound first (it matches one fact or none), then
/// `does` (one fact per role), then one that shares a bound variable, then
/// a demand relation (`asked`: the questions asked of the rule's head, few
/// where the relation whole is many, as a top-down prover starts from
/// what the question binds: chess's `(threatened_with_capture ...)` asked
/// a few dozen questions a state, joined after the knights' moves from
/// every square it looked at 14,000 candidate facts a state for 7), then
/// one of the clause's own stratum `own`, then the fewest rows a lookup
/// returns, then the most bound argument positions and the fewest new
/// variables, then one given by facts alone or the state (`listed`: a
/// table like `succ` has a row or two per key where a derived relation
/// like `lt` has hundreds), then the first written.
///
/// The rows a lookup returns are counted where the facts are (`kinds.fan`:
/// the static relations, and the state by the initial one). Chess's
/// `(knight_move ?piece ?u ?v ?x ?y ?player)`, bound on two places, returns
/// 1,344 rows a key, `(true (cell ?u ?v ?piece))`, bound on one, 4.9: the
/// cell goes first, where by bound places alone the moves did. They are
/// weighed as whole powers of 8 (log8 rounded: 6 rows and 8 weigh alike,
/// and the bound places decide), as counts are estimates (an average over
/// keys, the state by its first one). Where the facts are not counted
/// (relations derived from the state, and the state's facts the initial
/// one has none of) the rows are guessed: 8 a free place, each bound place
/// but the one the literal is joined by taking one free place off
/// (8^(f - (b - 1)) rows with `b` bound places and `f` free ones, 8^(f -
/// b) where not joined). Without counts at all ([`plan`]) the rows weigh
/// nothing and the order is that of bound and free places, as it was.
fn rank(
    i: usize,
    l: &Lit,
    bound: &[bool],
    comp_of: &[usize],
    kinds: Kinds<'_>,
    does: RelId,
    own: Option<usize>,
) -> Option<Rank> {
    let Lit::Pos(rel, args) = l else {
        return None;
    };
    let (b, f) = args.iter().fold((0i64, 0i64), |(b, f), a| {
        let (b2, f2) = count_leaves(a, bound);
        (b + b2, f + f2)
    });
    let joined = args.iter().any(|a| shares_bound_var(a, bound));
    let recursive = Some(comp_of[rel.0 as usize]) == own;
    let rows = match kinds.fan {
        // Nothing counted: the order is that of bound and free places.
        None => 0,
        // Every argument bound: the rank's first field decides.
        Some(_) if f == 0 => 0,
        Some(fan) => (fan.weight(*rel, args, bound)).unwrap_or(f - (b - i64::from(joined))),
    };
    Some((
        f == 0,
        *rel == does,
        joined,
        kinds.asked[rel.0 as usize],
        recursive,
        -rows,
        b * 4 - f,
        kinds.listed[rel.0 as usize],
        -(i as i64),
    ))
}

/// The rank of a positive literal in [`rank`]; greater is better.
type Rank = (bool, bool, bool, bool, bool, i64, i64, bool, i64);

/// A literal's arguments as a lookup reads a fact: what [`FanOut`] counts.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Probe {
    /// The fact's term must be this one.
    Is(TermId),
    /// A bound variable: part of the key.
    Key,
    /// A free variable: anything.
    Free,
    /// A term `f(...)` of these arguments.
    Func(Symbol, Box<[Probe]>),
}

impl Probe {
    fn of(p: &Pat, bound: &[bool]) -> Probe {
        match p {
            Pat::Const(t) => Probe::Is(*t),
            Pat::Var(v) if bound[*v as usize] => Probe::Key,
            Pat::Var(_) => Probe::Free,
            Pat::Func(f, args) => {
                Probe::Func(*f, args.iter().map(|a| Probe::of(a, bound)).collect())
            }
        }
    }

    fn has_key(&self) -> bool {
        match self {
            Probe::Key => true,
            Probe::Is(_) | Probe::Free => false,
            Probe::Func(_, args) => args.iter().any(Probe::has_key),
        }
    }

    /// Whether `t` fits; pushes its key parts onto `key`.
    fn fits(&self, t: TermId, terms: &TermTable, key: &mut Vec<TermId>) -> bool {
        match self {
            Probe::Is(u) => t == *u,
            Probe::Key => {
                key.push(t);
                true
            }
            Probe::Free => true,
            Probe::Func(f, args) => {
                terms.functor(t) == *f
                    && terms.args(t).len() == args.len()
                    && (args.iter().zip(terms.args(t))).all(|(p, &a)| p.fits(a, terms, key))
            }
        }
    }
}

/// The facts of some relations, counted for the planner: how many rows a
/// lookup of a literal returns given which of its places are bound, on
/// average over the keys that have some (the facts that fit the literal's
/// constants and function terms, over their distinct keys), so that it
/// can join first the literal of fewer. Made once the static facts are
/// derived; the state is counted by the initial one (a sample: where no
/// fact of it fits a literal, the literal's rows are not known, as a later
/// state may hold many). A pure function of the facts, counted in
/// integers: plans made with it are the same on any machine.
#[derive(Debug, Default)]
pub struct FanOut<'a> {
    tables: FxHashMap<Symbol, Table<'a>>,
    counted: std::cell::RefCell<Counted>,
}

/// The rows counted for each relation and probe so far (`None`: a sample
/// that tells nothing).
type Counted = FxHashMap<(Symbol, Box<[Probe]>), Option<Rows>>;

/// The facts of one relation, flat (`arity` terms a fact), and whether
/// they are a sample of what it holds.
#[derive(Clone, Copy, Debug)]
struct Table<'a> {
    arity: usize,
    data: &'a [TermId],
    sample: bool,
}

/// How many rows a lookup returns: `fit` facts over `keys` keys.
#[derive(Clone, Copy, Debug)]
struct Rows {
    fit: u64,
    keys: u64,
}

impl Rows {
    fn rows(self) -> f64 {
        self.fit as f64 / self.keys.max(1) as f64
    }

    /// log8 of the rows, to the nearest whole number, at least -2 (1/64
    /// of a row: none), in integers alone (the same on every machine).
    fn weight(self) -> i64 {
        const FRACTION: u32 = 16;
        let fixed = ((self.fit as u128) << FRACTION) / self.keys.max(1) as u128;
        // log2 in 64ths, then log8 (3 times as large) rounded.
        let log2 = log2_64ths(fixed.max(1 << (FRACTION - 6))) - 64 * FRACTION as i64;
        (log2 + 96).div_euclid(192)
    }
}

/// floor(64 log2(x)) for x >= 1, in integers.
fn log2_64ths(x: u128) -> i64 {
    let n = 127 - x.leading_zeros();
    // x / 2^n in [1, 2), as a fixed point number of 62 fraction bits.
    let mut y: u128 = if n >= 62 {
        x >> (n - 62)
    } else {
        x << (62 - n)
    };
    let mut fraction = 0i64;
    for bit in (0..6).rev() {
        y = (y * y) >> 62;
        if y >= 2 << 62 {
            fraction |= 1 << bit;
            y >>= 1;
        }
    }
    64 * n as i64 + fraction
}

impl<'a> FanOut<'a> {
    /// Nothing counted yet.
    pub fn new() -> FanOut<'a> {
        FanOut::default()
    }

    /// Counts the facts of `name` (every one: a lookup returns what they
    /// hold), `arity` terms each in `data`.
    pub fn facts(&mut self, name: Symbol, arity: usize, data: &'a [TermId]) {
        self.insert(name, arity, data, false);
    }

    /// Counts facts of `name` that are a sample of what it holds (the
    /// initial state's for `true`): a literal none of them fits is not
    /// counted.
    pub fn sample(&mut self, name: Symbol, arity: usize, data: &'a [TermId]) {
        self.insert(name, arity, data, true);
    }

    fn insert(&mut self, name: Symbol, arity: usize, data: &'a [TermId], sample: bool) {
        if arity > 0 {
            let table = Table {
                arity,
                data,
                sample,
            };
            self.tables.insert(name, table);
        }
    }

    /// The rows a lookup of `(name args)` returns given what is bound, if
    /// the facts of `name` are counted.
    fn rows(&self, name: Symbol, args: &[Pat], bound: &[bool], terms: &TermTable) -> Option<Rows> {
        let table = self.tables.get(&name)?;
        let probe: Box<[Probe]> = args.iter().map(|a| Probe::of(a, bound)).collect();
        if probe.len() != table.arity {
            return None;
        }
        let mut counted = self.counted.borrow_mut();
        let key = (name, probe);
        if let Some(&rows) = counted.get(&key) {
            return rows;
        }
        let probe = &key.1;
        let keyed = probe.iter().any(Probe::has_key);
        // The distinct keys, stored flat (`n` terms each) and found by
        // their hash: no allocation a key.
        let (mut fit, mut terms_of) = (0u64, Vec::new());
        let mut flat: Vec<TermId> = Vec::new();
        let mut keys: hashbrown::HashTable<u32> = hashbrown::HashTable::new();
        let hash = |key: &[TermId]| {
            let mut h = rustc_hash::FxHasher::default();
            std::hash::Hash::hash(key, &mut h);
            std::hash::Hasher::finish(&h)
        };
        for fact in table.data.chunks_exact(table.arity) {
            terms_of.clear();
            if !(probe.iter().zip(fact)).all(|(p, &t)| p.fits(t, terms, &mut terms_of)) {
                continue;
            }
            fit += 1;
            if !keyed {
                continue;
            }
            let n = terms_of.len();
            let at = |g: u32| &flat[g as usize * n..(g as usize + 1) * n];
            let h = hash(&terms_of);
            if keys.find(h, |&g| at(g) == terms_of.as_slice()).is_none() {
                let g = (flat.len() / n) as u32;
                flat.extend_from_slice(&terms_of);
                let flat = &flat;
                keys.insert_unique(h, g, |&g| hash(&flat[g as usize * n..(g as usize + 1) * n]));
            }
        }
        let keys = match keyed {
            true => keys.len() as u64,
            false => u64::from(fit > 0),
        };
        // A sample with no fact that fits tells nothing of later ones (the
        // empty board of the initial state, and the cells it fills).
        let rows = (fit > 0 || !table.sample).then_some(Rows { fit, keys });
        counted.insert(key, rows);
        rows
    }
}

/// The state of ordering one body: what is bound and placed, the literals
/// each variable occurs in, the filters waiting for variables, and the
/// positive literals by rank.
struct Order {
    bound: Vec<bool>,
    placed: Vec<bool>,
    /// For each variable, the literals it occurs in (each once).
    uses: Vec<Vec<u32>>,
    /// For each filter, how many of its variables are not bound yet.
    waiting: Vec<u32>,
    /// Filters whose variables are all bound, not placed yet.
    ready: Vec<usize>,
    /// Each unplaced positive literal's rank as it now is.
    rank: Vec<Option<Rank>>,
    /// Ranks as they were pushed: an entry is stale once its literal is
    /// placed or ranked again (ranks only grow as variables are bound).
    heap: BinaryHeap<(Rank, usize)>,
}

impl Order {
    fn new(lits: &[Lit], nvars: usize) -> Order {
        let mut uses: Vec<Vec<u32>> = vec![Vec::new(); nvars];
        let mut waiting = vec![0u32; lits.len()];
        for (i, l) in lits.iter().enumerate() {
            let filter = !matches!(l, Lit::Pos(..));
            lit_vars(l, &mut |v| {
                let u = &mut uses[v as usize];
                if u.last() != Some(&(i as u32)) {
                    u.push(i as u32);
                    waiting[i] += u32::from(filter);
                }
            });
        }
        let ready = lits
            .iter()
            .enumerate()
            .filter(|&(i, l)| !matches!(l, Lit::Pos(..)) && waiting[i] == 0)
            .map(|(i, _)| i)
            .collect();
        Order {
            bound: vec![false; nvars],
            placed: vec![false; lits.len()],
            uses,
            waiting,
            ready,
            rank: vec![None; lits.len()],
            heap: BinaryHeap::new(),
        }
    }

    /// Records the rank of positive literal `i`.
    fn rank(&mut self, i: usize, rank: Option<Rank>) {
        if let Some(r) = rank {
            self.rank[i] = rank;
            self.heap.push((r, i));
        }
    }

    /// The filters now ready, in the order written, marked placed.
    fn ready(&mut self) -> Vec<usize> {
        let mut ready = std::mem::take(&mut self.ready);
        ready.sort_unstable();
        for &i in &ready {
            self.placed[i] = true;
        }
        ready
    }

    /// The best ranked positive literal not placed.
    fn best(&mut self) -> Option<usize> {
        while let Some((r, i)) = self.heap.pop() {
            if !self.placed[i] && self.rank[i] == Some(r) {
                return Some(i);
            }
        }
        None
    }

    /// Places positive literal `i` and binds its variables: the filters
    /// they complete become ready, and the positive literals they occur in
    /// are ranked again by `rank`.
    fn place(
        &mut self,
        i: usize,
        lits: &[Lit],
        mut rank: impl FnMut(usize, &[bool]) -> Option<Rank>,
    ) {
        self.placed[i] = true;
        let mut vars = Vec::new();
        lit_vars(&lits[i], &mut |v| vars.push(v as usize));
        for v in vars {
            if self.bound[v] {
                continue;
            }
            self.bound[v] = true;
            for k in 0..self.uses[v].len() {
                let j = self.uses[v][k] as usize;
                if self.placed[j] {
                    continue;
                }
                if matches!(lits[j], Lit::Pos(..)) {
                    let r = rank(j, &self.bound);
                    self.rank(j, r);
                } else {
                    self.waiting[j] -= 1;
                    if self.waiting[j] == 0 {
                        self.ready.push(j);
                    }
                }
            }
        }
    }
}

/// Calls `f` on each variable occurrence of a pattern.
fn pat_vars(p: &Pat, f: &mut impl FnMut(u16)) {
    match p {
        Pat::Const(_) => {}
        Pat::Var(v) => f(*v),
        Pat::Func(_, args) => args.iter().for_each(|a| pat_vars(a, f)),
    }
}

/// Calls `f` on each variable occurrence of a literal.
fn lit_vars(l: &Lit, f: &mut impl FnMut(u16)) {
    match l {
        Lit::Pos(_, args) | Lit::Neg(_, args) => args.iter().for_each(|a| pat_vars(a, f)),
        Lit::Distinct(a, b) | Lit::Same(a, b) => {
            pat_vars(a, f);
            pat_vars(b, f);
        }
    }
}

/// How many leading steps of a plan bind every variable of the head
/// `head` (see `JoinPlan::head_bound`): only scans bind.
fn head_bound_after(steps: &[Step], head: &[Pat], nvars: usize) -> usize {
    let mut unbound = vec![false; nvars];
    head.iter()
        .for_each(|p| pat_vars(p, &mut |v| unbound[v as usize] = true));
    let mut after = 0;
    for (i, step) in steps.iter().enumerate() {
        if let Step::Scan { args, .. } = step {
            let mut binds = false;
            args.iter().for_each(|p| {
                pat_vars(p, &mut |v| {
                    binds |= std::mem::take(&mut unbound[v as usize])
                })
            });
            if binds {
                after = i + 1;
            }
        }
    }
    after
}

/// Which steps of a plan are scans that need one match only (see
/// `JoinPlan::once`): every variable they bind is read by no later step
/// and not by the head.
fn once_steps(steps: &[Step], head: &[Pat], nvars: usize) -> Vec<bool> {
    // Walking back from the head: the variables read after each step.
    let mut read_after = vec![false; nvars];
    head.iter()
        .for_each(|p| pat_vars(p, &mut |v| read_after[v as usize] = true));
    // The step that first mentions each variable is the one that binds it.
    let mut first = vec![usize::MAX; nvars];
    for (i, step) in steps.iter().enumerate() {
        step_pats(step, &mut |p| {
            pat_vars(p, &mut |v| first[v as usize] = first[v as usize].min(i))
        });
    }
    let mut once = vec![false; steps.len()];
    for (i, step) in steps.iter().enumerate().rev() {
        if let Step::Scan { args, .. } = step {
            let mut binds_read = false;
            args.iter().for_each(|p| {
                pat_vars(p, &mut |v| {
                    binds_read |= first[v as usize] == i && read_after[v as usize]
                })
            });
            once[i] = !binds_read;
        }
        step_pats(step, &mut |p| {
            pat_vars(p, &mut |v| read_after[v as usize] = true)
        });
    }
    once
}

/// Calls `f` on each pattern a step reads or binds.
fn step_pats(step: &Step, f: &mut impl FnMut(&Pat)) {
    match step {
        Step::Scan { args, .. } | Step::Absent { args, .. } => args.iter().for_each(f),
        Step::Distinct(a, b) | Step::Same(a, b) => {
            f(a);
            f(b);
        }
    }
}

fn shape(p: &Pat, bound: &[bool], key: &mut Vec<Pat>) -> Shape {
    if is_bound(p, bound) {
        key.push(p.clone());
        return Shape::Key;
    }
    match p {
        Pat::Const(_) => unreachable!("constants are bound"),
        Pat::Var(_) => Shape::Free,
        Pat::Func(f, args) => Shape::Func(
            *f,
            args.len() as u32,
            args.iter().map(|a| shape(a, bound, key)).collect(),
        ),
    }
}

fn is_bound(p: &Pat, bound: &[bool]) -> bool {
    match p {
        Pat::Const(_) => true,
        Pat::Var(v) => bound[*v as usize],
        Pat::Func(_, args) => args.iter().all(|a| is_bound(a, bound)),
    }
}

/// Whether a pattern has a variable that is bound.
fn shares_bound_var(p: &Pat, bound: &[bool]) -> bool {
    match p {
        Pat::Const(_) => false,
        Pat::Var(v) => bound[*v as usize],
        Pat::Func(_, args) => args.iter().any(|a| shares_bound_var(a, bound)),
    }
}

/// (bound leaves, free variable leaves) of a pattern.
fn count_leaves(p: &Pat, bound: &[bool]) -> (i64, i64) {
    match p {
        Pat::Const(_) => (1, 0),
        Pat::Var(v) if bound[*v as usize] => (1, 0),
        Pat::Var(_) => (0, 1),
        Pat::Func(_, args) => args.iter().fold((0, 0), |(b, f), a| {
            let (b2, f2) = count_leaves(a, bound);
            (b + b2, f + f2)
        }),
    }
}

/// One stratum of the plan in readable form, as `gdl plan` shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StratumPlan {
    /// Its phase: `Static`, `State` or `Move`.
    pub phase: String,
    /// Whether its relations depend on themselves.
    pub recursive: bool,
    /// Its relations, as `name/arity`.
    pub relations: Vec<String>,
    /// Its rules, in the order they are evaluated.
    pub rules: Vec<RulePlan>,
}

/// One rule of a stratum and its join plans in readable form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RulePlan {
    /// The rule's head, such as `(legal/2 ?r (mark ?m ?n))`.
    pub head: String,
    /// The steps of its full plan, one line each (`scan ... via index #0
    /// by [b]`, `absent ...`, `distinct ...`; a scan whose rows the
    /// planner counted ends `, ~N rows`: the rows a lookup returns).
    pub steps: Vec<String>,
    /// The steps of each delta plan of a recursive rule (its semi-naive
    /// evaluation: one plan for each literal of its own stratum).
    pub deltas: Vec<Vec<String>>,
}

/// The plan in readable form: strata in order, and each clause's steps.
pub fn describe(
    p: &Program,
    terms: &TermTable,
    symbols: &crate::syntax::symbol::Symbols,
) -> Vec<StratumPlan> {
    let rel = |r: RelId| {
        let i = p.info(r);
        format!("{}/{}", symbols.spelling(i.name), i.arity)
    };
    let mut strata = Vec::new();
    for c in &p.components {
        let mut rules = Vec::new();
        for &ci in &c.clauses {
            let cl = &p.clauses[ci];
            let pat = |q: &Pat| show_pat(q, &cl.var_names, terms, symbols);
            let pats = |qs: &[Pat]| qs.iter().map(pat).collect::<Vec<_>>().join(" ");
            let head = format!("({} {})", rel(cl.head), pats(&cl.head_args));
            let mut plans = std::iter::once(&cl.full).chain(cl.deltas.iter()).map(|jp| {
                (jp.steps.iter().enumerate())
                    .map(|(i, s)| match s {
                        Step::Scan {
                            rel: r,
                            args,
                            index,
                            key,
                            delta,
                        } => {
                            let how = if *delta {
                                "new facts".to_string()
                            } else if let Some(ix) = index {
                                format!("index #{ix} by [{}]", pats(key))
                            } else {
                                "all facts".to_string()
                            };
                            let once = if jp.once.get(i) == Some(&true) {
                                ", one match"
                            } else {
                                ""
                            };
                            let rows = match jp.rows.get(i).copied().flatten() {
                                Some(rows) => format!(", ~{} rows", show_rows(rows)),
                                None => String::new(),
                            };
                            format!("scan ({} {}) via {how}{once}{rows}", rel(*r), pats(args))
                        }
                        Step::Absent { rel: r, args } => {
                            format!("absent ({} {})", rel(*r), pats(args))
                        }
                        Step::Distinct(a, b) => format!("distinct {} {}", pat(a), pat(b)),
                        Step::Same(a, b) => format!("same {} {}", pat(a), pat(b)),
                    })
                    .collect::<Vec<String>>()
            });
            let steps = plans.next().unwrap_or_default();
            rules.push(RulePlan {
                head,
                steps,
                deltas: plans.collect(),
            });
        }
        strata.push(StratumPlan {
            phase: format!("{:?}", c.phase),
            recursive: c.recursive,
            relations: c.relations.iter().map(|&r| rel(r)).collect(),
            rules,
        });
    }
    strata
}

/// The plan as text: strata in order, and each clause's steps (the
/// [`describe`] of the plan, a line each).
pub fn dump(p: &Program, terms: &TermTable, symbols: &crate::syntax::symbol::Symbols) -> String {
    let mut out = String::new();
    for (n, c) in describe(p, terms, symbols).iter().enumerate() {
        let _ = writeln!(
            out,
            "stratum {n} [{}{}]: {}",
            c.phase,
            if c.recursive { ", recursive" } else { "" },
            c.relations.join(", ")
        );
        for rule in &c.rules {
            let _ = writeln!(out, "  rule {}", rule.head);
            for (k, steps) in std::iter::once(&rule.steps).chain(&rule.deltas).enumerate() {
                if k > 0 {
                    let _ = writeln!(out, "    delta plan {k}:");
                }
                for line in steps {
                    let _ = writeln!(out, "    {line}");
                }
            }
        }
    }
    out
}

/// Rows a lookup returns, as `gdl plan` prints them: to a tenth under
/// 10, whole rows above.
fn show_rows(rows: f32) -> String {
    if rows < 10.0 {
        format!("{:.1}", rows)
    } else {
        format!("{:.0}", rows)
    }
}

fn show_pat(
    p: &Pat,
    vars: &[Symbol],
    terms: &TermTable,
    symbols: &crate::syntax::symbol::Symbols,
) -> String {
    match p {
        Pat::Const(t) => terms.text(*t, symbols),
        Pat::Var(v) => symbols.spelling(vars[*v as usize]).to_string(),
        Pat::Func(f, args) => {
            let inner: Vec<String> = args
                .iter()
                .map(|a| show_pat(a, vars, terms, symbols))
                .collect();
            format!("({} {})", symbols.spelling(*f), inner.join(" "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SourceFile;

    /// The `head_bound` of the full plan of each clause of `text`, in order.
    fn head_bounds(text: &str) -> Vec<usize> {
        let d = crate::syntax::kif::parse(&SourceFile::new("t", text), 64).unwrap();
        let clauses = crate::syntax::normal::normalize(&d).unwrap();
        let mut symbols = d.symbols.clone();
        let p = plan(&clauses, &mut TermTable::new(), &mut symbols);
        p.clauses.iter().map(|c| c.full.head_bound).collect()
    }

    #[test]
    fn head_bound_counts_the_steps_that_bind_head_variables() {
        // (q ?x ?y) binds ?x; (r ?y ?z) binds no head variable.
        assert_eq!(head_bounds("(<= (p ?x) (q ?x ?y) (r ?y ?z))"), [1]);
        // A 0-ary head: the first match of the body is enough.
        assert_eq!(head_bounds("(<= g (q ?x ?y) (r ?y ?z))"), [0]);
        // ?z comes last, so every step is needed.
        assert_eq!(head_bounds("(<= (p ?x ?z) (q ?x ?y) (r ?y ?z))"), [2]);
    }
}
