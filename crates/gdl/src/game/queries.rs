//! The queries of the game API: legal moves, terminal, goals, next states,
//! each on the model of its state, derived as far as the query needs.

use super::Game;
use super::ground::GroundTables;
use super::memo::{Facts, Model};
use super::rules::Rules;
use super::types::{Move, Role, State};
use crate::engine::ground::Values;
use crate::engine::interp::{Relation, Store, Target, run_strata_in};
use crate::error::GameError;
use crate::plan::{Keywords, Phase, RelId};
use crate::syntax::keywords::goal_value;
use crate::syntax::term::{TermId, TermTable};
use std::sync::Arc;

impl Game {
    /// Derives the strata `needed` for `state` (those not derived yet),
    /// leaving the state's model in the memo.
    fn model(&mut self, state: &State, needed: fn(&Rules) -> &[usize]) -> Result<(), GameError> {
        self.attached();
        let game_rules = &*self.rules;
        let terms = &self.terms;
        let model = self
            .memo
            .select(state, |spare| new_model(game_rules, state, terms, spare));
        let rules = game_rules.answering(model.written);
        // Most queries find their strata derived (legal after terminal).
        if needed(rules).iter().all(|&c| model.done[c]) {
            return Ok(());
        }
        // A caller walking through millions of new states grows the term
        // table with each (the interpreter interns every new fact), and a
        // derivation too small to look at the budget itself would never
        // stop it: it stops here, at the budget, not at the machine's end.
        if crate::memory::over(self.limits.max_memory) {
            return Err(GameError::Limit {
                kind: crate::limits::LimitKind::Memory,
                value: self.limits.max_memory,
                relation: "the model of a new state".into(),
            });
        }
        let todo = &mut self.todo;
        todo.clear();
        todo.extend(needed(rules).iter().copied().filter(|&c| !model.done[c]));
        match &mut model.facts {
            Facts::Values(g, values) => self.ground_work += g.program.run(todo, values),
            Facts::Store(facts) => run_strata_in(
                &mut self.run,
                &rules.program,
                todo,
                facts,
                Target::State {
                    static_: &rules.static_facts,
                },
                &mut self.terms,
                &self.symbols,
                &self.limits,
            )?,
        }
        todo.iter().for_each(|&c| model.done[c] = true);
        Ok(())
    }

    /// The model of `state` with the strata `needed` derived, as the
    /// queries read it.
    fn view(
        &mut self,
        state: &State,
        needed: fn(&Rules) -> &[usize],
    ) -> Result<View<'_>, GameError> {
        self.model(state, needed)?;
        let model = self.memo.in_use(state);
        Ok(View::of(self.rules.answering(model.written), model))
    }

    /// Whether `(legal role m)` holds in `state`.
    fn is_legal(&mut self, state: &State, role: usize, m: Move) -> Result<bool, GameError> {
        if let Some(s) = self.positioned(state) {
            return Ok(s.is_legal(role, m));
        }
        Ok(self.view(state, |r| &r.legal)?.is_legal(role, m))
    }

    /// The legal moves of `role` in `state`, in the order derived.
    pub fn legal_moves(&mut self, state: &State, role: Role) -> Result<Vec<Move>, GameError> {
        if let Some(s) = self.positioned(state) {
            return Ok(s.legal_moves(role.0 as usize));
        }
        Ok(self.view(state, |r| &r.legal)?.legal_moves(role.0 as usize))
    }

    /// Every combination of one legal move per role, in role order. A list
    /// that would not fit in the memory budget (26 roles of two moves
    /// each: 67 million joint moves) is a memory limit error, before any of
    /// it is built.
    pub fn joint_moves(&mut self, state: &State) -> Result<Vec<Vec<Move>>, GameError> {
        let mut each = Vec::new();
        for role in self.roles() {
            each.push(self.legal_moves(state, role)?);
        }
        let one = std::mem::size_of::<Vec<Move>>() + each.len() * std::mem::size_of::<Move>();
        let held = crate::memory::heap_bytes().unwrap_or(0);
        let fits = each
            .iter()
            .try_fold(1usize, |n, moves| n.checked_mul(moves.len()))
            .and_then(|n| n.checked_mul(one))
            .is_some_and(|bytes| held.saturating_add(bytes) <= self.limits.max_memory);
        if !fits {
            return Err(GameError::Limit {
                kind: crate::limits::LimitKind::Memory,
                value: self.limits.max_memory,
                relation: "joint moves".into(),
            });
        }
        // joint(r0..rk) = joint(r0..rk-1) x legal(rk)
        let mut joints: Vec<Vec<Move>> = vec![Vec::new()];
        for moves in each {
            joints = joints
                .iter()
                .flat_map(|j| {
                    moves.iter().map(move |&m| {
                        let mut j = j.clone();
                        j.push(m);
                        j
                    })
                })
                .collect();
        }
        Ok(joints)
    }

    /// Whether `state` is terminal.
    pub fn is_terminal(&mut self, state: &State) -> Result<bool, GameError> {
        if let Some(s) = self.positioned(state) {
            return Ok(s.is_terminal());
        }
        Ok(self.view(state, |r| &r.terminal)?.is_terminal())
    }

    /// Each role's goal value in `state`, in role order. Every role must
    /// have exactly one value, a whole number from 0 to 100.
    pub fn goals(&mut self, state: &State) -> Result<Vec<u8>, GameError> {
        // Missing, several or bad values: the model below says which.
        if let Some(goals) = self.positioned(state).and_then(|s| s.goals()) {
            return Ok(goals);
        }
        let roles = self.rules.roles.len();
        let values: Vec<Vec<TermId>> = {
            let view = self.view(state, |r| &r.goal)?;
            (0..roles).map(|role| view.goal_values(role)).collect()
        };
        let mut goals = Vec::with_capacity(roles);
        for (i, values) in values.into_iter().enumerate() {
            let name = self.rules.role_names[i].clone();
            match values.as_slice() {
                [] => return Err(GameError::NoGoal { role: name }),
                [v] => {
                    let text = self.terms.text(*v, &self.symbols);
                    match goal_value(&text) {
                        Some(n) => goals.push(n),
                        None => {
                            return Err(GameError::BadGoal {
                                role: name,
                                value: text,
                            });
                        }
                    }
                }
                several => {
                    let mut values: Vec<String> = several
                        .iter()
                        .map(|&v| self.terms.text(v, &self.symbols))
                        .collect();
                    values.sort();
                    return Err(GameError::SeveralGoals { role: name, values });
                }
            }
        }
        Ok(goals)
    }

    /// The state after every role plays its move of `joint` (in role order).
    /// Refuses moves that are not legal and terminal states.
    pub fn next_state(&mut self, state: &State, joint: &[Move]) -> Result<State, GameError> {
        let roles = self.rules.roles.len();
        if joint.len() != roles {
            return Err(GameError::WrongMoveCount {
                expected: roles,
                given: joint.len(),
            });
        }
        if self.is_terminal(state)? {
            return Err(GameError::Terminal);
        }
        for (i, &m) in joint.iter().enumerate() {
            if !self.is_legal(state, i, m)? {
                let legal = self
                    .legal_moves(state, Role(i as u32))?
                    .into_iter()
                    .map(|m| self.move_text(m))
                    .collect();
                return Err(GameError::IllegalMove {
                    role: self.rules.role_names[i].clone(),
                    played: self.move_text(m),
                    legal,
                });
            }
        }
        self.next_state_unchecked(state, joint)
    }

    /// The state after every role plays its move of `joint` (in role
    /// order), for a caller that has checked the joint move: one move per
    /// role, each legal in `state`, which is not terminal (a search that
    /// picked the moves from [`Game::legal_moves`]). Unchecked moves give
    /// a state the rules do not define, never undefined behaviour; one
    /// move too few or too many panics.
    pub fn next_state_unchecked(
        &mut self,
        state: &State,
        joint: &[Move],
    ) -> Result<State, GameError> {
        assert_eq!(joint.len(), self.rules.roles.len(), "one move per role");
        if let Some(s) = self.positioned(state)
            && s.play_moves(joint)
        {
            return Ok(s.state());
        }
        self.model(state, |r| &r.next_state)?;
        let model = self.memo.in_use(state);
        let rules = self.rules.answering(model.written);
        let p = &rules.program;
        let kw = p.keywords;
        // The joint move's facts: in the store kept for it, but for the
        // rules as written (a store of their relations, made anew).
        let mut written_moves = None;
        let next: Vec<TermId> = match &model.facts {
            Facts::Values(g, values) => {
                // Ground rules: the state's values plus the joint move's atoms.
                let scratch = &mut self.scratch;
                scratch.clone_from(values);
                for (i, m) in joint.iter().enumerate() {
                    if let Some(a) = g.program.atom(kw.does, &[rules.roles[i], m.0]) {
                        g.program.set(scratch, a);
                    }
                }
                self.ground_work += g.program.run(&rules.next_moves, scratch);
                g.next
                    .iter()
                    .filter(|(a, _)| scratch.truth[*a as usize])
                    .map(|&(_, f)| f)
                    .collect()
            }
            Facts::Store(facts) => {
                let moves = match model.written {
                    true => written_moves.insert(Store::new(p, &rules.sizes)),
                    false => &mut self.moves,
                };
                moves.reset(p);
                for (i, m) in joint.iter().enumerate() {
                    moves.insert(p, kw.does, &[rules.roles[i], m.0], &self.terms);
                }
                run_strata_in(
                    &mut self.run,
                    p,
                    &rules.next_moves,
                    moves,
                    Target::Move {
                        static_: &rules.static_facts,
                        state: facts,
                    },
                    &mut self.terms,
                    &self.symbols,
                    &self.limits,
                )?;
                let next = match p.info(kw.next).phase {
                    Phase::Move => moves.relation(kw.next),
                    _ => View::facts(rules, facts, kw.next),
                };
                next.rows().map(|r| r[0]).collect()
            }
        };
        Ok(State::from_terms(next))
    }
}

/// A state's model as the queries read it: the truth values of the ground
/// rules' atoms, or the interpreter's facts.
enum View<'a> {
    Ground(&'a GroundTables, &'a Values),
    Interpreted(&'a Rules, &'a Store),
}

impl<'a> View<'a> {
    /// The view of `model`, a model of the game of `rules`.
    fn of(rules: &'a Rules, model: &'a Model) -> View<'a> {
        match &model.facts {
            Facts::Values(g, values) => View::Ground(g, values),
            Facts::Store(facts) => View::Interpreted(rules, facts),
        }
    }

    /// The facts of `rel` in an interpreted model, wherever its phase keeps
    /// them.
    fn facts(rules: &'a Rules, facts: &'a Store, rel: RelId) -> &'a Relation {
        match rules.program.info(rel).phase {
            Phase::Static => rules.static_facts.relation(rel),
            _ => facts.relation(rel),
        }
    }

    /// The facts of the keyword relation `pick` names, in an interpreted
    /// model.
    fn keyword(rules: &'a Rules, facts: &'a Store, pick: fn(Keywords) -> RelId) -> &'a Relation {
        View::facts(rules, facts, pick(rules.program.keywords))
    }

    /// legal(role, m)
    fn is_legal(&self, role: usize, m: Move) -> bool {
        match *self {
            View::Ground(g, values) => {
                (g.legal_atom.get(&(role, m.0))).is_some_and(|&a| values.truth[a as usize])
            }
            View::Interpreted(rules, facts) => {
                let tuple = [rules.roles[role], m.0];
                View::keyword(rules, facts, |k| k.legal).contains(&tuple)
            }
        }
    }

    /// legal(role, ?m), in the order derived.
    fn legal_moves(&self, role: usize) -> Vec<Move> {
        match *self {
            View::Ground(g, values) => (g.legal[role].iter())
                .filter(|(a, _)| values.truth[*a as usize])
                .map(|&(_, m)| Move(m))
                .collect(),
            View::Interpreted(rules, facts) => (View::keyword(rules, facts, |k| k.legal).rows())
                .filter(|r| r[0] == rules.roles[role])
                .map(|r| Move(r[1]))
                .collect(),
        }
    }

    /// terminal
    fn is_terminal(&self) -> bool {
        match *self {
            View::Ground(g, values) => g.terminal.is_some_and(|a| values.truth[a as usize]),
            View::Interpreted(rules, facts) => {
                !View::keyword(rules, facts, |k| k.terminal).is_empty()
            }
        }
    }

    /// goal(role, ?v)
    fn goal_values(&self, role: usize) -> Vec<TermId> {
        match *self {
            View::Ground(g, values) => (g.goal[role].iter())
                .filter(|(a, _)| values.truth[*a as usize])
                .map(|&(_, v)| v)
                .collect(),
            View::Interpreted(rules, facts) => (View::keyword(rules, facts, |k| k.goal).rows())
                .filter(|r| r[0] == rules.roles[role])
                .map(|r| r[1])
                .collect(),
        }
    }
}

/// An empty model of a state: its `true` facts only, as truth values of
/// the ground rules where the game has them and they have an atom for
/// each fact, else as facts of the interpreter (the ground rules lack one
/// only where `base` bounds them and the state is outside it: see
/// `engine::ground`); of the rules as written kept beside the game's where
/// the state's facts of a relation no move changes are not `init`'s
/// (`Rules::needs_written`). Made in the memory of `spare`, a model no
/// longer needed, when given one of the interpreter.
pub(super) fn new_model(
    rules: &Rules,
    state: &State,
    terms: &TermTable,
    spare: Option<Box<Model>>,
) -> Box<Model> {
    if rules.needs_written(state, terms) {
        // A state whose facts of a relation no move changes are not
        // `init`'s: a model of the rules as written, made anew (a spare
        // may be of the other rules, and such states are few).
        let written = rules.answering(true);
        let p = &written.program;
        let mut facts = Store::new(p, &written.sizes);
        for &f in state.0.iter() {
            facts.insert(p, p.keywords.true_, &[f], terms);
        }
        return Box::new(Model {
            facts: Facts::Store(facts),
            done: vec![false; p.components.len()],
            written: true,
        });
    }
    let p = &rules.program;
    if let Some(g) = &rules.ground {
        // The state's atoms set as they are found; a fact with none sends
        // the state to the interpreter.
        let mut values = g.program.empty_values();
        let known = state.0.iter().all(|&f| {
            let atom = g.program.atom(p.keywords.true_, &[f]);
            atom.inspect(|&a| g.program.set(&mut values, a)).is_some()
        });
        if known {
            return Box::new(Model {
                facts: Facts::Values(Arc::clone(g), values),
                done: vec![false; p.components.len()],
                written: false,
            });
        }
    }
    if let Some(mut model) = spare
        && !model.written
        && let Facts::Store(facts) = &mut model.facts
    {
        facts.reset(p);
        for &f in state.0.iter() {
            facts.insert(p, p.keywords.true_, &[f], terms);
        }
        model.done.clear();
        model.done.resize(p.components.len(), false);
        return model;
    }
    let mut facts = Store::new(p, &rules.sizes);
    for &f in state.0.iter() {
        facts.insert(p, p.keywords.true_, &[f], terms);
    }
    Box::new(Model {
        facts: Facts::Store(facts),
        done: vec![false; p.components.len()],
        written: false,
    })
}
