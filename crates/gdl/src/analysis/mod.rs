//! From rules to checked rules: the dependency graph of the relations, its
//! strata, and the checks of GDL's restrictions.

pub(crate) mod check;
pub(crate) mod graph;
