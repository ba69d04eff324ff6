//! The ground rules of a game that grounds, and the atoms each query reads.

use crate::engine::ground::Grounded;
use crate::engine::interp::Store;
use crate::plan::{Phase, Program, RelId};
use crate::syntax::term::TermId;
use rustc_hash::FxHashMap;

/// The ground program and, for each query, the atoms to read.
#[derive(Debug)]
pub(super) struct GroundTables {
    pub(super) program: Grounded,
    /// Per role: each legal move's atom.
    pub(super) legal: Vec<Vec<(u32, TermId)>>,
    /// The atom of each (role index, move).
    pub(super) legal_atom: FxHashMap<(usize, TermId), u32>,
    /// Per role: each goal value's atom.
    pub(super) goal: Vec<Vec<(u32, TermId)>>,
    pub(super) terminal: Option<u32>,
    pub(super) next: Vec<(u32, TermId)>,
}

impl GroundTables {
    pub(super) fn new(
        program: Grounded,
        p: &Program,
        static_facts: &Store,
        roles: &[TermId],
    ) -> GroundTables {
        let kw = p.keywords;
        // A keyword relation's facts with their atoms; static facts hold in
        // every state, so they all get the always-true atom.
        let facts = |rel: RelId| -> Vec<(u32, Vec<TermId>)> {
            if p.info(rel).phase == Phase::Static {
                let always = program.always();
                static_facts
                    .relation(rel)
                    .rows()
                    .map(|r| (always, r.to_vec()))
                    .collect()
            } else {
                program
                    .atoms_of(rel)
                    .map(|(a, r)| (a, r.to_vec()))
                    .collect()
            }
        };
        let per_role = |rel: RelId| -> Vec<Vec<(u32, TermId)>> {
            let all = facts(rel);
            roles
                .iter()
                .map(|&role| {
                    all.iter()
                        .filter(|(_, r)| r[0] == role)
                        .map(|(a, r)| (*a, r[1]))
                        .collect()
                })
                .collect()
        };
        let legal = per_role(kw.legal);
        let legal_atom = legal
            .iter()
            .enumerate()
            .flat_map(|(i, moves)| moves.iter().map(move |&(a, m)| ((i, m), a)))
            .collect();
        GroundTables {
            legal,
            legal_atom,
            goal: per_role(kw.goal),
            terminal: facts(kw.terminal).first().map(|(a, _)| *a),
            next: {
                // Sorted by fact, so the facts of a next state come out in
                // the order a `State` keeps them.
                let mut next: Vec<(u32, TermId)> =
                    facts(kw.next).into_iter().map(|(a, r)| (a, r[0])).collect();
                next.sort_unstable_by_key(|&(_, f)| f);
                next
            },
            program,
        }
    }
}
