//! The syntax tree of a rules file, as written (after case folding).
//!
//! `kif` builds it; `check` and `plan` read it. Every node carries the span
//! of the text it came from, so that errors can point at it.

use crate::source::Span;
use crate::syntax::symbol::{Symbol, Symbols};
use std::fmt;

/// A term: an atom, a variable or a function term `(f arg ...)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Term {
    /// A constant such as `white` or `12`.
    Atom(Symbol, Span),
    /// A variable such as `?x` (the symbol keeps the leading `?`).
    Var(Symbol, Span),
    /// A function term `(f arg ...)` with at least one argument.
    Func(Symbol, Vec<Term>, Span),
}

impl Term {
    /// Where the term is written.
    pub fn span(&self) -> Span {
        match self {
            Term::Atom(_, s) | Term::Var(_, s) | Term::Func(_, _, s) => *s,
        }
    }

    /// True when the term contains no variable.
    pub fn is_ground(&self) -> bool {
        match self {
            Term::Atom(..) => true,
            Term::Var(..) => false,
            Term::Func(_, args, _) => args.iter().all(Term::is_ground),
        }
    }

    /// Calls `f` on every variable occurrence in the term, left to right.
    pub fn for_each_var(&self, f: &mut impl FnMut(Symbol, Span)) {
        match self {
            Term::Atom(..) => {}
            Term::Var(v, s) => f(*v, *s),
            Term::Func(_, args, _) => args.iter().for_each(|a| a.for_each_var(f)),
        }
    }
}

/// An atomic sentence: a relation applied to terms, `(rel arg ...)`, or a bare
/// relation name such as `terminal` (no arguments).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sentence {
    /// The relation name.
    pub name: Symbol,
    /// Where the relation name is written.
    pub name_span: Span,
    /// The arguments, possibly none.
    pub args: Vec<Term>,
    /// The whole sentence.
    pub span: Span,
}

impl Sentence {
    /// Calls `f` on every variable occurrence, left to right.
    pub fn for_each_var(&self, f: &mut impl FnMut(Symbol, Span)) {
        self.args.iter().for_each(|a| a.for_each_var(f));
    }

    /// True when no argument contains a variable.
    pub fn is_ground(&self) -> bool {
        self.args.iter().all(Term::is_ground)
    }
}

/// A literal in a rule body, as written: `or` and `not` may nest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Literal {
    /// A sentence that must hold.
    Pos(Sentence),
    /// `(not literal)`.
    Not(Box<Literal>, Span),
    /// `(distinct t1 t2)`: the two terms differ.
    Distinct(Term, Term, Span),
    /// `(or literal ...)`.
    Or(Vec<Literal>, Span),
}

impl Literal {
    /// Where the literal is written.
    pub fn span(&self) -> Span {
        match self {
            Literal::Pos(s) => s.span,
            Literal::Not(_, s) | Literal::Distinct(_, _, s) | Literal::Or(_, s) => *s,
        }
    }

    /// Calls `f` on every sentence inside the literal with its polarity
    /// (`true` for positive, `false` under an odd number of `not`).
    pub fn for_each_sentence(&self, positive: bool, f: &mut impl FnMut(&Sentence, bool)) {
        match self {
            Literal::Pos(s) => f(s, positive),
            Literal::Not(l, _) => l.for_each_sentence(!positive, f),
            Literal::Distinct(..) => {}
            Literal::Or(ls, _) => ls.iter().for_each(|l| l.for_each_sentence(positive, f)),
        }
    }

    /// Calls `f` on every variable occurrence inside the literal, in the
    /// order written (`distinct`'s terms included).
    pub fn for_each_var(&self, f: &mut impl FnMut(Symbol, Span)) {
        match self {
            Literal::Pos(s) => s.for_each_var(f),
            Literal::Not(l, _) => l.for_each_var(f),
            Literal::Distinct(a, b, _) => {
                a.for_each_var(f);
                b.for_each_var(f);
            }
            Literal::Or(ls, _) => ls.iter().for_each(|l| l.for_each_var(f)),
        }
    }
}

/// A rule `(<= head body ...)`, or a fact (a rule with an empty body).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// The conclusion.
    pub head: Sentence,
    /// The conditions, all of which must hold.
    pub body: Vec<Literal>,
    /// The whole rule or fact.
    pub span: Span,
}

/// A whole rules file: its rules and facts in the order written, and the
/// names they use.
#[derive(Clone, Debug, Default)]
pub struct Description {
    /// Rules and facts in file order.
    pub rules: Vec<Rule>,
    /// The interned names.
    pub symbols: Symbols,
    /// The syntax it was written in, whose words its diagnostics use.
    pub syntax: super::Syntax,
}

impl Description {
    /// Writes a term in KIF syntax, its names as first written.
    pub fn write_term(&self, out: &mut String, t: &Term) {
        match t {
            Term::Atom(s, _) | Term::Var(s, _) => out.push_str(self.symbols.spelling(*s)),
            Term::Func(f, args, _) => {
                out.push('(');
                out.push_str(self.symbols.spelling(*f));
                for a in args {
                    out.push(' ');
                    self.write_term(out, a);
                }
                out.push(')');
            }
        }
    }

    /// Writes a sentence in KIF syntax, its names as first written.
    pub fn write_sentence(&self, out: &mut String, s: &Sentence) {
        if s.args.is_empty() {
            out.push_str(self.symbols.spelling(s.name));
            return;
        }
        out.push('(');
        out.push_str(self.symbols.spelling(s.name));
        for a in &s.args {
            out.push(' ');
            self.write_term(out, a);
        }
        out.push(')');
    }

    /// Writes a literal in KIF syntax, its names as first written.
    #[cfg(test)]
    pub fn write_literal(&self, out: &mut String, l: &Literal) {
        match l {
            Literal::Pos(s) => self.write_sentence(out, s),
            Literal::Not(l, _) => {
                out.push_str("(not ");
                self.write_literal(out, l);
                out.push(')');
            }
            Literal::Distinct(a, b, _) => {
                out.push_str("(distinct ");
                self.write_term(out, a);
                out.push(' ');
                self.write_term(out, b);
                out.push(')');
            }
            Literal::Or(ls, _) => {
                out.push_str("(or");
                for l in ls {
                    out.push(' ');
                    self.write_literal(out, l);
                }
                out.push(')');
            }
        }
    }

    /// A rule in KIF syntax, on one line.
    #[cfg(test)]
    pub fn rule_text(&self, r: &Rule) -> String {
        let mut out = String::new();
        if r.body.is_empty() {
            self.write_sentence(&mut out, &r.head);
            return out;
        }
        out.push_str("(<= ");
        self.write_sentence(&mut out, &r.head);
        for l in &r.body {
            out.push(' ');
            self.write_literal(&mut out, l);
        }
        out.push(')');
        out
    }

    /// A displayable sentence.
    pub fn show_sentence<'a>(&'a self, s: &'a Sentence) -> impl fmt::Display + 'a {
        Show(move |f: &mut fmt::Formatter<'_>| {
            let mut out = String::new();
            self.write_sentence(&mut out, s);
            f.write_str(&out)
        })
    }
}

struct Show<F>(F);

impl<F: Fn(&mut fmt::Formatter<'_>) -> fmt::Result> fmt::Display for Show<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (self.0)(f)
    }
}
