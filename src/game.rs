//! The game API: roles, states, legal moves, next states, terminal, goals.
//!
//! Loading runs the pipeline once per rules file (parse, normalize, check,
//! plan, derive the static facts). Each state's model (`legal`, `terminal`,
//! `goal` and what they need) is derived on demand, only as far as the query
//! needs, and memoised by state.

use crate::error::{Diagnostic, GameError, LoadError};
use crate::eval::{run_strata, Below, Limits, Store};
use crate::plan::{self, Phase, Program, RelId};
use crate::source::SourceFile;
use crate::symbol::Symbols;
use crate::term::{TermId, TermTable};
use crate::{normal, parse};
use rustc_hash::FxHashMap;
use std::path::Path;
use std::sync::Arc;

/// A player of the game, by its position in the `role` facts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Role(pub u32);

/// A move term, such as `(move a 2 b 3)`, interned in its game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move(pub(crate) TermId);

/// A game state: the set of ground facts that hold, as interned terms
/// (sorted, no duplicates). Hashable and cheap to clone. Only meaningful with
/// the `Game` (or a clone of it) that produced it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State(pub(crate) Arc<[TermId]>);

impl State {
    fn from_terms(mut facts: Vec<TermId>) -> State {
        facts.sort_unstable();
        facts.dedup();
        State(facts.into())
    }

    /// How many facts the state holds.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True for the empty state.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// What loading leaves fixed for the lifetime of a rules file, shared by all
/// clones of a `Game`.
#[derive(Debug)]
struct Rules {
    source: SourceFile,
    program: Program,
    static_facts: Store,
    roles: Vec<TermId>,
    role_names: Vec<String>,
    initial: State,
    warnings: Vec<Diagnostic>,
    /// State-phase strata needed for each query.
    legal: Vec<usize>,
    terminal: Vec<usize>,
    goal: Vec<usize>,
    next_state: Vec<usize>,
    /// Move-phase strata needed for `next`.
    next_moves: Vec<usize>,
}

/// The facts derived so far for one state.
struct Model {
    facts: Store,
    done: Vec<bool>,
}

/// Memoised models by state, in two generations: when the newer one is
/// full it becomes the older one and the older one is dropped, so memory is
/// bounded by twice the capacity and recently used models survive.
#[derive(Default)]
struct Memo {
    new: FxHashMap<State, Box<Model>>,
    old: FxHashMap<State, Box<Model>>,
    capacity: usize,
}

/// The default number of state models kept per generation of the memo.
pub const DEFAULT_MEMO_CAPACITY: usize = 1024;

/// A loaded, checked rules file ready to play, with its evaluator caches.
/// Clone it to get an independent player (one per thread, say).
pub struct Game {
    rules: Arc<Rules>,
    terms: TermTable,
    symbols: Symbols,
    memo: Memo,
    limits: Limits,
}

impl Clone for Game {
    fn clone(&self) -> Game {
        Game {
            rules: Arc::clone(&self.rules),
            terms: self.terms.clone(),
            symbols: self.symbols.clone(),
            memo: Memo {
                capacity: self.memo.capacity,
                ..Memo::default()
            },
            limits: self.limits,
        }
    }
}

impl Game {
    /// Reads, parses and checks a rules file.
    pub fn load(path: impl AsRef<Path>) -> Result<Game, LoadError> {
        Game::load_with(path, Limits::default())
    }

    /// Like `load`, with limits on the evaluation.
    pub fn load_with(path: impl AsRef<Path>, limits: Limits) -> Result<Game, LoadError> {
        let path = path.as_ref();
        let name = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|error| LoadError::Io {
            path: name.clone(),
            error,
        })?;
        match String::from_utf8(bytes) {
            Ok(text) => Game::build(SourceFile::new(name, text), limits),
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
                let file = SourceFile::new(name, text);
                let d = Diagnostic::error(
                    "not-text",
                    crate::source::Span::new(at, at + 1),
                    "the file is not UTF-8 text (is it a binary file?)",
                )
                .with_label("this byte is not valid UTF-8");
                Err(LoadError::Invalid {
                    file: Box::new(file),
                    diagnostics: vec![d],
                })
            }
        }
    }

    /// Parses and checks rules given as text; `name` is used in messages.
    pub fn from_source(name: &str, text: &str) -> Result<Game, LoadError> {
        Game::build(SourceFile::new(name, text), Limits::default())
    }

    /// Like `from_source`, with limits on the evaluation.
    pub fn from_source_with(name: &str, text: &str, limits: Limits) -> Result<Game, LoadError> {
        Game::build(SourceFile::new(name, text), limits)
    }

    fn build(file: SourceFile, limits: Limits) -> Result<Game, LoadError> {
        let invalid = |file: SourceFile, diagnostics: Vec<Diagnostic>| LoadError::Invalid {
            file: Box::new(file),
            diagnostics,
        };
        let description = match parse::parse(&file, limits.max_nesting) {
            Ok(d) => d,
            Err(errors) => return Err(invalid(file, errors)),
        };
        let clauses = match normal::normalize(&description) {
            Ok(c) => c,
            Err(errors) => return Err(invalid(file, errors)),
        };
        let diagnostics = validate(&description, &clauses);
        if diagnostics.iter().any(Diagnostic::is_error) {
            return Err(invalid(file, diagnostics));
        }
        let mut symbols = description.symbols.clone();
        let mut terms = TermTable::new();
        let program = plan::plan(&clauses, &mut terms, &mut symbols);
        let mut static_facts = Store::new(&program);
        let static_strata: Vec<usize> = (0..program.components.len())
            .filter(|&c| program.components[c].phase == Phase::Static)
            .collect();
        if let Err(e) = run_strata(
            &program,
            &static_strata,
            &mut static_facts,
            Below::default(),
            &mut terms,
            &symbols,
            &limits,
        ) {
            let span = limit_span(&e, &program, &description, &symbols);
            let d = Diagnostic::error("runaway", span, e.to_string())
                .with_label("deriving the facts that do not depend on the state");
            return Err(invalid(file, vec![d]));
        }
        let kw = program.keywords;
        let roles: Vec<TermId> = static_facts
            .relation(kw.role)
            .rows()
            .map(|r| r[0])
            .collect();
        let role_names = roles.iter().map(|&t| terms.text(t, &symbols)).collect();
        let initial = State::from_terms(
            static_facts
                .relation(kw.init)
                .rows()
                .map(|r| r[0])
                .collect(),
        );
        let of_phase = |target: RelId, phase: Phase| -> Vec<usize> {
            program
                .needed(target)
                .into_iter()
                .filter(|&c| program.components[c].phase == phase)
                .collect()
        };
        let rules = Rules {
            legal: of_phase(kw.legal, Phase::State),
            terminal: of_phase(kw.terminal, Phase::State),
            goal: of_phase(kw.goal, Phase::State),
            next_state: of_phase(kw.next, Phase::State),
            next_moves: of_phase(kw.next, Phase::Move),
            source: file,
            static_facts,
            roles,
            role_names,
            initial,
            warnings: diagnostics,
            program,
        };
        Ok(Game {
            rules: Arc::new(rules),
            terms,
            symbols,
            memo: Memo {
                capacity: DEFAULT_MEMO_CAPACITY,
                ..Memo::default()
            },
            limits,
        })
    }

    /// The warnings of the rules file (it has no errors, or it would not
    /// have loaded).
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.rules.warnings
    }

    /// The rules file as read.
    pub fn source(&self) -> &SourceFile {
        &self.rules.source
    }

    /// The stratification and every clause's join plan, as text.
    pub fn plan_text(&self) -> String {
        plan::dump(&self.rules.program, &self.terms, &self.symbols)
    }

    /// Sets how many state models the memo keeps (per generation; at most
    /// twice this many are held). 0 keeps none beyond the current query.
    pub fn set_memo_capacity(&mut self, capacity: usize) {
        self.memo.capacity = capacity;
        self.memo.old.clear();
        self.memo.new.clear();
    }

    /// The roles, in the order of the `role` facts.
    pub fn roles(&self) -> Vec<Role> {
        (0..self.rules.roles.len() as u32).map(Role).collect()
    }

    /// The name of a role, such as `white`.
    pub fn role_name(&self, role: Role) -> &str {
        &self.rules.role_names[role.0 as usize]
    }

    /// The role with this name (any case), if any.
    pub fn role_by_name(&self, name: &str) -> Option<Role> {
        let name = name.to_ascii_lowercase();
        self.rules
            .role_names
            .iter()
            .position(|n| *n == name)
            .map(|i| Role(i as u32))
    }

    /// The state made of the `init` facts.
    pub fn initial_state(&self) -> State {
        self.rules.initial.clone()
    }

    /// Derives the strata `needed` for `state` (those not derived yet) and
    /// returns the state's model.
    fn model(
        &mut self,
        state: &State,
        needed: fn(&Rules) -> &[usize],
    ) -> Result<&Model, GameError> {
        let memo = &mut self.memo;
        if !memo.new.contains_key(state) {
            let model = match memo.old.remove(state) {
                Some(m) => m,
                None => {
                    let p = &self.rules.program;
                    let mut facts = Store::new(p);
                    for &f in state.0.iter() {
                        facts.insert(p, p.keywords.true_, &[f], &self.terms);
                    }
                    Box::new(Model {
                        facts,
                        done: vec![false; p.components.len()],
                    })
                }
            };
            if memo.new.len() >= memo.capacity.max(1) {
                memo.old = std::mem::take(&mut memo.new);
            }
            memo.new.insert(state.clone(), model);
        }
        let model = memo.new.get_mut(state).expect("just inserted");
        let rules = &*self.rules;
        let todo: Vec<usize> = needed(rules)
            .iter()
            .copied()
            .filter(|&c| !model.done[c])
            .collect();
        if !todo.is_empty() {
            run_strata(
                &rules.program,
                &todo,
                &mut model.facts,
                Below {
                    static_: Some(&rules.static_facts),
                    state: None,
                },
                &mut self.terms,
                &self.symbols,
                &self.limits,
            )?;
            todo.iter().for_each(|&c| model.done[c] = true);
        }
        Ok(model)
    }

    /// The facts of `rel` in a model, wherever its phase keeps them.
    fn facts<'a>(rules: &'a Rules, model: &'a Model, rel: RelId) -> &'a crate::eval::Relation {
        match rules.program.info(rel).phase {
            Phase::Static => rules.static_facts.relation(rel),
            _ => model.facts.relation(rel),
        }
    }

    /// The legal moves of `role` in `state`, in the order derived.
    pub fn legal_moves(&mut self, state: &State, role: Role) -> Result<Vec<Move>, GameError> {
        let role_term = self.rules.roles[role.0 as usize];
        let legal = self.rules.program.keywords.legal;
        self.model(state, |r| &r.legal)?;
        let model = &self.memo.new[state];
        Ok(Game::facts(&self.rules, model, legal)
            .rows()
            .filter(|r| r[0] == role_term)
            .map(|r| Move(r[1]))
            .collect())
    }

    /// Every combination of one legal move per role, in role order.
    pub fn joint_moves(&mut self, state: &State) -> Result<Vec<Vec<Move>>, GameError> {
        let mut joints: Vec<Vec<Move>> = vec![Vec::new()];
        for role in self.roles() {
            let moves = self.legal_moves(state, role)?;
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
        let terminal = self.rules.program.keywords.terminal;
        self.model(state, |r| &r.terminal)?;
        let model = &self.memo.new[state];
        Ok(!Game::facts(&self.rules, model, terminal).is_empty())
    }

    /// Each role's goal value in `state`, in role order. Every role must
    /// have exactly one value, a whole number from 0 to 100.
    pub fn goals(&mut self, state: &State) -> Result<Vec<u8>, GameError> {
        let goal = self.rules.program.keywords.goal;
        self.model(state, |r| &r.goal)?;
        let model = &self.memo.new[state];
        let facts = Game::facts(&self.rules, model, goal);
        let mut goals = Vec::with_capacity(self.rules.roles.len());
        for (i, &role) in self.rules.roles.iter().enumerate() {
            let values: Vec<TermId> = facts
                .rows()
                .filter(|r| r[0] == role)
                .map(|r| r[1])
                .collect();
            let name = self.rules.role_names[i].clone();
            match values.as_slice() {
                [] => return Err(GameError::NoGoal { role: name }),
                [v] => {
                    let text = self.terms.text(*v, &self.symbols);
                    match text.parse::<u8>() {
                        Ok(n) if n <= 100 => goals.push(n),
                        _ => {
                            return Err(GameError::BadGoal {
                                role: name,
                                value: text,
                            })
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
        let kw = self.rules.program.keywords;
        self.model(state, |r| &r.legal)?;
        for (i, m) in joint.iter().enumerate() {
            let role = self.rules.roles[i];
            let model = &self.memo.new[state];
            if !Game::facts(&self.rules, model, kw.legal).contains(&[role, m.0]) {
                let legal = self
                    .legal_moves(state, Role(i as u32))?
                    .into_iter()
                    .map(|m| self.move_text(m))
                    .collect();
                return Err(GameError::IllegalMove {
                    role: self.rules.role_names[i].clone(),
                    played: self.move_text(*m),
                    legal,
                });
            }
        }
        self.model(state, |r| &r.next_state)?;
        let rules = &*self.rules;
        let p = &rules.program;
        let model = &self.memo.new[state];
        let mut moves = Store::new(p);
        for (i, m) in joint.iter().enumerate() {
            moves.insert(p, kw.does, &[rules.roles[i], m.0], &self.terms);
        }
        run_strata(
            p,
            &rules.next_moves,
            &mut moves,
            Below {
                static_: Some(&rules.static_facts),
                state: Some(&model.facts),
            },
            &mut self.terms,
            &self.symbols,
            &self.limits,
        )?;
        let next = match p.info(kw.next).phase {
            Phase::Move => moves.relation(kw.next),
            _ => Game::facts(rules, model, kw.next),
        };
        Ok(State::from_terms(next.rows().map(|r| r[0]).collect()))
    }

    /// A move written in KIF, such as `(move a 2 b 3)` or `noop`.
    pub fn move_text(&self, m: Move) -> String {
        self.terms.text(m.0, &self.symbols)
    }

    /// Reads a move typed as a KIF term. Does not check legality.
    pub fn parse_move(&mut self, text: &str) -> Result<Move, GameError> {
        let term = parse::parse_ground_term(text, &mut self.symbols).map_err(|reason| {
            GameError::BadMoveText {
                text: text.to_string(),
                reason,
            }
        })?;
        Ok(Move(self.intern_ground(&term)))
    }

    fn intern_ground(&mut self, t: &crate::ast::Term) -> TermId {
        use crate::ast::Term;
        match t {
            Term::Atom(a, _) => self.terms.atom(*a),
            Term::Func(f, args, _) => {
                let ids: Vec<TermId> = args.iter().map(|a| self.intern_ground(a)).collect();
                self.terms.intern(*f, &ids)
            }
            Term::Var(..) => unreachable!("parse_ground_term refuses variables"),
        }
    }

    /// The facts of a state in KIF, such as `(cell a 1 wp)`, sorted.
    pub fn state_facts(&self, state: &State) -> Vec<String> {
        let mut facts: Vec<String> = state
            .0
            .iter()
            .map(|&t| self.terms.text(t, &self.symbols))
            .collect();
        facts.sort();
        facts
    }
}

/// The checks a file must pass before it is planned.
fn validate(_d: &crate::ast::Description, _clauses: &[normal::Clause]) -> Vec<Diagnostic> {
    Vec::new()
}

/// Where to point a limit error raised at load: the first rule deriving the
/// relation named in it.
fn limit_span(
    e: &GameError,
    p: &Program,
    d: &crate::ast::Description,
    symbols: &Symbols,
) -> crate::source::Span {
    if let GameError::Limit { relation, .. } = e {
        if let Some(rel) = symbols.get(relation).and_then(|s| p.relation(s)) {
            if let Some(c) = p.clauses.iter().find(|c| c.head == rel) {
                return d.rules[c.rule].head.span;
            }
        }
    }
    d.rules.first().map(|r| r.span).unwrap_or_default()
}
