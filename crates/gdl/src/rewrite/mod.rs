//! Checked rules to other rules that mean the same: the rewrites loading
//! may make before planning, each a file. `demand` derives a relation
//! only for the questions the rules ask of it (magic sets); `condense`
//! splits off the groups of a rule's literals that share no variable with
//! the rest, so that grounding instantiates them once. (The split of a
//! relation by constants belongs to the checks, in `analysis::split`:
//! stratification is judged after it.)

pub mod condense;
pub mod demand;
