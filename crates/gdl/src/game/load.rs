//! Loading: the pipeline run once per rules file (parse, normalize, check,
//! plan, derive the static facts, ground when it fits).

use super::ground::GroundTables;
use super::memo::{Memo, DEFAULT_INTERPRETED_MEMO_CAPACITY, DEFAULT_MEMO_CAPACITY, MEMO_SHARE};
use super::rules::Rules;
use super::stepper::{step_tables, Stepper};
use super::types::State;
use super::Game;
use crate::engine::ground::{static_facts_for, Grounded, Values};
use crate::engine::interp::{run_strata, RunScratch, SizeHints, Store, Target};
use crate::error::{Diagnostic, GameError, LoadError};
use crate::limits::{LimitKind, Limits};
use crate::plan::{self, Phase, Program, RelId};
use crate::source::SourceFile;
use crate::syntax::normal::Clause;
use crate::syntax::symbol::{Symbol, Symbols};
use crate::syntax::term::{TermId, TermTable};
use crate::syntax::{kif, normal};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use std::path::Path;
use std::sync::Arc;

impl Game {
    /// Reads, parses and checks a rules file, and prepares it to play
    /// (grounding it when it fits the default [`Limits`]).
    ///
    /// ```
    /// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../rules/tictactoe.gdl");
    /// let mut game = gdl::Game::load(path)?;
    /// let roles: Vec<&str> = game.roles().into_iter().map(|r| game.role_name(r)).collect();
    /// assert_eq!(roles, ["xplayer", "oplayer"]);
    /// let start = game.initial_state();
    /// let xplayer = game.roles()[0];
    /// assert_eq!(game.legal_moves(&start, xplayer)?.len(), 9);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// A file with errors gives them all, located, ready to print:
    ///
    /// ```
    /// let error = gdl::Game::from_source("bad.gdl", "(role x)\n(<= (legal x ?m) (true ?n))\n")
    ///     .err()
    ///     .unwrap();
    /// let text = error.render(false);
    /// assert!(text.contains("bad.gdl:2:"), "{text}");
    /// assert!(error.diagnostics().iter().any(|d| d.code == "unsafe-variable"));
    /// ```
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
        Game::from_bytes_with(&name, bytes, limits)
    }

    /// Like `from_source_with`, from the bytes of a file read by the
    /// caller (who may bound its size): bytes that are not UTF-8 are an
    /// error located at the first bad byte.
    pub fn from_bytes_with(name: &str, bytes: Vec<u8>, limits: Limits) -> Result<Game, LoadError> {
        let name = name.to_string();
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
        let mut description = match kif::parse(&file, limits.max_nesting) {
            Ok(d) => d,
            Err(errors) => return Err(invalid(file, errors)),
        };
        let clauses = match normal::normalize(&description) {
            Ok(c) => c,
            Err(errors) => return Err(invalid(file, errors)),
        };
        let (clauses, diagnostics) = crate::analysis::analyse(&mut description, clauses);
        if diagnostics.iter().any(Diagnostic::is_error) {
            return Err(invalid(file, diagnostics));
        }
        let mut symbols = description.symbols.clone();
        let mut clauses = clauses;
        let prepared = match derive_static(&mut clauses, &mut symbols, &limits) {
            Ok(p) => p,
            Err(e) => {
                let span = limit_span(&e.error, &e.program, &description, &symbols);
                let d = Diagnostic::error("runaway", span, e.error.to_string())
                    .with_label("deriving the facts that do not depend on the state");
                return Err(invalid(file, vec![d]));
            }
        };
        // The first try grounds under a count of atoms: most games ground
        // well within it, and one far past it gives up in a moment, leaving
        // the transformations below to find rules that ground.
        let first = Limits {
            max_ground_atoms: limits.max_ground_atoms.min(FIRST_TRY_ATOMS),
            ..limits
        };
        let read = Read {
            file: &file,
            warnings: &diagnostics,
        };
        let mut game = Game::as_written(prepared, &read.rules(&clauses, &symbols), first);
        let past_count = game.rules.grounding_stop == Some(LimitKind::Facts);
        // Where grounding was tried and failed, a relation of the state
        // whose questions never change may be derived for those questions
        // only (plan::demand): the rules so transformed are kept when they
        // ground, or cost less to play. With grounding off (`gdl check`
        // needs only the static facts) the rules are played as written.
        if game.rules.ground.is_none() && first.max_ground_work > 0 {
            let state: Vec<_> = (game.rules.program.relations.iter())
                .filter(|r| r.phase == Phase::State)
                .map(|r| r.name)
                .collect();
            // The demands are meant to be few: many would cost more to
            // derive than the race can win back.
            let few = Limits {
                max_facts: limits.max_facts.min(MAX_DEMAND_FACTS),
                ..first
            };
            // The game of transformed rules, their static facts derived
            // under `few`, ground when `grounding`.
            let assemble = |c: Option<Vec<Clause>>, symbols: &mut Symbols, grounding| {
                let mut c = c?;
                let prepared = derive_static(&mut c, symbols, &few).ok()?;
                Some(Game::assemble(
                    prepared,
                    &read.rules(&c, symbols),
                    first,
                    grounding,
                ))
            };
            // The names of the rules as written, for the second transformation
            // (whose demand relations should not read `r??` for the first's).
            let written_symbols = symbols.clone();
            let fixed = plan::demand::demand_fixed_questions(&clauses, &state, &mut symbols);
            if let Some(other) = assemble(fixed, &mut symbols, Grounding::WithinBase) {
                let better = match &other.rules.ground {
                    Some(g) if g.program.rules() <= RACE_RULES => true,
                    Some(_) => !game.clone().plays_faster_than(&mut other.clone()),
                    None => other.costs_less_than(&game),
                };
                if better {
                    game = other;
                }
            }
            // Still interpreted: the relations of the state derived on
            // demand whatever their questions depend on, kept when they
            // cost less to play. Their rules ground no better than the
            // rules as written (a demand relation is as large as what it
            // asks for), so they are not ground.
            if game.rules.ground.is_none() {
                let mut symbols = written_symbols;
                let dynamic = plan::demand::demand_state_questions(&clauses, &state, &mut symbols);
                if let Some(other) = assemble(dynamic, &mut symbols, Grounding::Off) {
                    if other.costs_less_than(&game) {
                        game = other;
                    }
                }
            }
        } else if game
            .rules
            .ground
            .as_ref()
            .is_some_and(|g| g.program.rules() > RACE_RULES)
        {
            // Many ground rules may play slower than the interpreter
            // (blockerParallel's 5.65 million): both play for a moment.
            let mut written = clauses.clone();
            if let Ok(prepared) = derive_static(&mut written, &mut symbols, &limits) {
                let rules = read.rules(&written, &symbols);
                let mut other = Game::assemble(prepared, &rules, limits, Grounding::Off);
                if other.plays_faster_than(&mut game.clone()) {
                    game = other;
                }
            }
        }
        // Rules still interpreted that gave up on the first try's count of
        // atoms are ground again under grounding's share of the memory
        // budget alone (a chess-sized game), with half its work, and kept
        // when they play faster than what the first try chose (a larger
        // grounding may play slower than a smaller one).
        if game.rules.ground.is_none() && past_count && limits.max_ground_atoms > FIRST_TRY_ATOMS {
            let wide = Limits {
                max_ground_work: limits.max_ground_work / 2,
                ..limits
            };
            let mut written = clauses.clone();
            if let Ok(prepared) = derive_static(&mut written, &mut symbols, &limits) {
                let mut other = Game::as_written(prepared, &read.rules(&written, &symbols), wide);
                if other.rules.ground.is_some() && other.plays_faster_than(&mut game.clone()) {
                    game = other;
                }
            }
        }
        game.limits = limits;
        Ok(game)
    }

    /// The game of the rules `written`, ground within `base` where they
    /// declare it and where it fits the limits, or whole where random play
    /// leaves `base` (a `base` that leaves out facts random play reaches
    /// sends much of play to the interpreter).
    fn as_written(prepared: Prepared, written: &Written<'_>, limits: Limits) -> Game {
        let declares_base = base_relation(&prepared.program, written.symbols).is_some();
        let whole = declares_base.then(|| prepared.clone());
        let game = Game::assemble(prepared, written, limits, Grounding::WithinBase);
        if let Some(prepared) = whole.filter(|_| game.leaves_base()) {
            let whole = Game::assemble(prepared, written, limits, Grounding::Whole);
            if whole.rules.ground.is_some() {
                return whole;
            }
        }
        game
    }

    /// The game of the rules `written`, planned as `prepared`, ground as
    /// `grounding` says where it fits the limits.
    fn assemble(
        prepared: Prepared,
        written: &Written<'_>,
        limits: Limits,
        grounding: Grounding,
    ) -> Game {
        let Written {
            clauses,
            symbols,
            file,
            warnings,
        } = *written;
        let mut prepared = prepared;
        let mut symbols = symbols.clone();
        let (roles, initial) = start(&prepared.program, &prepared.static_facts);
        let tried = grounding != Grounding::Off && limits.max_ground_work > 0;
        let grounded = tried.then(|| {
            let within_base =
                grounding == Grounding::WithinBase && derive_base(&mut prepared, &symbols, &limits);
            let initial = &initial.0;
            ground(
                &mut prepared,
                clauses,
                initial,
                &mut symbols,
                &limits,
                within_base,
            )
        });
        let grounding_stop = match &grounded {
            Some(Err(GameError::Limit { kind, .. })) => Some(*kind),
            _ => None,
        };
        let (ground, written) = grounded.and_then(Result::ok).unzip();
        let Prepared {
            program,
            sizes,
            static_facts,
            terms,
        } = prepared;
        let ground = ground.map(|g| GroundTables::new(g, &program, &static_facts, &roles));
        let kw = program.keywords;
        let role_names: Vec<String> = roles.iter().map(|&t| terms.text(t, &symbols)).collect();
        let of_phase = |target: RelId, phase: Phase| -> Vec<usize> {
            program
                .needed(target)
                .into_iter()
                .filter(|&c| program.components[c].phase == phase)
                .collect()
        };
        let stepper = ground
            .as_ref()
            .and_then(|g| {
                let names = (&terms, &symbols);
                step_tables(g, &program, &roles, &role_names, names, &initial)
            })
            .map(Arc::new);
        let rules = Rules {
            written: written.flatten(),
            ground,
            grounding_stop,
            stepper,
            legal: of_phase(kw.legal, Phase::State),
            terminal: of_phase(kw.terminal, Phase::State),
            goal: of_phase(kw.goal, Phase::State),
            next_state: of_phase(kw.next, Phase::State),
            next_moves: of_phase(kw.next, Phase::Move),
            source: file.clone(),
            static_facts,
            roles,
            role_names,
            initial,
            warnings: warnings.to_vec(),
            program,
            sizes,
        };
        let capacity = match rules.ground {
            Some(_) => DEFAULT_MEMO_CAPACITY,
            None => DEFAULT_INTERPRETED_MEMO_CAPACITY,
        };
        Game {
            terms,
            symbols,
            memo: Memo::new(capacity, limits.max_memory / MEMO_SHARE),
            limits,
            scratch: Values::default(),
            moves: Store::new(&rules.program, &rules.sizes),
            rules: Arc::new(rules),
            run: RunScratch::default(),
            todo: Vec::new(),
            stepper: None,
            detached: None,
            detaching: false,
        }
    }

    /// Whether this game's rules cost less to play than `other`'s (the same
    /// game, planned another way): each plays the same seeded random
    /// playouts for [`RACE_STATES`] states in all, asking what a playout
    /// asks, and the join work each spends is compared (a count, not a
    /// time: the same on every machine). Both run under a bound on their
    /// work, raised sixteenfold while neither finishes under it, so that a
    /// plan that would take hours stops early and loses. A plan that fails
    /// loses; a tie, or both failing, keeps `other`.
    fn costs_less_than(&self, other: &Game) -> bool {
        let mut bound = RACE_FIRST_BOUND;
        loop {
            match (self.clone().race(bound), other.clone().race(bound)) {
                (Race::Done(mine), Race::Done(theirs)) => return mine < theirs,
                (Race::Done(_), _) => return true,
                (Race::OverBound, Race::OverBound) if bound < RACE_LAST_BOUND => bound *= 16,
                _ => return false,
            }
        }
    }

    /// Whether random play leaves the facts of the ground rules (which a
    /// `base` that leaves out reachable facts bounds too tightly) within
    /// [`BASE_CHECK_PLAYOUTS`] seeded playouts of at most
    /// [`BASE_CHECK_STEPS`] joint moves in all, on the stepper; false
    /// where there is no stepper or no `next` fact outside them.
    fn leaves_base(&self) -> bool {
        let Some(tables) = self.rules.stepper.as_ref().filter(|t| t.can_leave()) else {
            return false;
        };
        let mut stepper = Stepper::new(Arc::clone(tables));
        let mut rng = Pcg64::seed_from_u64(0);
        let mut picks = vec![0; self.rules.roles.len()];
        let mut steps = 0;
        for _ in 0..BASE_CHECK_PLAYOUTS {
            stepper.set_state(&self.rules.initial);
            while steps < BASE_CHECK_STEPS && !stepper.is_terminal() {
                for (role, k) in picks.iter_mut().enumerate() {
                    match stepper.legal_count(role) {
                        0 => return false,
                        n => *k = rng.gen_range(0..n),
                    }
                }
                stepper.play_nth(&picks);
                steps += 1;
                if stepper.is_off() {
                    return true;
                }
            }
        }
        false
    }

    /// Whether this game plays random playouts faster than `other` (the
    /// same game on another engine) by more than [`RACE_MARGIN`], each
    /// measured for [`RACE_SECONDS`] of its playouts (a time, unlike
    /// [`Game::costs_less_than`]: the ground and the interpreted engines
    /// count no common unit of work). A game that fails loses.
    fn plays_faster_than(&mut self, other: &mut Game) -> bool {
        let mine = super::random::states_per_second(self, RACE_SECONDS);
        let theirs = super::random::states_per_second(other, RACE_SECONDS);
        match (mine, theirs) {
            (Some(mine), Some(theirs)) => mine > theirs * RACE_MARGIN,
            (Some(_), None) => true,
            _ => false,
        }
    }

    /// How the race's playouts go with each evaluation's work, and their
    /// work in all, bounded by `bound` (and by the game's limits).
    fn race(&mut self, bound: u64) -> Race {
        self.limits.max_work = self.limits.max_work.min(bound);
        self.run.work_done = 0;
        let mut rng = Pcg64::seed_from_u64(0);
        let mut states = 0;
        loop {
            let mut state = self.initial_state();
            loop {
                states += 1;
                if states > RACE_STATES {
                    return Race::Done(self.run.work_done);
                }
                match self.random_step(&state, &mut rng) {
                    Ok(Some(next)) => state = next,
                    Ok(None) => break,
                    Err(GameError::Limit {
                        kind: LimitKind::JoinWork,
                        ..
                    }) => return Race::OverBound,
                    Err(_) => return Race::Failed,
                }
                if self.run.work_done > bound {
                    return Race::OverBound;
                }
            }
        }
    }

    /// The state after every role plays a move chosen at random, `None` at
    /// a terminal state (its goals asked) or where a role has no move.
    fn random_step(&mut self, state: &State, rng: &mut Pcg64) -> Result<Option<State>, GameError> {
        if self.is_terminal(state)? {
            self.goals(state)?;
            return Ok(None);
        }
        let mut joint = Vec::new();
        for role in self.roles() {
            let moves = self.legal_moves(state, role)?;
            if moves.is_empty() {
                return Ok(None);
            }
            joint.push(moves[rng.gen_range(0..moves.len())]);
        }
        self.next_state(state, &joint).map(Some)
    }
}

/// The ground rules past which loading measures whether the interpreter
/// plays the game faster ([`Game::plays_faster_than`]).
const RACE_RULES: usize = 100_000;

/// The most condensed ground rules for which the rules as written are
/// ground too, to keep the fewer.
const MAX_WRITTEN_TRY: usize = 1_000_000;

/// How long [`Game::plays_faster_than`] plays each engine, in seconds.
const RACE_SECONDS: f64 = 0.2;

/// How much faster the interpreter must play than ground rules to be
/// chosen: a margin that measurements a few percent apart on a busy
/// machine do not flip.
const RACE_MARGIN: f64 = 1.5;

/// How many playouts, and joint moves in all, [`Game::leaves_base`] plays.
const BASE_CHECK_PLAYOUTS: usize = 32;
const BASE_CHECK_STEPS: usize = 4096;

/// How many states [`Game::costs_less_than`] visits in each plan.
const RACE_STATES: usize = 24;

/// The first bound on the work of a race's playouts, and the last.
const RACE_FIRST_BOUND: u64 = 1 << 20;
const RACE_LAST_BOUND: u64 = 1 << 36;

/// How a plan's race went.
enum Race {
    /// It visited every state, with this much work.
    Done(u64),
    /// It would have worked past the bound.
    OverBound,
    /// It stopped at an error other than the bound.
    Failed,
}

/// The facts limit under which the static facts are first derived: a
/// relation that outgrows it is derived on demand where it can be.
const DEMAND_PROBE_FACTS: usize = 1 << 20;

/// The most facts the static facts of rules whose fixed questions are
/// derived on demand may hold (their demands with the game's static facts).
const MAX_DEMAND_FACTS: usize = 1 << 16;

/// How many relations may be turned to derivation on demand.
const MAX_DEMAND_ROUNDS: usize = 4;

/// Grounds the rules `clauses`, planned as `prepared`, under the limits:
/// their condensed form (plan::condense) where it differs, which then
/// replaces `prepared`'s plan and static facts, the plan replaced coming
/// back with the ground rules; the limit it reached where grounding gives
/// up.
fn ground(
    prepared: &mut Prepared,
    clauses: &[Clause],
    initial: &[TermId],
    symbols: &mut Symbols,
    limits: &Limits,
    within_base: bool,
) -> Result<(Grounded, Option<Program>), GameError> {
    let Some(condensed) = plan::condense::condense(clauses, symbols) else {
        let p = &prepared.program;
        let (facts, terms) = (&prepared.static_facts, &mut prepared.terms);
        let g = Grounded::new(
            p,
            clauses,
            facts,
            initial,
            terms,
            symbols,
            limits,
            usize::MAX,
            within_base,
        );
        return g.map(|g| (g, None));
    };
    let terms = &mut prepared.terms;
    let q = plan::plan(&condensed, terms, symbols);
    let sizes = Arc::new(SizeHints::new(q.relations.len()));
    let facts = static_facts_for(&q, &sizes, &prepared.program, &prepared.static_facts, terms);
    let g = Grounded::new(
        &q,
        &condensed,
        &facts,
        initial,
        terms,
        symbols,
        limits,
        usize::MAX,
        within_base,
    );
    let g = g?;
    // A group split off is joined without the conditions of the rest of
    // its rule, and may have more instances than the whole rule had
    // (wargame01: 232,783 ground rules condensed, 96,973 as written, and
    // a third of the speed; nonogram_10x10_1: 29,400 against 19,580, and
    // 0.57 of the speed). So the rules as written are ground too, stopped
    // as soon as they are as many, and kept when they are fewer; past a
    // million condensed rules, that try would cost seconds of load.
    if g.rules() < MAX_WRITTEN_TRY {
        let p = &prepared.program;
        let written = Grounded::new(
            p,
            clauses,
            &prepared.static_facts,
            initial,
            terms,
            symbols,
            limits,
            g.rules(),
            within_base,
        );
        if let Ok(written) = written {
            return Ok((written, None));
        }
    }
    let written = std::mem::replace(&mut prepared.program, q);
    prepared.sizes = sizes;
    prepared.static_facts = facts;
    Ok((g, Some(written)))
}

/// Rules to assemble a game of, with what loading read of them.
#[derive(Clone, Copy)]
struct Written<'a> {
    clauses: &'a [Clause],
    symbols: &'a Symbols,
    file: &'a SourceFile,
    warnings: &'a [Diagnostic],
}

/// What loading read of a rules file: the file and its warnings.
#[derive(Clone, Copy)]
struct Read<'a> {
    file: &'a SourceFile,
    warnings: &'a [Diagnostic],
}

impl<'a> Read<'a> {
    /// The rules `clauses` (with their names), of this file.
    fn rules<'b>(self, clauses: &'b [Clause], symbols: &'b Symbols) -> Written<'b>
    where
        'a: 'b,
    {
        Written {
            clauses,
            symbols,
            file: self.file,
            warnings: self.warnings,
        }
    }
}

/// The count of atoms under which loading first tries to ground the rules
/// (where [`Limits::max_ground_atoms`] sets none lower): past it, the
/// rules ground again only if they are still interpreted after the
/// transformations that may make them ground smaller, and under the
/// memory share alone. The largest published games that ground within it
/// have some 50,000 atoms (shogi_ctk); a failed try costs under a second
/// (amazonsTorus: 0.8 s).
const FIRST_TRY_ATOMS: usize = 100_000;

/// How `Game::assemble` grounds the rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Grounding {
    /// Not at all: the interpreter plays them.
    Off,
    /// Over the facts the rules declare with `base`, where they declare
    /// some, few enough to derive (see `engine::ground`).
    WithinBase,
    /// Over every fact the relaxed rules reach.
    Whole,
}

/// The relation `base/1`, where the rules define it without the state.
fn base_relation(p: &Program, symbols: &Symbols) -> Option<RelId> {
    let base = p.relation(symbols.get("base")?)?;
    (p.info(base).phase == Phase::Static && p.info(base).arity == 1).then_some(base)
}

/// Derives the facts of `base` among `prepared`'s static facts (play
/// never needs them, so `derive_static` leaves them out), under the limit
/// of ground atoms where one is set and the facts limit: a `base` larger
/// than that would bound no grounding. Whether it did.
fn derive_base(prepared: &mut Prepared, symbols: &Symbols, limits: &Limits) -> bool {
    let p = &prepared.program;
    let Some(base) = base_relation(p, symbols) else {
        return false;
    };
    let done = static_strata(p);
    let mut strata: Vec<usize> = (p.needed(base).into_iter())
        .filter(|c| !done.contains(c))
        .collect();
    strata.sort_unstable();
    let mut facts = prepared.static_facts.clone();
    let bound = Limits {
        max_facts: limits.max_ground_atoms.min(limits.max_facts),
        ..*limits
    };
    let (terms, target) = (&mut prepared.terms, Target::Static);
    if run_strata(p, &strata, &mut facts, target, terms, symbols, &bound).is_err() {
        return false;
    }
    prepared.static_facts = facts;
    true
}

/// The roles (in order) and the initial state, from the static facts.
fn start(program: &Program, static_facts: &Store) -> (Vec<TermId>, State) {
    let kw = program.keywords;
    let roles = static_facts
        .relation(kw.role)
        .rows()
        .map(|r| r[0])
        .collect();
    let initial = State::from_terms(
        static_facts
            .relation(kw.init)
            .rows()
            .map(|r| r[0])
            .collect(),
    );
    (roles, initial)
}

/// A planned program and its static facts.
#[derive(Clone)]
struct Prepared {
    program: Program,
    sizes: Arc<SizeHints>,
    static_facts: Store,
    terms: TermTable,
}

/// A limit reached deriving the static facts, with the program it was
/// reached in (to locate it).
struct Runaway {
    error: GameError,
    program: Box<Program>,
}

/// Plans the clauses and derives their static facts, first under a small
/// facts limit: a relation that outgrows it is derived on demand instead
/// when the rules only ask it bound questions (plan::demand, which rewrites
/// `clauses`), and only when it cannot be is the whole model derived under
/// the real limits.
fn derive_static(
    clauses: &mut Vec<Clause>,
    symbols: &mut Symbols,
    limits: &Limits,
) -> Result<Prepared, Runaway> {
    let mut probing = limits.max_facts > DEMAND_PROBE_FACTS;
    let mut demanded = 0;
    // The rules before the last transformation, when it asked left to
    // right, and the relation it demanded.
    let mut left_to_right: Option<(Vec<Clause>, Symbol)> = None;
    loop {
        let mut terms = TermTable::new();
        let program = plan::plan(clauses, &mut terms, symbols);
        let sizes = Arc::new(SizeHints::new(program.relations.len()));
        let mut static_facts = Store::new(&program, &sizes);
        let now = match probing {
            true => Limits {
                max_facts: DEMAND_PROBE_FACTS,
                ..*limits
            },
            false => *limits,
        };
        let Err(error) = run_strata(
            &program,
            &static_strata(&program),
            &mut static_facts,
            Target::Static,
            &mut terms,
            symbols,
            &now,
        ) else {
            return Ok(Prepared {
                program,
                sizes,
                static_facts,
                terms,
            });
        };
        if let GameError::Limit { relation, .. } = &error {
            let named = symbols.get(relation);
            // A transformation asking left to right that did not bound its
            // relation (nor the demand relations it added): the rules
            // before it, asked with every binder instead.
            if let Some((before, r)) = left_to_right.take() {
                if named == Some(r) || named.is_some_and(|n| !defines(&before, n)) {
                    *clauses = before;
                    if let Some(transformed) = plan::demand::demand(clauses, r, symbols) {
                        *clauses = transformed;
                        continue;
                    }
                }
            }
            if let Some(r) = named.filter(|_| demanded < MAX_DEMAND_ROUNDS) {
                demanded += 1;
                if let Some(t) = plan::demand::demand_left_to_right(clauses, r, symbols) {
                    left_to_right = Some((std::mem::replace(clauses, t), r));
                    continue;
                }
                if let Some(transformed) = plan::demand::demand(clauses, r, symbols) {
                    *clauses = transformed;
                    continue;
                }
            }
        }
        if !probing {
            return Err(Runaway {
                error,
                program: Box::new(program),
            });
        }
        probing = false;
    }
}

/// Whether a rule of `clauses` derives `relation`.
fn defines(clauses: &[Clause], relation: Symbol) -> bool {
    clauses.iter().any(|c| c.head.name == relation)
}

/// The strata of static facts that play needs: `base`, `input` and other
/// relations nothing in play uses are never derived (an exact `base` of a
/// game with a position history could not be held).
fn static_strata(program: &Program) -> Vec<usize> {
    let kw = program.keywords;
    let mut strata: Vec<usize> = [kw.role, kw.init, kw.legal, kw.next, kw.terminal, kw.goal]
        .into_iter()
        .flat_map(|r| program.needed(r))
        .filter(|&c| program.components[c].phase == Phase::Static)
        .collect();
    strata.sort_unstable();
    strata.dedup();
    strata
}

/// Where to point a limit error raised at load: the first rule deriving the
/// relation named in it.
fn limit_span(
    e: &GameError,
    p: &Program,
    d: &crate::syntax::ast::Description,
    symbols: &Symbols,
) -> crate::source::Span {
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
