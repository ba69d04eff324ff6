//! Reading the infix syntax of GDL (the Stanford course's, files `.hrf`)
//! into the s-expressions the KIF reader makes, so that one reader gives
//! both their meaning and every diagnostic points into the infix text.
//!
//! `p(a, X)` reads as `(p a ?X)`, `head :- b1 & b2` as `(<= head b1 b2)`
//! (the `<=` placed at the `:-`), `~l` as `(not l)` (the `not` at the `~`),
//! `f()` as `(f)`; `"White"` is the constant `White`, its place the text
//! inside the quotes. Three passes, as for KIF: a scan of parentheses,
//! quotes and nesting (so that the recursive parser cannot overflow the
//! stack), the pest grammar `infix.pest`, and the building of the
//! s-expressions.

use crate::error::Diagnostic;
use crate::limits::{LimitKind, MAX_NESTING_CEILING};
use crate::source::Span;
use crate::syntax::kif::Sexp;
use crate::syntax::symbol::Symbols;
use pest::Parser;

mod grammar {
    #[derive(pest_derive::Parser)]
    #[grammar = "syntax/infix.pest"]
    pub struct InfixParser;
}
use grammar::{InfixParser, Rule as G};

/// The most syntax errors reported for one file.
const MAX_SYNTAX_ERRORS: usize = 20;

/// Whether `c` may stand in a KIF atom (and so inside the quotes of an
/// infix name).
pub(crate) fn is_kif_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "_-+.'<>=!#$%&*/:@^~".contains(c)
}

/// Whether `name` is written in infix as it is, without quotes: a
/// lower-case letter or a digit, then letters, digits and `_`.
pub(crate) fn is_plain_constant(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Reads a whole infix rules file: its statements as s-expressions (names
/// interned in `symbols`) and the places of its comments, or every syntax
/// error found.
pub(crate) fn read(
    text: &str,
    max_nesting: usize,
    symbols: &mut Symbols,
) -> Result<(Vec<Sexp>, Vec<Span>), Vec<Diagnostic>> {
    scan(text, max_nesting)?;
    let mut errors = Vec::new();
    let mut patched: Option<String> = None;
    loop {
        let input = patched.as_deref().unwrap_or(text);
        match InfixParser::parse(G::file, input) {
            Ok(_) if !errors.is_empty() => return Err(errors),
            Ok(mut pairs) => {
                let top = pairs.next().expect("the grammar yields one top pair");
                let comments = (top.clone().into_inner().flatten())
                    .filter(|p| p.as_rule() == G::COMMENT)
                    .map(|p| span_of(&p))
                    .collect();
                let mut builder = Builder {
                    symbols,
                    errors: Vec::new(),
                };
                let forms = (top.into_inner())
                    .filter(|p| p.as_rule() == G::statement)
                    .map(|p| builder.statement(p))
                    .collect();
                return if builder.errors.is_empty() {
                    Ok((forms, comments))
                } else {
                    Err(builder.errors)
                };
            }
            Err(e) => {
                let pos = match e.location {
                    pest::error::InputLocation::Pos(p) => p,
                    pest::error::InputLocation::Span((p, _)) => p,
                };
                let (error, end) = unexpected(input, pos);
                errors.push(error);
                let structural = input[pos..].starts_with(['(', ')', '"']);
                if errors.len() >= MAX_SYNTAX_ERRORS || pos >= input.len() || structural {
                    return Err(errors);
                }
                // Blank the offending word or character out and read on.
                let mut owned = input.to_string();
                owned.replace_range(pos..end, &" ".repeat(end - pos));
                patched = Some(owned);
            }
        }
    }
}

fn span_of(pair: &pest::iterators::Pair<'_, G>) -> Span {
    let s = pair.as_span();
    Span::new(s.start(), s.end())
}

/// The error for what the grammar cannot read at `pos`, and the end of
/// the word or character it is about.
fn unexpected(text: &str, pos: usize) -> (Diagnostic, usize) {
    let Some(c) = text[pos..].chars().next() else {
        let error = Diagnostic::error("syntax", Span::new(pos, pos), "unexpected end of file")
            .with_label("the file ends here")
            .with_note("`:-`, `&`, `~` and `,` need something after them");
        return (error, pos);
    };
    let word = |p: usize| {
        p + text[p..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(text.len() - p)
    };
    let end = if c.is_ascii_alphanumeric() || c == '_' {
        word(pos)
    } else {
        pos + c.len_utf8()
    };
    let span = Span::new(pos, end);
    let shown = if c.is_control() || c == '\u{FFFD}' {
        format!("{c:?}")
    } else {
        format!("`{}`", &text[pos..end])
    };
    let error = Diagnostic::error("syntax", span, format!("unexpected {shown}"));
    let before = text[..pos].trim_end();
    let error = match c {
        '?' => error
            .with_label("a KIF variable")
            .with_note("in infix, a variable is a name starting with a capital letter: `X`, `Player`"),
        ';' => error
            .with_label("a KIF comment")
            .with_note("in infix, a comment starts with `%` (or `//`) and runs to the end of the line"),
        '.' => error
            .with_label("not allowed here")
            .with_note("an infix statement does not end with `.`; a name with a `.` is written in double quotes"),
        ',' => error
            .with_label("not allowed here")
            .with_note("`,` separates arguments; the literals of a rule's body are joined by `&`"),
        '(' if before.ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
            && before
                .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .map_or(before, |i| &before[i + 1..])
                .starts_with(|c: char| c.is_ascii_uppercase() || c == '_') =>
        {
            error.with_label("arguments of a variable").with_note(
                "a name starting with a capital letter is a variable; write a relation or \
                 function in lower case, or in double quotes (`\"Name\"(...)`)",
            )
        }
        '(' => error.with_label("not allowed here").with_note(
            "in infix, arguments follow a name: `f(a, b)`; is this file KIF (`(f a b)`)? \
             KIF files are read as KIF when their name does not end in `.hrf`",
        ),
        _ if c.is_ascii_alphanumeric() || c == '_' => error.with_label("not allowed here").with_note(
            "expected `,` or `)` between arguments, `:-` or `&` before a literal, or a new statement",
        ),
        _ => error.with_label("not allowed here").with_note(
            "infix rules are made of names (`cell`, `12`, `\"White\"`), variables (`X`), \
             `(`, `)`, `,`, `:-`, `&`, `~` and `%` comments",
        ),
    };
    (error, end)
}

/// Finds stray `)`, unclosed `(` and `"`, and nesting of parentheses and
/// `~` deeper than `max_nesting`, skipping comments.
fn scan(text: &str, max_nesting: usize) -> Result<(), Vec<Diagnostic>> {
    // Per open parenthesis: where it is, and the `~` counted before it.
    let mut open: Vec<(usize, usize)> = Vec::new();
    // The `~` not yet closed by `,`, `&` or `:-` at this level, and in all.
    let mut tildes = 0usize;
    let mut depth = 0usize;
    let mut errors = Vec::new();
    let mut too_deep = false;
    let bytes = text.as_bytes();
    let mut i = 0;
    let deep = |at: usize, errors: &mut Vec<Diagnostic>, too_deep: &mut bool| {
        if !*too_deep {
            *too_deep = true;
            errors.push(
                Diagnostic::error(
                    "too-deep",
                    Span::new(at, at + 1),
                    format!("terms and `~` nest deeper than {max_nesting} levels"),
                )
                .with_label("this is too deep")
                .with_note(if max_nesting < MAX_NESTING_CEILING {
                    format!("the nesting limit can be raised up to {MAX_NESTING_CEILING}")
                } else {
                    "this is the most the reader accepts".to_string()
                })
                .with_limit(LimitKind::Nesting),
            );
        }
    };
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                while i < bytes.len() && !matches!(bytes[i], b'\n' | b'\r') {
                    i += 1;
                }
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && !matches!(bytes[i], b'\n' | b'\r') {
                    i += 1;
                }
                continue;
            }
            b'"' => {
                let close = bytes[i + 1..]
                    .iter()
                    .position(|&b| matches!(b, b'"' | b'\n' | b'\r'));
                match close {
                    Some(n) if bytes[i + 1 + n] == b'"' => i += n + 2,
                    _ => {
                        errors.push(
                            Diagnostic::error("syntax", Span::new(i, i + 1), "unclosed `\"`")
                                .with_label("this quote is not closed on its line"),
                        );
                        i += 1 + close.unwrap_or(bytes.len() - i - 1);
                    }
                }
                continue;
            }
            b'~' => {
                tildes += 1;
                depth += 1;
                if depth > max_nesting {
                    deep(i, &mut errors, &mut too_deep);
                }
            }
            b',' | b'&' => {
                depth -= tildes;
                tildes = 0;
            }
            b':' if bytes.get(i + 1) == Some(&b'-') => {
                depth -= tildes;
                tildes = 0;
            }
            b'(' => {
                open.push((i, tildes));
                tildes = 0;
                depth += 1;
                if depth > max_nesting {
                    deep(i, &mut errors, &mut too_deep);
                }
            }
            b')' => match open.pop() {
                Some((_, outer)) => {
                    depth -= tildes + 1;
                    tildes = outer;
                }
                None => errors.push(
                    Diagnostic::error("syntax", Span::new(i, i + 1), "unmatched `)`")
                        .with_label("no `(` before this is left open"),
                ),
            },
            _ => {}
        }
        i += 1;
    }
    if let Some(&(first, _)) = open.first() {
        errors.push(
            Diagnostic::error("syntax", Span::new(first, first + 1), "unclosed `(`")
                .with_label("this `(` is never closed")
                .with_note(format!(
                    "the file ends with {} parenthesis(es) still open",
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

/// Builds s-expressions from the grammar's pairs (nesting is bounded by
/// the scan, so this recursion is too).
struct Builder<'s> {
    symbols: &'s mut Symbols,
    errors: Vec<Diagnostic>,
}

impl Builder<'_> {
    /// A statement: a fact, or a rule `(<= head body ...)`.
    fn statement(&mut self, pair: pest::iterators::Pair<'_, G>) -> Sexp {
        let span = span_of(&pair);
        let mut items = Vec::new();
        let mut if_ = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                G::COMMENT => {}
                G::if_ => if_ = Some(span_of(&p)),
                _ => items.push(self.item(p)),
            }
        }
        match if_ {
            None => items.pop().expect("a statement has a head"),
            Some(at) => {
                // The pair's span runs over the white space after it (the
                // grammar skips it before the `&` that does not come).
                let end = items.last().map_or(span.end, |i| i.span().end);
                let span = Span::new(span.start as usize, end as usize);
                items.insert(0, Sexp::Atom(self.symbols.intern("<="), at));
                Sexp::List(items, span)
            }
        }
    }

    /// A negation, a variable or a name with or without arguments.
    fn item(&mut self, pair: pest::iterators::Pair<'_, G>) -> Sexp {
        let span = span_of(&pair);
        match pair.as_rule() {
            G::negation => {
                let mut inner = pair.into_inner().filter(|p| p.as_rule() != G::COMMENT);
                let tilde = span_of(&inner.next().expect("`~` first"));
                let item = self.item(inner.next().expect("a literal after `~`"));
                // Up to the literal's end: a name's pair runs over the white
                // space after it (skipped before the `(` that does not come).
                let span = Span::new(span.start as usize, item.span().end as usize);
                Sexp::List(
                    vec![Sexp::Atom(self.symbols.intern("not"), tilde), item],
                    span,
                )
            }
            G::variable => {
                if pair.as_str() == "_" {
                    self.errors.push(
                        Diagnostic::error("syntax", span, "a variable needs a name after `_`")
                            .with_label("a lone `_`")
                            .with_note(
                                "gdl has no anonymous variable: give each its name, such as `_x`",
                            ),
                    );
                }
                Sexp::Var(self.symbols.intern(&format!("?{}", pair.as_str())), span)
            }
            G::compound => {
                let mut inner = pair.into_inner().filter(|p| p.as_rule() != G::COMMENT);
                let name = self.name(inner.next().expect("a name first"));
                match inner.next() {
                    None => name,
                    Some(arguments) => {
                        let mut items = vec![name];
                        items.extend(
                            (arguments.into_inner())
                                .filter(|p| p.as_rule() != G::COMMENT)
                                .map(|p| self.item(p)),
                        );
                        Sexp::List(items, span)
                    }
                }
            }
            other => unreachable!("grammar rule {other:?} is never an item"),
        }
    }

    /// A constant, or a quoted name (its place inside the quotes).
    fn name(&mut self, pair: pest::iterators::Pair<'_, G>) -> Sexp {
        let span = span_of(&pair);
        let (text, at) = match pair.as_rule() {
            G::quoted => {
                let s = pair.as_str();
                let inner = &s[1..s.len() - 1];
                let at = Span::new(span.start as usize + 1, span.end as usize - 1);
                if inner.is_empty() {
                    self.errors.push(
                        Diagnostic::error("syntax", span, "an empty name `\"\"`")
                            .with_label("a name in quotes needs at least one character"),
                    );
                } else if let Some((i, c)) =
                    inner.char_indices().find(|&(_, c)| !is_kif_name_char(c))
                {
                    let start = at.start as usize + i;
                    self.errors.push(
                        Diagnostic::error(
                            "syntax",
                            Span::new(start, start + c.len_utf8()),
                            format!(
                                "a name cannot hold {}",
                                if c.is_whitespace() || c.is_control() {
                                    format!("{c:?}")
                                } else {
                                    format!("`{c}`")
                                }
                            ),
                        )
                        .with_label("not allowed in a name")
                        .with_note(
                            "a name in quotes is a KIF atom: letters, digits and \
                             _ - + . ' < > = ! # $ % & * / : @ ^ ~",
                        ),
                    );
                }
                (inner, at)
            }
            _ => (pair.as_str(), span),
        };
        Sexp::Atom(self.symbols.intern_written(text, at), at)
    }
}

#[cfg(test)]
mod tests {
    use crate::limits::DEFAULT_MAX_NESTING;
    use crate::source::SourceFile;
    use crate::syntax::ast::Description;
    use crate::syntax::kif::parse;

    fn parse_infix(text: &str) -> Result<Description, Vec<crate::error::Diagnostic>> {
        parse(&SourceFile::new("t.hrf", text), DEFAULT_MAX_NESTING)
    }

    /// Each error's place, as `(start, message)`.
    fn errors(text: &str) -> Vec<(u32, String)> {
        let errors = parse_infix(text).unwrap_err();
        errors
            .iter()
            .map(|e| (e.span.start, e.message.clone()))
            .collect()
    }

    #[test]
    fn reads_as_the_kif_of_the_same_rules() {
        let d = parse_infix(
            "% c\nrole(\"White\") // c\np(X, f(a, _y)) :- q(X) & ~or(r(X), not(s())) & distinct(X, \"-1\")\nterminal\n",
        )
        .unwrap();
        let texts: Vec<String> = d.rules.iter().map(|r| d.rule_text(r)).collect();
        assert_eq!(
            texts,
            [
                "(role White)",
                "(<= (p ?X (f a ?_y)) (q ?X) (not (or (r ?X) (not s))) (distinct ?X -1))",
                "terminal"
            ]
        );
        // Places are in the infix text: the rule from its head to its end,
        // the quoted name inside its quotes.
        let text = "p :- q & r\n  % after\n";
        let d = parse_infix(text).unwrap();
        assert_eq!((d.rules[0].span.start, d.rules[0].span.end), (0, 10));
        let d = parse_infix("role(\"W\")").unwrap();
        let crate::syntax::ast::Term::Atom(_, at) = d.rules[0].head.args[0] else {
            panic!("an atom")
        };
        assert_eq!((at.start, at.end), (6, 7));
    }

    #[test]
    fn mistakes_are_located_and_named() {
        assert_eq!(
            errors("p(?x)\nq :- a, b\nr :- Line(x)\n"),
            [
                (2, "unexpected `?`".to_string()),
                (12, "unexpected `,`".to_string()),
                (25, "unexpected `(`".to_string()),
            ]
        );
        assert_eq!(errors("p(a\n"), [(1, "unclosed `(`".to_string())]);
        assert_eq!(errors("p(a))"), [(4, "unmatched `)`".to_string())]);
        assert_eq!(
            errors("p(\"a b\")"),
            [(4, "a name cannot hold ' '".to_string())]
        );
        // The `)` is inside the quote, so the `(` is not closed either.
        assert_eq!(
            errors("p(\"ab)\n"),
            [
                (2, "unclosed `\"`".to_string()),
                (1, "unclosed `(`".to_string())
            ]
        );
        assert_eq!(
            errors("p(_, a)"),
            [(2, "a variable needs a name after `_`".to_string())]
        );
        assert_eq!(errors("p :- "), [(5, "unexpected end of file".to_string())]);
        assert_eq!(errors("p(a b)")[0].1, "unexpected `b`");
    }

    #[test]
    fn deep_nesting_is_an_error_not_an_overflow() {
        for text in [
            "p :- ".to_string() + &"~".repeat(100_000) + "q",
            "p(".repeat(100_000) + &")".repeat(100_000),
            "p :- ".to_string() + &"~or(".repeat(60_000) + "q" + &")".repeat(60_000),
        ] {
            let errors = parse_infix(&text).unwrap_err();
            assert_eq!(errors[0].code, "too-deep");
        }
    }
}
