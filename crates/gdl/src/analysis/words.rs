//! Words that KIF does not write but ggp-base's reader takes in, each an
//! allowance (a warning that `--strict` refuses):
//!
//! - `comma-in-name`: a comma inside a word. ggp-base splits the text at
//!   blanks and parentheses only, so `black,noop` is one word; a line of
//!   Prolog left in a file, `legal(black,noop):-true_control(white)`,
//!   becomes the words `legal`, `(black,noop)`, `:-true_control` and
//!   `(white)`, which no rule reads. gdl reads them the same way and warns
//!   once for each name with a comma.
//! - `variable-as-name`: a list whose first word is written as a variable,
//!   `(drawit (?x ?y ?pic))`. ggp-base takes the first word of a term as
//!   the function's name whatever it looks like, so `?x` there is a name
//!   that matches only a term of the same name, not a variable; gdl reads it
//!   the same way and warns once for each such name.
//! - `operator-fact-dropped`: a fact named by an operator of rule bodies,
//!   such as tron's `(distinct black white)`, or the word `or` of a note
//!   left as text (`FIXME: x or y should match`, words that ggp-base
//!   reads as facts of no argument). In a rule body `distinct`, `not` and
//!   `or` are the operators whatever facts say, so no rule can read such a
//!   fact: ggp-base keeps it where nothing asks it, and gdl drops it. A
//!   rule with such a head stays an error (`reserved-name`): it means to
//!   define the operator.

use crate::analysis::check::ALLOWED_IN_PUBLISHED_GAMES;
use crate::error::Diagnostic;
use crate::source::Span;
use crate::syntax::ast::{Description, Literal, Sentence, Term};
use crate::syntax::keywords::OPERATORS;
use crate::syntax::symbol::Symbol;
use rustc_hash::FxHashSet;

/// Drops the facts named by an operator of rule bodies (see the module's
/// comment), in place; a warning `operator-fact-dropped` for each.
pub(crate) fn drop_operator_facts(d: &mut Description) -> Vec<Diagnostic> {
    let is_operator_fact = |d: &Description, i: usize| {
        let rule = &d.rules[i];
        let name = d.symbols.name(rule.head.name);
        rule.body.is_empty() && OPERATORS.iter().any(|(op, _)| *op == name)
    };
    let dropped: Vec<usize> = (0..d.rules.len())
        .filter(|&i| is_operator_fact(d, i))
        .collect();
    let out = dropped
        .iter()
        .map(|&i| operator_fact_dropped(d, &d.rules[i].head))
        .collect();
    let mut i = 0;
    d.rules.retain(|_| {
        i += 1;
        !dropped.contains(&(i - 1))
    });
    out
}

/// The warning `operator-fact-dropped` for the fact `head`.
fn operator_fact_dropped(d: &Description, head: &Sentence) -> Diagnostic {
    let shown = d.symbols.spelling(head.name);
    let what = match head.args.is_empty() {
        true => format!("the word `{shown}` is a fact of no argument"),
        false => format!("`{}` is a fact", d.show_sentence(head)),
    };
    Diagnostic::warning(
        "operator-fact-dropped",
        head.name_span,
        format!("{what} named by the operator `{shown}`, which no rule can read: it is dropped"),
    )
    .with_label("dropped")
    .with_note(format!(
        "in a rule body `{shown}` is the operator, whatever facts say; this is often text \
         left outside a comment"
    ))
    .with_note(ALLOWED_IN_PUBLISHED_GAMES)
}

/// The warnings `comma-in-name` and `variable-as-name` of a parsed file:
/// one for each name, at its first place.
pub(crate) fn unusual_words(d: &Description) -> Vec<Diagnostic> {
    let mut names: Vec<(Symbol, Span, Kind)> = Vec::new();
    for rule in &d.rules {
        sentence_names(&rule.head, &mut names);
        rule.body.iter().for_each(|l| literal_names(l, &mut names));
    }
    let mut warned: FxHashSet<(Symbol, Kind)> = FxHashSet::default();
    let mut out = Vec::new();
    for (name, at, kind) in names {
        let shown = d.symbols.spelling(name);
        if kind == Kind::Function && shown.starts_with('?') && warned.insert((name, kind)) {
            out.push(variable_as_name(shown, at));
        }
        if shown.contains(',') && warned.insert((name, Kind::Relation)) {
            out.push(comma_in_name(shown, at));
        }
    }
    out
}

/// What a name names.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    /// A relation, a constant or a variable.
    Relation,
    /// The function of a term `(f arg ...)`.
    Function,
}

/// Every name of a literal, in the order written.
fn literal_names(l: &Literal, out: &mut Vec<(Symbol, Span, Kind)>) {
    match l {
        Literal::Pos(s) => sentence_names(s, out),
        Literal::Not(inner, _) => literal_names(inner, out),
        Literal::Or(ls, _) => ls.iter().for_each(|l| literal_names(l, out)),
        Literal::Distinct(a, b, _) => {
            term_names(a, out);
            term_names(b, out);
        }
    }
}

/// Every name of a sentence, its relation's first.
fn sentence_names(s: &Sentence, out: &mut Vec<(Symbol, Span, Kind)>) {
    out.push((s.name, s.name_span, Kind::Relation));
    s.args.iter().for_each(|t| term_names(t, out));
}

/// Every name of a term, its function's first.
fn term_names(t: &Term, out: &mut Vec<(Symbol, Span, Kind)>) {
    match t {
        Term::Atom(a, at) | Term::Var(a, at) => out.push((*a, *at, Kind::Relation)),
        Term::Func(f, args, at) => {
            out.push((*f, *at, Kind::Function));
            args.iter().for_each(|t| term_names(t, out));
        }
    }
}

/// The warning `comma-in-name` for the word `shown` at `at`.
fn comma_in_name(shown: &str, at: Span) -> Diagnostic {
    Diagnostic::warning(
        "comma-in-name",
        at,
        format!("`{shown}` has a comma in it: it is read as one word, as ggp-base reads it"),
    )
    .with_label("one word")
    .with_note(
        "KIF separates arguments by blanks, not commas: `f(a,b)` is Prolog, and here it is \
         words that no rule reads as Prolog meant them",
    )
    .with_note(ALLOWED_IN_PUBLISHED_GAMES)
}

/// The warning `variable-as-name` for the function name `shown` at `at`.
fn variable_as_name(shown: &str, at: Span) -> Diagnostic {
    Diagnostic::warning(
        "variable-as-name",
        at,
        format!(
            "`{shown}` starts a term, so it is the term's function name, not a variable, as \
             ggp-base reads it"
        ),
    )
    .with_label("a name that matches only itself")
    .with_note(
        "GDL has no variable function names: this term matches only terms whose name is \
         written the same way",
    )
    .with_note(ALLOWED_IN_PUBLISHED_GAMES)
}
