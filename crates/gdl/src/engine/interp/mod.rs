//! The interpreter: bottom-up evaluation over fact stores with indexes
//! (`store`), rule bodies matched by joins (`join`), and the semi-naive
//! fixpoint of each stratum (`strata`).

mod join;
mod store;
mod strata;

pub(crate) use join::{Frame, Sink, join, lookup_tuple};
pub(crate) use store::{Relation, SizeHints, Store, Target};
pub(crate) use strata::{RunScratch, run_strata, run_strata_in};
