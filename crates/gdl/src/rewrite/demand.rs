//! The demand transformation (magic sets): a relation far too large to
//! derive whole, of which the rules only ever ask bound questions, is
//! derived only for the questions asked.
//!
//! mummymaze1p's `(direction-from ?x1 ?y1 ?x2 ?y2 ?dir)` joins two
//! relations over every pair of numbers its `succ` counts up to: millions
//! of facts, of which a state asks a handful, always with the four places
//! bound. For a relation `r` asked with the places `P` bound (its
//! *pattern*), the transformation adds a *demand* relation `r?` holding
//! the values asked at `P`, and
//!
//! ```text
//! r(args)  :- r?(args at P), body.              each rule of r, restricted
//! r?(a at P) :- h?(head at P'), binders.        for each use r(a) in a rule of h
//! ```
//!
//! where `h?` is there when `h` is itself demanded, and the binders are
//! the positive sentences of the use's rule written before it, as a
//! top-down prover reads a rule, left to right: demanded ones included,
//! since they are answered by the time the reading reaches the use
//! (mummymaze1p's `(newlocation1 ?x2 ?y2 ?dir2 ?x3 ?y3)` is asked where
//! the `newlocation1` before it led). A transformation may also bind by
//! all the other positive sentences of the rule that are not demanded,
//! before or after the use (the fewest questions, each as bound as the
//! rule allows, but bound through relations derived whole: a static
//! relation too large to derive is demanded left to right first, this way
//! only where that fails). When the question of a use's head `h` would
//! bind more of `r`'s places than the rest of the rule does, `h` is
//! demanded too, and so on up to rules that bind them (mummymaze1p's
//! `doesprime` asks `movetoward`, which asks `direction-from`). A
//! relation asked with no place bound is not demanded. Dropping negations
//! from the binders asks more than needed, never less: the model
//! restricted to what is asked is the same.
//!
//! A use under `not` asks as a positive use does (chess's
//! `(not (threatened ?player ?kx ?ky ?u ?v))`, asked for the king's square
//! and the square moved from, where the whole relation covers every pair
//! of squares): `r` derived for every question asked is whole for those
//! questions, so `not r(a)` reads the same. The transformation gives up
//! (and the relation is derived whole, as before) when a keyword of the
//! game loop (`legal`, `next`, `goal`, ...) would have to be demanded, or
//! when the transformed rules would not be stratified (a question asked
//! through what the negation itself decides).
//!
//! A relation whose uses ask it in different ways, of which no single
//! pattern binds what its rules need (colonelBlotto's `(sum ?x 0 ?x)`,
//! asked with `?x` given to add and with the sum given to subtract), is
//! split first into one copy per way of asking, its *adornment* as in the
//! magic-sets transformation (`sum^bbf`, `sum^fbb`), and each copy is
//! demanded with its own demand relation ([`demand_adorned`]).

use super::{fresh_name, reading_moves};
use crate::analysis::graph::DepGraph;
use crate::syntax::ast::{Sentence, Term};
use crate::syntax::keywords::keyword_named;
use crate::syntax::normal::{Clause, NLit};
use crate::syntax::symbol::{Symbol, Symbols};
use rustc_hash::{FxHashMap, FxHashSet};

/// The most relations one transformation may demand.
const MAX_DEMANDED: usize = 64;

/// The places of a relation that every question binds (its pattern).
type Pattern = Vec<bool>;

/// The clauses with `target` derived on demand, or `None` when it cannot
/// be (see the module's documentation). New relation names are interned
/// into `symbols`.
pub fn demand(clauses: &[Clause], target: Symbol, symbols: &mut Symbols) -> Option<Vec<Clause>> {
    transform(
        clauses,
        &[target],
        symbols,
        Binders::All,
        &FxHashSet::default(),
    )
    .map(|(out, _)| out)
}

/// [`demand`] for a relation that its uses ask in different ways, one
/// copy of it for each way (its *adornment*, as in the magic-sets
/// transformation), each copy derived on demand for the questions of its
/// own uses: colonelBlotto's `(sum ?x ?y ?z)` is asked with `?x ?y` bound
/// to add and with `?y ?z` bound to subtract, and its rule `(sum ?x 0 ?x)`
/// needs one of the two. Demanded whole, the relation would be asked with
/// only `?y` bound. The clauses and the copies made (see [`adorn`]), or
/// `None` when the copies cannot be demanded.
pub fn demand_adorned(
    clauses: &[Clause],
    target: Symbol,
    symbols: &mut Symbols,
) -> Option<(Vec<Clause>, Vec<Symbol>)> {
    let sides = sides(clauses, symbols);
    let (copied, copies) = adorn(clauses, target, &sides.after, symbols)?;
    // A copy whose rules bind every place of their heads is derived whole.
    let unsafe_copies: Vec<Symbol> = (copies.iter().copied())
        .filter(|&r| {
            (copied.iter())
                .filter(|c| c.head.name == r)
                .any(|c| !binds_its_head(c))
        })
        .collect();
    // A relation asked on both sides is not demanded along: its questions
    // would gather the moves' and the legal moves would wait for them
    // (blokbox's `pieceOriented`, asked for the piece placed and for the
    // pieces that may be).
    let (out, _) = transform(&copied, &unsafe_copies, symbols, Binders::All, &sides.both)?;
    Some((out, copies))
}

/// How a use of a relation asks one of its places.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    /// Bound by the rest of the rule (`b`).
    Bound,
    /// Not bound by the rest of the rule (`f`): the question leaves it
    /// open, unless the question of the rule's own head binds it.
    Free,
}

/// The adornment of a use: how it asks each place, and whether the use
/// is asked after the moves are known (see [`Sides`]).
type Adornment = (Vec<Place>, bool);

/// The rules with `target` split into one copy per adornment its uses ask
/// (`sum^bbf`, `sum^fbb`: `b` a place the rest of the using rule binds,
/// `f` one it leaves free), each use renamed to its copy:
///
/// ```text
/// r^a(head) :- body'.       each rule of r, for each adornment a
/// ```
///
/// where `body'` renames the uses of `r` to their copies, adorned with the
/// places the copy's head binds (each copy holds what `r` holds). A copy
/// is named for what the rule that uses it binds: demanded, its questions
/// may bind more, through the question of that rule's own head.
/// A use asked after the moves are known has a copy of its own (`sum^fbf'`
/// beside `sum^fbf`), so that the questions of the legal moves, the goals
/// and `terminal` never wait for the moves (colonelBlotto asks `sum` alike
/// for the legal moves and for the scores of the moves played). The
/// copies come in the order their first uses are met; `None` when no rule
/// uses `target`.
fn adorn(
    clauses: &[Clause],
    target: Symbol,
    after: &FxHashSet<Symbol>,
    symbols: &mut Symbols,
) -> Option<(Vec<Clause>, Vec<Symbol>)> {
    let mut copies: Vec<(Adornment, Symbol)> = Vec::new();
    let mut out: Vec<Clause> = (clauses.iter())
        .filter(|c| c.head.name != target)
        .map(|c| {
            let side = after.contains(&c.head.name);
            rename_uses(c, target, None, side, &mut copies, symbols)
        })
        .collect();
    if copies.is_empty() {
        return None;
    }
    // copy(r^a, rule) :- adornment a asked, rule a rule of r
    // (the copies grow as the copies' own rules ask new adornments).
    let mut next = 0;
    while next < copies.len() {
        let ((places, side), copy) = copies[next].clone();
        for c in clauses.iter().filter(|c| c.head.name == target) {
            let mut copied = rename_uses(c, target, Some(&places), side, &mut copies, symbols);
            copied.head.name = copy;
            out.push(copied);
        }
        next += 1;
    }
    Some((out, copies.into_iter().map(|(_, copy)| copy).collect()))
}

/// Which relations are asked before the moves are known and which after.
struct Sides {
    /// The relations asked after the moves are known: those that depend
    /// on `does`, and those that only such relations ask, through any
    /// number of rules (colonelBlotto's `gt`, which compares the moves
    /// played).
    after: FxHashSet<Symbol>,
    /// The relations that do not depend on `does` but are asked both by
    /// such relations and, directly or not, by a keyword that does not
    /// depend on `does` (the legal moves, the goals, `terminal`).
    both: FxHashSet<Symbol>,
}

/// The sides of the game loop that ask each relation (see [`Sides`]).
fn sides(clauses: &[Clause], symbols: &Symbols) -> Sides {
    let reads_moves = reading_moves(clauses, symbols);
    // asked(s, side) :- a rule of h uses s, h on that side.
    // asked(s, side) :- asked(h, side), a rule of h uses s.
    let asked_from = |roots: &dyn Fn(Symbol) -> bool| {
        let mut asked: FxHashSet<Symbol> = FxHashSet::default();
        let mut stack: Vec<Symbol> = (clauses.iter().map(|c| c.head.name))
            .filter(|&h| roots(h))
            .collect();
        while let Some(h) = stack.pop() {
            for c in clauses.iter().filter(|c| c.head.name == h) {
                for lit in &c.body {
                    if let NLit::Pos(s) | NLit::Neg(s) = lit
                        && asked.insert(s.name)
                    {
                        stack.push(s.name);
                    }
                }
            }
        }
        asked
    };
    let after = asked_from(&|h| reads_moves.contains(&h));
    let before =
        asked_from(&|h| !reads_moves.contains(&h) && keyword_named(symbols.name(h)).is_some());
    Sides {
        both: (after.iter().copied())
            .filter(|h| before.contains(h) && !reads_moves.contains(h))
            .collect(),
        after: (after.into_iter())
            .filter(|h| !before.contains(h))
            .chain(reads_moves.iter().copied())
            .collect(),
    }
}

/// A clause with each use of `target` in its body renamed to the copy of
/// its adornment (made when new): `head` is the adornment of the clause's
/// own head when the clause is a rule of a copy of `target`, and
/// `after_moves` whether the clause is asked after the moves are known.
fn rename_uses(
    c: &Clause,
    target: Symbol,
    head: Option<&[Place]>,
    after_moves: bool,
    copies: &mut Vec<(Adornment, Symbol)>,
    symbols: &mut Symbols,
) -> Clause {
    // bound(v) :- v in a place of the head its question binds.
    // bound(v) :- v in a positive literal of the body, not of target.
    let mut bound: FxHashSet<Symbol> = FxHashSet::default();
    for (place, arg) in c.head.args.iter().enumerate() {
        if head.is_some_and(|a| a[place] == Place::Bound) {
            arg.for_each_var(&mut |v, _| {
                bound.insert(v);
            });
        }
    }
    for lit in &c.body {
        if let NLit::Pos(s) = lit
            && s.name != target
        {
            s.for_each_var(&mut |v, _| {
                bound.insert(v);
            });
        }
    }
    let mut renamed = c.clone();
    for lit in &mut renamed.body {
        let (NLit::Pos(used) | NLit::Neg(used)) = lit else {
            continue;
        };
        if used.name != target {
            continue;
        }
        let places: Vec<Place> = (used.args.iter())
            .map(|arg| match variables_within(arg, &bound) {
                true => Place::Bound,
                false => Place::Free,
            })
            .collect();
        let adornment = (places, after_moves);
        let copy = match copies.iter().find(|(a, _)| *a == adornment) {
            Some(&(_, copy)) => copy,
            None => {
                let mut letters: String = (adornment.0.iter())
                    .map(|p| match p {
                        Place::Bound => 'b',
                        Place::Free => 'f',
                    })
                    .collect();
                if after_moves {
                    letters.push('\'');
                }
                let copy = fresh_name(symbols, target, &format!("^{letters}"));
                copies.push((adornment.clone(), copy));
                copy
            }
        };
        used.name = copy;
    }
    renamed
}

/// Whether the positive literals of a clause's body bind every variable
/// of its head.
fn binds_its_head(c: &Clause) -> bool {
    let mut bound = FxHashSet::default();
    for lit in &c.body {
        if let NLit::Pos(s) = lit {
            s.for_each_var(&mut |v, _| {
                bound.insert(v);
            });
        }
    }
    c.head.args.iter().all(|a| variables_within(a, &bound))
}

/// [`demand`], each use asked what the sentences written before it bind
/// (left to right, as a top-down prover asks): where a later sentence is
/// a relation of the state (mummymaze1p's `newlocation2`, thousands of
/// facts a state), binding through it would derive it whole in every
/// state, where the prover asks it a handful of questions.
pub fn demand_left_to_right(
    clauses: &[Clause],
    target: Symbol,
    symbols: &mut Symbols,
) -> Option<Vec<Clause>> {
    let done = FxHashSet::default();
    transform(clauses, &[target], symbols, Binders::Before, &done).map(|(out, _)| out)
}

/// Every relation of the state (`phase` gives each relation's) derived on
/// demand where what it is asked never changes: where its questions come
/// from the rules' constants and static facts alone (chineseCheckers3's
/// `(count ?x ?y ?z ?player ?payoff)`, every triple of cells, asked by the
/// goal rules for three cells named in them). Such a relation is then
/// derived for those questions only, in every state, and nothing becomes
/// more dynamic than it was. `None` when no relation qualifies. The
/// questions may be so many that the rules as written cost less: loading
/// measures both and keeps the cheaper.
pub fn demand_fixed_questions(
    clauses: &[Clause],
    state_relations: &[Symbol],
    symbols: &mut Symbols,
) -> Option<Vec<Clause>> {
    demand_each(clauses, state_relations, symbols, Binders::All, fixed)
}

/// Every relation of the state derived on demand where it can be, whatever
/// its questions depend on: amazonsTorus's `(queenMoveIgnoring ?xIg ?yIg
/// ?x1 ?y1 ?x2 ?y2)`, every arrow shot from every square past every other
/// square (some 360,000 facts a state), is asked only past the squares of
/// the four amazons of the side to move, which the state binds. The demand
/// relations are then relations of the state too, derived anew in every
/// state. A use's question binds what the sentences before it bind (as
/// the rule is written: `(emptyCell ?x3 ?y3)` after the use filters the
/// arrows, it does not ask for each empty square). `None` when no
/// relation can be. Whether that costs less than the rules as written
/// depends on how many questions a state asks: loading measures both and
/// keeps the cheaper.
pub fn demand_state_questions(
    clauses: &[Clause],
    state_relations: &[Symbol],
    symbols: &mut Symbols,
) -> Option<Vec<Clause>> {
    // A relation asked both by the legal moves and after the moves are
    // known is asked on each side through a copy of its own.
    let copied = super::move_copies::copy_for_moves(clauses, state_relations, symbols);
    let (clauses, relations) = match &copied {
        Some((copied, copies)) => (&copied[..], [state_relations, copies].concat()),
        None => (clauses, state_relations.to_vec()),
    };
    demand_each(clauses, &relations, symbols, Binders::Before, |_, _, _| {
        true
    })
}

/// Which of a rule's other sentences bind the places that a use of a
/// demanded relation asks for (how bindings pass sideways, in the words
/// of magic sets).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Binders {
    /// Every positive sentence of a relation not demanded: the fewest
    /// questions, each as bound as the rule allows.
    All,
    /// Those written before the use, demanded or not: what a
    /// left-to-right reading has bound when it reaches the use.
    Before,
}

impl Binders {
    /// How many of a body's literals may bind the use at `use_at`.
    fn upto(self, use_at: usize, body_len: usize) -> usize {
        match self {
            Binders::All => body_len,
            Binders::Before => use_at,
        }
    }

    /// Whether a positive sentence among those may bind: with `All`, one
    /// of a relation not demanded (a demanded one is asked, not known,
    /// when the rest of its rule is matched); with `Before`, any.
    fn binds(self, s: &Sentence, patterns: &FxHashMap<Symbol, Pattern>) -> bool {
        self == Binders::Before || !patterns.contains_key(&s.name)
    }
}

/// Each relation of `relations` in turn derived on demand (with the
/// relations its transformation demands along), the transformation kept
/// when `keep` accepts its clauses and demand relations.
fn demand_each(
    clauses: &[Clause],
    relations: &[Symbol],
    symbols: &mut Symbols,
    binders: Binders,
    keep: impl Fn(&[Clause], &[(Symbol, Symbol)], &Symbols) -> bool,
) -> Option<Vec<Clause>> {
    let mut current: Option<Vec<Clause>> = None;
    let mut done: FxHashSet<Symbol> = FxHashSet::default();
    for &r in relations {
        if done.contains(&r) {
            continue;
        }
        let base = current.as_deref().unwrap_or(clauses);
        let Some((out, demanded)) = transform(base, &[r], symbols, binders, &done) else {
            continue;
        };
        if keep(&out, &demanded, symbols) {
            done.extend(demanded.iter().map(|&(r, _)| r));
            current = Some(out);
        }
    }
    current
}

/// Whether the demand relations depend neither on `true` nor on `does`.
fn fixed(clauses: &[Clause], demanded: &[(Symbol, Symbol)], symbols: &Symbols) -> bool {
    let mut graph = DepGraph::new(clauses);
    let (_, reach) = graph.depends_on_named(&["true", "does"], symbols);
    demanded.iter().all(|&(_, question)| {
        let q = graph.index(question);
        q < reach.len() && !reach[q].iter().any(|&d| d)
    })
}

/// Each demanded relation with its demand relation (`r` with `r?`).
type Demands = Vec<(Symbol, Symbol)>;

/// [`demand`] of every relation of `targets` at once, also giving each
/// demanded relation with its demand relation; the relations of `done`
/// are not demanded along (those an earlier transformation demanded, or,
/// for [`demand_adorned`], those asked both before and after the moves).
fn transform(
    clauses: &[Clause],
    targets: &[Symbol],
    symbols: &mut Symbols,
    binders: Binders,
    done: &FxHashSet<Symbol>,
) -> Option<(Vec<Clause>, Demands)> {
    let patterns = patterns(clauses, targets, symbols, binders, done)?;
    let demand_of: FxHashMap<Symbol, Symbol> = patterns
        .keys()
        .map(|&r| (r, fresh_name(symbols, r, "?")))
        .collect();
    let mut out = Vec::with_capacity(clauses.len() * 2);
    for c in clauses {
        let mut restricted = c.clone();
        if let Some(pattern) = patterns.get(&c.head.name) {
            let ask = asked(&c.head, pattern, demand_of[&c.head.name]);
            restricted.body.insert(0, NLit::Pos(ask));
        }
        out.push(restricted);
        for (i, lit) in c.body.iter().enumerate() {
            let (NLit::Pos(used) | NLit::Neg(used)) = lit else {
                continue;
            };
            let Some(pattern) = patterns.get(&used.name) else {
                continue;
            };
            let mut body: Vec<NLit> = Vec::new();
            if let Some(head_pattern) = patterns.get(&c.head.name) {
                body.push(NLit::Pos(asked(
                    &c.head,
                    head_pattern,
                    demand_of[&c.head.name],
                )));
            }
            let upto = binders.upto(i, c.body.len());
            body.extend(c.body.iter().enumerate().filter_map(|(j, l)| match l {
                NLit::Pos(s) if j != i && j < upto && binders.binds(s, &patterns) => {
                    Some(l.clone())
                }
                _ => None,
            }));
            out.push(Clause {
                head: asked(used, pattern, demand_of[&used.name]),
                body,
                rule: c.rule,
                span: c.span,
            });
        }
    }
    let demanded = demand_of.into_iter().collect();
    (stratified(&out) && !state_reads_moves(&out, symbols)).then_some((out, demanded))
}

/// The pattern of every relation to demand, starting from `targets`: a
/// rule that uses a demanded relation has its own head demanded too when
/// that head's question would bind more of the use's places than the rest
/// of its body does (and the head may be demanded: not a keyword, not one
/// found to be asked with nothing bound).
fn patterns(
    clauses: &[Clause],
    targets: &[Symbol],
    symbols: &Symbols,
    binders: Binders,
    done: &FxHashSet<Symbol>,
) -> Option<FxHashMap<Symbol, Pattern>> {
    let arity = |r: Symbol| -> Option<usize> {
        clauses
            .iter()
            .find(|c| c.head.name == r)
            .map(|c| c.head.args.len())
    };
    // Not a keyword, nor a relation of an earlier transformation (demanded
    // or a demand relation).
    let demandable = |r: Symbol| {
        let name = symbols.name(r);
        keyword_named(name).is_none()
            && !name.ends_with('?')
            && !done.contains(&r)
            && arity(r).is_some()
    };
    if !targets.iter().all(|&t| demandable(t)) {
        return None;
    }
    let mut demanded: Vec<Symbol> = targets.to_vec();
    let mut refused: FxHashSet<Symbol> = FxHashSet::default();
    loop {
        let patterns = fixpoint(clauses, &demanded, &arity, binders)?;
        let mut widened = patterns.clone();
        let raise = clauses.iter().find_map(|c| {
            let h = c.head.name;
            if patterns.contains_key(&h) || refused.contains(&h) || !demandable(h) {
                return None;
            }
            widened.insert(h, vec![true; c.head.args.len()]);
            let helps = c.body.iter().enumerate().any(|(i, lit)| match lit {
                NLit::Pos(s) if patterns.contains_key(&s.name) => {
                    let upto = binders.upto(i, c.body.len());
                    let now = bound_variables(c, &patterns, upto, binders);
                    let then = bound_variables(c, &widened, upto, binders);
                    s.args
                        .iter()
                        .any(|a| !variables_within(a, &now) && variables_within(a, &then))
                }
                _ => false,
            });
            widened.remove(&h);
            helps.then_some(h)
        });
        if let Some(h) = raise.filter(|_| demanded.len() < MAX_DEMANDED) {
            demanded.push(h);
            continue;
        }
        if let Some(&r) = demanded.iter().find(|r| !patterns[r].iter().any(|&b| b)) {
            if targets.contains(&r) {
                return None;
            }
            refused.insert(r);
            demanded.retain(|&d| d != r);
            continue;
        }
        return Some(patterns);
    }
}

/// The patterns of the relations `demanded`: from "every place bound" down
/// to what every use binds (under `not` too), recomputed until nothing
/// changes.
fn fixpoint(
    clauses: &[Clause],
    demanded: &[Symbol],
    arity: &impl Fn(Symbol) -> Option<usize>,
    binders: Binders,
) -> Option<FxHashMap<Symbol, Pattern>> {
    let mut patterns: FxHashMap<Symbol, Pattern> = FxHashMap::default();
    for &r in demanded {
        patterns.insert(r, vec![true; arity(r)?]);
    }
    loop {
        let mut next = patterns.clone();
        for c in clauses {
            for (i, lit) in c.body.iter().enumerate() {
                let (NLit::Pos(used) | NLit::Neg(used)) = lit else {
                    continue;
                };
                if let Some(pattern) = next.get_mut(&used.name) {
                    let upto = binders.upto(i, c.body.len());
                    let bound = bound_variables(c, &patterns, upto, binders);
                    for (place, arg) in pattern.iter_mut().zip(&used.args) {
                        *place &= variables_within(arg, &bound);
                    }
                }
            }
        }
        if next == patterns {
            return Some(patterns);
        }
        patterns = next;
    }
}

/// The variables of a clause that its question (when its head is
/// demanded) and the positive sentences among its first `upto` literals
/// bind: with [`Binders::All`], those of relations not demanded; with
/// [`Binders::Before`], all of them (a demanded sentence written before a
/// use has been answered when a left-to-right reading reaches the use).
fn bound_variables(
    c: &Clause,
    patterns: &FxHashMap<Symbol, Pattern>,
    upto: usize,
    binders: Binders,
) -> FxHashSet<Symbol> {
    let mut bound = FxHashSet::default();
    let mut add = |t: &Term| {
        t.for_each_var(&mut |v, _| {
            bound.insert(v);
        })
    };
    if let Some(pattern) = patterns.get(&c.head.name) {
        c.head
            .args
            .iter()
            .zip(pattern)
            .filter(|&(_, &b)| b)
            .for_each(|(a, _)| add(a));
    }
    for lit in &c.body[..upto] {
        if let NLit::Pos(s) = lit
            && binders.binds(s, patterns)
        {
            s.args.iter().for_each(&mut add);
        }
    }
    bound
}

/// Whether every variable of a term is in `bound`.
fn variables_within(t: &Term, bound: &FxHashSet<Symbol>) -> bool {
    let mut all = true;
    t.for_each_var(&mut |v, _| all &= bound.contains(&v));
    all
}

/// The question `r?(args at pattern)` that a sentence of `r` asks.
fn asked(s: &Sentence, pattern: &[bool], demand: Symbol) -> Sentence {
    Sentence {
        name: demand,
        name_span: s.name_span,
        args: s
            .args
            .iter()
            .zip(pattern)
            .filter(|&(_, &b)| b)
            .map(|(a, _)| a.clone())
            .collect(),
        span: s.span,
    }
}

/// Whether `legal`, `terminal` or `goal` depend on `does`, as they may
/// once transformed: connect4's `(filled ?c ?h)`, read by the legal rule
/// and by a next rule after `(does white (drop ?c))`, would be asked by a
/// demand relation fed by the moves, and so be known only once the moves
/// are, too late for the legal moves.
fn state_reads_moves(clauses: &[Clause], symbols: &Symbols) -> bool {
    let mut graph = DepGraph::new(clauses);
    let (_, reach) = graph.depends_on_named(&["does"], symbols);
    let keywords: Vec<usize> = ["legal", "terminal", "goal"]
        .into_iter()
        .filter_map(|k| symbols.get(k))
        .map(|k| graph.index(k))
        .collect();
    keywords
        .into_iter()
        .any(|k| k < reach.len() && reach[k].iter().any(|&d| d))
}

/// Whether no relation depends on itself through `not`.
fn stratified(clauses: &[Clause]) -> bool {
    let graph = DepGraph::new(clauses);
    let (component, _) = graph.components();
    graph
        .edges
        .iter()
        .all(|e| !e.negative || component[e.head] != component[e.body])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::term_text as term;
    use crate::source::SourceFile;
    use crate::syntax::{kif, normal};

    fn transformed(rules: &str, target: &str) -> Option<String> {
        let (clauses, mut symbols) = read(rules);
        let target = symbols.get(target).expect("a relation of the rules");
        let out = demand(&clauses, target, &mut symbols)?;
        Some(render(&out, &symbols))
    }

    /// The rules with the relations named derived on demand as relations
    /// of the state (`demand_state_questions`).
    fn transformed_state(rules: &str, relations: &[&str]) -> Option<String> {
        let (clauses, mut symbols) = read(rules);
        let relations: Vec<Symbol> = relations.iter().map(|r| symbols.get(r).unwrap()).collect();
        let out = demand_state_questions(&clauses, &relations, &mut symbols)?;
        Some(render(&out, &symbols))
    }

    fn read(rules: &str) -> (Vec<Clause>, Symbols) {
        let file = SourceFile::new("t.gdl", rules);
        let d = kif::parse(&file, 100).expect("parses");
        let clauses = normal::normalize(&d).expect("normalises");
        (clauses, d.symbols.clone())
    }

    fn render(clauses: &[Clause], symbols: &Symbols) -> String {
        clauses
            .iter()
            .map(|c| {
                let body: Vec<String> = c
                    .body
                    .iter()
                    .map(|l| match l {
                        NLit::Pos(s) => sentence(s, symbols),
                        NLit::Neg(s) => format!("(not {})", sentence(s, symbols)),
                        _ => "distinct".into(),
                    })
                    .collect();
                format!("{} :- {}", sentence(&c.head, symbols), body.join(" "))
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn sentence(s: &Sentence, symbols: &Symbols) -> String {
        let args: Vec<String> = s.args.iter().map(|a| term(a, symbols)).collect();
        format!("({} {})", symbols.name(s.name), args.join(" "))
    }

    const CHAIN: &str = "
        (role r) (init (at 1)) (n 1) (n 2) (n 3)
        (<= (far ?a ?b) (n ?a) (n ?b))
        (<= (step ?a ?b) (far ?a ?b))
        (<= (legal r (go ?b)) (true (at ?a)) (n ?b) (step ?a ?b))
        (<= (next (at ?b)) (does r (go ?b)))
        (<= terminal (true (at 3)))
        (<= (goal r 100) (true (at 3)))";

    #[test]
    fn a_relation_asked_bound_is_derived_for_the_questions() {
        let out = transformed(CHAIN, "far").expect("transformed");
        // step's only use binds both places, so far is asked through step.
        assert!(
            out.contains("(far ?a ?b) :- (far? ?a ?b) (n ?a) (n ?b)"),
            "{out}"
        );
        assert!(
            out.contains("(step ?a ?b) :- (step? ?a ?b) (far ?a ?b)"),
            "{out}"
        );
        assert!(out.contains("(far? ?a ?b) :- (step? ?a ?b)"), "{out}");
        assert!(
            out.contains("(step? ?a ?b) :- (true (at ?a)) (n ?b)"),
            "{out}"
        );
    }

    #[test]
    fn a_relation_asked_in_two_ways_has_a_copy_for_each() {
        // `sum` adds for `more` and subtracts for `less`: `(sum ?x 0 ?x)`
        // needs ?x or ?z given, and each way gives one of them.
        let rules = "(role r) (init (at 2)) (succ 0 1) (succ 1 2) (succ 2 3)
            (<= (sum ?x 0 ?x) (succ 0 1))
            (<= (sum ?x ?y ?z) (succ ?y0 ?y) (succ ?z0 ?z) (sum ?x ?y0 ?z0))
            (<= (more ?z) (true (at ?x)) (sum ?x 1 ?z))
            (<= (less ?x) (true (at ?z)) (sum ?x 1 ?z))
            (<= (legal r (go ?z)) (more ?z))
            (<= (legal r (go ?x)) (less ?x))
            (<= (next (at ?z)) (does r (go ?z)))";
        let (clauses, mut symbols) = read(rules);
        let sum = symbols.get("sum").unwrap();
        let (out, copies) = demand_adorned(&clauses, sum, &mut symbols).expect("adorned");
        let names: Vec<&str> = copies.iter().map(|&c| symbols.name(c)).collect();
        assert_eq!(names, ["sum^bbf", "sum^fbb", "sum^bbb"]);
        let out = render(&out, &symbols);
        assert!(
            out.contains("(more ?z) :- (true (at ?x)) (sum^bbf ?x 1 ?z)"),
            "{out}"
        );
        assert!(
            out.contains("(less ?x) :- (true (at ?z)) (sum^fbb ?x 1 ?z)"),
            "{out}"
        );
        assert!(
            out.contains("(sum^bbf ?x 0 ?x) :- (sum^bbf? ?x 0) (succ 0 1)"),
            "{out}"
        );
        assert!(
            out.contains("(sum^fbb ?x 0 ?x) :- (sum^fbb? 0 ?x) (succ 0 1)"),
            "{out}"
        );
        assert!(
            out.contains("(sum^bbf ?x ?y ?z) :- (sum^bbf? ?x ?y) (succ ?y0 ?y) (succ ?z0 ?z) (sum^bbb ?x ?y0 ?z0)"),
            "{out}"
        );
        // Subtracting asks its own copy again, one step down.
        assert!(
            out.contains("(sum^fbb ?x ?y ?z) :- (sum^fbb? ?y ?z) (succ ?y0 ?y) (succ ?z0 ?z) (sum^fbb ?x ?y0 ?z0)"),
            "{out}"
        );
        assert!(
            out.contains("(sum^fbb? ?y0 ?z0) :- (sum^fbb? ?y ?z) (succ ?y0 ?y) (succ ?z0 ?z)"),
            "{out}"
        );
    }

    #[test]
    fn a_relation_asked_before_and_after_the_moves_is_not_demanded_along() {
        // `shape` is asked by `next` for the piece put and by the legal
        // moves (through `blocked`) for every piece that may be: demanded
        // to bind `turn`'s first place, its questions would wait for the
        // moves. `turn`'s copy is asked with ?d bound, which its rule needs.
        let rules = "(role r) (init (at 1)) (n 1) (n 2) (piece 1 2)
            (<= (turn ?o ?d ?d) (n ?o))
            (<= (shape ?p ?o ?e) (piece ?p ?d) (turn ?o ?d ?e))
            (<= (blocked ?p ?o) (shape ?p ?o ?e) (true (at ?e)))
            (<= (legal r (put ?p ?o)) (piece ?p ?d) (n ?o) (not (blocked ?p ?o)))
            (<= (next (at ?e)) (does r (put ?p ?o)) (shape ?p ?o ?e))";
        let (clauses, mut symbols) = read(rules);
        let turn = symbols.get("turn").unwrap();
        let (out, copies) = demand_adorned(&clauses, turn, &mut symbols).expect("adorned");
        let names: Vec<&str> = copies.iter().map(|&c| symbols.name(c)).collect();
        assert_eq!(names, ["turn^fbf"]);
        let out = render(&out, &symbols);
        assert!(
            out.contains("(turn^fbf ?o ?d ?d) :- (turn^fbf? ?d) (n ?o)"),
            "{out}"
        );
        assert!(out.contains("(turn^fbf? ?d) :- (piece ?p ?d)"), "{out}");
        assert!(!out.contains("shape?"), "{out}");
    }

    #[test]
    fn a_place_no_way_of_asking_binds_stays_unbound() {
        // `pair` is asked with its second place unbound by `first`, and
        // with both free by `legal`: its rule's ?b gets no value from
        // either.
        let rules = "(role r) (n 1) (n 2)
            (<= (pair ?a ?b) (n ?a))
            (<= (first ?a) (n ?a) (pair ?a ?b) (n ?b))
            (<= (legal r (go ?a ?b)) (pair ?a ?b))";
        let (clauses, mut symbols) = read(rules);
        let pair = symbols.get("pair").unwrap();
        assert_eq!(demand_adorned(&clauses, pair, &mut symbols), None);
    }

    #[test]
    fn a_keyword_is_never_demanded() {
        // `legal` asks `far` with nothing bound: it would have to be demanded.
        let rules = "(role r) (n 1) (<= (far ?a ?b) (n ?a) (n ?b))
            (<= (legal r (go ?a ?b)) (far ?a ?b))";
        assert_eq!(transformed(rules, "far"), None);
    }

    #[test]
    fn a_relation_asked_under_not_is_asked_as_a_positive_use_is() {
        // The negation reads `far` for the questions asked, and `far` is
        // whole for them.
        let rules = "(role r) (n 1) (<= (far ?a ?b) (n ?a) (n ?b))
            (<= (legal r (go ?a)) (n ?a) (not (far ?a ?a)))";
        let out = transformed(rules, "far").expect("transformed");
        assert!(out.contains("(far? ?a ?a) :- (n ?a)"), "{out}");
        assert!(
            out.contains("(far ?a ?b) :- (far? ?a ?b) (n ?a) (n ?b)"),
            "{out}"
        );
        assert!(
            out.contains("(legal r (go ?a)) :- (n ?a) (not (far ?a ?a))"),
            "{out}"
        );
    }

    #[test]
    fn a_question_of_the_state_binds_what_is_written_before_the_use() {
        // `(n ?b)` after the use filters the answers: asking `far` for
        // every number would cost more than deriving it whole.
        let rules = "(role r) (init (at 1)) (n 1) (n 2) (n 3)
            (<= (far ?a ?b) (true (at ?a)) (n ?b))
            (<= (legal r (go ?b)) (true (at ?a)) (far ?a ?b) (n ?b))
            (<= (next (at ?b)) (does r (go ?b)))";
        let out = transformed_state(rules, &["far"]).expect("transformed");
        assert!(out.contains("(far? ?a) :- (true (at ?a))"), "{out}");
        assert!(
            out.contains("(far ?a ?b) :- (far? ?a) (true (at ?a)) (n ?b)"),
            "{out}"
        );
    }

    #[test]
    fn a_demanded_sentence_written_before_a_use_binds_it() {
        // Two hops: the second is asked where the first led (as
        // mummymaze1p's `newlocation2` asks `newlocation1` twice), not for
        // every square.
        let rules = "(role r) (init (at 1)) (n 1) (n 2) (n 3)
            (<= (hop ?a ?b) (true (at ?a)) (n ?b))
            (<= (two ?a ?c) (hop ?a ?b) (hop ?b ?c))
            (<= (legal r (go ?c)) (true (at ?a)) (two ?a ?c))
            (<= (next (at ?b)) (does r (go ?b)))";
        let out = transformed_state(rules, &["hop"]).expect("transformed");
        assert!(out.contains("(hop? ?b) :- (two? ?a) (hop ?a ?b)"), "{out}");
        assert!(out.contains("(hop? ?a) :- (two? ?a)"), "{out}");
    }

    #[test]
    fn a_relation_already_demanded_is_not_demanded_again() {
        // `step` is demanded first, asked with `?a` bound. Demanding
        // `far` next, asked in `step`'s rule, must not demand `step` again
        // with both places bound (as `step??`) to bind `far`'s `?b`.
        let rules = "(role r) (init (at 1)) (n 1) (n 2) (n 3)
            (<= (far ?a ?b) (true (at ?a)) (n ?b))
            (<= (step ?a ?b) (far ?a ?b))
            (<= (legal r (go ?b)) (true (at ?a)) (step ?a ?b) (n ?b))
            (<= (next (at ?b)) (does r (go ?b)))";
        let out = transformed_state(rules, &["step", "far"]).expect("transformed");
        assert!(out.contains("(far? ?a) :- (step? ?a)"), "{out}");
        assert!(!out.contains("??"), "{out}");
    }

    #[test]
    fn a_relation_read_by_the_legal_moves_and_after_the_moves_is_asked_through_a_copy_on_each_side()
    {
        // `far` is read by the legal rule and, after a `does`, by a next
        // rule: one demand relation would depend on the moves, and the
        // legal moves with it. The next rule reads a copy, `far'`, asked
        // its own questions.
        let rules = "(role r) (init (at 1)) (n 1) (n 2) (n 3)
            (<= (far ?a ?b) (true (at ?a)) (n ?b))
            (<= (legal r (go ?b)) (true (at ?a)) (far ?a ?b))
            (<= (next (at ?b)) (does r (go ?b)) (far ?b ?b))";
        let out = transformed_state(rules, &["far"]).expect("transformed");
        assert!(out.contains("(far? ?a) :- (true (at ?a))"), "{out}");
        assert!(out.contains("(far'? ?b ?b) :- (does r (go ?b))"), "{out}");
        assert!(
            out.contains("(next (at ?b)) :- (does r (go ?b)) (far' ?b ?b)"),
            "{out}"
        );
        assert!(!out.contains("(far? ?b)"), "{out}");
    }
}
