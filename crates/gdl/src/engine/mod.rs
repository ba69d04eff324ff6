//! From a program to models: the interpreter (`interp`: fact stores and
//! joins, stratum by stratum), the grounder (`ground`: the ground rules of
//! a game that grounds) and the incremental network over ground rules
//! (`incremental`: a model kept up to date as facts change).

pub(crate) mod ground;
pub(crate) mod incremental;
pub(crate) mod interp;
