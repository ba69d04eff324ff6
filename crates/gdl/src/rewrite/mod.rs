//! Checked rules to other rules that mean the same: the rewrites loading
//! may make before planning, each a file. `demand` derives a relation
//! only for the questions the rules ask of it (magic sets); `condense`
//! splits off the groups of a rule's literals that share no variable with
//! the rest, so that grounding instantiates them once; `move_copies`
//! gives the rules that read the moves copies of their own of the
//! relations of the state they use, so that demand can ask each side its
//! own questions; `some_value` reads a use that leaves a place to a
//! variable read nowhere else as a use of a copy without that place;
//! `eliminate` joins apart, one variable at a time, the conditions of a
//! rule that read a variable used nowhere else (tried where condensed
//! rules do not ground); `domain_places` drops the places of a relation
//! that only carry a domain (it holds for every value of the domain or
//! for none); `fixed` reads the relations of the state that no move
//! changes from static copies of `init`.
//! (The split of a
//! relation by constants belongs to the checks, in `analysis::split`:
//! stratification is judged after it.)

pub mod condense;
pub mod demand;
pub mod domain_places;
pub mod eliminate;
pub mod fixed;
pub mod move_copies;
pub mod some_value;

use crate::analysis::graph::DepGraph;
use crate::syntax::normal::Clause;
use crate::syntax::symbol::{Symbol, Symbols};
use rustc_hash::FxHashSet;

/// A name that no rule uses for a relation made from `r`: `r` followed by
/// `suffix`, repeated until the name is new (`r?`, `r??`, ...).
fn fresh_name(symbols: &mut Symbols, r: Symbol, suffix: &str) -> Symbol {
    let mut name = format!("{}{suffix}", symbols.spelling(r));
    while symbols.get(&name).is_some() {
        name.push_str(suffix);
    }
    symbols.intern(&name)
}

/// The relations whose rules read the moves, directly or through other
/// relations: reads_moves(r) :- a rule of r depends on `does`.
fn reading_moves(clauses: &[Clause], symbols: &Symbols) -> FxHashSet<Symbol> {
    let mut graph = DepGraph::new(clauses);
    let (_, reach) = graph.depends_on_named(&["does"], symbols);
    (0..reach.len())
        .filter(|&i| reach[i].iter().any(|&d| d))
        .map(|i| graph.name(i))
        .collect()
}

/// Clauses as text, one a line, for the rewrites' tests: `head :- body`,
/// a sentence `(r a ?x)`, a negated one `(not (r a))`, `distinct` alone.
#[cfg(test)]
fn clause_lines(clauses: &[crate::syntax::normal::Clause], symbols: &Symbols) -> Vec<String> {
    use crate::syntax::ast::Sentence;
    use crate::syntax::normal::NLit;
    let sentence = |s: &Sentence| {
        let name = symbols.name(s.name);
        let args: Vec<String> = s.args.iter().map(|a| term_text(a, symbols)).collect();
        match args.is_empty() {
            true => name.to_string(),
            false => format!("({name} {})", args.join(" ")),
        }
    };
    (clauses.iter())
        .map(|c| {
            let body: Vec<String> = (c.body.iter())
                .map(|l| match l {
                    NLit::Pos(s) => sentence(s),
                    NLit::Neg(s) => format!("(not {})", sentence(s)),
                    _ => "distinct".into(),
                })
                .collect();
            format!("{} :- {}", sentence(&c.head), body.join(" "))
        })
        .collect()
}

/// A term as text, for the rewrites' tests: `(f a ?x)`.
#[cfg(test)]
fn term_text(t: &crate::syntax::ast::Term, symbols: &Symbols) -> String {
    use crate::syntax::ast::Term;
    match t {
        Term::Atom(s, _) | Term::Var(s, _) => symbols.name(*s).to_string(),
        Term::Func(f, args, _) => {
            let args: Vec<String> = args.iter().map(|a| term_text(a, symbols)).collect();
            format!("({} {})", symbols.name(*f), args.join(" "))
        }
    }
}
