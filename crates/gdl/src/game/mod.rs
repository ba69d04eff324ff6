//! The game API: roles, states, legal moves, next states, terminal, goals.
//!
//! Loading runs the pipeline once per rules file (parse, normalize, check,
//! plan, derive the static facts). Each state's model (`legal`, `terminal`,
//! `goal` and what they need) is derived on demand, only as far as the query
//! needs, and memoised by state.

mod batch;
mod cone;
mod declared;
mod detached;
mod ground;
mod index;
mod load;
mod memo;
mod queries;
pub(crate) mod random;
mod rules;
pub(crate) mod stepper;
mod types;

pub use batch::play_games;
pub use index::FactIndex;
pub use load::LoadOptions;
pub use types::{Engine, EngineChoice, Goals, Move, Role, State, Stop};

use crate::engine::ground::Values;
use crate::engine::interp::{RunScratch, Store};
use crate::error::{Diagnostic, GameError};
use crate::limits::Limits;
use crate::plan::{self, StratumPlan};
use crate::source::SourceFile;
use crate::syntax::kif;
use crate::syntax::symbol::Symbols;
use crate::syntax::term::{TermId, TermTable};
use memo::Memo;
use rules::Rules;
use std::sync::Arc;
use stepper::Stepper;

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
    /// The stepper of random outcomes, where the game has one (see
    /// `cone`; made on first use).
    outcome_stepper: Option<Box<Stepper>>,
    /// Where the terms of detached games begin, and where they ended when
    /// the last detached game ended (see `Game::detached`).
    detached: Option<(usize, usize)>,
    /// True while a detached game is played.
    detaching: bool,
    /// The rules the ground rules' evaluations checked (`GroundProgram::run`).
    ground_work: u64,
    /// Why loading chose the engine (see `Game::engine_choice`).
    choice: Arc<str>,
}

impl Clone for Game {
    fn clone(&self) -> Game {
        let memo = Memo::new(self.memo.capacity, self.memo.max_bytes);
        let names = (self.terms.clone(), self.symbols.clone());
        let mut game = Game::with_rules(Arc::clone(&self.rules), names, self.limits, memo);
        game.choice = Arc::clone(&self.choice);
        game
    }
}

impl Game {
    /// A game of `rules`, with their terms and names, under `limits`, its
    /// caches empty but for `memo`.
    fn with_rules(
        rules: Arc<Rules>,
        (terms, symbols): (TermTable, Symbols),
        limits: Limits,
        memo: Memo,
    ) -> Game {
        Game {
            moves: Store::new(&rules.program, &rules.sizes),
            rules,
            terms,
            symbols,
            memo,
            limits,
            scratch: Values::default(),
            run: RunScratch::default(),
            todo: Vec::new(),
            stepper: None,
            outcome_stepper: None,
            detached: None,
            detaching: false,
            ground_work: 0,
            choice: Arc::from(""),
        }
    }
}

impl Game {
    /// How states are evaluated: by ground rules (with their size) or by
    /// the interpreter (when grounding exceeded its limits).
    pub fn engine(&self) -> Engine {
        match &self.rules.ground {
            Some(g) => Engine::Ground {
                atoms: g.program.atoms(),
                rules: g.program.rules(),
            },
            None => Engine::Interpreter,
        }
    }

    /// Why loading chose the engine it did, in words: what was asked for,
    /// which candidates grounded, and the estimates compared (what `gdl
    /// plan` prints first).
    pub fn engine_choice(&self) -> &str {
        &self.choice
    }

    /// A stepper in the initial state: the fast path for playing many
    /// moves in a row, when the game has ground rules (`None` otherwise,
    /// and where a ground rule reads negated an atom of its own cycle).
    /// Ground rules bounded by a `base` that
    /// leaves out facts play reaches put it off them there (see
    /// [`Stepper::is_off`]): the game's queries answer those states.
    ///
    /// ```
    /// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../rules/tictactoe.gdl");
    /// let game = gdl::Game::load(path)?;
    /// assert!(matches!(game.engine(), gdl::Engine::Ground { .. }));
    /// let mut stepper = game.stepper().expect("tic-tac-toe grounds");
    /// while !stepper.is_terminal() {
    ///     stepper.play_nth(&[0, 0]); // each role's first legal move
    /// }
    /// assert_eq!(stepper.goals(), Some(vec![100, 0])); // x wins down a column
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
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

    /// Lends the game's stepper of random outcomes (see `cone`), whose
    /// positions hold only the facts outcomes depend on, where the game
    /// has one; else its own stepper. `put_stepper` gives it back.
    pub(crate) fn take_outcome_stepper(&mut self) -> Option<Box<Stepper>> {
        let Some(tables) = self.outcome_tables().map(Arc::clone) else {
            return self.take_stepper();
        };
        let stepper = self.outcome_stepper.take().unwrap_or_else(|| {
            let mut s = Stepper::new(tables);
            s.set_state(&self.rules.initial);
            Box::new(s)
        });
        Some(stepper)
    }

    /// Gives back the stepper lent by `take_stepper` or
    /// `take_outcome_stepper`.
    pub(crate) fn put_stepper(&mut self, stepper: Box<Stepper>) {
        match stepper.is_of_outcomes() {
            true => self.outcome_stepper = Some(stepper),
            false => self.stepper = Some(stepper),
        }
    }

    /// The game's own stepper set to `state`, when the game has one and
    /// `state` is where it stands (a game going on from the state just
    /// returned) or the initial state (a game starting): the queries below
    /// then answer from it. Other states (a search jumping about a tree)
    /// go to the memoised models, which cost less than moving the stepper
    /// far, and so do states off the ground rules (see `Stepper::is_off`).
    fn positioned(&mut self, state: &State) -> Option<&mut Stepper> {
        if self.stepper.is_none() {
            self.stepper = Game::stepper(self).map(Box::new);
        }
        let s = self.stepper.as_deref_mut()?;
        if !s.is_at(state) && *state != self.rules.initial {
            return None;
        }
        s.set_state(state);
        // A state outside a `base` that bounds the ground rules.
        if s.is_off() {
            return None;
        }
        Some(s)
    }

    /// The limits the game was loaded with.
    pub fn limits(&self) -> &Limits {
        &self.limits
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

    /// The stratification and every clause's join plan, as text: of the
    /// rules as written (and derived on demand, when they are), though a
    /// game that grounds grounds them condensed (see `plan::condense`).
    pub fn plan_text(&self) -> String {
        plan::dump(self.written_program(), &self.terms, &self.symbols)
    }

    /// The plan of the rules as written.
    fn written_program(&self) -> &plan::Program {
        self.rules.written.as_ref().unwrap_or(&self.rules.program)
    }

    /// The stratification and join plans as data: what
    /// [`plan_text`](Game::plan_text) prints, stratum by stratum.
    pub fn plan(&self) -> Vec<StratumPlan> {
        plan::describe(self.written_program(), &self.terms, &self.symbols)
    }

    /// Sets how many state models the memo keeps (per generation; at most
    /// twice this many are held). 0 keeps only the state in use. The
    /// default is 1,024 with ground rules and 64 with the interpreter,
    /// whose models are larger (see `DEFAULT_INTERPRETED_MEMO_CAPACITY`).
    pub fn set_memo_capacity(&mut self, capacity: usize) {
        self.memo.capacity = capacity;
        self.memo.clear();
    }

    /// The roles, in the order of the `role` facts.
    pub fn roles(&self) -> Vec<Role> {
        (0..self.rules.roles.len() as u32).map(Role).collect()
    }

    /// The name of a role as the rules file writes it, such as `white`.
    pub fn role_name(&self, role: Role) -> &str {
        &self.rules.role_names[role.0 as usize]
    }

    /// The role with this name (any case), if any.
    pub fn role_by_name(&self, name: &str) -> Option<Role> {
        self.rules
            .role_names
            .iter()
            .position(|n| n.eq_ignore_ascii_case(name))
            .map(|i| Role(i as u32))
    }

    /// The state made of the `init` facts.
    pub fn initial_state(&self) -> State {
        self.rules.initial.clone()
    }

    /// A move written in KIF, such as `(move a 2 b 3)` or `noop`, its names
    /// as the rules file writes them (matched without case:
    /// [`Game::parse_move`] reads `(MOVE A 2 B 3)` as the same move).
    pub fn move_text(&self, m: Move) -> String {
        self.terms.text(m.0, &self.symbols)
    }

    /// Reads a move typed as a KIF term. Does not check legality.
    pub fn parse_move(&mut self, text: &str) -> Result<Move, GameError> {
        let term = kif::parse_ground_term(text, &mut self.symbols).map_err(|reason| {
            GameError::BadMoveText {
                text: text.to_string(),
                reason,
            }
        })?;
        self.attached();
        Ok(Move(self.intern_ground(&term)))
    }

    /// The state holding these facts, each typed as a ground KIF term such
    /// as `(cell 1 1 x)` (any order, duplicates allowed; names matched
    /// without case): the inverse of [`Game::state_facts`], to rebuild a
    /// state saved as text. Facts outside the rules' `base` are allowed
    /// (the interpreter answers for such a state). A fact that is not a
    /// ground term is refused with its position in `facts` and the reason.
    ///
    /// ```
    /// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../rules/tictactoe.gdl");
    /// let mut game = gdl::Game::load(path)?;
    /// let start = game.initial_state();
    /// let facts = game.state_facts(&start);
    /// assert_eq!(game.state_from_facts(&facts), Ok(start));
    /// assert!(game.state_from_facts(&["(cell 1 1"]).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn state_from_facts<S: AsRef<str>>(
        &mut self,
        facts: &[S],
    ) -> Result<State, (usize, String)> {
        Ok(State::from_terms(self.intern_facts(facts)?))
    }

    /// The terms of facts typed as ground KIF terms, interned; the
    /// position of the first that is not one, and why.
    fn intern_facts<S: AsRef<str>>(&mut self, facts: &[S]) -> Result<Vec<TermId>, (usize, String)> {
        let mut terms = Vec::with_capacity(facts.len());
        for (i, fact) in facts.iter().enumerate() {
            let term = kif::parse_ground_term(fact.as_ref(), &mut self.symbols)
                .map_err(|reason| (i, reason))?;
            terms.push(term);
        }
        self.attached();
        Ok(terms.iter().map(|t| self.intern_ground(t)).collect())
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

    /// The facts of a state in KIF, such as `(cell a 1 wp)`, their names as
    /// the rules file writes them, sorted as if in lower case.
    pub fn state_facts(&self, state: &State) -> Vec<String> {
        let mut facts: Vec<String> = state
            .0
            .iter()
            .map(|&t| self.terms.text(t, &self.symbols))
            .collect();
        facts.sort_by_cached_key(|f| f.to_ascii_lowercase());
        facts
    }
}
