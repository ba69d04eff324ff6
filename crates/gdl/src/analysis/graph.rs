//! The dependency graph of relations and its strongly connected components,
//! which give both the stratification check and the evaluation order.

use crate::source::Span;
use crate::syntax::normal::{Clause, NLit};
use crate::syntax::symbol::{Symbol, Symbols};
use indexmap::IndexMap;

/// One dependency: the head relation of a clause uses a body relation.
#[derive(Clone, Copy, Debug)]
pub struct Edge {
    /// The relation defined (index into `DepGraph::relations`).
    pub head: usize,
    /// The relation used.
    pub body: usize,
    /// Used under `not`.
    pub negative: bool,
    /// Where the body literal is written.
    pub span: Span,
}

/// Which relation uses which, over every clause.
#[derive(Clone, Debug, Default)]
pub struct DepGraph {
    /// Every relation named in a head or a body, in order of first mention.
    pub relations: IndexMap<Symbol, ()>,
    /// One edge per body sentence of each clause.
    pub edges: Vec<Edge>,
}

impl DepGraph {
    /// Builds the graph of the given clauses.
    pub fn new(clauses: &[Clause]) -> DepGraph {
        let mut g = DepGraph::default();
        for c in clauses {
            let head = g.index(c.head.name);
            for lit in &c.body {
                let (s, negative) = match lit {
                    NLit::Pos(s) => (s, false),
                    NLit::Neg(s) => (s, true),
                    NLit::Distinct(..) | NLit::Same(..) => continue,
                };
                let body = g.index(s.name);
                g.edges.push(Edge {
                    head,
                    body,
                    negative,
                    span: s.span,
                });
            }
        }
        g
    }

    /// The index of a relation, adding it if new.
    pub fn index(&mut self, name: Symbol) -> usize {
        self.relations.insert_full(name, ()).0
    }

    /// The relation at an index.
    pub fn name(&self, i: usize) -> Symbol {
        *self.relations.get_index(i).expect("relation index").0
    }

    /// Strongly connected components in dependency order: every component
    /// comes after the components it uses. Returns, for each relation, its
    /// component number, and the components' members.
    pub fn components(&self) -> (Vec<usize>, Vec<Vec<usize>>) {
        let n = self.relations.len();
        let mut uses: Vec<Vec<usize>> = vec![Vec::new(); n];
        for e in &self.edges {
            uses[e.head].push(e.body);
        }
        tarjan(&uses)
    }

    /// For each relation, whether it depends (through any number of rules)
    /// on each of the given relations. `reach[r][k]`: r depends on targets[k].
    pub fn depends_on(&self, targets: &[usize]) -> Vec<Vec<bool>> {
        let n = self.relations.len();
        let mut used_by: Vec<Vec<usize>> = vec![Vec::new(); n];
        for e in &self.edges {
            used_by[e.body].push(e.head);
        }
        let mut reach = vec![vec![false; targets.len()]; n];
        for (k, &t) in targets.iter().enumerate() {
            let mut stack = vec![t];
            while let Some(r) = stack.pop() {
                for &h in &used_by[r] {
                    if !reach[h][k] {
                        reach[h][k] = true;
                        stack.push(h);
                    }
                }
            }
        }
        reach
    }

    /// [`DepGraph::depends_on`] the relations named `names` (those of them
    /// the rules know): their indexes, and for each relation which of
    /// them it depends on.
    pub fn depends_on_named(
        &mut self,
        names: &[&str],
        symbols: &Symbols,
    ) -> (Vec<usize>, Vec<Vec<bool>>) {
        let targets: Vec<usize> = (names.iter())
            .filter_map(|k| symbols.get(k))
            .map(|k| self.index(k))
            .collect();
        let reach = self.depends_on(&targets);
        (targets, reach)
    }
}

/// Tarjan's algorithm, iterative (no recursion, any graph size). Components
/// come out in reverse topological order of `succ`, which for "uses" edges
/// is dependencies first.
fn tarjan(succ: &[Vec<usize>]) -> (Vec<usize>, Vec<Vec<usize>>) {
    let n = succ.len();
    const NONE: usize = usize::MAX;
    let mut index = vec![NONE; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut comp_of = vec![NONE; n];
    let mut comps: Vec<Vec<usize>> = Vec::new();
    let mut next = 0;
    for root in 0..n {
        if index[root] != NONE {
            continue;
        }
        // Frames: (node, next successor position).
        let mut frames = vec![(root, 0usize)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut pos)) = frames.last_mut() {
            if *pos < succ[v].len() {
                let w = succ[v][*pos];
                *pos += 1;
                if index[w] == NONE {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    frames.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                frames.pop();
                if let Some(&(parent, _)) = frames.last() {
                    low[parent] = low[parent].min(low[v]);
                }
                if low[v] == index[v] {
                    let mut comp = Vec::new();
                    loop {
                        let w = stack.pop().expect("tarjan stack");
                        on_stack[w] = false;
                        comp_of[w] = comps.len();
                        comp.push(w);
                        if w == v {
                            break;
                        }
                    }
                    comp.reverse();
                    comps.push(comp);
                }
            }
        }
    }
    (comp_of, comps)
}

#[cfg(test)]
mod tests {
    use super::tarjan;

    #[test]
    fn components_come_dependencies_first() {
        // 0 uses 1, 1 uses 2 and 0 (cycle 0-1), 2 uses nothing.
        let (of, comps) = tarjan(&[vec![1], vec![2, 0], vec![]]);
        assert_eq!(comps, vec![vec![2], vec![0, 1]]);
        assert_eq!(of, vec![1, 1, 0]);
    }
}
