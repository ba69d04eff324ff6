//! `legal`, `terminal` and `goal` read before the moves, as ggp-base reads
//! them: the allowance `does-before-moves`.
//!
//! GDL forbids these keywords to depend on `does`: they are judged in a
//! state, before any move is chosen. Published games break it through
//! helper relations that `next` uses too, as firesheep's `terminal ->
//! sheep_stopped -> ... -> alive -> killed -> does`, or rockdrop's `goal
//! -> collision -> does`. ggp-base's prover asks `legal`, `terminal` and
//! `goal` of the state alone, so `does` holds for nothing there, while
//! `next` is asked with the moves, and the same helper relations then see
//! them. gdl reads the rules the same way: each relation between one of
//! these keywords and `does` gets a copy, read by the keywords, in which
//! `does` holds for nothing, while `next` reads the relation itself:
//!
//! ```text
//! r~before-moves(args) :- body'.   each rule of r, where r is asked by legal,
//!                                  terminal or goal and depends on does
//! k(args) :- body'.                each rule of such a keyword k, in place
//! ```
//!
//! where `body'` is the body with each such relation renamed to its copy,
//! a `(not (does ...))` left out (it holds) and the whole rule left out
//! when it has a positive `(does ...)` (it never applies). The copies
//! depend on `does` no more, and they stratify as the relations they copy
//! do (a cycle among copies is a cycle among the originals).
//!
//! The reading is not the reference's, and the file stays refused
//! (`keyword-dependency`), when a rule of `next` reads one of these
//! keywords that depends on `does` (through any number of rules): there
//! ggp-base would see the moves, and one relation cannot be read both
//! ways.

use crate::analysis::check::{ALLOWED_IN_PUBLISHED_GAMES, shortest_path};
use crate::analysis::graph::DepGraph;
use crate::error::Diagnostic;
use crate::syntax::ast::{Description, Sentence};
use crate::syntax::keywords::keyword_named;
use crate::syntax::normal::{Clause, NLit};
use crate::syntax::symbol::Symbol;
use rustc_hash::FxHashMap;

/// The keywords judged before the moves are chosen.
const BEFORE_MOVES: [&str; 3] = ["legal", "terminal", "goal"];

/// The suffix of the name of a relation's copy read before the moves.
const SUFFIX: &str = "~before-moves";

/// The clauses with `legal`, `terminal` and `goal` read before the moves
/// (see the module's comment), and the warning of each such keyword that
/// depends on `does`; the clauses unchanged, and no warning, when none
/// does or when the reading is not the reference's.
pub(crate) fn read_before_moves(
    d: &mut Description,
    clauses: Vec<Clause>,
) -> (Vec<Clause>, Vec<Diagnostic>) {
    let mut graph = DepGraph::new(&clauses);
    let (does, depends) = graph.depends_on_named(&["does"], &d.symbols);
    if does.is_empty() {
        return (clauses, Vec::new());
    }
    let reads_does = |r: usize| depends[r][0];
    let index = |graph: &DepGraph, name: &str| {
        (d.symbols.get(name)).and_then(|s| graph.relations.get_index_of(&s))
    };
    let keywords: Vec<usize> = (BEFORE_MOVES.iter())
        .filter_map(|k| index(&graph, k))
        .filter(|&k| reads_does(k))
        .collect();
    if keywords.is_empty() {
        return (clauses, Vec::new());
    }
    let mut uses: Vec<Vec<usize>> = vec![Vec::new(); graph.relations.len()];
    for (i, e) in graph.edges.iter().enumerate() {
        uses[e.head].push(i);
    }
    // after_moves(r) :- r is next.   after_moves(r) :- after_moves(h), h uses r.
    let after_moves = reachable(&graph, &uses, index(&graph, "next").into_iter().collect());
    // before_moves(k) :- k is a keyword above.   before_moves(r) :- before_moves(h), h uses r.
    let before_moves = reachable(&graph, &uses, keywords.clone());
    // copied(r) :- before_moves(r), r depends on does, r is no keyword.
    let mut copied: Vec<usize> = Vec::new();
    for r in (0..graph.relations.len()).filter(|&r| before_moves[r] && reads_does(r)) {
        let name = d.symbols.name(graph.name(r));
        if keywords.contains(&r) || r == does[0] {
            continue;
        }
        if keyword_named(name).is_some() {
            return (clauses, Vec::new()); // another keyword's error says why
        }
        copied.push(r);
    }
    if keywords.iter().any(|&k| after_moves[k]) {
        return (clauses, Vec::new()); // see `check`'s note on the error
    }
    let warnings: Vec<Diagnostic> = (keywords.iter())
        .map(|&k| {
            let path = shortest_path(&graph, &uses, k, |r| r == does[0], |_| true)
                .expect("a keyword that depends on `does` has a path to it");
            warning(d, &graph, &path)
        })
        .collect();
    let copy_of: FxHashMap<Symbol, Symbol> = (copied.iter())
        .map(|&r| {
            let name = graph.name(r);
            (name, fresh(d, name))
        })
        .collect();
    let does = graph.name(does[0]);
    let keywords: Vec<Symbol> = keywords.iter().map(|&k| graph.name(k)).collect();
    let mut out = Vec::with_capacity(clauses.len() + copy_of.len());
    for c in clauses {
        if keywords.contains(&c.head.name) {
            out.extend(before_the_moves(&c, does, &copy_of));
            continue;
        }
        let copy = (copy_of.get(&c.head.name))
            .and_then(|&name| Some((name, before_the_moves(&c, does, &copy_of)?)));
        out.push(c);
        if let Some((name, mut copy)) = copy {
            copy.head.name = name;
            out.push(copy);
        }
    }
    (out, warnings)
}

/// A clause as read before the moves: each relation of `copy_of` renamed
/// to its copy, and `(not (does ...))` left out (it holds); `None` when a
/// `(does ...)` is positive (the clause never applies).
fn before_the_moves(
    c: &Clause,
    does: Symbol,
    copy_of: &FxHashMap<Symbol, Symbol>,
) -> Option<Clause> {
    let renamed = |s: &Sentence| Sentence {
        name: copy_of.get(&s.name).copied().unwrap_or(s.name),
        ..s.clone()
    };
    let mut body = Vec::with_capacity(c.body.len());
    for l in &c.body {
        match l {
            NLit::Pos(s) if s.name == does => return None,
            NLit::Neg(s) if s.name == does => {}
            NLit::Pos(s) => body.push(NLit::Pos(renamed(s))),
            NLit::Neg(s) => body.push(NLit::Neg(renamed(s))),
            NLit::Distinct(..) | NLit::Same(..) => body.push(l.clone()),
        }
    }
    Some(Clause { body, ..c.clone() })
}

/// For each relation, whether one of `starts` uses it through any number
/// of rules (the starts included).
fn reachable(graph: &DepGraph, uses: &[Vec<usize>], starts: Vec<usize>) -> Vec<bool> {
    let mut seen = vec![false; graph.relations.len()];
    let mut stack = starts;
    while let Some(r) = stack.pop() {
        if !seen[r] {
            seen[r] = true;
            stack.extend(uses[r].iter().map(|&e| graph.edges[e].body));
        }
    }
    seen
}

/// A name no symbol has yet for the copy of `r` read before the moves:
/// `r~before-moves`, primes added until it is new.
fn fresh(d: &mut Description, r: Symbol) -> Symbol {
    let mut name = format!("{}{SUFFIX}", d.symbols.spelling(r));
    while d.symbols.get(&name).is_some() {
        name.push('\'');
    }
    d.symbols.intern(&name)
}

/// The warning for a keyword that depends on `does` along `path` (edges
/// of `graph`, from the keyword to `does`), at its first edge.
fn warning(d: &Description, graph: &DepGraph, path: &[usize]) -> Diagnostic {
    let shown = |r: usize| d.symbols.spelling(graph.name(r));
    let first = &graph.edges[path[0]];
    let keyword = shown(first.head);
    let mut chain = keyword.to_string();
    for &e in path {
        chain.push_str(" -> ");
        chain.push_str(shown(graph.edges[e].body));
    }
    let label = match path {
        [_] => format!("`does` used in a rule for `{keyword}`"),
        _ => format!(
            "`{keyword}` uses `{}` here, which depends on `does`",
            shown(first.body)
        ),
    };
    let mut w = Diagnostic::warning(
        "does-before-moves",
        first.span,
        format!(
            "`{keyword}` depends on `does` ({chain}): it is read before the moves, where \
             `does` holds for nothing"
        ),
    )
    .with_label(label);
    for &e in &path[1..] {
        let e = &graph.edges[e];
        w = w.with_secondary(
            e.span,
            format!("`{}` uses `{}` here", shown(e.head), shown(e.body)),
        );
    }
    w.with_note(
        "GDL judges `legal`, `terminal` and `goal` in the current state, before any move is \
         chosen, so they cannot depend on `does`",
    )
    .with_note(
        "ggp-base asks them of the state alone, where `does` holds for nothing, and asks \
         `next` with the moves; so does gdl: for these keywords the relations between them \
         and `does` are read without the moves (a rule with a positive `does` never \
         applies, `(not (does ...))` holds), and for `next` with them",
    )
    .with_note(ALLOWED_IN_PUBLISHED_GAMES)
}

#[cfg(test)]
mod tests {
    use crate::analysis::check::check_source;
    use crate::syntax::normal::NLit;

    /// A game of one role whose `terminal` reads `moved`, which `next`
    /// reads too, with `more` added.
    fn game(more: &str) -> String {
        format!(
            "(role you) (base (c 1)) (base (c 2)) (input you go) (input you stay)
             (init (c 1)) (legal you go) (legal you stay)
             (<= (moved ?r) (does ?r go))
             (<= (next (c 2)) (moved you))
             (<= (next (c 1)) (true (c 1)) (not (moved you)))
             (<= still (true (c 1)) (not (moved you)))
             (<= terminal (true (c 2))) (<= terminal still (not (does you stay)))
             (goal you 100)
             {more}"
        )
    }

    fn codes(text: &str) -> Vec<&'static str> {
        let (_, diagnostics) = check_source("t.gdl", text);
        let mut codes: Vec<&str> = diagnostics.iter().map(|d| d.code).collect();
        codes.sort_unstable();
        codes
    }

    #[test]
    fn a_keyword_through_does_is_read_before_the_moves() {
        assert_eq!(codes(&game("")), ["does-before-moves"]);
    }

    #[test]
    fn the_copies_see_no_moves_and_next_sees_them() {
        let text = game("");
        let file = crate::source::SourceFile::new("t.gdl", text.as_str());
        let analysed =
            crate::analysis::front_end(&file, crate::limits::DEFAULT_MAX_NESTING).unwrap();
        let symbols = &analysed.description.symbols;
        let name = |s| symbols.name(s);
        // `moved` has no copy: its one rule reads `does`, and never applies.
        let heads: Vec<&str> = analysed.clauses.iter().map(|c| name(c.head.name)).collect();
        assert!(heads.contains(&"still~before-moves"), "{heads:?}");
        assert!(!heads.contains(&"moved~before-moves"), "{heads:?}");
        for c in &analysed.clauses {
            let reads: Vec<&str> = (c.body.iter())
                .filter_map(|l| match l {
                    NLit::Pos(s) | NLit::Neg(s) => Some(name(s.name)),
                    _ => None,
                })
                .collect();
            match name(c.head.name) {
                // `(not (does you stay))` holds before the moves.
                "terminal" => assert!(!reads.contains(&"does") && !reads.contains(&"still")),
                "still~before-moves" => assert_eq!(reads, ["true", "moved~before-moves"]),
                "next" | "still" => assert!(!reads.iter().any(|r| r.ends_with(super::SUFFIX))),
                _ => {}
            }
        }
    }

    #[test]
    fn a_keyword_next_reads_with_the_moves_stays_an_error() {
        let text = game("(<= (next (c 2)) terminal)");
        assert_eq!(codes(&text), ["keyword-dependency"]);
    }
}
