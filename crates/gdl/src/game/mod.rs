//! The game API: roles, states, legal moves, next states, terminal, goals.
//!
//! Loading runs the pipeline once per rules file (parse, normalize, check,
//! plan, derive the static facts). Each state's model (`legal`, `terminal`,
//! `goal` and what they need) is derived on demand, only as far as the query
//! needs, and memoised by state.

pub(crate) mod random;
pub(crate) mod stepper;

use crate::engine::ground::{Grounded, Values};
use crate::engine::incremental::Network;
use crate::engine::interp::{run_strata, run_strata_in, RunScratch, SizeHints, Store, Target};
use crate::error::{Diagnostic, GameError, LoadError};
use crate::limits::Limits;
use crate::plan::{self, Phase, Program, RelId};
use crate::syntax::source::SourceFile;
use crate::syntax::symbol::Symbols;
use crate::syntax::term::{TermId, TermTable};
use crate::syntax::{kif as parse, normal};
use rustc_hash::FxHashMap;
use std::path::Path;
use std::sync::Arc;
use stepper::{RoleMoves, Stepper};

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
    pub(crate) fn from_terms(mut facts: Vec<TermId>) -> State {
        if !facts.windows(2).all(|w| w[0] < w[1]) {
            facts.sort_unstable();
            facts.dedup();
        }
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
    /// How many facts each relation held in the last model that had some,
    /// shared by the stores of every model.
    sizes: Arc<SizeHints>,
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
    /// The ground rules, when grounding fit its budget.
    ground: Option<GroundTables>,
    /// The tables of the incremental fast path, when the ground rules have
    /// no cycle of atoms (see `incremental`).
    stepper: Option<Arc<stepper::Tables>>,
}

/// The ground program and, for each query, the atoms to read.
#[derive(Debug)]
struct GroundTables {
    program: Grounded,
    /// Per role: each legal move's atom.
    legal: Vec<Vec<(u32, TermId)>>,
    /// The atom of each (role index, move).
    legal_atom: FxHashMap<(usize, TermId), u32>,
    /// Per role: each goal value's atom.
    goal: Vec<Vec<(u32, TermId)>>,
    terminal: Option<u32>,
    next: Vec<(u32, TermId)>,
}

impl GroundTables {
    fn new(program: Grounded, p: &Program, static_facts: &Store, roles: &[TermId]) -> GroundTables {
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

/// The facts derived so far for one state: relations of facts for the
/// interpreter, or one truth value per atom for the ground rules.
enum Facts {
    Store(Store),
    Values(Values),
}

/// What has been derived for one state.
struct Model {
    facts: Facts,
    done: Vec<bool>,
}

/// Memoised models by state: the model in use, then two generations of
/// others. When the newer generation is full it becomes the older one and
/// the older one is dropped, so memory is bounded by twice the capacity and
/// recently used models survive. Queries on the model in use (the common
/// case: terminal, legal, next of one state) need no hashing. Dropped
/// models are kept as spares and made into the models of new states, so
/// that a long run of new states (a playout) reuses their memory instead of
/// allocating and freeing it state after state.
#[derive(Default)]
struct Memo {
    current: Option<(State, Box<Model>)>,
    new: FxHashMap<State, Box<Model>>,
    old: FxHashMap<State, Box<Model>>,
    /// Boxed as in the maps, so a model moves between them as a pointer.
    #[allow(clippy::vec_box)]
    spare: Vec<Box<Model>>,
    capacity: usize,
}

impl Memo {
    /// Makes the model of `state` the one in use, taking it from the memo
    /// or making it with `make` (from a spare model when there is one).
    fn select(
        &mut self,
        state: &State,
        make: impl FnOnce(Option<Box<Model>>) -> Box<Model>,
    ) -> &mut Model {
        if !matches!(&self.current, Some((s, _)) if s == state) {
            if let Some((s, m)) = self.current.take() {
                if self.capacity == 0 {
                    self.spare.push(m);
                } else {
                    if self.new.len() >= self.capacity {
                        let dropped =
                            std::mem::replace(&mut self.old, std::mem::take(&mut self.new));
                        // The spares never outnumber a generation.
                        let room = self.capacity.saturating_sub(self.spare.len());
                        self.spare.extend(dropped.into_values().take(room));
                    }
                    self.new.insert(s, m);
                }
            }
            let model = match self.new.remove(state).or_else(|| self.old.remove(state)) {
                Some(model) => model,
                None => make(self.spare.pop()),
            };
            self.current = Some((state.clone(), model));
        }
        &mut self.current.as_mut().expect("just selected").1
    }

    /// The model in use, which must be that of `state`.
    fn in_use(&self, state: &State) -> &Model {
        match &self.current {
            Some((s, m)) if s == state => m,
            _ => unreachable!("the state's model is selected before it is read"),
        }
    }

    fn clear(&mut self) {
        self.current = None;
        self.new.clear();
        self.old.clear();
        self.spare.clear();
    }
}

/// The default number of state models kept per generation of the memo.
pub const DEFAULT_MEMO_CAPACITY: usize = 1024;

/// The default number per generation when the interpreter evaluates the
/// game: its models are fact stores with indexes (some 17 KiB a state in
/// Brazilian draughts, against some 1.5 KiB of truth values for ground
/// rules), and memory that large goes cold between visits. Measured on
/// Brazilian draughts (`gdl bench`, medians of alternating runs): 1,024 a
/// generation, 640 to 741 playouts/s and 72 MiB resident; 64, 813 to 915
/// playouts/s and 39 MiB.
pub const DEFAULT_INTERPRETED_MEMO_CAPACITY: usize = 64;

/// A loaded, checked rules file ready to play, with its evaluator caches.
/// Clone it to get an independent player (one per thread, say).
pub struct Game {
    rules: Arc<Rules>,
    terms: TermTable,
    symbols: Symbols,
    memo: Memo,
    limits: Limits,
    /// Truth values of one joint move's atoms (ground rules only).
    scratch: Values,
    /// The facts of one joint move (interpreter only), kept so that its
    /// memory serves the next joint move.
    moves: Store,
    /// The interpreter's working memory, kept from one run to the next.
    run: RunScratch,
    /// The strata a query needs that its model has not derived yet, kept
    /// from one query to the next (collected anew, growing by doubling, it
    /// cost some 1,000 instructions a query).
    todo: Vec<usize>,
    /// The stepper random playouts reuse (made on first use).
    stepper: Option<Box<Stepper>>,
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
            scratch: Values::default(),
            moves: Store::new(&self.rules.program, &self.rules.sizes),
            run: RunScratch::default(),
            todo: Vec::new(),
            stepper: None,
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
                    crate::syntax::source::Span::new(at, at + 1),
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
        let diagnostics = crate::analysis::check::check(&description, &clauses);
        if diagnostics.iter().any(Diagnostic::is_error) {
            return Err(invalid(file, diagnostics));
        }
        let mut symbols = description.symbols.clone();
        let mut terms = TermTable::new();
        let program = plan::plan(&clauses, &mut terms, &mut symbols);
        let sizes = Arc::new(SizeHints::new(program.relations.len()));
        let mut static_facts = Store::new(&program, &sizes);
        // Only the static facts that play needs: `base`, `input` and other
        // relations nothing in play uses are never derived (an exact `base`
        // of a game with a position history could not be held).
        let kw = program.keywords;
        let mut static_strata: Vec<usize> =
            [kw.role, kw.init, kw.legal, kw.next, kw.terminal, kw.goal]
                .into_iter()
                .flat_map(|r| program.needed(r))
                .filter(|&c| program.components[c].phase == Phase::Static)
                .collect();
        static_strata.sort_unstable();
        static_strata.dedup();
        if let Err(e) = run_strata(
            &program,
            &static_strata,
            &mut static_facts,
            Target::Static,
            &mut terms,
            &symbols,
            &limits,
        ) {
            let span = limit_span(&e, &program, &description, &symbols);
            let d = Diagnostic::error("runaway", span, e.to_string())
                .with_label("deriving the facts that do not depend on the state");
            return Err(invalid(file, vec![d]));
        }
        let roles: Vec<TermId> = static_facts
            .relation(kw.role)
            .rows()
            .map(|r| r[0])
            .collect();
        let role_names: Vec<String> = roles.iter().map(|&t| terms.text(t, &symbols)).collect();
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
        let ground = (limits.max_ground_work > 0)
            .then(|| {
                Grounded::new(
                    &program,
                    &static_facts,
                    &initial.0,
                    &mut terms,
                    &symbols,
                    &limits,
                )
            })
            .and_then(Result::ok)
            .map(|g| GroundTables::new(g, &program, &static_facts, &roles));
        let stepper = ground
            .as_ref()
            .and_then(|g| step_tables(g, &program, &roles, &role_names, &terms, &symbols))
            .map(Arc::new);
        let rules = Rules {
            ground,
            stepper,
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
            sizes,
        };
        let capacity = match rules.ground {
            Some(_) => DEFAULT_MEMO_CAPACITY,
            None => DEFAULT_INTERPRETED_MEMO_CAPACITY,
        };
        Ok(Game {
            terms,
            symbols,
            memo: Memo {
                capacity,
                ..Memo::default()
            },
            limits,
            scratch: Values::default(),
            moves: Store::new(&rules.program, &rules.sizes),
            rules: Arc::new(rules),
            run: RunScratch::default(),
            todo: Vec::new(),
            stepper: None,
        })
    }

    /// How states are evaluated: by ground rules (with their size) or by
    /// the interpreter (when grounding exceeded its budget).
    pub fn engine(&self) -> String {
        match &self.rules.ground {
            Some(g) => format!(
                "ground rules ({} atoms, {} rules)",
                g.program.atoms(),
                g.program.rules()
            ),
            None => "interpreter".to_string(),
        }
    }

    /// A stepper in the initial state: the fast path for playing many
    /// moves in a row, when the game has ground rules without a cycle of
    /// atoms (`None` otherwise).
    pub fn stepper(&self) -> Option<Stepper> {
        let tables = self.rules.stepper.as_ref()?;
        let mut s = Stepper::new(Arc::clone(tables));
        s.set_state(&self.rules.initial);
        Some(s)
    }

    /// Lends the game's own stepper (made on first use), if it has one;
    /// `put_stepper` gives it back so its buffers are reused.
    pub(crate) fn take_stepper(&mut self) -> Option<Box<Stepper>> {
        self.stepper.take().or_else(|| self.stepper().map(Box::new))
    }

    /// Gives back the stepper lent by `take_stepper`.
    pub(crate) fn put_stepper(&mut self, stepper: Box<Stepper>) {
        self.stepper = Some(stepper);
    }

    /// The game's own stepper set to `state`, when the game has one and
    /// `state` is where it stands (a game going on from the state just
    /// returned) or the initial state (a game starting): the queries below
    /// then answer from it. Other states (a search jumping about a tree)
    /// go to the memoised models, which cost less than moving the stepper
    /// far.
    fn positioned(&mut self, state: &State) -> Option<&mut Stepper> {
        if self.stepper.is_none() {
            self.stepper = Game::stepper(self).map(Box::new);
        }
        let s = self.stepper.as_deref_mut()?;
        if !s.is_at(state) && *state != self.rules.initial {
            return None;
        }
        s.set_state(state);
        Some(s)
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
    /// twice this many are held). 0 keeps only the state in use. The
    /// default is `DEFAULT_MEMO_CAPACITY` with ground rules and
    /// `DEFAULT_INTERPRETED_MEMO_CAPACITY` with the interpreter.
    pub fn set_memo_capacity(&mut self, capacity: usize) {
        self.memo.capacity = capacity;
        self.memo.clear();
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

    /// Derives the strata `needed` for `state` (those not derived yet),
    /// leaving the state's model in the memo.
    fn model(&mut self, state: &State, needed: fn(&Rules) -> &[usize]) -> Result<(), GameError> {
        let rules = &*self.rules;
        let terms = &self.terms;
        let model = self
            .memo
            .select(state, |spare| new_model(rules, state, terms, spare));
        // Most queries find their strata derived (legal after terminal).
        if needed(rules).iter().all(|&c| model.done[c]) {
            return Ok(());
        }
        let todo = &mut self.todo;
        todo.clear();
        todo.extend(needed(rules).iter().copied().filter(|&c| !model.done[c]));
        match (&mut model.facts, &rules.ground) {
            (Facts::Values(values), Some(g)) => g.program.run(todo, values),
            (Facts::Store(facts), _) => run_strata_in(
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
            (Facts::Values(_), None) => unreachable!("values only with ground rules"),
        }
        todo.iter().for_each(|&c| model.done[c] = true);
        Ok(())
    }

    /// The memoised model of a state (after `model` made it).
    fn memoised(&self, state: &State) -> &Model {
        self.memo.in_use(state)
    }

    /// The facts of `rel` in an interpreted model, wherever its phase keeps
    /// them.
    fn facts<'a>(
        rules: &'a Rules,
        facts: &'a Store,
        rel: RelId,
    ) -> &'a crate::engine::interp::Relation {
        match rules.program.info(rel).phase {
            Phase::Static => rules.static_facts.relation(rel),
            _ => facts.relation(rel),
        }
    }

    /// Whether `(legal role m)` holds in `state`.
    fn is_legal(&mut self, state: &State, role: usize, m: Move) -> Result<bool, GameError> {
        if let Some(s) = self.positioned(state) {
            return Ok(s.legal_moves(role).contains(&m));
        }
        self.model(state, |r| &r.legal)?;
        let rules = &*self.rules;
        let tuple = [rules.roles[role], m.0];
        Ok(match (&self.memoised(state).facts, &rules.ground) {
            (Facts::Values(values), Some(g)) => g
                .legal_atom
                .get(&(role, m.0))
                .is_some_and(|&a| values.truth[a as usize]),
            (Facts::Store(facts), _) => {
                Game::facts(rules, facts, rules.program.keywords.legal).contains(&tuple)
            }
            (Facts::Values(_), None) => unreachable!(),
        })
    }

    /// The legal moves of `role` in `state`, in the order derived.
    pub fn legal_moves(&mut self, state: &State, role: Role) -> Result<Vec<Move>, GameError> {
        if let Some(s) = self.positioned(state) {
            return Ok(s.legal_moves(role.0 as usize));
        }
        self.model(state, |r| &r.legal)?;
        let rules = &*self.rules;
        let role_term = rules.roles[role.0 as usize];
        Ok(match (&self.memoised(state).facts, &rules.ground) {
            (Facts::Values(values), Some(g)) => g.legal[role.0 as usize]
                .iter()
                .filter(|(a, _)| values.truth[*a as usize])
                .map(|&(_, m)| Move(m))
                .collect(),
            (Facts::Store(facts), _) => Game::facts(rules, facts, rules.program.keywords.legal)
                .rows()
                .filter(|r| r[0] == role_term)
                .map(|r| Move(r[1]))
                .collect(),
            (Facts::Values(_), None) => unreachable!(),
        })
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
        if let Some(s) = self.positioned(state) {
            return Ok(s.is_terminal());
        }
        self.model(state, |r| &r.terminal)?;
        let rules = &*self.rules;
        Ok(match (&self.memoised(state).facts, &rules.ground) {
            (Facts::Values(values), Some(g)) => {
                g.terminal.is_some_and(|a| values.truth[a as usize])
            }
            (Facts::Store(facts), _) => {
                !Game::facts(rules, facts, rules.program.keywords.terminal).is_empty()
            }
            (Facts::Values(_), None) => unreachable!(),
        })
    }

    /// Each role's goal value in `state`, in role order. Every role must
    /// have exactly one value, a whole number from 0 to 100.
    pub fn goals(&mut self, state: &State) -> Result<Vec<u8>, GameError> {
        // Missing, several or bad values: the model below says which.
        if let Some(goals) = self.positioned(state).and_then(|s| s.goals()) {
            return Ok(goals);
        }
        self.model(state, |r| &r.goal)?;
        let rules = &*self.rules;
        let model = self.memoised(state);
        let mut goals = Vec::with_capacity(rules.roles.len());
        for (i, &role) in rules.roles.iter().enumerate() {
            let values: Vec<TermId> = match (&model.facts, &rules.ground) {
                (Facts::Values(values), Some(g)) => g.goal[i]
                    .iter()
                    .filter(|(a, _)| values.truth[*a as usize])
                    .map(|&(_, v)| v)
                    .collect(),
                (Facts::Store(facts), _) => Game::facts(rules, facts, rules.program.keywords.goal)
                    .rows()
                    .filter(|r| r[0] == role)
                    .map(|r| r[1])
                    .collect(),
                (Facts::Values(_), None) => unreachable!(),
            };
            let name = rules.role_names[i].clone();
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
        if let Some(s) = self.positioned(state) {
            s.play(joint)?;
            return Ok(s.state());
        }
        self.model(state, |r| &r.next_state)?;
        let rules = &*self.rules;
        let p = &rules.program;
        let kw = p.keywords;
        let model = self.memo.in_use(state);
        let next: Vec<TermId> = match (&model.facts, &rules.ground) {
            (Facts::Values(values), Some(g)) => {
                // Ground rules: the state's values plus the joint move's atoms.
                let scratch = &mut self.scratch;
                scratch.clone_from(values);
                for (i, m) in joint.iter().enumerate() {
                    if let Some(a) = g.program.atom(kw.does, &[rules.roles[i], m.0]) {
                        g.program.set(scratch, a);
                    }
                }
                g.program.run(&rules.next_moves, scratch);
                g.next
                    .iter()
                    .filter(|(a, _)| scratch.truth[*a as usize])
                    .map(|&(_, f)| f)
                    .collect()
            }
            (Facts::Store(facts), _) => {
                let moves = &mut self.moves;
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
                    _ => Game::facts(rules, facts, kw.next),
                };
                next.rows().map(|r| r[0]).collect()
            }
            (Facts::Values(_), None) => unreachable!(),
        };
        Ok(State::from_terms(next))
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

    fn intern_ground(&mut self, t: &crate::syntax::ast::Term) -> TermId {
        use crate::syntax::ast::Term;
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

/// The tables of the stepper over the ground rules, or `None` when the
/// ground rules recurse through a cycle of atoms.
fn step_tables(
    g: &GroundTables,
    p: &Program,
    roles: &[TermId],
    role_names: &[String],
    terms: &TermTable,
    symbols: &Symbols,
) -> Option<stepper::Tables> {
    let kw = p.keywords;
    let dynamic = |rel: RelId| p.info(rel).phase != Phase::Static;
    let move_atoms: Vec<std::ops::Range<u32>> = (0..p.relations.len() as u32)
        .map(RelId)
        .filter(|&r| p.info(r).phase == Phase::Move)
        .map(|r| g.program.atom_range(r))
        .collect();
    // What the stepper reads besides legal moves must be stored as is.
    let mut real = vec![false; g.program.atoms() + 1];
    let goal_atoms = g.goal.iter().flatten().map(|&(a, _)| a);
    for a in g
        .next
        .iter()
        .map(|&(a, _)| a)
        .chain(goal_atoms)
        .chain(g.terminal)
    {
        real[a as usize] = true;
    }
    let mut read = real.clone();
    for &(a, _) in g.legal.iter().flatten() {
        read[a as usize] = true;
    }
    let net = Network::new(&g.program, &move_atoms, &read, &real)?;
    if !dynamic(kw.true_) {
        return None;
    }
    let true_atoms = (
        g.program.atom_range(kw.true_).start,
        g.program.atoms_of(kw.true_).map(|(_, r)| r[0]).collect(),
    );
    let does = |role: TermId, m: TermId| {
        dynamic(kw.does)
            .then(|| g.program.atom(kw.does, &[role, m]))
            .flatten()
            .unwrap_or(u32::MAX)
    };
    let moves = roles
        .iter()
        .zip(role_names)
        .zip(&g.legal)
        .map(|((&role, name), legal)| RoleMoves {
            hubs: Vec::new(),
            group: Vec::new(),
            name: name.clone(),
            moves: legal.iter().map(|&(_, m)| Move(m)).collect(),
            legal: legal.iter().map(|&(a, _)| a).collect(),
            does: legal.iter().map(|&(_, m)| does(role, m)).collect(),
            texts: legal.iter().map(|&(_, m)| terms.text(m, symbols)).collect(),
        })
        .collect();
    let goals = g
        .goal
        .iter()
        .map(|values| {
            values
                .iter()
                .map(|&(a, v)| (a, terms.text(v, symbols).parse().ok().filter(|&n| n <= 100)))
                .collect()
        })
        .collect();
    stepper::Tables::new(net, true_atoms, &g.next, moves, goals, g.terminal)
}

/// An empty model of a state: its `true` facts only. Made in the memory of
/// `spare`, a model no longer needed, when given one of the interpreter.
fn new_model(
    rules: &Rules,
    state: &State,
    terms: &TermTable,
    spare: Option<Box<Model>>,
) -> Box<Model> {
    let p = &rules.program;
    if let Some(mut model) = spare {
        if let Facts::Store(facts) = &mut model.facts {
            facts.reset(p);
            for &f in state.0.iter() {
                facts.insert(p, p.keywords.true_, &[f], terms);
            }
            model.done.clear();
            model.done.resize(p.components.len(), false);
            return model;
        }
    }
    let facts = match &rules.ground {
        Some(g) => {
            let mut values = g.program.empty_values();
            for &f in state.0.iter() {
                if let Some(a) = g.program.atom(p.keywords.true_, &[f]) {
                    g.program.set(&mut values, a);
                }
            }
            Facts::Values(values)
        }
        None => {
            let mut facts = Store::new(p, &rules.sizes);
            for &f in state.0.iter() {
                facts.insert(p, p.keywords.true_, &[f], terms);
            }
            Facts::Store(facts)
        }
    };
    Box::new(Model {
        facts,
        done: vec![false; p.components.len()],
    })
}

/// Where to point a limit error raised at load: the first rule deriving the
/// relation named in it.
fn limit_span(
    e: &GameError,
    p: &Program,
    d: &crate::syntax::ast::Description,
    symbols: &Symbols,
) -> crate::syntax::source::Span {
    if let GameError::Limit { relation, .. } = e {
        if let Some(rel) = symbols.get(relation).and_then(|s| p.relation(s)) {
            // The rule most likely at fault: a recursive one (it is what
            // derives without end), else one with a body, else a fact.
            let of_rel = || p.clauses.iter().filter(|c| c.head == rel);
            let blamed = of_rel()
                .find(|c| !c.deltas.is_empty())
                .or_else(|| of_rel().find(|c| !d.rules[c.rule].body.is_empty()))
                .or_else(|| of_rel().next());
            if let Some(c) = blamed {
                return d.rules[c.rule].head.span;
            }
        }
    }
    d.rules.first().map(|r| r.span).unwrap_or_default()
}
