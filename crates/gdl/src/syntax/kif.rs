//! Reading KIF text into the syntax tree.
//!
//! Three passes: a scan that checks parentheses and nesting depth (so that
//! the recursive parser can never overflow the stack), the pest grammar in
//! `gdl.pest` that reads s-expressions, and the reading of those
//! s-expressions as facts, rules, literals and terms. Every pass collects all
//! the errors it can find before giving up.

use crate::error::Diagnostic;
use crate::limits::{DEFAULT_MAX_NESTING, LimitKind, MAX_NESTING_CEILING, MAX_SOURCE_BYTES};
use crate::source::{SourceFile, Span};
use crate::syntax::ast::{Description, Literal, Rule, Sentence, Term};
use crate::syntax::symbol::{Symbol, Symbols};
use crate::syntax::{Syntax, infix};
use pest::Parser;
use std::fmt;

mod grammar {
    #[derive(pest_derive::Parser)]
    #[grammar = "syntax/gdl.pest"]
    pub struct KifParser;
}
use grammar::{KifParser, Rule as G};

/// The most syntax errors reported for one file.
const MAX_SYNTAX_ERRORS: usize = 20;

/// An s-expression: what the grammar reads, before it is given meaning
/// (the infix reader makes the same, see `infix`).
#[derive(Clone, Debug)]
pub(crate) enum Sexp {
    /// A word.
    Atom(Symbol, Span),
    /// A variable (its symbol keeps the `?`).
    Var(Symbol, Span),
    /// A list.
    List(Vec<Sexp>, Span),
}

impl Sexp {
    pub(crate) fn span(&self) -> Span {
        match self {
            Sexp::Atom(_, s) | Sexp::Var(_, s) | Sexp::List(_, s) => *s,
        }
    }
}

/// A KIF term read from text: a word, or a list of terms in parentheses.
/// What a typed move, a line of a moves file or a state's fact reads as,
/// read by the same reader as rules files. Its words are kept as written;
/// GDL compares them without case (`eq_ignore_ascii_case`), which `==` on
/// `Kif` does not do.
///
/// ```
/// use gdl::Kif;
/// let terms = Kif::read_all("(move a 2 (b 3)) NOOP ; a comment").unwrap();
/// assert_eq!(terms.len(), 2);
/// assert_eq!(terms[0].to_string(), "(move a 2 (b 3))");
/// assert_eq!(terms[1].atom(), Some("NOOP"));
/// assert!(terms[1].atom().unwrap().eq_ignore_ascii_case("noop"));
/// assert!(Kif::read_all("(move a").is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Kif {
    /// A word such as `a`, `12`, `wP` or `?x`, as written.
    Atom(String),
    /// `( ... )`.
    List(Vec<Kif>),
}

impl Kif {
    /// Reads every term of `text`, skipping `;` comments. Lists may nest
    /// [`DEFAULT_MAX_NESTING`] deep. The errors are those of a rules file's
    /// reading, located in `text`.
    pub fn read_all(text: &str) -> Result<Vec<Kif>, Vec<Diagnostic>> {
        let mut symbols = Symbols::new();
        let forms = read_sexps(text, G::file, DEFAULT_MAX_NESTING, &mut symbols)?;
        Ok(forms.iter().map(|f| Kif::of(f, text)).collect())
    }

    /// The word, if the term is one.
    pub fn atom(&self) -> Option<&str> {
        match self {
            Kif::Atom(a) => Some(a),
            Kif::List(_) => None,
        }
    }

    /// The term of `sexp`, its words as written in `text`.
    fn of(sexp: &Sexp, text: &str) -> Kif {
        match sexp {
            Sexp::Atom(_, at) | Sexp::Var(_, at) => {
                Kif::Atom(text[at.start as usize..at.end as usize].to_string())
            }
            Sexp::List(items, _) => Kif::List(items.iter().map(|i| Kif::of(i, text)).collect()),
        }
    }
}

impl fmt::Display for Kif {
    /// The term in KIF, with single spaces.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Kif::Atom(a) => f.write_str(a),
            Kif::List(items) => {
                f.write_str("(")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str(")")
            }
        }
    }
}

/// Parses a whole rules file, in the syntax its name or text says (see
/// `Syntax::of`). `max_nesting` bounds how deep lists may nest (never
/// beyond [`MAX_NESTING_CEILING`]).
pub fn parse(file: &SourceFile, max_nesting: usize) -> Result<Description, Vec<Diagnostic>> {
    let syntax = Syntax::of(&file.name, &file.text);
    parse_in(file, max_nesting, syntax).map(|(d, _)| d)
}

/// Parses a whole rules file written in `syntax`: its rules, and the places
/// of its comments (for the converter).
pub(crate) fn parse_in(
    file: &SourceFile,
    max_nesting: usize,
    syntax: Syntax,
) -> Result<(Description, Vec<Span>), Vec<Diagnostic>> {
    let max_nesting = max_nesting.min(MAX_NESTING_CEILING);
    if file.text.len() > MAX_SOURCE_BYTES {
        return Err(vec![
            Diagnostic::error(
                "too-large",
                Span::new(0, 0),
                format!(
                    "the file is {} bytes, more than the {MAX_SOURCE_BYTES} (4 GiB - 1) gdl reads",
                    file.text.len()
                ),
            )
            .with_label("this file"),
        ]);
    }
    // A NUL byte never occurs in text: one error, rather than one per byte
    // of a binary file.
    if let Some(at) = file.text.find('\0') {
        return Err(vec![
            Diagnostic::error(
                "not-text",
                Span::new(at, at + 1),
                "the file is not text: it holds a NUL byte (is it a binary file?)",
            )
            .with_label("NUL byte"),
        ]);
    }
    let mut symbols = Symbols::new();
    let (forms, comments) = match syntax {
        Syntax::Kif => {
            let forms = read_sexps(&file.text, G::file, max_nesting, &mut symbols)?;
            (forms, comments_of(&file.text))
        }
        Syntax::Infix => infix::read(&file.text, max_nesting, &mut symbols)?,
    };
    let mut reader = Reader {
        symbols,
        errors: Vec::new(),
    };
    let rules: Vec<_> = forms.iter().filter_map(|f| reader.top_level(f)).collect();
    if reader.errors.is_empty() {
        let description = Description {
            rules,
            symbols: reader.symbols,
            syntax,
        };
        Ok((description, comments))
    } else {
        Err(reader.errors)
    }
}

/// The places of the comments of a KIF text that reads (a `;` always
/// starts one: no atom holds it).
fn comments_of(text: &str) -> Vec<Span> {
    let mut comments = Vec::new();
    let mut from = 0;
    while let Some(i) = text[from..].find(';') {
        let start = from + i;
        let end = text[start..]
            .find(['\n', '\r'])
            .map_or(text.len(), |n| start + n);
        comments.push(Span::new(start, end));
        from = end;
    }
    comments
}

/// Parses one ground term typed by a user, such as `(move a 2 a 3)`,
/// interning its names in `symbols`. The error says what is wrong.
pub fn parse_ground_term(text: &str, symbols: &mut Symbols) -> Result<Term, String> {
    let forms = read_sexps(text, G::single, DEFAULT_MAX_NESTING, symbols)
        .map_err(|errors| errors[0].message.clone())?;
    let mut reader = Reader {
        symbols: std::mem::take(symbols),
        errors: Vec::new(),
    };
    let term = reader.term(&forms[0]);
    *symbols = reader.symbols;
    match (term, reader.errors.first()) {
        (Some(t), None) if t.is_ground() => Ok(t),
        (Some(_), None) => Err("a move cannot contain variables".into()),
        (_, Some(e)) => Err(e.message.clone()),
        (None, None) => Err("not a term".into()),
    }
}

/// Checks parentheses and nesting, then runs the grammar, retrying past bad
/// characters so that several can be reported at once.
fn read_sexps(
    text: &str,
    rule: G,
    max_nesting: usize,
    symbols: &mut Symbols,
) -> Result<Vec<Sexp>, Vec<Diagnostic>> {
    read_forms(text, rule, max_nesting, |top| {
        top.filter(|p| !matches!(p.as_rule(), G::EOI | G::COMMENT))
            .map(|p| sexp(p, symbols))
            .collect()
    })
}

/// A form as written, its comments included: what the formatter lays out
/// (see `syntax::format`). Only places in the text, which the caller reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Written {
    /// An atom or a variable.
    Word(Span),
    /// `( ... )`: its forms and comments in order, and the whole list.
    List(Vec<Written>, Span),
    /// `; ...` to the end of its line (the line break not included).
    Comment(Span),
}

impl Written {
    /// Where it is written.
    pub(crate) fn span(&self) -> Span {
        match self {
            Written::Word(s) | Written::List(_, s) | Written::Comment(s) => *s,
        }
    }
}

/// Reads a whole rules file as s-expressions with their comments, with the
/// errors of the reader of rules (parentheses, nesting, bad characters).
pub(crate) fn read_written(
    text: &str,
    max_nesting: usize,
) -> Result<Vec<Written>, Vec<Diagnostic>> {
    read_forms(text, G::file, max_nesting, |top| {
        top.filter(|p| p.as_rule() != G::EOI).map(written).collect()
    })
}

/// Builds a written form from a grammar pair (nesting is bounded by the
/// scan, so this recursion is too).
fn written(pair: pest::iterators::Pair<'_, G>) -> Written {
    let s = pair.as_span();
    let span = Span::new(s.start(), s.end());
    match pair.as_rule() {
        G::atom | G::variable => Written::Word(span),
        G::COMMENT => Written::Comment(span),
        G::list => Written::List(pair.into_inner().map(written).collect(), span),
        other => unreachable!("grammar rule {other:?} is never a form"),
    }
}

/// Checks parentheses and nesting, then runs the grammar, retrying past bad
/// characters so that several can be reported at once; `build` makes the
/// result of the pairs of the top rule when there is no error.
fn read_forms<T>(
    text: &str,
    rule: G,
    max_nesting: usize,
    build: impl FnOnce(pest::iterators::Pairs<'_, G>) -> T,
) -> Result<T, Vec<Diagnostic>> {
    scan_parentheses(text, max_nesting)?;
    let mut errors = Vec::new();
    let mut patched: Option<String> = None;
    loop {
        let input = patched.as_deref().unwrap_or(text);
        match KifParser::parse(rule, input) {
            Ok(mut pairs) if errors.is_empty() => {
                let top = pairs.next().expect("the grammar yields one top pair");
                return Ok(build(top.into_inner()));
            }
            Ok(_) => return Err(errors),
            Err(e) => {
                let pos = match e.location {
                    pest::error::InputLocation::Pos(p) => p,
                    pest::error::InputLocation::Span((p, _)) => p,
                };
                errors.push(bad_character(input, pos));
                if errors.len() >= MAX_SYNTAX_ERRORS || pos >= input.len() {
                    return Err(errors);
                }
                // Blank the offending character out and read on.
                let mut owned = input.to_string();
                let end = pos + input[pos..].chars().next().map_or(1, char::len_utf8);
                owned.replace_range(pos..end, &" ".repeat(end - pos));
                patched = Some(owned);
            }
        }
    }
}

/// The error for a character the grammar cannot read at `pos`.
fn bad_character(text: &str, pos: usize) -> Diagnostic {
    let Some(c) = text[pos..].chars().next() else {
        return Diagnostic::error("syntax", Span::new(pos, pos), "unexpected end of file");
    };
    let span = Span::new(pos, pos + c.len_utf8());
    if c == '?' {
        return Diagnostic::error("syntax", span, "a variable needs a name after `?`")
            .with_label("expected a name such as `?x` here");
    }
    let shown = if c.is_control() || c == '\u{FFFD}' {
        format!("{:?}", c)
    } else {
        format!("`{c}`")
    };
    Diagnostic::error("syntax", span, format!("unexpected character {shown}"))
        .with_label("not allowed here")
        .with_note(
            "expected `(`, `)`, a variable `?name` or an atom made of letters, digits and \
             _ - + . ' < > = ! # $ % & * / : @ ^ ~",
        )
}

/// Finds stray `)`, unclosed `(` and lists nested deeper than `max_nesting`,
/// skipping comments.
fn scan_parentheses(text: &str, max_nesting: usize) -> Result<(), Vec<Diagnostic>> {
    let mut open: Vec<usize> = Vec::new();
    let mut errors = Vec::new();
    let mut too_deep = false;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b';' => {
                while i < bytes.len() && !matches!(bytes[i], b'\n' | b'\r') {
                    i += 1;
                }
                continue;
            }
            b'(' => {
                open.push(i);
                if open.len() > max_nesting && !too_deep {
                    too_deep = true;
                    errors.push(
                        Diagnostic::error(
                            "too-deep",
                            Span::new(i, i + 1),
                            format!("lists nest deeper than {max_nesting} levels"),
                        )
                        .with_label("this list is too deep")
                        .with_note(if max_nesting < MAX_NESTING_CEILING {
                            format!("the nesting limit can be raised up to {MAX_NESTING_CEILING}")
                        } else {
                            "this is the most the reader accepts".to_string()
                        })
                        .with_limit(LimitKind::Nesting),
                    );
                }
            }
            b')' if open.pop().is_none() => {
                errors.push(
                    Diagnostic::error("syntax", Span::new(i, i + 1), "unmatched `)`")
                        .with_label("no `(` before this is left open"),
                );
            }
            _ => {}
        }
        i += 1;
    }
    if let Some(&first) = open.first() {
        errors.push(
            Diagnostic::error("syntax", Span::new(first, first + 1), "unclosed `(`")
                .with_label("this `(` is never closed")
                .with_note(format!(
                    "the file ends with {} list(s) still open",
                    open.len()
                )),
        );
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Builds an s-expression from a grammar pair (nesting is bounded by the
/// scan, so this recursion is too).
fn sexp(pair: pest::iterators::Pair<'_, G>, symbols: &mut Symbols) -> Sexp {
    let s = pair.as_span();
    let span = Span::new(s.start(), s.end());
    match pair.as_rule() {
        G::atom => Sexp::Atom(symbols.intern_written(pair.as_str(), span), span),
        G::variable => Sexp::Var(symbols.intern(pair.as_str()), span),
        G::list => Sexp::List(
            (pair.into_inner())
                .filter(|p| p.as_rule() != G::COMMENT)
                .map(|p| sexp(p, symbols))
                .collect(),
            span,
        ),
        other => unreachable!("grammar rule {other:?} is never a form"),
    }
}

/// Gives s-expressions their GDL meaning, collecting errors.
struct Reader {
    symbols: Symbols,
    errors: Vec<Diagnostic>,
}

impl Reader {
    fn error(&mut self, span: Span, message: impl Into<String>, label: &str) {
        self.errors
            .push(Diagnostic::error("syntax", span, message).with_label(label));
    }

    fn is(&self, s: Symbol, name: &str) -> bool {
        self.symbols.name(s) == name
    }

    /// A top-level form: a fact or a rule `(<= head body ...)`.
    fn top_level(&mut self, form: &Sexp) -> Option<Rule> {
        if let Sexp::List(items, span) = form
            && let Some(Sexp::Atom(op, _)) = items.first()
            && self.is(*op, "<=")
        {
            let Some(head) = items.get(1) else {
                self.error(
                    *span,
                    "a rule needs a head",
                    "expected `(<= head body ...)`",
                );
                return None;
            };
            let head = self.sentence(head);
            let body: Vec<_> = items[2..].iter().map(|l| self.literal(l)).collect();
            let body: Option<Vec<_>> = body.into_iter().collect();
            return Some(Rule {
                head: head?,
                body: body?,
                span: *span,
            });
        }
        let head = self.sentence(form)?;
        Some(Rule {
            span: head.span,
            head,
            body: Vec::new(),
        })
    }

    /// A sentence: `name` or `(name arg ...)`.
    fn sentence(&mut self, form: &Sexp) -> Option<Sentence> {
        match form {
            Sexp::Atom(name, span) => Some(Sentence {
                name: *name,
                name_span: *span,
                args: Vec::new(),
                span: *span,
            }),
            Sexp::Var(_, span) => {
                self.error(
                    *span,
                    "expected a sentence, found a variable",
                    "a relation name or `(relation arg ...)` goes here",
                );
                None
            }
            Sexp::List(items, span) => match items.first() {
                Some(Sexp::Atom(name, name_span)) => {
                    if self.is(*name, "<=") {
                        self.error(
                            *span,
                            "a rule cannot stand inside another form",
                            "nested rule",
                        );
                        return None;
                    }
                    let args: Vec<_> = items[1..].iter().map(|t| self.term(t)).collect();
                    Some(Sentence {
                        name: *name,
                        name_span: *name_span,
                        args: args.into_iter().collect::<Option<_>>()?,
                        span: *span,
                    })
                }
                Some(other) => {
                    self.error(
                        other.span(),
                        "expected a relation name at the start of a sentence",
                        "not a relation name",
                    );
                    None
                }
                None => {
                    self.error(*span, "empty list `()` is not a sentence", "empty");
                    None
                }
            },
        }
    }

    /// A body literal: a sentence, `(not l)`, `(distinct t t)` or `(or l ...)`.
    fn literal(&mut self, form: &Sexp) -> Option<Literal> {
        if let Sexp::List(items, span) = form
            && let Some(Sexp::Atom(op, op_span)) = items.first()
        {
            let args = &items[1..];
            match self.symbols.name(*op) {
                "not" => {
                    if args.len() != 1 {
                        self.error(*op_span, "`not` takes exactly one literal", "here");
                        return None;
                    }
                    let inner = self.literal(&args[0])?;
                    return Some(Literal::Not(Box::new(inner), *span));
                }
                "or" => {
                    // `(or)`, no alternative, never holds (as in
                    // ggp-base); the checker warns (`empty-or`).
                    let ls: Vec<_> = args.iter().map(|l| self.literal(l)).collect();
                    return Some(Literal::Or(ls.into_iter().collect::<Option<_>>()?, *span));
                }
                "distinct" => {
                    if args.len() != 2 {
                        self.error(*op_span, "`distinct` takes exactly two terms", "here");
                        return None;
                    }
                    let a = self.term(&args[0]);
                    let b = self.term(&args[1]);
                    return Some(Literal::Distinct(a?, b?, *span));
                }
                _ => {}
            }
        }
        self.sentence(form).map(Literal::Pos)
    }

    /// A term: an atom, a variable, `(f arg ...)` or `(f)`.
    fn term(&mut self, form: &Sexp) -> Option<Term> {
        match form {
            Sexp::Atom(a, span) => Some(Term::Atom(*a, *span)),
            Sexp::Var(v, span) => Some(Term::Var(*v, *span)),
            Sexp::List(items, span) => match items.first() {
                // `(?x a b)`: ggp-base reads the first word of a list as the
                // function's name even when it is written as a variable, so
                // `?x` here is the name `?x`, which matches only itself; the
                // checker warns about it (`variable-as-name`).
                Some(Sexp::Atom(f, _) | Sexp::Var(f, _)) if items.len() > 1 => {
                    let args: Vec<_> = items[1..].iter().map(|t| self.term(t)).collect();
                    Some(Term::Func(
                        *f,
                        args.into_iter().collect::<Option<_>>()?,
                        *span,
                    ))
                }
                // `(f)`: a function of no argument, a term of its own,
                // distinct from the atom `f` (as in ggp-base). No rule can
                // take it apart, so it is the constant named `(f)`; the
                // checker warns about it (`zero-argument-term`).
                Some(Sexp::Atom(f, _) | Sexp::Var(f, _)) => {
                    let name = format!("({})", self.symbols.spelling(*f));
                    Some(Term::Atom(self.symbols.intern(&name), *span))
                }
                Some(other) => {
                    self.error(
                        other.span(),
                        "expected a function name at the start of a term",
                        "not a function name",
                    );
                    None
                }
                None => {
                    self.error(*span, "empty list `()` is not a term", "empty");
                    None
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_are_read_and_written_back() {
        let t = Kif::read_all("(move a 2 (b 3)) noop ; comment\n X").unwrap();
        let texts: Vec<String> = t.iter().map(Kif::to_string).collect();
        assert_eq!(texts, ["(move a 2 (b 3))", "noop", "X"]);
        assert!(Kif::read_all("(move a").is_err());
        assert!(Kif::read_all("a)").is_err());
    }

    fn parse_str(text: &str) -> Result<Description, Vec<Diagnostic>> {
        parse(&SourceFile::new("t.gdl", text), DEFAULT_MAX_NESTING)
    }

    #[test]
    fn reads_rules_facts_and_nested_literals() {
        let d = parse_str(
            "; comment\r\n(role White)\t(<= (p ?X) (q (f ?x)) (not (or (r ?x) (not (s)))) (distinct ?x a))",
        )
        .unwrap();
        assert_eq!(d.rules.len(), 2);
        assert_eq!(d.rule_text(&d.rules[0]), "(role White)");
        assert_eq!(
            d.rule_text(&d.rules[1]),
            "(<= (p ?X) (q (f ?X)) (not (or (r ?X) (not s))) (distinct ?X a))"
        );
    }

    #[test]
    fn locates_stray_and_unclosed_parentheses() {
        let errs = parse_str("(a))\n(b").unwrap_err();
        let msgs: Vec<_> = errs
            .iter()
            .map(|e| (e.span.start, e.message.as_str()))
            .collect();
        assert_eq!(msgs, [(3, "unmatched `)`"), (5, "unclosed `(`")]);
    }

    #[test]
    fn deep_nesting_is_an_error_not_an_overflow() {
        let text = "(".repeat(100_000) + &")".repeat(100_000);
        let errs = parse_str(&text).unwrap_err();
        assert_eq!(errs[0].code, "too-deep");
    }

    #[test]
    fn reports_every_bad_character() {
        let errs = parse_str("(a \"b\") (c |)").unwrap_err();
        let at: Vec<_> = errs.iter().map(|e| e.span.start).collect();
        assert_eq!(at, [3, 5, 11]);
    }
}
