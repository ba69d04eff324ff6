//! The restrictions of GDL (see `docs/language.md`), checked on a parsed and
//! normalised description, with every error located in the text.
//!
//! `check` runs every check and returns all errors and warnings together,
//! sorted by position: safety, stratified negation, the recursion
//! restriction, keyword discipline, one arity per name, the required
//! keywords and role declarations, goal values, GDL-II names, and warnings
//! for missing `base`/`input` and for relations never defined or never used.

use crate::analysis::graph::{DepGraph, Edge};
use crate::analysis::suggest::closest;
use crate::error::Diagnostic;
use crate::limits::DEFAULT_MAX_NESTING;
use crate::limits::MAX_CLAUSE_VARIABLES;
use crate::source::{SourceFile, Span};
use crate::syntax::ast::{Description, Literal, Rule, Sentence, Term};
use crate::syntax::keywords::{KEYWORDS, Keyword, OPERATORS, goal_value, keyword_named};

use crate::syntax::normal::{Clause, NLit};
use crate::syntax::symbol::Symbol;
use rustc_hash::{FxHashMap, FxHashSet};
use std::borrow::Cow;
use std::collections::VecDeque;

/// The most negation-cycle errors reported for one cycle (one strongly
/// connected component of the dependency graph).
const MAX_CYCLE_REPORTS: usize = 10;

/// The note of an allowance (see [`crate::Diagnostic::is_allowance`]).
pub(crate) const ALLOWED_IN_PUBLISHED_GAMES: &str =
    "published games do this and ggp-base plays them, so gdl allows it";

/// Keywords every game must define, with what each gives.
const REQUIRED: [(&str, &str); 5] = [
    (
        "role",
        "`role`: the players, each declared by a fact such as `(role white)`",
    ),
    ("init", "`init`: the facts of the initial state"),
    ("legal", "`legal`: the legal moves of each role"),
    ("terminal", "`terminal`: when the game is over"),
    ("goal", "`goal`: each role's payoff, 0 to 100"),
];

/// Why `legal`, `terminal` and `goal` cannot depend on `does`.
const JUDGED_BEFORE_MOVES: &str = "`legal`, `terminal` and `goal` are judged in the current \
     state before any move is chosen, so they cannot depend on `does`";

/// Why `base` and `input` cannot depend on the state or the moves.
const WHATEVER_THE_STATE: &str = "`base` and `input` list every possible fact and move \
     whatever the state, so they cannot depend on `true` or `does`";

/// Keyword dependencies GDL forbids: the relation on the left may not depend
/// (through any chain of rules) on those in the middle, for the reason given.
const FORBIDDEN_DEPENDENCIES: [(&str, &[&str], &str); 6] = [
    (
        "init",
        &["true", "does", "legal", "next", "terminal", "goal"],
        "the initial state is fixed before the game starts, so `init` cannot depend on \
         `true`, `does`, `legal`, `next`, `terminal` or `goal`",
    ),
    ("legal", &["does"], JUDGED_BEFORE_MOVES),
    ("terminal", &["does"], JUDGED_BEFORE_MOVES),
    ("goal", &["does"], JUDGED_BEFORE_MOVES),
    ("base", &["true", "does"], WHATEVER_THE_STATE),
    ("input", &["true", "does"], WHATEVER_THE_STATE),
];

/// Parses, normalises and checks a rules file given as text: the whole
/// loading pipeline up to (not including) planning. Returns the file, for
/// rendering, and every diagnostic: the syntax errors if it does not parse,
/// else the normal-form errors if `or`s expand too far, else what the
/// analysis finds.
///
/// ```
/// let (file, diagnostics) = gdl::check_source("t.gdl", "(role a) (intit (cell 1))");
/// let codes: Vec<&str> = diagnostics.iter().map(|d| d.code).collect();
/// assert!(codes.contains(&"missing-keyword"), "{codes:?}");
/// print!("{}", gdl::render(&file, &diagnostics, false));
/// ```
pub fn check_source(name: &str, text: &str) -> (SourceFile, Vec<Diagnostic>) {
    let file = SourceFile::new(name, text);
    let diagnostics = match super::front_end(&file, DEFAULT_MAX_NESTING) {
        Ok(analysed) => analysed.warnings,
        Err(diagnostics) => diagnostics,
    };
    (file, diagnostics)
}

/// Checks every restriction of GDL on a description and its clauses (as
/// `normalize` made them from it). Returns all errors and warnings, sorted by
/// position in the file; the file is valid when none is an error.
pub fn check(d: &Description, clauses: &[Clause]) -> Vec<Diagnostic> {
    let mut c = Checker {
        d,
        clauses,
        out: Vec::new(),
    };
    c.keyword_discipline();
    c.gdl_ii();
    c.arities();
    c.facts_and_roles();
    c.zero_argument_terms();
    c.empty_ors();
    c.case_variants();
    c.required();
    c.safety();
    c.variable_counts();
    c.dependencies();
    c.usage();
    let mut out = c.out;
    out.sort_by_key(|d| (d.span.start, d.span.end, std::cmp::Reverse(d.severity)));
    out
}

/// The check in progress: the description and what was found so far.
struct Checker<'a> {
    d: &'a Description,
    clauses: &'a [Clause],
    out: Vec<Diagnostic>,
}

/// Where an unsafe variable is used.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Where {
    Head,
    Not,
    Distinct,
}

/// Where a sentence stands in a rule.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Head,
    Body,
}

impl<'a> Checker<'a> {
    /// A name in lower case, to match.
    fn name(&self, s: Symbol) -> &'a str {
        self.d.symbols.name(s)
    }

    /// A name as written, to show.
    fn shown(&self, s: Symbol) -> &'a str {
        self.d.symbols.spelling(s)
    }

    /// A term as written, to show.
    fn text(&self, t: &Term) -> String {
        let mut out = String::new();
        self.d.write_term(&mut out, t);
        out
    }

    /// A term in lower case, to match.
    fn key(&self, t: &Term) -> String {
        self.text(t).to_ascii_lowercase()
    }

    fn sentence_text(&self, s: &Sentence) -> String {
        self.d.show_sentence(s).to_string()
    }

    /// Calls `f` on every sentence of a rule, the head first, then the body
    /// sentences in the order written (inside `not` and `or` too).
    fn for_each_sentence(rule: &Rule, f: &mut impl FnMut(&Sentence, Place)) {
        f(&rule.head, Place::Head);
        for lit in &rule.body {
            lit.for_each_sentence(true, &mut |s, _| f(s, Place::Body));
        }
    }

    /// `role` only as facts; `true`/`does` never in a head; `next` never in a
    /// body; the body operators are not relations; keywords have their arity.
    fn keyword_discipline(&mut self) {
        let d = self.d;
        for rule in &d.rules {
            if self.name(rule.head.name) == "role" && !rule.body.is_empty() {
                self.out.push(
                    Diagnostic::error(
                        "role-rule",
                        rule.head.name_span,
                        "`role` must be declared by facts, not by a rule",
                    )
                    .with_label("`role` defined by a rule")
                    .with_secondary(rule.body[0].span(), "a role cannot depend on conditions")
                    .with_note("write each role as a fact, such as `(role white)`"),
                );
            }
            Self::for_each_sentence(rule, &mut |s, place| {
                let (name, shown) = (self.name(s.name), self.shown(s.name));
                match (name, place) {
                    ("true", Place::Head) => self.out.push(
                        Diagnostic::error(
                            "keyword-in-head",
                            s.name_span,
                            "`true` cannot be the head of a rule or a fact",
                        )
                        .with_label("`true` is only for rule bodies")
                        .with_note(
                            "`true` reads the current state; to put facts in the initial \
                             state use `init`, in the next state use `next`",
                        ),
                    ),
                    ("does", Place::Head) => self.out.push(
                        Diagnostic::error(
                            "keyword-in-head",
                            s.name_span,
                            "`does` cannot be the head of a rule or a fact",
                        )
                        .with_label("`does` is only for rule bodies")
                        .with_note(
                            "the players choose the moves; to say which moves they may \
                             choose use `legal`",
                        ),
                    ),
                    ("next", Place::Body) => self.out.push(
                        Diagnostic::error(
                            "next-in-body",
                            s.name_span,
                            "`next` cannot be used in a rule body",
                        )
                        .with_label("`next` is only for rule heads")
                        .with_note(
                            "the next state is not known while a turn is evaluated; use \
                             `true` to read the current state",
                        ),
                    ),
                    _ => {}
                }
                if let Some(&(_, form)) = OPERATORS.iter().find(|(r, _)| *r == name) {
                    let label = match place {
                        Place::Head => "cannot be defined by a rule or a fact".to_string(),
                        Place::Body => format!("expected `{form}`"),
                    };
                    self.out.push(
                        Diagnostic::error(
                            "reserved-name",
                            s.name_span,
                            format!("`{shown}` is built into GDL and cannot be used as a relation"),
                        )
                        .with_label(label)
                        .with_note(format!("`{shown}` is only written `{form}` in a rule body")),
                    );
                }
                if let Some(&Keyword { arity, form, .. }) = keyword_named(name)
                    && s.args.len() != arity
                {
                    self.out.push(
                        Diagnostic::error(
                            "keyword-arity",
                            s.span,
                            format!(
                                "`{shown}` takes {}, but has {} here",
                                arguments(arity),
                                s.args.len()
                            ),
                        )
                        .with_label(format!("expected `{form}`")),
                    );
                }
            });
        }
    }

    /// `sees` and the role `random` belong to GDL-II: refuse them by name,
    /// once each, at their first use.
    fn gdl_ii(&mut self) {
        let d = self.d;
        let mut sees: Vec<Span> = Vec::new();
        let mut random: Vec<Span> = Vec::new();
        for rule in &d.rules {
            Self::for_each_sentence(rule, &mut |s, _| {
                if self.name(s.name) == "sees" {
                    sees.push(s.name_span);
                }
                if self.name(s.name) == "role"
                    && let [Term::Atom(a, span)] = s.args.as_slice()
                    && self.name(*a) == "random"
                {
                    random.push(*span);
                }
            });
        }
        let more = |n: usize| match n {
            0 => None,
            1 => Some("it is used once more in the file".to_string()),
            n => Some(format!("it is used {n} more times in the file")),
        };
        if let Some((&first, rest)) = sees.split_first() {
            let mut e = Diagnostic::error(
                "gdl-ii",
                first,
                "`sees` is GDL-II (games of imperfect information), which is not supported",
            )
            .with_label("GDL-II relation")
            .with_note("this interpreter reads GDL for games of complete information only");
            if let Some(n) = more(rest.len()) {
                e = e.with_note(n);
            }
            self.out.push(e);
        }
        for span in random {
            self.out.push(
                Diagnostic::error(
                    "gdl-ii",
                    span,
                    "the role `random` is GDL-II (the chance player), which is not supported",
                )
                .with_label("GDL-II chance role")
                .with_note("this interpreter reads GDL for games of complete information only"),
            );
        }
    }

    /// Every function with one arity throughout, or the allowance
    /// `several-arities` (ggp-base reads `(f a)` and `(f a b)` as two
    /// terms, and so does gdl), once per name. Relations with several
    /// arities are several relations already (see `loose`), and the
    /// keywords' own arities are checked by `keyword_discipline`.
    fn arities(&mut self) {
        let d = self.d;
        let mut functions: FxHashMap<Symbol, Vec<(usize, Span)>> = FxHashMap::default();
        let mut order: Vec<Symbol> = Vec::new();
        let mut note = |f: Symbol, arity: usize, span: Span| {
            let uses = functions.entry(f).or_insert_with(|| {
                order.push(f);
                Vec::new()
            });
            if !uses.iter().any(|&(a, _)| a == arity) {
                uses.push((arity, span));
            }
        };
        for rule in &d.rules {
            Self::for_each_sentence(rule, &mut |s, _| {
                s.args.iter().for_each(|t| term_arities(t, &mut note));
            });
            for lit in &rule.body {
                distinct_arities(lit, &mut note);
            }
        }
        for f in order {
            let uses = &functions[&f];
            let [(first, first_at), (second, second_at), ..] = uses.as_slice() else {
                continue;
            };
            let counts: Vec<String> = uses.iter().map(|u| u.0.to_string()).collect();
            let shown = self.shown(f);
            self.out.push(
                Diagnostic::warning(
                    "several-arities",
                    *second_at,
                    format!(
                        "function `{shown}` is written with {} arguments: each is a term of \
                         its own",
                        list(&counts)
                    ),
                )
                .with_label(format!("{} here", arguments(*second)))
                .with_secondary(
                    *first_at,
                    format!("first written with {}", arguments(*first)),
                )
                .with_note(format!(
                    "GDL gives a name one arity; ggp-base, and gdl, read `({shown} a)` and \
                     `({shown} a b)` as two different terms"
                ))
                .with_note(ALLOWED_IN_PUBLISHED_GAMES),
            );
        }
    }

    /// Facts are ground; each role is declared once; goal values in heads
    /// are whole numbers from 0 to 100.
    fn facts_and_roles(&mut self) {
        let d = self.d;
        // Each role in lower case, with where it is declared and how.
        let mut roles: FxHashMap<String, (Span, String)> = FxHashMap::default();
        for (i, rule) in d.rules.iter().enumerate() {
            let head = &rule.head;
            // A fact that the questions asked of it bind is derived for
            // them (`unsafe-fact-caller-bound`): its clause has a body.
            let caller_bound = (self.clauses.iter()).any(|c| c.rule == i && !c.body.is_empty());
            if rule.body.is_empty() && !head.is_ground() && !caller_bound {
                let mut vars: Vec<(Symbol, Span)> = Vec::new();
                head.for_each_var(&mut |v, s| {
                    if !vars.iter().any(|(w, _)| *w == v) {
                        vars.push((v, s));
                    }
                });
                let names: Vec<String> = vars
                    .iter()
                    .map(|(v, _)| format!("`{}`", self.shown(*v)))
                    .collect();
                let (v0, span0) = vars[0];
                let mut e = Diagnostic::error(
                    "unsafe-fact",
                    span0,
                    format!(
                        "the fact `{}` contains the variable{} {}, but a fact must be ground",
                        self.sentence_text(head),
                        if vars.len() > 1 { "s" } else { "" },
                        names.join(", ")
                    ),
                )
                .with_label(format!("`{}` has no value here", self.shown(v0)));
                for &(v, s) in &vars[1..] {
                    e = e.with_secondary(s, format!("`{}` has no value either", self.shown(v)));
                }
                e = e.with_note(
                    "a fact has no body to give its variables values; write a rule \
                     `(<= head body ...)` whose body binds them",
                );
                if closest(self.name(head.name), ["<="]).is_some() {
                    let more = format!(
                        " `{}` is not GDL's rule arrow, so this is read as a fact",
                        self.shown(head.name)
                    );
                    e = e.with_suggestion(head.name_span, self.shown(head.name), "<=", &more);
                }
                self.out.push(e);
            }
            match (self.name(head.name), head.args.as_slice()) {
                ("role", [r]) if rule.body.is_empty() && r.is_ground() => {
                    let text = self.text(r);
                    if let Some(&(first, _)) = roles.get(&self.key(r)) {
                        self.out.push(
                            Diagnostic::error(
                                "duplicate-role",
                                r.span(),
                                format!("role `{text}` is declared twice"),
                            )
                            .with_label("declared again here")
                            .with_secondary(first, "first declared here")
                            .with_note("each role is declared once; remove one declaration"),
                        );
                    } else {
                        roles.insert(self.key(r), (r.span(), text));
                    }
                }
                ("goal", [_, value]) => {
                    let good = match value {
                        Term::Var(..) => true,
                        Term::Atom(a, _) => goal_value(self.name(*a)).is_some(),
                        Term::Func(..) => false,
                    };
                    if !good {
                        self.out.push(
                            Diagnostic::error(
                                "goal-value",
                                value.span(),
                                format!(
                                    "goal value `{}` is not a whole number from 0 to 100",
                                    self.text(value)
                                ),
                            )
                            .with_label("expected a number from 0 to 100, or a variable"),
                        );
                    }
                }
                _ => {}
            }
        }
        self.unknown_roles(&roles);
    }

    /// The role named in `legal`, `does`, `goal` and `input` (when written
    /// as a name, not a variable) is a declared one.
    fn unknown_roles(&mut self, roles: &FxHashMap<String, (Span, String)>) {
        if roles.is_empty() {
            return; // `required` says that the file declares no role
        }
        let mut declared: Vec<(&String, &String)> =
            roles.iter().map(|(key, (_, shown))| (key, shown)).collect();
        declared.sort_unstable();
        let declared: Vec<&str> = declared.iter().map(|(_, shown)| shown.as_str()).collect();
        let mut found: Vec<(Span, String, Symbol)> = Vec::new();
        for rule in &self.d.rules {
            Self::for_each_sentence(rule, &mut |s, _| {
                let keyword = self.name(s.name);
                if !matches!(keyword, "legal" | "does" | "goal" | "input") {
                    return;
                }
                if let Some(role @ Term::Atom(..)) = s.args.first()
                    && !roles.contains_key(&self.key(role))
                {
                    found.push((role.span(), self.text(role), s.name));
                }
            });
        }
        for (span, text, keyword) in found {
            let message = format!(
                "`{text}` in `{}` is not a role of the game",
                self.shown(keyword)
            );
            // A goal or a move of a role that does not play is never asked
            // for, and a `does` of one never holds: allowances, as ggp-base
            // plays such rules.
            let d = match self.name(keyword) {
                "goal" => Diagnostic::warning("unknown-role-goal", span, message),
                "does" => Diagnostic::warning("unknown-role-move", span, message)
                    .with_note("no such role moves, so this `does` never holds"),
                _ => Diagnostic::warning("unknown-role-move", span, message)
                    .with_note("the game never asks for this role's moves"),
            }
            .with_note(ALLOWED_IN_PUBLISHED_GAMES);
            self.out.push(
                d.with_label("not declared by `(role ...)`")
                    .with_note(format!("the roles are {}", declared.join(", "))),
            );
        }
    }

    /// Names written in two spellings that differ only in case: one name in
    /// GDL (and in gdl), two in ggp-base, which may then play the file
    /// differently.
    fn case_variants(&mut self) {
        for v in self.d.symbols.case_variants() {
            if has_fixed_meaning(self.name(v.symbol)) {
                continue; // `ROLE` is `role` to every reader
            }
            let ((first, first_at), (other, other_at)) = (&v.first, &v.other);
            self.out.push(
                Diagnostic::warning(
                    "case-variant",
                    *other_at,
                    format!(
                        "`{other}` and `{first}` differ only in case: gdl reads them as one name"
                    ),
                )
                .with_label(format!("the same name as `{first}`"))
                .with_secondary(*first_at, format!("`{first}` first written here"))
                .with_note(
                    "GDL compares names without case, but ggp-base, the reference engine, \
                     reads these as two names and may play this file differently",
                ),
            );
        }
    }

    /// Each `(f)`, a function term of no argument (read as the constant
    /// `(f)`, distinct from `f`), is an allowance: one warning per name.
    fn zero_argument_terms(&mut self) {
        fn walk(t: &Term, found: &mut Vec<(Symbol, Span)>, name: &dyn Fn(Symbol) -> bool) {
            match t {
                Term::Atom(a, span) if name(*a) => found.push((*a, *span)),
                Term::Func(_, args, _) => args.iter().for_each(|a| walk(a, found, name)),
                _ => {}
            }
        }
        let mut found = Vec::new();
        let is_zero_argument = |a: Symbol| self.name(a).starts_with('(');
        for rule in &self.d.rules {
            Self::for_each_sentence(rule, &mut |s, _| {
                s.args
                    .iter()
                    .for_each(|t| walk(t, &mut found, &is_zero_argument));
            });
        }
        let mut seen = FxHashSet::default();
        for (a, span) in found {
            if seen.insert(a) {
                let name = self.shown(a).to_string();
                let bare = &name[1..name.len() - 1];
                self.out.push(
                    Diagnostic::warning(
                        "zero-argument-term",
                        span,
                        format!(
                            "`{name}` is a function term of no argument, distinct from `{bare}`"
                        ),
                    )
                    .with_label("a term of its own")
                    .with_note(ALLOWED_IN_PUBLISHED_GAMES),
                );
            }
        }
    }

    /// Each `(or)`, an `or` of no alternative, is an allowance: it never
    /// holds (and its `not` always does), as in ggp-base.
    fn empty_ors(&mut self) {
        fn walk(l: &Literal, positive: bool, found: &mut Vec<(Span, bool)>) {
            match l {
                Literal::Or(ls, span) if ls.is_empty() => found.push((*span, positive)),
                Literal::Or(ls, _) => ls.iter().for_each(|l| walk(l, positive, found)),
                Literal::Not(inner, _) => walk(inner, !positive, found),
                Literal::Pos(_) | Literal::Distinct(..) => {}
            }
        }
        let mut found = Vec::new();
        for rule in &self.d.rules {
            rule.body.iter().for_each(|l| walk(l, true, &mut found));
        }
        for (span, positive) in found {
            let (message, label) = if positive {
                (
                    "`(or)` has no alternative, so it never holds: this rule never applies",
                    "never holds",
                )
            } else {
                (
                    "`(or)` has no alternative, so it never holds, and its `not` always does",
                    "never holds, so its `not` always does",
                )
            };
            self.out.push(
                Diagnostic::warning("empty-or", span, message)
                    .with_label(label)
                    .with_note(ALLOWED_IN_PUBLISHED_GAMES),
            );
        }
    }

    /// At least one role, and rules or facts for `init`, `legal`,
    /// `terminal` and `goal`; a file that lacks only `init` gets the
    /// allowance `no-init` instead of an error.
    fn required(&mut self) {
        let heads: FxHashSet<&str> = self
            .d
            .rules
            .iter()
            .map(|r| self.name(r.head.name))
            .collect();
        let missing: Vec<(&str, &str)> = REQUIRED
            .into_iter()
            .filter(|(name, _)| !heads.contains(name))
            .collect();
        if let [("init", _)] = missing.as_slice() {
            self.out.push(
                Diagnostic::warning(
                    "no-init",
                    Span::new(0, 0),
                    "the file has no rule or fact for `init`: the game starts from the empty state",
                )
                .with_label("in this file")
                .with_note(ALLOWED_IN_PUBLISHED_GAMES),
            );
            return;
        }
        let message = match missing.as_slice() {
            [] => return,
            [("role", _)] => "the file declares no role, and every game needs one".to_string(),
            [(name, _)] => {
                format!("the file has no rule or fact for `{name}`, which every game needs")
            }
            [init @ .., (last, _)] => format!(
                "the file has no rule or fact for {} or `{last}`, which every game needs",
                init.iter()
                    .map(|(n, _)| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        let mut e = Diagnostic::error("missing-keyword", Span::new(0, 0), message)
            .with_label("in this file");
        for (_, why) in missing {
            e = e.with_note(why);
        }
        self.out.push(e);
    }

    /// Every variable of a clause occurs in a positive body literal other
    /// than `distinct`. Reported once per source rule and variable.
    fn safety(&mut self) {
        let d = self.d;
        let mut start = 0;
        while start < self.clauses.len() {
            let rule_index = self.clauses[start].rule;
            let end = start
                + self.clauses[start..]
                    .iter()
                    .take_while(|c| c.rule == rule_index)
                    .count();
            let rule = &d.rules[rule_index];
            if !rule.body.is_empty() {
                self.rule_safety(rule, &self.clauses[start..end]);
            }
            start = end;
        }
    }

    /// Safety of one rule, given the clauses it expands into.
    fn rule_safety(&mut self, rule: &Rule, clauses: &[Clause]) {
        // Unsafe variables in order of first report, with where they are first
        // used; and the variables some clause of the rule binds.
        let mut unsafe_vars: Vec<(Symbol, Span, Where)> = Vec::new();
        let mut bound_somewhere: FxHashSet<Symbol> = FxHashSet::default();
        for c in clauses {
            let mut bound: FxHashSet<Symbol> = FxHashSet::default();
            for lit in &c.body {
                if let NLit::Pos(s) = lit {
                    s.for_each_var(&mut |v, _| {
                        bound.insert(v);
                    });
                }
            }
            bound_somewhere.extend(bound.iter().copied());
            // Every use that needs a bound variable, in the order written.
            let mut needs: Vec<(Symbol, Span, Where)> = Vec::new();
            c.head
                .for_each_var(&mut |v, span| needs.push((v, span, Where::Head)));
            for lit in &c.body {
                match lit {
                    NLit::Pos(_) => {}
                    NLit::Neg(s) => {
                        s.for_each_var(&mut |v, span| needs.push((v, span, Where::Not)))
                    }
                    NLit::Distinct(a, b, _) | NLit::Same(a, b, _) => {
                        for t in [a, b] {
                            t.for_each_var(&mut |v, span| needs.push((v, span, Where::Distinct)));
                        }
                    }
                }
            }
            for (v, span, place) in needs {
                if bound.contains(&v) {
                    continue;
                }
                match unsafe_vars.iter_mut().find(|(w, ..)| *w == v) {
                    Some((_, first, at)) if span.start < first.start => {
                        *first = span;
                        *at = place;
                    }
                    Some(_) => {}
                    None => unsafe_vars.push((v, span, place)),
                }
            }
        }
        for (v, span, place) in unsafe_vars {
            let name = self.shown(v);
            let label = match place {
                Where::Head => format!("`{name}` in the head gets no value from the body"),
                Where::Not => format!("`not` cannot give `{name}` a value"),
                Where::Distinct => format!("`distinct` cannot give `{name}` a value"),
            };
            let mut e = Diagnostic::error(
                "unsafe-variable",
                span,
                format!("variable `{name}` is unsafe: no positive literal of the body binds it"),
            )
            .with_label(label);
            if bound_somewhere.contains(&v) {
                for lit in &rule.body {
                    if binds_in_part(lit, v) {
                        e = e.with_secondary(
                            lit.span(),
                            format!("only some alternatives of this `or` bind `{name}`"),
                        );
                    }
                }
                e = e.with_note(format!(
                    "each alternative of an `or` is a rule of its own: `{name}` must be bound \
                     in every alternative, or by a positive literal outside the `or`"
                ));
            }
            e = e.with_note(format!(
                "every variable of a rule must occur in a positive body literal (not under \
                 `not`, and not `distinct`), which gives it its values; add one that binds \
                 `{name}`"
            ));
            self.out.push(e);
        }
    }

    /// No clause has more variables than the evaluator numbers
    /// ([`MAX_CLAUSE_VARIABLES`]); one error per source rule.
    fn variable_counts(&mut self) {
        let mut reported: FxHashSet<usize> = FxHashSet::default();
        for c in self.clauses {
            if reported.contains(&c.rule) {
                continue;
            }
            let mut vars: FxHashSet<Symbol> = FxHashSet::default();
            let mut add = |v: Symbol, _: Span| {
                vars.insert(v);
            };
            c.head.for_each_var(&mut add);
            for lit in &c.body {
                match lit {
                    NLit::Pos(s) | NLit::Neg(s) => s.for_each_var(&mut add),
                    NLit::Distinct(a, b, _) | NLit::Same(a, b, _) => {
                        a.for_each_var(&mut add);
                        b.for_each_var(&mut add);
                    }
                }
            }
            if vars.len() > MAX_CLAUSE_VARIABLES {
                reported.insert(c.rule);
                self.out.push(
                    Diagnostic::error(
                        "too-many-variables",
                        c.head.span,
                        format!(
                            "the rule has {} variables, more than the {MAX_CLAUSE_VARIABLES} \
                             a rule may have",
                            vars.len()
                        ),
                    )
                    .with_label("the head of this rule")
                    .with_note("split the rule: a relation of its own can join part of the body"),
                );
            }
        }
    }

    /// Stratified negation, the recursion restriction and the forbidden
    /// keyword dependencies, all read off the dependency graph.
    fn dependencies(&mut self) {
        // A `next` in a body is reported already; left in, it would make every
        // `next` rule look recursive and repeat the error in other words.
        let is_next =
            |l: &NLit| matches!(l, NLit::Pos(s) | NLit::Neg(s) if self.name(s.name) == "next");
        let clauses: Cow<'a, [Clause]> = if self.clauses.iter().any(|c| c.body.iter().any(is_next))
        {
            let mut owned = self.clauses.to_vec();
            owned
                .iter_mut()
                .for_each(|c| c.body.retain(|l| !is_next(l)));
            Cow::Owned(owned)
        } else {
            Cow::Borrowed(self.clauses)
        };
        let graph = DepGraph::new(&clauses);
        let (comp_of, comps) = graph.components();
        let mut uses: Vec<Vec<usize>> = vec![Vec::new(); graph.relations.len()];
        for (i, e) in graph.edges.iter().enumerate() {
            uses[e.head].push(i);
        }
        self.negation_cycles(&graph, &comp_of, &uses);
        self.recursion_restriction(&clauses, &graph, &comp_of, &comps);
        self.keyword_dependencies(&graph, &uses);
    }

    /// No relation depends on itself through `not`: a negative edge within
    /// one strongly connected component.
    fn negation_cycles(&mut self, graph: &DepGraph, comp_of: &[usize], uses: &[Vec<usize>]) {
        let mut reported: FxHashSet<(u32, u32)> = FxHashSet::default();
        // Per component: how many `not`s were reported, the last report's
        // place in `self.out`, and how many more were left out.
        let mut per_component: FxHashMap<usize, (usize, usize, usize)> = FxHashMap::default();
        for e in &graph.edges {
            if !e.negative || comp_of[e.head] != comp_of[e.body] {
                continue;
            }
            if !reported.insert((e.span.start, e.span.end)) {
                continue;
            }
            let counts = per_component.entry(comp_of[e.head]).or_insert((0, 0, 0));
            if counts.0 == MAX_CYCLE_REPORTS {
                counts.2 += 1;
                continue;
            }
            counts.0 += 1;
            counts.1 = self.out.len();
            let head = self.shown(graph.name(e.head));
            let body = self.shown(graph.name(e.body));
            let path = shortest_path(
                graph,
                uses,
                e.body,
                |r| r == e.head,
                |r| comp_of[r] == comp_of[e.head],
            )
            .unwrap_or_default();
            let mut cycle = format!("{head} -> not {body}");
            for step in &path {
                cycle.push_str(" -> ");
                cycle.push_str(self.shown(graph.name(graph.edges[*step].body)));
            }
            let label = if e.head == e.body {
                format!("`{body}` is negated in a rule for `{head}` itself")
            } else {
                format!("`{body}` is negated here, but `{body}` depends on `{head}`")
            };
            let mut diag = Diagnostic::error(
                "negation-cycle",
                e.span,
                format!("relation `{head}` depends on itself through `not` ({cycle})"),
            )
            .with_label(label);
            for &step in &path {
                let s = &graph.edges[step];
                diag = diag.with_secondary(
                    s.span,
                    format!(
                        "`{}` uses `{}` here",
                        self.shown(graph.name(s.head)),
                        self.shown(graph.name(s.body))
                    ),
                );
            }
            let needs = if e.head == e.body {
                "is defined by this very rule".to_string()
            } else {
                format!("depends on `{head}`")
            };
            diag = diag.with_note(format!(
                "negation cannot be part of a cycle (stratified negation): `{body}` must be \
                 complete before its `not` is judged, but `{body}` {needs}"
            ));
            self.out.push(diag);
        }
        for (_, last, more) in per_component.into_values() {
            if more > 0 {
                self.out[last].notes.push(format!(
                    "{more} more `not`s inside the same cycle are not reported one by one"
                ));
            }
        }
    }

    /// In a recursive rule, each argument of a recursive positive body
    /// literal is ground, or a variable that also occurs in the head or in a
    /// positive non-recursive body literal; else the allowance
    /// `unrestricted-recursion` (the engines' limits bound what it derives).
    fn recursion_restriction(
        &mut self,
        clauses: &[Clause],
        graph: &DepGraph,
        comp_of: &[usize],
        comps: &[Vec<usize>],
    ) {
        let relation = |s: Symbol| graph.relations.get_index_of(&s).expect("relation in graph");
        let mut reported: FxHashSet<(u32, u32)> = FxHashSet::default();
        // One error per rule and variable: where it is, in `self.out`.
        let mut by_variable: FxHashMap<(usize, Symbol), usize> = FxHashMap::default();
        for c in clauses {
            let h = comp_of[relation(c.head.name)];
            let recursive = |s: &Sentence| comp_of[relation(s.name)] == h;
            let mut allowed: FxHashSet<Symbol> = FxHashSet::default();
            c.head.for_each_var(&mut |v, _| {
                allowed.insert(v);
            });
            for lit in &c.body {
                if let NLit::Pos(s) = lit
                    && !recursive(s)
                {
                    s.for_each_var(&mut |v, _| {
                        allowed.insert(v);
                    });
                }
            }
            for lit in &c.body {
                let NLit::Pos(s) = lit else { continue };
                if !recursive(s) {
                    continue;
                }
                for arg in &s.args {
                    let fine = match arg {
                        Term::Var(v, _) => allowed.contains(v),
                        t => t.is_ground(),
                    };
                    let span = arg.span();
                    if fine || !reported.insert((span.start, span.end)) {
                        continue;
                    }
                    if let Term::Var(v, _) = arg {
                        if let Some(&i) = by_variable.get(&(c.rule, *v)) {
                            let again = format!("`{}` again", self.shown(*v));
                            self.out[i].secondary.push((span, again));
                            continue;
                        }
                        by_variable.insert((c.rule, *v), self.out.len());
                    }
                    let rel = self.shown(s.name);
                    let arg_text = self.text(arg);
                    let mut cycle: Vec<&str> = comps[h]
                        .iter()
                        .map(|&r| self.shown(graph.name(r)))
                        .collect();
                    cycle.sort_unstable_by_key(|n| n.to_ascii_lowercase());
                    let (message, label) = match arg {
                        Term::Var(..) => (
                            format!(
                                "recursion restriction: variable `{arg_text}` of the recursive \
                                 literal `{}` occurs neither in the head nor in a positive \
                                 non-recursive literal",
                                self.sentence_text(s)
                            ),
                            format!("`{arg_text}` is bound only through recursion"),
                        ),
                        _ => (
                            format!(
                                "recursion restriction: argument `{arg_text}` of the recursive \
                                 literal `{}` is neither ground nor a variable",
                                self.sentence_text(s)
                            ),
                            "a term with variables inside a recursive literal".to_string(),
                        ),
                    };
                    let through = if cycle.len() == 1 {
                        format!("`{rel}` is defined in terms of itself")
                    } else {
                        format!(
                            "`{rel}` is recursive, through {}",
                            cycle
                                .iter()
                                .map(|n| format!("`{n}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    };
                    self.out.push(
                        Diagnostic::warning("unrestricted-recursion", span, message)
                            .with_label(label)
                            .with_secondary(c.head.span, "the head of the recursive rule")
                            .with_note(format!(
                                "{through}; GDL wants each argument of a recursive literal \
                                 ground, or a variable that also occurs in the head or in a \
                                 positive literal that is not recursive, so that the recursion \
                                 stays finite"
                            ))
                            .with_note(
                                "ggp-base evaluates such rules as long as they end, and gdl \
                                 too: its limits on facts and term depth stop one that does not",
                            )
                            .with_note(ALLOWED_IN_PUBLISHED_GAMES),
                    );
                }
            }
        }
    }

    /// `init`, `legal`, `terminal`, `goal`, `base` and `input` do not depend
    /// on the keywords GDL forbids them.
    fn keyword_dependencies(&mut self, graph: &DepGraph, uses: &[Vec<usize>]) {
        let index = |name: &str| {
            self.d
                .symbols
                .get(name)
                .and_then(|s| graph.relations.get_index_of(&s))
        };
        for (source, targets, why) in FORBIDDEN_DEPENDENCIES {
            let Some(from) = index(source) else { continue };
            for target in targets {
                let Some(to) = index(target) else { continue };
                let Some(path) = shortest_path(graph, uses, from, |r| r == to, |_| true) else {
                    continue;
                };
                let edges: Vec<&Edge> = path.iter().map(|&i| &graph.edges[i]).collect();
                let mut chain = source.to_string();
                for e in &edges {
                    chain.push_str(" -> ");
                    chain.push_str(self.shown(graph.name(e.body)));
                }
                let first = edges[0];
                let label = if edges.len() == 1 {
                    format!("`{target}` used in a rule for `{source}`")
                } else {
                    format!(
                        "`{source}` uses `{}` here, which depends on `{target}`",
                        self.shown(graph.name(first.body))
                    )
                };
                let message = if edges.len() == 1 {
                    format!("`{source}` depends on `{target}`")
                } else {
                    format!("`{source}` depends on `{target}` ({chain})")
                };
                // `base` and `input` are lists for tools, which play never
                // reads (nor does ggp-base's): an allowance, and the lists
                // are then not given.
                let dynamic = matches!(source, "base" | "input");
                let mut diag = if dynamic {
                    Diagnostic::warning("dynamic-base-input", first.span, message)
                } else {
                    Diagnostic::error("keyword-dependency", first.span, message)
                }
                .with_label(label);
                for e in &edges[1..] {
                    diag = diag.with_secondary(
                        e.span,
                        format!(
                            "`{}` uses `{}` here",
                            self.shown(graph.name(e.head)),
                            self.shown(graph.name(e.body))
                        ),
                    );
                }
                diag = diag.with_note(why);
                if *target == "does"
                    && let Some(note) = self.read_with_the_moves(graph, uses)
                {
                    diag = diag.with_note(note);
                }
                if dynamic {
                    diag = diag
                        .with_note(format!(
                            "play never reads `{source}`, so the game plays as written, but \
                             it lists no `{source}`"
                        ))
                        .with_note(ALLOWED_IN_PUBLISHED_GAMES);
                }
                self.out.push(diag);
            }
        }
    }

    /// Why `legal`, `terminal` and `goal` are not read before the moves
    /// (the allowance `does-before-moves`, see `before_moves`) when one of
    /// them that depends on `does` is read by `next`, which sees the moves;
    /// `None` when none is.
    fn read_with_the_moves(&self, graph: &DepGraph, uses: &[Vec<usize>]) -> Option<String> {
        let index =
            |name: &str| (self.d.symbols.get(name)).and_then(|s| graph.relations.get_index_of(&s));
        let does = index("does")?;
        let next = index("next")?;
        let depends = graph.depends_on(&[does]);
        let keywords: Vec<usize> = (["legal", "terminal", "goal"].into_iter())
            .filter_map(index)
            .filter(|&k| depends[k][0])
            .collect();
        let path = shortest_path(graph, uses, next, |r| keywords.contains(&r), |_| true)?;
        let mut chain = "next".to_string();
        for &e in &path {
            chain.push_str(" -> ");
            chain.push_str(self.shown(graph.name(graph.edges[e].body)));
        }
        let keyword = self.shown(graph.name(graph.edges[*path.last()?].body));
        Some(format!(
            "ggp-base asks `legal`, `terminal` and `goal` of the state alone, where `does` \
             holds for nothing, and gdl reads them so (`does-before-moves`), but not here: \
             `next` reads `{keyword}` ({chain}) with the moves, and sees them"
        ))
    }

    /// Warnings: no `base`/`input`; relations used but never defined;
    /// relations defined but never used.
    fn usage(&mut self) {
        let d = self.d;
        let mut heads: Vec<(Symbol, Span)> = Vec::new();
        let mut head_set: FxHashSet<Symbol> = FxHashSet::default();
        let mut body_uses: Vec<(Symbol, Span)> = Vec::new();
        let mut body_count: FxHashMap<Symbol, usize> = FxHashMap::default();
        for rule in &d.rules {
            Self::for_each_sentence(rule, &mut |s, place| match place {
                Place::Head => {
                    if head_set.insert(s.name) {
                        heads.push((s.name, s.name_span));
                    }
                }
                Place::Body => {
                    let n = body_count.entry(s.name).or_insert(0);
                    if *n == 0 {
                        body_uses.push((s.name, s.name_span));
                    }
                    *n += 1;
                }
            });
        }
        for &(s, span) in &body_uses {
            if head_set.contains(&s) || has_fixed_meaning(self.name(s)) {
                continue;
            }
            let name = self.shown(s);
            let n = body_count[&s];
            let mut w = Diagnostic::warning(
                "undefined-relation",
                span,
                format!("relation `{name}` is used but no rule or fact defines it"),
            )
            .with_label(format!("`{name}` never holds"));
            if n > 1 {
                w = w.with_note(format!("it is used {n} times; this is the first"));
            }
            let defined = heads.iter().map(|&(h, _)| self.shown(h));
            w = w.with_note(
                "a literal of it never holds (and its `not` always does); is the name misspelt?",
            );
            if let Some(other) = closest(name, defined.chain(KEYWORDS.iter().map(|k| k.name))) {
                w = w.with_suggestion(span, name, other, "");
            }
            self.out.push(w);
        }
        for &(s, span) in &heads {
            if body_count.contains_key(&s) || has_fixed_meaning(self.name(s)) {
                continue;
            }
            let name = self.shown(s);
            let mut w = Diagnostic::warning(
                "unused-relation",
                span,
                format!("relation `{name}` is defined but never used"),
            )
            .with_label("no rule body uses it")
            .with_note("it is not a GDL keyword, so nothing reads it; is the name misspelt?");
            // A keyword, the rule arrow, or a name used but defined nowhere
            // (not one defined and used: that is a relation of its own).
            let undefined = (body_uses.iter())
                .filter(|(b, _)| !head_set.contains(b) && !has_fixed_meaning(self.name(*b)))
                .map(|&(b, _)| self.shown(b));
            let keywords = KEYWORDS.iter().map(|k| k.name).chain(["<="]);
            if let Some(other) = closest(name, keywords.clone()) {
                w = w.with_suggestion(span, name, other, "");
            } else if let Some(other) = closest(name, undefined) {
                w = w.with_suggestion(span, name, other, " It is used, but defined nowhere");
            }
            self.out.push(w);
        }
        let missing: Vec<&str> = ["base", "input"]
            .into_iter()
            .filter(|k| d.symbols.get(k).is_none_or(|s| !head_set.contains(&s)))
            .collect();
        if !missing.is_empty() {
            let list = missing
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(" or ");
            self.out.push(
                Diagnostic::warning(
                    "no-base-input",
                    Span::new(0, 0),
                    format!("the file declares no {list}"),
                )
                .with_label("in this file")
                .with_note(
                    "they are optional, but with `(base fact)` and `(input role move)` tools \
                     can list every fact a state may hold and every move a role may make",
                ),
            );
        }
    }
}

/// True for the names GDL gives a meaning to (keywords, body operators and
/// GDL-II's `sees`): they have fixed arities and need no definition or use.
fn has_fixed_meaning(name: &str) -> bool {
    keyword_named(name).is_some() || OPERATORS.iter().any(|(r, _)| *r == name) || name == "sees"
}

/// Calls `note` with the name, arity and place of every function term
/// inside `t`.
fn term_arities(t: &Term, note: &mut impl FnMut(Symbol, usize, Span)) {
    if let Term::Func(f, args, span) = t {
        note(*f, args.len(), *span);
        args.iter().for_each(|a| term_arities(a, note));
    }
}

/// Calls `note` on the function terms inside the `distinct` literals of `l`.
fn distinct_arities(l: &Literal, note: &mut impl FnMut(Symbol, usize, Span)) {
    match l {
        Literal::Pos(_) => {}
        Literal::Not(inner, _) => distinct_arities(inner, note),
        Literal::Distinct(a, b, _) => {
            term_arities(a, note);
            term_arities(b, note);
        }
        Literal::Or(ls, _) => ls.iter().for_each(|l| distinct_arities(l, note)),
    }
}

/// "1", "1 and 3", "1, 3 and 5".
pub(super) fn list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// "no arguments", "1 argument", "3 arguments".
pub(super) fn arguments(n: usize) -> String {
    match n {
        0 => "no arguments".to_string(),
        1 => "1 argument".to_string(),
        n => format!("{n} arguments"),
    }
}

/// The variables a literal binds whatever way it holds (for `or`: those of
/// every alternative), under `positive` (false below an odd number of `not`).
fn binds(l: &Literal, positive: bool) -> FxHashSet<Symbol> {
    let mut out = FxHashSet::default();
    match l {
        Literal::Pos(s) if positive => s.for_each_var(&mut |v, _| {
            out.insert(v);
        }),
        Literal::Pos(_) | Literal::Distinct(..) => {}
        Literal::Not(inner, _) => out = binds(inner, !positive),
        // (or a b) binds what both bind; (not (or a b)) is (and (not a) (not b)).
        Literal::Or(ls, _) if positive => {
            let mut sets = ls.iter().map(|l| binds(l, true));
            out = sets.next().unwrap_or_default();
            for s in sets {
                out.retain(|v| s.contains(v));
            }
        }
        Literal::Or(ls, _) => ls.iter().for_each(|l| out.extend(binds(l, false))),
    }
    out
}

/// True when `v` occurs in a positive sentence of `l` without `l` binding it
/// in every alternative: an `or` that binds `v` only in part.
fn binds_in_part(l: &Literal, v: Symbol) -> bool {
    let mut occurs = false;
    l.for_each_sentence(true, &mut |s, positive| {
        if positive {
            s.for_each_var(&mut |w, _| occurs |= w == v);
        }
    });
    occurs && !binds(l, true).contains(&v)
}

/// The shortest chain of edges (as indices into `graph.edges`) from relation
/// `from` to a relation satisfying `goal`, through relations satisfying
/// `within`. `None` when there is none.
pub(super) fn shortest_path(
    graph: &DepGraph,
    uses: &[Vec<usize>],
    from: usize,
    goal: impl Fn(usize) -> bool,
    within: impl Fn(usize) -> bool,
) -> Option<Vec<usize>> {
    if goal(from) {
        return Some(Vec::new());
    }
    let mut came_by: Vec<Option<usize>> = vec![None; graph.relations.len()];
    let mut seen = vec![false; graph.relations.len()];
    seen[from] = true;
    let mut queue = VecDeque::from([from]);
    while let Some(r) = queue.pop_front() {
        for &i in &uses[r] {
            let next = graph.edges[i].body;
            if seen[next] || !within(next) {
                continue;
            }
            seen[next] = true;
            came_by[next] = Some(i);
            if goal(next) {
                let mut path = vec![i];
                let mut at = r;
                while at != from {
                    let e = came_by[at].expect("every reached relation has an edge");
                    path.push(e);
                    at = graph.edges[e].head;
                }
                path.reverse();
                return Some(path);
            }
            queue.push_back(next);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::kif::parse;

    /// A minimal valid game.
    const GAME: &str = "(role you) (base (count 0)) (input you go) (init (count 0)) \
                        (legal you go) (<= (next (count 0)) (does you go)) \
                        (<= terminal (true (count 0))) (goal you 100)\n";

    /// `check` on its own (as the loader calls it) finds what `check_source`
    /// does, and the minimal game is clean.
    #[test]
    fn check_agrees_with_check_source() {
        // `p`'s question leaves `?x` unbound and `distinct` reads it again.
        let text = format!(
            "{GAME}(<= (p ?x) (not (q ?x)))\n(q 1)\n(<= terminal (p ?y) (distinct ?y 2))\n"
        );
        let file = SourceFile::new("t.gdl", text.as_str());
        let d = parse(&file, DEFAULT_MAX_NESTING).unwrap();
        let clauses = crate::syntax::normal::normalize(&d).unwrap();
        let direct = check(&d, &clauses);
        assert_eq!(direct, check_source("t.gdl", &text).1);
        let codes: Vec<&str> = direct.iter().map(|d| d.code).collect();
        assert_eq!(codes, ["unsafe-variable"]);
        assert!(check_source("t.gdl", GAME).1.is_empty());
    }

    /// The variables bound by the only body literal of the only rule of `text`.
    fn bound_by(text: &str) -> Vec<String> {
        let d = parse(&SourceFile::new("t", text), DEFAULT_MAX_NESTING).unwrap();
        let mut names: Vec<String> = binds(&d.rules[0].body[0], true)
            .into_iter()
            .map(|v| d.symbols.name(v).to_string())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn binds_follows_or_and_not() {
        assert_eq!(bound_by("(<= h (p ?x ?y))"), ["?x", "?y"]);
        assert_eq!(bound_by("(<= h (not (p ?x)))"), Vec::<String>::new());
        assert_eq!(bound_by("(<= h (or (p ?x ?y) (q ?x)))"), ["?x"]);
        assert_eq!(bound_by("(<= h (not (or (not (p ?x)) (q ?y))))"), ["?x"]);
        assert_eq!(bound_by("(<= h (not (not (or (p ?x) (q ?x)))))"), ["?x"]);
        assert_eq!(bound_by("(<= h (distinct ?x ?y))"), Vec::<String>::new());
    }
}
