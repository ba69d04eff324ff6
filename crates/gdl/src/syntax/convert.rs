//! Rules files from one syntax to the other, and the canonical layout of
//! infix files: what `gdl fmt --to kif|infix` and `gdl fmt` of an infix
//! file write.
//!
//! The file is read into its syntax tree, whose every node knows its place
//! in the text, and written again from the tree: names as they are written
//! there (a name infix cannot write plainly, such as `White` or `-1`, in
//! double quotes), KIF variables given names infix reads as variables
//! (`?x` as `X`, `?row-1` as `Row_1`, each distinct within its rule), and
//! every comment kept (its `;` written `%`, or back). A comment inside a
//! rule stays after the head or literal whose line it ends, or goes on a
//! line of its own before the next literal; one inside a head or a literal
//! stays between the same arguments, the term going on after it on the
//! next line (one inside a `(f)` of no argument goes before the rule). KIF is written through the KIF formatter
//! (`format`), so both ways give the one layout of each syntax.
//!
//! The infix layout: one statement a line; a rule that fits within
//! [`WIDTH`] columns on one line (`head :- l1 & l2`), a longer one (or one
//! holding a comment) with its head and `:-` on the first line and one
//! literal a line, indented by four columns, each but the last ending in
//! `&`; arguments separated by `, `; one blank line kept where the author
//! left some between statements; lines end with `\n` and no trailing white
//! space. Formatting a formatted file changes nothing.

use crate::error::Diagnostic;
use crate::limits::DEFAULT_MAX_NESTING;
use crate::source::{SourceFile, Span};
use crate::syntax::Syntax;
use crate::syntax::ast::{Description, Literal, Rule, Sentence, Term};
use crate::syntax::format::{WIDTH, format_source};
use crate::syntax::infix::is_plain_constant;
use crate::syntax::kif::parse_in;
use crate::syntax::symbol::Symbol;
use std::collections::HashMap;

/// A rules file in its canonical layout in `to` (its own syntax when
/// `None`): the syntax it is read in is that of its name or text (see
/// [`Syntax::of`]). KIF laid out as KIF needs only its s-expressions to
/// read (see [`format_source`]); any other way needs the file to read as
/// rules, else its syntax errors are returned.
///
/// ```
/// use gdl::{convert_source, Syntax};
/// let kif = "(role x) ; the player\n(<= (legal ?p (mark ?x)) (role ?p) (cell ?x) (not (taken ?x)))\n";
/// let infix = convert_source("t.gdl", kif, Some(Syntax::Infix), 200).unwrap();
/// assert_eq!(infix, "role(x) % the player\nlegal(P, mark(X)) :- role(P) & cell(X) & ~taken(X)\n");
/// assert_eq!(convert_source("t.hrf", &infix, Some(Syntax::Kif), 200).unwrap(),
///            "(role x) ; the player\n(<= (legal ?P (mark ?X)) (role ?P) (cell ?X) (not (taken ?X)))\n");
/// ```
pub fn convert_source(
    name: &str,
    text: &str,
    to: Option<Syntax>,
    max_nesting: usize,
) -> Result<String, Vec<Diagnostic>> {
    let from = Syntax::of(name, text);
    convert_source_in(name, text, from, to.unwrap_or(from), max_nesting)
}

/// [`convert_source`] of a text written in `from`, whatever its name and
/// text say (an editor's language for the document, say), into `to`.
pub fn convert_source_in(
    name: &str,
    text: &str,
    from: Syntax,
    to: Syntax,
    max_nesting: usize,
) -> Result<String, Vec<Diagnostic>> {
    if from == Syntax::Kif && to == Syntax::Kif {
        return format_source(text, max_nesting);
    }
    let file = SourceFile::new(name, text);
    let (description, comments) = parse_in(&file, max_nesting, from)?;
    let writer = Writer {
        text,
        from,
        to,
        d: &description,
    };
    let out = writer.file(&comments);
    match to {
        Syntax::Infix => Ok(out),
        Syntax::Kif => format_source(&out, max_nesting),
    }
}

/// A diagnostic of a rules file read as infix, with the KIF its texts
/// quote between backticks written in infix (`?x` as `X`, `(base fact)` as
/// `base(fact)`, `(not (p ?x))` as `~p(X)`), so that the author reads the
/// words of the file. What the checker quotes is written in KIF, the
/// syntax the analysis reads; a quoted text with no `(` or `?` (a name, a
/// keyword) is the same in both and stays, as does one that does not read
/// as KIF.
pub(crate) fn diagnostic_in_infix(mut d: Diagnostic) -> Diagnostic {
    d.message = quoted_in_infix(&d.message);
    d.label = quoted_in_infix(&d.label);
    for (_, text) in &mut d.secondary {
        *text = quoted_in_infix(text);
    }
    for note in &mut d.notes {
        *note = quoted_in_infix(note);
    }
    d
}

/// `text` with each part between a pair of backticks written in infix
/// where it is KIF (see [`diagnostic_in_infix`]).
fn quoted_in_infix(text: &str) -> String {
    let parts: Vec<&str> = text.split('`').collect();
    let mut out = String::with_capacity(text.len());
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            out.push('`');
        }
        // Odd parts are quoted; a last one after an unpaired backtick is not.
        let quoted = i % 2 == 1 && i + 1 < parts.len();
        match quoted.then(|| kif_in_infix(part)).flatten() {
            Some(infix) => out.push_str(&infix),
            None => out.push_str(part),
        }
    }
    out
}

/// A KIF text in infix, on one line: a rule, a body literal or a term.
/// `None` where it has no `(` or `?`, or does not read as KIF.
fn kif_in_infix(kif: &str) -> Option<String> {
    if !kif.contains(['(', '?']) {
        return None;
    }
    let convert = |text: &str| {
        convert_source("quoted.gdl", text, Some(Syntax::Infix), DEFAULT_MAX_NESTING).ok()
    };
    let written = if kif.trim_start().starts_with("(<=") {
        convert(kif)?
    } else if let Some(rule) = convert(&format!("(<= h_ {kif})")) {
        rule.trim().strip_prefix("h_ :-")?.to_string()
    } else {
        let fact = convert(&format!("(t_ {kif})"))?;
        (fact.trim().strip_prefix("t_(")?.strip_suffix(')')?).to_string()
    };
    Some(written.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// Where a comment goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    /// On a line of its own before the rule.
    Before,
    /// Inside the head or a literal, between the same two parts of a
    /// term (its name or arguments) as in the text.
    Between,
    /// At the end of the line of the rule's element `e` (0: the head,
    /// `i + 1`: body literal `i`).
    Trailing(usize),
    /// On a line of its own before body literal `i`.
    OwnLine(usize),
    /// On a line of its own after the rule (or at the end of its last
    /// line when `true`).
    After(bool),
}

/// Writes a description in the other syntax (or the same, laid out).
struct Writer<'a> {
    /// The text read.
    text: &'a str,
    /// Its syntax.
    from: Syntax,
    /// The syntax written.
    to: Syntax,
    /// What the text reads as.
    d: &'a Description,
}

/// What is written at the top level, in the order of the text.
enum Item<'r> {
    Rule(&'r Rule, Vec<(Span, Place)>),
    Comment(Span),
}

impl Writer<'_> {
    /// The whole file.
    fn file(&self, comments: &[Span]) -> String {
        let rules = &self.d.rules;
        // Comments inside a rule go with it; the others stand alone.
        let mut items: Vec<(usize, Item)> = Vec::new();
        let mut inside: Vec<Vec<(Span, Place)>> = vec![Vec::new(); rules.len()];
        let mut after_rule: Vec<Vec<Span>> = vec![Vec::new(); rules.len()];
        for &c in comments {
            let r = rules.partition_point(|r| r.span.start <= c.start);
            match r.checked_sub(1) {
                Some(r) if c.end <= rules[r].span.end => {
                    let place = self.place(&rules[r], c);
                    if place == Place::After(false) {
                        after_rule[r].push(c);
                    } else {
                        inside[r].push((c, place));
                    }
                }
                _ => items.push((c.start as usize, Item::Comment(c))),
            }
        }
        for (i, (rule, inner)) in rules.iter().zip(inside).enumerate() {
            items.push((rule.span.start as usize, Item::Rule(rule, inner)));
            for &c in &after_rule[i] {
                items.push((c.start as usize, Item::Comment(c)));
            }
        }
        items.sort_by_key(|(at, _)| *at);
        let mut out = String::with_capacity(self.text.len() * 5 / 4);
        let mut previous_end: Option<usize> = None;
        for (start, item) in &items {
            let hoisted_start = match item {
                Item::Rule(_, inner) => inner
                    .iter()
                    .find(|(_, p)| *p == Place::Before)
                    .map_or(*start, |(c, _)| (*start).min(c.start as usize)),
                Item::Comment(_) => *start,
            };
            if let Some(end) = previous_end {
                let gap = &self.text[end.min(hoisted_start)..hoisted_start];
                let breaks = gap.bytes().filter(|&b| b == b'\n').count();
                let trailing = matches!(item, Item::Comment(_)) && !gap.contains(['\n', '\r']);
                if trailing {
                    out.push(' ');
                } else {
                    out.push('\n');
                    if breaks >= 2 {
                        out.push('\n');
                    }
                }
            }
            match item {
                Item::Comment(c) => {
                    out.push_str(&self.comment(*c));
                    previous_end = Some(c.end as usize);
                }
                Item::Rule(rule, inner) => {
                    self.rule(&mut out, rule, inner);
                    previous_end = Some(rule.span.end as usize);
                }
            }
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out
    }

    /// Where a comment inside a rule goes.
    fn place(&self, rule: &Rule, c: Span) -> Place {
        let between = contains(rule.head.span, c) && sentence_between(&rule.head, c)
            || (rule.body.iter()).any(|l| contains(l.span(), c) && literal_between(l, c));
        if between {
            return Place::Between;
        }
        if c.start < rule.head.span.end {
            return Place::Before;
        }
        let same_line =
            |from: u32| !self.text[from as usize..c.start as usize].contains(['\n', '\r']);
        match rule.body.iter().position(|l| l.span().end > c.start) {
            Some(i) if c.start > rule.body[i].span().start => Place::OwnLine(i),
            Some(i) => {
                let previous = if i == 0 {
                    rule.head.span.end
                } else {
                    rule.body[i - 1].span().end
                };
                if same_line(previous) {
                    Place::Trailing(i)
                } else {
                    Place::OwnLine(i)
                }
            }
            None => {
                let last = rule
                    .body
                    .last()
                    .map_or(rule.head.span.end, |l| l.span().end);
                if same_line(last) {
                    Place::Trailing(rule.body.len())
                } else {
                    Place::After(false)
                }
            }
        }
    }

    /// A comment, its `;` or `%` or `//` written as `to` writes comments.
    fn comment(&self, c: Span) -> String {
        let text = self.text[c.start as usize..c.end as usize].trim_end();
        if self.from == self.to {
            return text.to_string();
        }
        let (marks, rest) = match self.from {
            Syntax::Kif => {
                let rest = text.trim_start_matches(';');
                (text.len() - rest.len(), rest)
            }
            Syntax::Infix => match text.strip_prefix("//") {
                Some(rest) => (1, rest),
                None => {
                    let rest = text.trim_start_matches('%');
                    (text.len() - rest.len(), rest)
                }
            },
        };
        let mark = match self.to {
            Syntax::Kif => ";",
            Syntax::Infix => "%",
        };
        format!("{}{rest}", mark.repeat(marks))
    }

    /// A rule or fact, its comments in their places.
    fn rule(&self, out: &mut String, rule: &Rule, comments: &[(Span, Place)]) {
        let mut names = RuleScope {
            between: (comments.iter())
                .filter(|(_, p)| *p == Place::Between)
                .map(|(c, _)| *c)
                .collect(),
            ..RuleScope::default()
        };
        for (c, place) in comments {
            if *place == Place::Before {
                out.push_str(&self.comment(*c));
                out.push('\n');
            }
        }
        let head = self.sentence(&rule.head, &mut names);
        let body: Vec<String> = (rule.body.iter())
            .map(|l| self.literal(l, &mut names))
            .collect();
        let trailing = |e: usize| {
            comments
                .iter()
                .filter(move |(_, p)| *p == Place::Trailing(e))
                .map(|(c, _)| self.comment(*c))
        };
        let own_line = |i: usize| {
            comments
                .iter()
                .filter(move |(_, p)| *p == Place::OwnLine(i))
                .map(|(c, _)| self.comment(*c))
        };
        let inner = comments.iter().any(|(_, p)| *p != Place::Before);
        match self.to {
            Syntax::Infix => {
                out.push_str(&head);
                if body.is_empty() {
                    trailing(0).for_each(|c| {
                        out.push(' ');
                        out.push_str(&c);
                    });
                    return;
                }
                let flat = head.len() + 4 + body.iter().map(|l| l.len() + 3).sum::<usize>() - 3;
                if !inner && flat <= WIDTH {
                    out.push_str(" :- ");
                    out.push_str(&body.join(" & "));
                    return;
                }
                out.push_str(" :-");
                trailing(0).for_each(|c| {
                    out.push(' ');
                    out.push_str(&c);
                });
                for (i, literal) in body.iter().enumerate() {
                    for c in own_line(i) {
                        out.push_str("\n    ");
                        out.push_str(&c);
                    }
                    out.push_str("\n    ");
                    out.push_str(literal);
                    if i + 1 < body.len() {
                        out.push_str(" &");
                    }
                    trailing(i + 1).for_each(|c| {
                        out.push(' ');
                        out.push_str(&c);
                    });
                }
            }
            Syntax::Kif => {
                // Laid out by the KIF formatter afterwards: only the line
                // breaks that comments need matter here.
                let mut ends_in_comment = false;
                if body.is_empty() {
                    out.push_str(&head);
                    trailing(0).for_each(|c| {
                        out.push(' ');
                        out.push_str(&c);
                    });
                    return;
                }
                out.push_str("(<= ");
                out.push_str(&head);
                for c in trailing(0) {
                    out.push(' ');
                    out.push_str(&c);
                    ends_in_comment = true;
                }
                for (i, literal) in body.iter().enumerate() {
                    for c in own_line(i) {
                        out.push('\n');
                        out.push_str(&c);
                    }
                    out.push('\n');
                    out.push_str(literal);
                    ends_in_comment = false;
                    for c in trailing(i + 1) {
                        out.push(' ');
                        out.push_str(&c);
                        ends_in_comment = true;
                    }
                }
                out.push_str(if ends_in_comment { "\n)" } else { ")" });
            }
        }
    }

    /// The text a span covers.
    fn slice(&self, span: Span) -> &str {
        &self.text[span.start as usize..span.end as usize]
    }

    /// A name (a constant, or a relation or function name) as `to` writes it.
    fn name(&self, name: &str) -> String {
        match self.to {
            Syntax::Kif => name.to_string(),
            Syntax::Infix if is_plain_constant(name) => name.to_string(),
            Syntax::Infix => format!("\"{name}\""),
        }
    }

    /// A sentence.
    fn sentence(&self, s: &Sentence, names: &mut RuleScope) -> String {
        let name = self.name(self.slice(s.name_span));
        let args: Vec<(String, Span)> = (s.args.iter())
            .map(|t| (self.term(t, names), t.span()))
            .collect();
        self.applied(name, &args, s.span, names)
    }

    /// A name applied to arguments (none: the name alone), written in
    /// `span`: the comments between its parts written between them again
    /// (see [`Place::Between`]).
    fn applied(
        &self,
        name: String,
        args: &[(String, Span)],
        span: Span,
        names: &RuleScope,
    ) -> String {
        // The comments before each argument, and before the end.
        let gap = |from: u32, to: u32| -> Vec<String> {
            (names.between.iter())
                .filter(|c| from <= c.start && c.end <= to)
                .map(|c| self.comment(*c))
                .collect()
        };
        let mut starts: Vec<u32> = args.iter().map(|(_, s)| s.start).collect();
        starts.push(span.end);
        let mut ends = vec![span.start];
        ends.extend(args.iter().map(|(_, s)| s.end));
        let gaps: Vec<Vec<String>> = (ends.iter().zip(&starts))
            .map(|(&from, &to)| gap(from, to))
            .collect();
        let (open, separator, close, mark) = match self.to {
            Syntax::Kif => (format!("({name}"), "", ")", " "),
            Syntax::Infix => (format!("{name}("), ",", ")", ""),
        };
        if args.is_empty() && gaps[0].is_empty() {
            return name;
        }
        let mut out = open;
        for (i, (arg, _)) in args.iter().enumerate() {
            if i > 0 {
                out.push_str(separator);
            }
            let first = i == 0 && self.to == Syntax::Infix;
            Self::comments_then(&mut out, &gaps[i], first);
            // A space before the argument, unless a line or the infix
            // `(` has just begun.
            let begun = out.ends_with(BREAK) || first && gaps[i].is_empty();
            if !begun {
                out.push_str(if i == 0 { mark } else { " " });
            }
            out.push_str(arg);
        }
        Self::comments_then(&mut out, &gaps[args.len()], false);
        out.push_str(close);
        out
    }

    /// Writes `comments` where a term breaks, each ending its line, the
    /// term going on indented on the next (right after the opening when
    /// `first`, else after a space).
    fn comments_then(out: &mut String, comments: &[String], first: bool) {
        for (k, c) in comments.iter().enumerate() {
            if !(first && k == 0) {
                out.push(' ');
            }
            out.push_str(c);
            out.push_str(BREAK);
        }
    }

    /// A term.
    fn term(&self, t: &Term, names: &mut RuleScope) -> String {
        match t {
            Term::Var(_, span) => {
                let written = self.slice(*span);
                match (self.from, self.to) {
                    (Syntax::Infix, Syntax::Kif) => format!("?{written}"),
                    (Syntax::Kif, Syntax::Infix) => names.infix(&written[1..]),
                    _ => written.to_string(),
                }
            }
            Term::Atom(s, span) => {
                let spelling = self.d.symbols.spelling(*s);
                // `(f)`: a function of no argument (see `kif`).
                if self.d.symbols.name(*s).starts_with('(') {
                    let f = self.name(&spelling[1..spelling.len() - 1]);
                    return match self.to {
                        Syntax::Kif => format!("({f})"),
                        Syntax::Infix => format!("{f}()"),
                    };
                }
                self.name(self.slice(*span))
            }
            Term::Func(f, args, span) => {
                let args: Vec<(String, Span)> = (args.iter())
                    .map(|a| (self.term(a, names), a.span()))
                    .collect();
                let name = self.written_name(*span, *f);
                self.applied(self.name(&name), &args, *span, names)
            }
        }
    }

    /// The name of the function term written at `span`, as written there
    /// (`f` of `(f a)` or `f(a)`; `"F"` unquoted), or its first spelling
    /// when the text does not show it.
    fn written_name(&self, span: Span, f: Symbol) -> String {
        let text = self.slice(span);
        let written = match self.from {
            Syntax::Kif => text.strip_prefix('(').map(|t| t.trim_start()).map(|t| {
                &t[..t
                    .find(|c: char| c.is_whitespace() || c == '(' || c == ')' || c == ';')
                    .unwrap_or(t.len())]
            }),
            Syntax::Infix => text.find('(').map(|i| text[..i].trim_end()),
        };
        let written = written.map(|w| w.trim_matches('"'));
        match written {
            Some(w) if w.eq_ignore_ascii_case(self.d.symbols.spelling(f)) => w.to_string(),
            _ => self.d.symbols.spelling(f).to_string(),
        }
    }

    /// A body literal.
    fn literal(&self, l: &Literal, names: &mut RuleScope) -> String {
        match l {
            Literal::Pos(s) => self.sentence(s, names),
            Literal::Not(inner, span) => {
                let written = self.literal(inner, names);
                let at = inner.span();
                let (before, after): (Vec<Span>, Vec<Span>) = (names.between.iter())
                    .filter(|&&c| contains(*span, c))
                    .filter(|c| c.end <= at.start || c.start >= at.end)
                    .partition(|c| c.end <= at.start);
                let before: Vec<String> = before.iter().map(|c| self.comment(*c)).collect();
                let after: Vec<String> = after.iter().map(|c| self.comment(*c)).collect();
                let mut out = String::from(match self.to {
                    Syntax::Kif => "(not",
                    Syntax::Infix => "~",
                });
                Self::comments_then(&mut out, &before, false);
                if self.to == Syntax::Kif && !out.ends_with(BREAK) {
                    out.push(' ');
                }
                out.push_str(&written);
                // Before KIF's `)`; after `~p(X)`, which has no closing.
                Self::comments_then(&mut out, &after, false);
                if self.to == Syntax::Kif {
                    out.push(')');
                }
                out
            }
            Literal::Distinct(a, b, span) => {
                let args = [
                    (self.term(a, names), a.span()),
                    (self.term(b, names), b.span()),
                ];
                self.applied("distinct".into(), &args, *span, names)
            }
            Literal::Or(ls, span) => {
                let args: Vec<(String, Span)> = (ls.iter())
                    .map(|l| (self.literal(l, names), l.span()))
                    .collect();
                if args.is_empty() {
                    return match self.to {
                        Syntax::Kif => "(or)".into(),
                        Syntax::Infix => "or()".into(),
                    };
                }
                self.applied("or".into(), &args, *span, names)
            }
        }
    }
}

/// Where a term goes on after a comment inside it: the next line, indented
/// past the literals.
const BREAK: &str = "\n        ";

/// Whether the comment `c`, inside the sentence `s`, lies between two of
/// its parts, or those of a term within it (not inside a `(f)` of no
/// argument, where nothing can go between).
fn sentence_between(s: &Sentence, c: Span) -> bool {
    match s.args.iter().find(|t| contains(t.span(), c)) {
        Some(t) => term_between(t, c),
        None => true,
    }
}

/// [`sentence_between`] for a term.
fn term_between(t: &Term, c: Span) -> bool {
    match t {
        Term::Func(_, args, _) => match args.iter().find(|a| contains(a.span(), c)) {
            Some(a) => term_between(a, c),
            None => true,
        },
        Term::Atom(..) | Term::Var(..) => false,
    }
}

/// [`sentence_between`] for a literal.
fn literal_between(l: &Literal, c: Span) -> bool {
    match l {
        Literal::Pos(s) => sentence_between(s, c),
        Literal::Not(inner, _) if contains(inner.span(), c) => literal_between(inner, c),
        Literal::Distinct(a, b, _) => match [a, b].into_iter().find(|t| contains(t.span(), c)) {
            Some(t) => term_between(t, c),
            None => true,
        },
        Literal::Or(ls, _) => match ls.iter().find(|l| contains(l.span(), c)) {
            Some(l) => literal_between(l, c),
            None => true,
        },
        Literal::Not(..) => true,
    }
}

/// Whether `span` holds `c`.
fn contains(span: Span, c: Span) -> bool {
    span.start <= c.start && c.end <= span.end
}

/// What writing one rule keeps: the infix names of its KIF variables
/// (`?x` is `X`, and two variables never share a name), and its comments
/// that go between the parts of a term.
#[derive(Default)]
struct RuleScope {
    /// The comments of the rule written between the parts of a term
    /// ([`Place::Between`]).
    between: Vec<Span>,
    /// By the KIF name in lower case (variables match without case).
    given: HashMap<String, String>,
    /// The names given, in lower case.
    taken: std::collections::HashSet<String>,
}

impl RuleScope {
    /// The infix name of the KIF variable `?name`.
    fn infix(&mut self, name: &str) -> String {
        let key = name.to_ascii_lowercase();
        if let Some(given) = self.given.get(&key) {
            return given.clone();
        }
        let mut base: String = name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        match base.chars().next() {
            Some(c) if c.is_ascii_lowercase() => base[..1].make_ascii_uppercase(),
            Some(c) if c.is_ascii_uppercase() || c == '_' => {}
            _ => base.insert(0, '_'),
        }
        let mut candidate = base.clone();
        let mut n = 2;
        while base == "_" || self.taken.contains(&candidate.to_ascii_lowercase()) {
            candidate = format!("{base}_{n}");
            n += 1;
            if !self.taken.contains(&candidate.to_ascii_lowercase()) {
                break;
            }
        }
        self.taken.insert(candidate.to_ascii_lowercase());
        self.given.insert(key, candidate.clone());
        candidate
    }
}
