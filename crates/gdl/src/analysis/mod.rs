//! From rules to checked rules: the dependency graph of the relations, its
//! strata, and the checks of GDL's restrictions; and the outline of a
//! file's names that an editor shows.

mod before_moves;
pub(crate) mod check;
pub(crate) mod graph;
mod loose;
mod never_fires;
pub(crate) mod outline;
mod reach;
mod split;
mod suggest;
mod words;

use crate::error::Diagnostic;
use crate::source::SourceFile;
use crate::syntax::ast::Description;
use crate::syntax::convert::diagnostic_in_infix;
use crate::syntax::normal::Clause;
use crate::syntax::{Syntax, kif, normal};

/// A rules file through the front end: parsed, in normal form, analysed.
pub(crate) struct Analysed {
    /// The file as parsed (its symbols and rules, with their places).
    pub description: Description,
    /// The clauses to plan.
    pub clauses: Vec<Clause>,
    /// Every warning, sorted by position (there is no error).
    pub warnings: Vec<Diagnostic>,
}

/// The front end of every door into a rules file (loading a game and
/// `check_source`): parse, the reference's reading of loose rules (see
/// `loose`), normal form, analysis. Every diagnostic of the
/// file, sorted, when one is an error.
pub(crate) fn front_end(
    file: &SourceFile,
    max_nesting: usize,
) -> Result<Analysed, Vec<Diagnostic>> {
    let mut description = kif::parse(file, max_nesting)?;
    let mut loose = words::drop_operator_facts(&mut description);
    loose.extend(loose::read_loosely(&mut description));
    let clauses =
        normal::normalize(&description).map_err(|e| in_its_words(description.syntax, e))?;
    let (clauses, diagnostics) = analyse(&mut description, clauses, loose);
    if diagnostics.iter().any(Diagnostic::is_error) {
        return Err(diagnostics);
    }
    Ok(Analysed {
        description,
        clauses,
        warnings: diagnostics,
    })
}

/// The analysis of a parsed file in normal form, whose loose parts were
/// given the reference's reading (`loose`: their warnings): variables that
/// only the reference's questions or `not` bind are given its reading (see
/// `loose`), relations that depend on themselves through `not` only across
/// constants are split by them (see `split`), rules that never apply are
/// dropped where they alone break a restriction (see `never_fires`),
/// `legal`, `terminal` and `goal` are read before the moves where they
/// depend on `does` (see `before_moves`), then every restriction of GDL is
/// checked. Returns the clauses to plan and every diagnostic,
/// sorted by position, in the words of the file's syntax.
fn analyse(
    d: &mut Description,
    clauses: Vec<Clause>,
    loose: Vec<Diagnostic>,
) -> (Vec<Clause>, Vec<Diagnostic>) {
    let (clauses, mut diagnostics) = loose::bind_loosely(d, clauses);
    let (clauses, by_callers) = loose::bind_by_callers(d, clauses);
    diagnostics.extend(by_callers);
    diagnostics.extend(loose);
    diagnostics.extend(words::unusual_words(d));
    let (clauses, split) = split::split_by_constants(d, clauses);
    diagnostics.extend(split);
    let (clauses, dropped) = never_fires::drop_never_firing(d, clauses);
    diagnostics.extend(dropped);
    let (clauses, before_moves) = before_moves::read_before_moves(d, clauses);
    diagnostics.extend(before_moves);
    diagnostics.extend(check::check(d, &clauses));
    // Given beside errors too: a misspelt name is often what the errors
    // are about, and hiding it until they are fixed cost a round trip.
    diagnostics.extend(reach::never_holding(d, &clauses));
    sort(&mut diagnostics);
    (clauses, in_its_words(d.syntax, diagnostics))
}

/// The diagnostics of the analysis in the words of the file's syntax: it
/// quotes rules in KIF, written again in infix for an infix file (the
/// reader's own errors already speak the file's syntax).
fn in_its_words(syntax: Syntax, diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    match syntax {
        Syntax::Infix => diagnostics.into_iter().map(diagnostic_in_infix).collect(),
        Syntax::Kif => diagnostics,
    }
}

/// Sorts diagnostics by position, an error before a warning at the same.
fn sort(diagnostics: &mut [Diagnostic]) {
    diagnostics.sort_by_key(|d| (d.span.start, d.span.end, std::cmp::Reverse(d.severity)));
}
