//! What an editor needs to know of a rules file beside its diagnostics:
//! every name written in it (relation, function, constant, variable,
//! operator), what each name is, where it is defined, and for a relation
//! its arity, stratum and whether it depends on the state or the moves.
//! The language server (`gdl lsp`) answers hovers, jumps, references,
//! renames, symbols, colours and completions from it.

use crate::analysis::graph::DepGraph;
use crate::error::Diagnostic;
use crate::limits::DEFAULT_MAX_NESTING;
use crate::source::{SourceFile, Span};
use crate::syntax::ast::{Description, Literal, Sentence, Term};
use crate::syntax::keywords::{KeywordHelp, keyword_help};
use crate::syntax::normal::Clause;
use crate::syntax::symbol::Symbol;
use crate::syntax::term::TermTable;
use crate::syntax::{Syntax, kif, normal};
use indexmap::IndexMap;

/// What a name of a rules file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NameKind {
    /// A relation: the name of a sentence, `cell` in `(<= (cell ?x) ...)`
    /// or `legal`.
    Relation,
    /// A function: the name of a compound term, `cell` in
    /// `(true (cell 1 1 b))`.
    Function,
    /// A constant, such as `b`, `xplayer` or `100`.
    Constant,
    /// A variable, such as `?x`: one name per rule.
    Variable,
}

/// A name of the file, and what is known of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Name {
    /// The name as first written.
    pub text: String,
    /// What it is.
    pub kind: NameKind,
    /// Its number of arguments where first written (0 for constants and
    /// variables).
    pub arity: usize,
    /// What GDL makes of it, for a keyword relation such as `legal`.
    pub keyword: Option<KeywordHelp>,
    /// Where it is defined: for a relation, the name in the head of each of
    /// its rules and facts; for a function or a constant, each place it is
    /// written in a rule's head (what makes facts and moves with it).
    pub definitions: Vec<Span>,
    /// For a relation of a file without errors: its stratum, counted from
    /// 0 in the order the rules are evaluated, and how many there are.
    pub stratum: Option<(usize, usize)>,
    /// For a relation: whether it depends on the state (on `true`, through
    /// any chain of rules), where the dependencies are known.
    pub depends_on_state: Option<bool>,
    /// For a relation: whether it depends on the moves (on `does`).
    pub depends_on_moves: Option<bool>,
    /// For a variable: the rule it belongs to (an index of `Outline::rules`).
    pub rule: Option<usize>,
}

/// One place a name, or an operator (`<=`, `not`, `or`, `distinct`), is
/// written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Occurrence {
    /// The word.
    pub span: Span,
    /// The name written (an index of `Outline::names`), or `None` for an
    /// operator.
    pub name: Option<usize>,
    /// Whether it is in the head of its rule (a definition of a relation).
    pub in_head: bool,
}

/// A rule or fact of the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleOutline {
    /// The relation it defines (an index of `Outline::names`).
    pub relation: usize,
    /// The whole rule.
    pub span: Span,
    /// The name of its head's relation.
    pub name_span: Span,
    /// Its head, in KIF on one line.
    pub head: String,
}

/// The names of a rules file that reads as rules (see the module's
/// comment); [`outline_source`] makes it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outline {
    /// Every name, in order of first mention.
    pub names: Vec<Name>,
    /// Every name and operator written, in the order of the text.
    pub occurrences: Vec<Occurrence>,
    /// The rules and facts, in the order of the text.
    pub rules: Vec<RuleOutline>,
    /// The roles declared (`(role name)`), as written, in order.
    pub roles: Vec<String>,
}

impl Outline {
    /// The occurrence at byte `offset` (a word that holds it, or that ends
    /// there: the cursor just after a word is on it).
    pub fn at(&self, offset: usize) -> Option<&Occurrence> {
        let offset = offset as u32;
        let i = self.occurrences.partition_point(|o| o.span.end < offset);
        self.occurrences
            .get(i)
            .filter(|o| o.span.start <= offset && offset <= o.span.end)
    }

    /// Every occurrence of the name `name` (an index of `names`).
    pub fn occurrences_of(&self, name: usize) -> impl Iterator<Item = &Occurrence> + '_ {
        self.occurrences
            .iter()
            .filter(move |o| o.name == Some(name))
    }
}

/// Parses, normalises and checks a rules file as `check_source` does, and
/// outlines its names: the file, every diagnostic (the same as
/// `check_source`'s), and the outline when the file reads as rules (it has
/// no syntax error; it may have errors of the checks).
///
/// ```
/// let (_, diagnostics, outline) = gdl::outline_source("t.gdl", "(role a) (<= (p ?x) (q ?x)) (q 1)");
/// let outline = outline.unwrap();
/// assert_eq!(outline.roles, ["a"]);
/// let q = outline.names.iter().position(|n| n.text == "q").unwrap();
/// assert_eq!(outline.names[q].definitions.len(), 1);
/// assert_eq!(outline.occurrences_of(q).count(), 2);
/// assert!(diagnostics.iter().any(|d| d.code == "missing-keyword"));
/// ```
pub fn outline_source(name: &str, text: &str) -> (SourceFile, Vec<Diagnostic>, Option<Outline>) {
    outline_source_in(name, text, Syntax::of(name, text))
}

/// [`outline_source`] of a text written in `syntax`, whatever its name
/// and text say (an editor's language for the document, say).
///
/// ```
/// use gdl::Syntax;
/// let (_, diagnostics, outline) = gdl::outline_source_in("untitled", "role(a)\nbase(p)", Syntax::Infix);
/// assert_eq!(outline.unwrap().roles, ["a"]);
/// assert!(!diagnostics.iter().any(|d| d.is_error() && d.code == "syntax"));
/// ```
pub fn outline_source_in(
    name: &str,
    text: &str,
    syntax: Syntax,
) -> (SourceFile, Vec<Diagnostic>, Option<Outline>) {
    let file = SourceFile::new(name, text);
    let mut d = match kif::parse_in(&file, DEFAULT_MAX_NESTING, syntax) {
        Ok((d, _)) => d,
        Err(diagnostics) => return (file, diagnostics, None),
    };
    let infix = syntax == Syntax::Infix;
    let mut outline = Reader::read(&d, &file.text, infix);
    // The steps of `gdl check` (see `front_end`), the outline read
    // between them.
    let loose = super::loose::read_loosely(&mut d);
    let clauses = match normal::normalize(&d) {
        Ok(clauses) => clauses,
        Err(diagnostics) => {
            let diagnostics = super::in_its_words(d.syntax, diagnostics);
            return (file, diagnostics, Some(outline));
        }
    };
    let mut graph = DepGraph::new(&clauses);
    let (targets, reach) = graph.depends_on_named(&["true", "does"], &d.symbols);
    let (clauses, diagnostics) = super::analyse(&mut d, clauses, loose);
    let valid = !diagnostics.iter().any(Diagnostic::is_error);
    dependencies(&mut outline, &d, &graph, &targets, &reach);
    if valid {
        strata(&mut outline, &d, &clauses);
    }
    (file, diagnostics, Some(outline))
}

/// Gives each relation of the outline whether it depends on `true` and
/// `does`: `targets` are the graph's indexes of those of them the rules
/// name, and `reach` which of them each relation depends on.
fn dependencies(
    outline: &mut Outline,
    d: &Description,
    graph: &DepGraph,
    targets: &[usize],
    reach: &[Vec<bool>],
) {
    let target = |name: &str| {
        let s = d.symbols.get(name)?;
        let i = graph.relations.get_index_of(&s)?;
        targets.iter().position(|&t| t == i).map(|k| (i, k))
    };
    let (state, moves) = (target("true"), target("does"));
    let depends =
        |r: usize, on: Option<(usize, usize)>| on.is_some_and(|(i, k)| r == i || reach[r][k]);
    for name in &mut outline.names {
        if name.kind != NameKind::Relation {
            continue;
        }
        let Some(r) = d
            .symbols
            .get(&name.text.to_ascii_lowercase())
            .and_then(|s| graph.relations.get_index_of(&s))
        else {
            continue;
        };
        name.depends_on_state = Some(depends(r, state));
        name.depends_on_moves = Some(depends(r, moves));
    }
}

/// Gives each relation of the outline its stratum in the plan of the
/// checked clauses.
fn strata(outline: &mut Outline, d: &Description, clauses: &[Clause]) {
    let mut symbols = d.symbols.clone();
    let program = crate::plan::plan(clauses, &mut TermTable::new(), &mut symbols);
    let count = program.components.len();
    for name in &mut outline.names {
        if name.kind != NameKind::Relation {
            continue;
        }
        let relation =
            (symbols.get(&name.text.to_ascii_lowercase())).and_then(|s| program.relation(s));
        if let Some(r) = relation {
            name.stratum = Some((program.info(r).component, count));
        }
    }
}

/// What tells names apart: the symbol, the kind, and for a variable its
/// rule (`usize::MAX` for the others).
type Key = (Symbol, NameKind, usize);

/// The walk over a description that makes its outline.
struct Reader<'a> {
    d: &'a Description,
    text: &'a str,
    /// Whether the text is infix (else KIF).
    infix: bool,
    /// The names met, by symbol and kind (variables by rule too).
    index: IndexMap<Key, Name>,
    /// Each word: its place, its name (none for an operator), whether in a head.
    occurrences: Vec<(Span, Option<Key>, bool)>,
    rule: usize,
}

impl<'a> Reader<'a> {
    /// The outline of a parsed description of `text`.
    fn read(d: &'a Description, text: &'a str, infix: bool) -> Outline {
        let mut r = Reader {
            d,
            text,
            infix,
            index: IndexMap::new(),
            occurrences: Vec::new(),
            rule: 0,
        };
        let mut rules = Vec::with_capacity(d.rules.len());
        let mut roles = Vec::new();
        for (i, rule) in d.rules.iter().enumerate() {
            r.rule = i;
            let arrow = match r.infix {
                true => r.infix_arrow(rule.head.span.end as usize),
                false => r.operator_span(rule.span),
            };
            if let Some(arrow) = arrow
                && matches!(r.slice(arrow), "<=" | ":-")
            {
                r.occurrences.push((arrow, None, false));
            }
            let relation = r.sentence(&rule.head, true);
            if d.symbols.name(rule.head.name) == "role"
                && rule.body.is_empty()
                && let [Term::Atom(role, _)] = rule.head.args.as_slice()
            {
                roles.push(d.symbols.spelling(*role).to_string());
            }
            for literal in &rule.body {
                r.literal(literal);
            }
            rules.push(RuleOutline {
                relation,
                span: rule.span,
                name_span: rule.head.name_span,
                head: d.show_sentence(&rule.head).to_string(),
            });
        }
        r.occurrences
            .sort_by_key(|(span, _, _)| (span.start, span.end));
        let occurrences = (r.occurrences.iter())
            .map(|&(span, key, in_head)| Occurrence {
                span,
                name: key.and_then(|k| r.index.get_index_of(&k)),
                in_head,
            })
            .collect();
        Outline {
            names: r.index.into_values().collect(),
            occurrences,
            rules,
            roles,
        }
    }

    fn slice(&self, span: Span) -> &'a str {
        self.text
            .get(span.start as usize..span.end as usize)
            .unwrap_or("")
    }

    /// The `:-` of an infix rule whose head ends at `at`, if any.
    fn infix_arrow(&self, mut at: usize) -> Option<Span> {
        let text = self.text.as_bytes();
        loop {
            match text.get(at)? {
                b' ' | b'\t' | b'\r' | b'\n' | 0x0C => at += 1,
                b'%' | b'/' => {
                    while text.get(at).is_some_and(|&b| b != b'\n') {
                        at += 1;
                    }
                }
                b':' if text.get(at + 1) == Some(&b'-') => return Some(Span::new(at, at + 2)),
                _ => return None,
            }
        }
    }

    /// The name or operator that starts `span` in an infix text: `~`, a
    /// name in quotes (without them), or a plain name.
    fn infix_operator_span(&self, span: Span) -> Option<Span> {
        let text = self.text.as_bytes();
        let at = span.start as usize;
        let end = (span.end as usize).min(text.len());
        match text.get(at)? {
            b'~' => Some(Span::new(at, at + 1)),
            b'"' => {
                let close = text[at + 1..end].iter().position(|&b| b == b'"')?;
                Some(Span::new(at + 1, at + 1 + close))
            }
            _ => {
                let n = text[at..end]
                    .iter()
                    .position(|&b| matches!(b, b'(' | b' ' | b'\t' | b'\r' | b'\n' | 0x0C | b'"'))
                    .unwrap_or(end - at);
                (n > 0).then(|| Span::new(at, at + n))
            }
        }
    }

    /// The word just inside the `(` that starts `span` (after white space
    /// and comments), if any; in infix, the name or operator that starts it.
    fn operator_span(&self, span: Span) -> Option<Span> {
        if self.infix {
            return self.infix_operator_span(span);
        }
        let text = self.text.as_bytes();
        let mut at = span.start as usize;
        if text.get(at) != Some(&b'(') {
            return None;
        }
        at += 1;
        loop {
            match text.get(at)? {
                b' ' | b'\t' | b'\r' | b'\n' | 0x0C => at += 1,
                b';' => {
                    while text.get(at).is_some_and(|&b| b != b'\n') {
                        at += 1;
                    }
                }
                _ => break,
            }
        }
        let start = at;
        while text.get(at).is_some_and(|&b| {
            !matches!(b, b' ' | b'\t' | b'\r' | b'\n' | 0x0C | b'(' | b')' | b';')
        }) {
            at += 1;
        }
        (at > start).then(|| Span::new(start, at))
    }

    /// Records a name written at `span`; returns its index.
    fn name(
        &mut self,
        symbol: Symbol,
        kind: NameKind,
        arity: usize,
        span: Span,
        in_head: bool,
    ) -> usize {
        let current = self.rule;
        let rule = if kind == NameKind::Variable {
            current
        } else {
            usize::MAX
        };
        let key = (symbol, kind, rule);
        let d = self.d;
        let entry = self.index.entry(key);
        let i = entry.index();
        let name = entry.or_insert_with(|| Name {
            text: d.symbols.spelling(symbol).to_string(),
            kind,
            arity,
            keyword: (kind == NameKind::Relation)
                .then(|| keyword_help(d.symbols.name(symbol)))
                .flatten(),
            definitions: Vec::new(),
            stratum: None,
            depends_on_state: None,
            depends_on_moves: None,
            rule: (kind == NameKind::Variable).then_some(current),
        });
        if in_head && kind != NameKind::Variable {
            name.definitions.push(span);
        }
        self.occurrences.push((span, Some(key), in_head));
        i
    }

    /// A sentence; returns the index of its relation.
    fn sentence(&mut self, s: &Sentence, in_head: bool) -> usize {
        let relation = self.name(
            s.name,
            NameKind::Relation,
            s.args.len(),
            s.name_span,
            in_head,
        );
        for arg in &s.args {
            self.term(arg, in_head);
        }
        relation
    }

    fn literal(&mut self, l: &Literal) {
        match l {
            Literal::Pos(s) => {
                self.sentence(s, false);
            }
            Literal::Not(inner, span) => {
                self.operator(*span);
                self.literal(inner);
            }
            Literal::Distinct(a, b, span) => {
                self.operator(*span);
                self.term(a, false);
                self.term(b, false);
            }
            Literal::Or(ls, span) => {
                self.operator(*span);
                for l in ls {
                    self.literal(l);
                }
            }
        }
    }

    /// The operator word of the list at `span`.
    fn operator(&mut self, span: Span) {
        if let Some(word) = self.operator_span(span) {
            self.occurrences.push((word, None, false));
        }
    }

    fn term(&mut self, t: &Term, in_head: bool) {
        match t {
            Term::Var(v, span) => {
                self.name(*v, NameKind::Variable, 0, *span, in_head);
            }
            Term::Atom(a, span) => {
                // `(f)`, the constant named `(f)`: its word is `f`.
                let span = match self.operator_span(*span) {
                    Some(word) => word,
                    None => *span,
                };
                self.name(*a, NameKind::Constant, 0, span, in_head);
            }
            Term::Func(f, args, span) => {
                if let Some(word) = self.operator_span(*span) {
                    self.name(*f, NameKind::Function, args.len(), word, in_head);
                }
                for arg in args {
                    self.term(arg, in_head);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TICTACTOE: &str = "(role x) (role o) (init (cell 1 b)) (index 1)
        (<= (legal ?r (mark ?i)) (true (cell ?i b)) (role ?r) (index ?i))
        (<= (next (cell ?i ?r)) (does ?r (mark ?i)))
        (<= (next (cell ?i b)) (true (cell ?i b)) (not (marked ?i)))
        (<= (marked ?i) (does ?r (mark ?i)))
        (<= terminal (not open)) (<= open (true (cell ?i b)))
        (goal x 50) (goal o 50)";

    fn named<'a>(o: &'a Outline, text: &str, kind: NameKind) -> (usize, &'a Name) {
        let i = (o.names.iter())
            .position(|n| n.text == text && n.kind == kind)
            .unwrap_or_else(|| panic!("no {kind:?} {text}"));
        (i, &o.names[i])
    }

    #[test]
    fn names_have_their_kind_definitions_and_dependencies() {
        let (_, diagnostics, outline) = outline_source("t.gdl", TICTACTOE);
        assert!(
            !diagnostics.iter().any(Diagnostic::is_error),
            "{diagnostics:?}"
        );
        let o = outline.unwrap();
        assert_eq!(o.roles, ["x", "o"]);
        let (_, marked) = named(&o, "marked", NameKind::Relation);
        assert_eq!((marked.arity, marked.definitions.len()), (1, 1));
        assert_eq!(marked.depends_on_moves, Some(true));
        let (_, open) = named(&o, "open", NameKind::Relation);
        assert_eq!(
            (open.depends_on_state, open.depends_on_moves),
            (Some(true), Some(false))
        );
        let (_, index) = named(&o, "index", NameKind::Relation);
        assert_eq!(index.depends_on_state, Some(false));
        let (open_stratum, count) = open.stratum.unwrap();
        let (terminal_stratum, _) = named(&o, "terminal", NameKind::Relation).1.stratum.unwrap();
        assert!(open_stratum < terminal_stratum && terminal_stratum < count);
        assert!(named(&o, "legal", NameKind::Relation).1.keyword.is_some());
        // `cell` the function: made by `init` and `next` heads, read by `true`.
        let (cell, info) = named(&o, "cell", NameKind::Function);
        assert_eq!(info.definitions.len(), 3);
        assert_eq!(o.occurrences_of(cell).count(), 6);
        // Every `?i` of one rule is one name, another rule's another.
        let vars = (o.names.iter()).filter(|n| n.kind == NameKind::Variable && n.text == "?i");
        assert_eq!(vars.count(), 5);
    }

    #[test]
    fn every_word_is_found_at_its_place() {
        let (_, _, outline) = outline_source("t.gdl", TICTACTOE);
        let o = outline.unwrap();
        for occurrence in &o.occurrences {
            let word = &TICTACTOE[occurrence.span.start as usize..occurrence.span.end as usize];
            match occurrence.name {
                Some(i) => assert!(word.eq_ignore_ascii_case(&o.names[i].text), "{word}"),
                None => assert!(["<=", "not", "or", "distinct"].contains(&word), "{word}"),
            }
            let at = o.at(occurrence.span.start as usize + 1).unwrap();
            assert_eq!(at, occurrence);
        }
        let arrows = o.occurrences.iter().filter(|o| o.name.is_none()).count();
        assert_eq!(arrows, 6 + 2, "six rules, two `not`");
    }

    #[test]
    fn broken_text_has_diagnostics_and_no_outline() {
        let (_, diagnostics, outline) = outline_source("t.gdl", "(role a) (<= (p ?x");
        assert!(outline.is_none());
        assert!(diagnostics.iter().any(Diagnostic::is_error));
        // `terminal` reads `p` with its place unbound and reads it again:
        // the rule of `p` stays unsafe (an unread `p` would be dropped).
        let text = "(role a) (<= (p ?x) (q ?y)) (<= terminal (p ?b) (distinct ?b 1))";
        let (_, diagnostics, outline) = outline_source("t.gdl", text);
        assert!(outline.is_some());
        assert!(diagnostics.iter().any(|d| d.code == "unsafe-variable"));
    }
}
