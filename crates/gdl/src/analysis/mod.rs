//! From rules to checked rules: the dependency graph of the relations, its
//! strata, and the checks of GDL's restrictions.

pub(crate) mod check;
pub(crate) mod graph;
mod reach;
mod split;
mod suggest;

use crate::error::Diagnostic;
use crate::syntax::ast::Description;
use crate::syntax::normal::Clause;

/// The analysis of a parsed file in normal form: relations that depend on
/// themselves through `not` only across constants are split by them (see
/// `split`), then every restriction of GDL is checked. Returns the clauses
/// to plan and every diagnostic, sorted by position.
pub(crate) fn analyse(d: &mut Description, clauses: Vec<Clause>) -> (Vec<Clause>, Vec<Diagnostic>) {
    let (clauses, mut diagnostics) = split::split_by_constants(d, clauses);
    diagnostics.extend(check::check(d, &clauses));
    if !diagnostics.iter().any(Diagnostic::is_error) {
        diagnostics.extend(reach::never_holding(d, &clauses));
    }
    diagnostics.sort_by_key(|d| (d.span.start, d.span.end, std::cmp::Reverse(d.severity)));
    (clauses, diagnostics)
}
