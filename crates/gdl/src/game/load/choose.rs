//! Loading's last stage: the engine. The caller chooses it
//! ([`EngineChoice`]), or `auto` decides by a rule that counts work, never
//! time, so that one file gets one engine on any machine and under any
//! load.
//!
//! The candidates, in order: the rules as written, ground under a first
//! count of atoms; where they ground in 20,000 rules to half a million
//! (to a million where they are many an atom), the rules with their
//! variables eliminated (`rewrite::eliminate`), ground too; where they do
//! not ground, the rules with the questions
//! that never change derived on demand (`plan::demand`), ground; where
//! still interpreted, the relations of the state derived on demand,
//! interpreted; where the first count stopped grounding, the rules as
//! written ground under the memory share alone. `auto` keeps a candidate
//! where it plays cheaper ([`Game::cheaper_than`]); `ground` keeps the
//! first that grounds, and fails where none does; `interpreter` takes the
//! rules as written.

use super::LoadOptions;
use super::assemble::{Grounding, Read};
use super::prepare::{MAX_DEMAND_FACTS, Prepared, derive_static};
use crate::error::GameError;
use crate::game::Game;
use crate::game::random::{InEngineOrder, Players};
use crate::game::types::{Engine, EngineChoice, Move, State, Stop};
use crate::limits::{LimitKind, Limits};
use crate::plan::Phase;
use crate::syntax::normal::Clause;
use crate::syntax::symbol::Symbols;
use rand::SeedableRng;
use rand_pcg::Pcg64;

/// The game of the prepared rules on the engine `options` asks for; where
/// it asks for ground rules and none fit the limits, the limit that
/// stopped grounding (`None`: the rules cannot be ground at all).
/// `rewrites` says what loading rewrote before (the reasons begin with it).
pub(super) fn choose(
    prepared: Prepared,
    clauses: &[Clause],
    mut symbols: Symbols,
    read: Read<'_>,
    options: LoadOptions,
    rewrites: &[String],
) -> Result<Game, Option<LimitKind>> {
    let (limits, engine) = (options.limits, options.engine);
    if engine == EngineChoice::Interpreter {
        let written = read.rules(clauses, &symbols);
        let mut game = Game::assemble(prepared, &written, limits, Grounding::Off);
        game.limits = limits;
        let asked = std::iter::once("the interpreter was asked for");
        game.choice = (asked.chain(rewrites.iter().map(String::as_str)))
            .collect::<Vec<_>>()
            .join("; ")
            .into();
        return Ok(game);
    }
    // Why the engine is what it is, step by step, for `gdl plan`.
    let mut why: Vec<String> = rewrites.to_vec();
    let auto = engine == EngineChoice::Auto;
    // The first try grounds under a count of atoms: most games ground
    // well within it, and one far past it gives up in a moment, leaving
    // the transformations below to find rules that ground.
    let first = Limits {
        max_ground_atoms: limits.max_ground_atoms.min(FIRST_TRY_ATOMS),
        ..limits
    };
    let mut game = Game::as_written(prepared, &read.rules(clauses, &symbols), first);
    let past_count = game.rules.grounding_stop == Some(LimitKind::Facts);
    let mut stop = game.rules.grounding_stop;
    // The estimated time of a state of `game` (see `Game::per_state`),
    // once a comparison has worked it out.
    let mut estimate: Option<Option<f64>> = None;
    why.push(match (&game.rules.ground, stop) {
        (Some(g), _) => format!(
            "the rules as written ground{} ({} rules)",
            game.rules.split.says(),
            g.program.rules()
        ),
        (None, Some(LimitKind::Facts)) => format!(
            "the rules as written have over {} ground atoms",
            first.max_ground_atoms
        ),
        (None, Some(kind)) => format!("the rules as written do not ground within the {kind} limit"),
        (None, None) => "the rules as written cannot be ground".to_string(),
    });
    // Many ground rules may be fewer, and cheaper to play, with the
    // variables of the rules eliminated (`rewrite::eliminate`: a mummy
    // maze's 703,849 become 112,128, and play 7x faster); or dearer
    // (knightfight's joins of the moves then flip at every step, and
    // brawl's 178,417 for 414,929 play slower, though the estimate has
    // them at par): kept when they play cheaper by the margin. Past half
    // a million rules the try costs seconds of load (kalaha_2009's
    // 598,777, +2.4 s), and is made only where the rules are many an atom,
    // joins multiplied out (the mummy maze's 700 an atom), up to a million.
    let worth_eliminating = |rules: usize| match game.engine() {
        Engine::Ground { atoms, .. } => {
            (ELIMINATE_RULES..=MAX_ELIMINATE_RULES).contains(&rules)
                && (rules <= MAX_ELIMINATE_RULES / 2 || rules >= atoms * MANY_AN_ATOM)
        }
        Engine::Interpreter => false,
    };
    if auto
        && let Some(g) =
            (game.rules.ground.as_ref()).filter(|g| worth_eliminating(g.program.rules()))
        && let Some(mut eliminated) = crate::rewrite::eliminate::eliminate(clauses, &mut symbols)
        && let Ok(prepared) = derive_static(&mut eliminated, &mut symbols, &limits)
    {
        let before = g.program.rules();
        // Grounding gives up past as many rules again as the rules as
        // written have: the try is for rules that play cheaper, mostly
        // fewer (Chiara's vectorracer4 would make 945,620 of its 624,297,
        // in 14 s).
        let rules = read
            .rules(&eliminated, &symbols)
            .at_most(before.saturating_mul(3) / 2);
        let other = Game::as_written(prepared, &rules, first);
        if let Some(g) = &other.rules.ground {
            let w = other.cheaper_than(&game, MARGIN);
            let says = w.says("they", "the rules as written");
            why.push(format!(
                "with their variables eliminated one join at a time, they ground ({} rules \
                 against {before}): {says}",
                g.program.rules()
            ));
            estimate = Some(w.kept());
            if w.cheaper {
                game = other;
            }
        }
    }
    // Where grounding was tried and failed, a relation of the state whose
    // questions never change may be derived for those questions only
    // (plan::demand): the rules so transformed are kept when they ground
    // and (under `auto`) when they play cheaper.
    if game.rules.ground.is_none() && first.max_ground_work > 0 {
        let state: Vec<_> = (game.rules.program.relations.iter())
            .filter(|r| r.phase == Phase::State)
            .map(|r| r.name)
            .collect();
        // The demands are meant to be few: many would cost more to derive
        // than the comparison can win back.
        let few = Limits {
            max_facts: limits.max_facts.min(MAX_DEMAND_FACTS),
            ..first
        };
        // The game of transformed rules, their static facts derived under
        // `facts`, ground when `grounding`.
        let assemble =
            |c: Option<Vec<Clause>>, symbols: &mut Symbols, facts: &Limits, grounding| {
                let mut c = c?;
                let prepared = derive_static(&mut c, symbols, facts).ok()?;
                let rules = read.rules(&c, symbols);
                Some(Game::assemble(prepared, &rules, first, grounding))
            };
        // The names of the rules as written, for the second transformation
        // (whose demand relations should not read `r??` for the first's).
        let written_symbols = symbols.clone();
        let fixed = crate::rewrite::demand::demand_fixed_questions(clauses, &state, &mut symbols);
        if let Some(other) = assemble(fixed, &mut symbols, &few, Grounding::WithinBase) {
            let what = "the rules with their fixed questions derived on demand";
            let better = match &other.rules.ground {
                Some(g) if !auto || g.program.rules() <= COMPARE_RULES => {
                    why.push(format!("{what} ground ({} rules)", g.program.rules()));
                    true
                }
                Some(g) => {
                    let w = game.cheaper_than(&other, MARGIN);
                    let says = w.says("the interpreter", "they");
                    why.push(format!(
                        "{what} ground ({} rules): {says}",
                        g.program.rules()
                    ));
                    estimate = Some(w.kept());
                    !w.cheaper
                }
                None if auto => {
                    let w = other.cheaper_than(&game, 1.0);
                    let says = w.says("they", "the rules as written");
                    why.push(format!("{what}, interpreted: {says}"));
                    estimate = Some(w.kept());
                    w.cheaper
                }
                None => false,
            };
            stop = stop.or(other.rules.grounding_stop);
            if better {
                game = other;
            }
        }
        // Still interpreted: the relations of the state derived on demand
        // whatever their questions depend on, kept when they cost less to
        // play. Their rules ground no better than the rules as written (a
        // demand relation is as large as what it asks for), so they are
        // not ground.
        if game.rules.ground.is_none() && auto {
            let mut symbols = written_symbols;
            let dynamic =
                crate::rewrite::demand::demand_state_questions(clauses, &state, &mut symbols);
            // Their static facts are the game's own (chess's squares and
            // lines, past `few`): the demands here are asked anew in each
            // state, not derived once.
            if let Some(other) = assemble(dynamic, &mut symbols, &first, Grounding::Off) {
                // The game before was weighed already where a comparison
                // above kept it: its visit is not made again.
                let before = estimate.unwrap_or_else(|| game.per_state());
                let w = other.cheaper_than_estimate(before, 1.0);
                let says = w.says("they", "the rules before");
                why.push(format!(
                    "the relations of the state derived on demand: {says}"
                ));
                estimate = Some(w.kept());
                if w.cheaper {
                    game = other;
                }
            }
        }
    } else if auto
        && (game.rules.ground.as_ref()).is_some_and(|g| g.program.rules() > COMPARE_RULES)
    {
        // Many ground rules may play slower than the interpreter
        // (blockerParallel's 5.65 million): the rules as written,
        // interpreted, are weighed against them.
        let mut written = clauses.to_vec();
        if let Ok(prepared) = derive_static(&mut written, &mut symbols, &limits) {
            let rules = read.rules(&written, &symbols);
            let other = Game::assemble(prepared, &rules, limits, Grounding::Off);
            // The ground rules were weighed already where they were
            // weighed against their variables eliminated.
            let theirs = estimate.unwrap_or_else(|| game.per_state());
            let w = other.cheaper_than_estimate(theirs, MARGIN);
            let says = w.says("the interpreter", "they");
            why.push(format!("over {COMPARE_RULES} ground rules: {says}"));
            if w.cheaper {
                game = other;
            }
        }
    }
    // Rules still interpreted that gave up on the first try's count of
    // atoms are ground again under grounding's share of the memory budget
    // alone (a chess-sized game), with half its work, and kept when they
    // play cheaper than what the first try chose (a larger grounding may
    // play slower than a smaller one), or when ground rules are asked for.
    if game.rules.ground.is_none() && past_count && limits.max_ground_atoms > FIRST_TRY_ATOMS {
        // The interpreter's cost, estimated once for the budget and the
        // comparison below: what grounding can win back.
        let interpreted = auto
            .then(|| estimate.unwrap_or_else(|| game.per_state()))
            .flatten();
        let wide = Limits {
            max_ground_work: wide_work(limits.max_ground_work, interpreted),
            ..limits
        };
        let mut written = clauses.to_vec();
        if let Ok(prepared) = derive_static(&mut written, &mut symbols, &limits) {
            let other = Game::as_written(prepared, &read.rules(&written, &symbols), wide);
            stop = other.rules.grounding_stop.or(stop);
            let wide = "without a count of atoms, they";
            let cut = other.rules.split.says();
            let better = match (&other.rules.ground, auto) {
                (Some(g), true) => {
                    let w = other.cheaper_than_estimate(interpreted, MARGIN);
                    let says = w.says("they", "the interpreter");
                    why.push(format!(
                        "{wide} ground{cut} ({} rules): {says}",
                        g.program.rules()
                    ));
                    w.cheaper
                }
                (Some(g), false) => {
                    why.push(format!("{wide} ground{cut} ({} rules)", g.program.rules()));
                    true
                }
                (None, _) => {
                    why.push(match stop {
                        Some(kind) => format!("{wide} do not ground within the {kind} limit"),
                        None => format!("{wide} do not ground"),
                    });
                    false
                }
            };
            if better {
                game = other;
            }
        }
    }
    if engine == EngineChoice::Ground && game.rules.ground.is_none() {
        // Grounding counts its atoms as facts.
        return Err(stop.map(|kind| match kind {
            LimitKind::Facts => LimitKind::GroundAtoms,
            other => other,
        }));
    }
    game.limits = limits;
    if let Some((gates, rules)) = (game.rules.stepper.as_ref())
        .map(|t| t.armed_gates())
        .filter(|&(gates, _)| gates > 0)
    {
        why.push(format!(
            "armed gates: the rules of {gates} {moves} ({rules}) are kept ready as what they \
             read changes, which costs less on seeded playouts than counting them as a move is \
             played",
            moves = if gates == 1 { "move" } else { "moves" }
        ));
    }
    if let Some((guards, rules)) = (game.rules.stepper.as_ref())
        .map(|t| t.guards())
        .filter(|&(guards, _)| guards > 0)
    {
        let moves = (game.rules.stepper.as_ref()).map_or(0, |t| t.move_guards());
        why.push(format!(
            "guarded rules: {rules} {rules_word} wait on one of {guards} {atoms} that flip far \
             more often on seeded playouts than the rest of each rule (whose turn it is{noops}), \
             so that a flip visits only those whose other literals all hold",
            rules_word = if rules == 1 { "rule" } else { "rules" },
            atoms = if guards == 1 { "atom" } else { "atoms" },
            noops = match moves {
                0 => String::new(),
                1 => ", one of them a role's noop".to_string(),
                n => format!(", {n} of them a role's noop"),
            }
        ));
    }
    if let Some(heads) = (game.rules.stepper.as_ref())
        .map(|t| t.role_sets())
        .filter(|&heads| heads > 0)
    {
        why.push(format!(
            "moves of several roles: {heads} {atoms} read a set of moves through what each \
             role plays otherwise (a noop, a move from here), which costs less on seeded \
             playouts than reading each move",
            atoms = if heads == 1 { "atom" } else { "atoms" }
        ));
    }
    if let Some(merged) = (game.rules.stepper.as_ref())
        .map(|t| t.equivalents())
        .filter(|&merged| merged > 0)
    {
        why.push(format!(
            "equivalent atoms: {merged} {atoms} merged into others whose rules are the same \
             (once what they read is merged), so that one atom flips for them all",
            atoms = if merged == 1 { "atom" } else { "atoms" }
        ));
    }
    if let Some((long, links)) = (game.rules.stepper.as_ref())
        .map(|t| t.long_rules())
        .filter(|&(long, _)| long > 0)
    {
        why.push(format!(
            "long rules: {long} {rules} of over 255 literals written as chains, with {links} \
             new {atoms}, so that a rule's count of unsatisfied literals fits a byte",
            rules = if long == 1 { "rule" } else { "rules" },
            atoms = if links == 1 { "atom" } else { "atoms" }
        ));
    }
    if let Some((components, atoms, rules)) = (game.rules.stepper.as_ref())
        .map(|t| t.cycles())
        .filter(|&(components, _, _)| components > 0)
    {
        why.push(format!(
            "atoms on cycles: {components} {of} ({atoms} atoms, {rules} rules) derived anew, a \
             component at a time, when one of their atoms loses a rule",
            of = if components == 1 {
                "component"
            } else {
                "components"
            }
        ));
    }
    if let Some((rules, idle)) = game.outcome_tables().and_then(|t| t.cone_sizes()) {
        why.push(format!(
            "random outcomes: played on a second network of the {rules} rules that legal \
             moves, goals and terminal depend on, without the {idle} that derive facts of the \
             state no outcome depends on"
        ));
    }
    let outcomes = game.outcome_tables().or(game.rules.stepper.as_ref());
    if let Some((atoms, rules)) = outcomes.and_then(|t| t.dense_sizes()) {
        why.push(format!(
            "random outcomes: the network's {atoms} atoms fit one word of bits, so its {rules} \
             rules are read whole at each step (each a test of two masks) rather than flips \
             propagated"
        ));
    }
    let asked = match engine {
        EngineChoice::Ground => "ground rules were asked for",
        _ => "auto",
    };
    game.choice = format!("{asked}: {}", why.join("; ")).into();
    Ok(game)
}

/// The work of the try that grounds the rules without a count of atoms:
/// half of `max_ground_work`, and under `auto` no more than the time of
/// [`WIDE_TRY_STATES`] states of the interpreter, estimated at
/// `interpreted` nanoseconds each (`None`: too costly to estimate, so the
/// half). Where the interpreter is quick, a long grounding cannot win
/// back its load (brazilian draughts, 85 us a state, spent 15 s of its
/// load on a try that failed); where it is slow, grounding is worth its
/// seconds (gt_two_thirds_6p, 358 us a state, grounds within 9 million
/// units of work).
fn wide_work(max_ground_work: u64, interpreted: Option<f64>) -> u64 {
    let half = max_ground_work / 2;
    match interpreted {
        Some(nanos) => half.min((nanos * WIDE_TRY_STATES / GROUND_WORK_NANOS) as u64),
        None => half,
    }
}

/// How many interpreted states' time the try without a count of atoms
/// may take (see [`wide_work`]): some hundreds of playouts.
const WIDE_TRY_STATES: f64 = 20_000.0;

/// The time of one unit of grounding's work (a round of a relaxed join or
/// a term it builds), in nanoseconds of this project's machines: 280 on
/// gt_two_thirds_6p, 750 on brazilian draughts' deep terms.
const GROUND_WORK_NANOS: f64 = 500.0;

/// The ground rules past which `auto` weighs the interpreter against
/// them (fewer play faster than it on every game we know).
const COMPARE_RULES: usize = 100_000;

/// The ground rules from which, up to half [`MAX_ELIMINATE_RULES`] (up
/// to all of it where they are [`MANY_AN_ATOM`]), the rules with their
/// variables eliminated are ground too, and weighed against them.
const ELIMINATE_RULES: usize = 20_000;
const MAX_ELIMINATE_RULES: usize = 1_000_000;

/// Rules an atom from which ground rules are many an atom (see
/// [`MAX_ELIMINATE_RULES`]).
const MANY_AN_ATOM: usize = 100;

/// How much cheaper the interpreter must play than ground rules (or they
/// than it) to be chosen over them: a margin for what the count of work
/// leaves out.
const MARGIN: f64 = 1.5;

/// The count of atoms under which loading first tries to ground the rules
/// (where [`Limits::max_ground_atoms`] sets none lower): past it, the
/// rules ground again only if they are still interpreted after the
/// transformations that may make them ground smaller, and under the
/// memory share alone. The largest published games that ground within it
/// have some 50,000 atoms (shogi_ctk); a failed try costs under a second
/// (amazonsTorus: 0.8 s).
pub(super) const FIRST_TRY_ATOMS: usize = 100_000;

/// How many states [`Game::cheaper_than`] visits with each game.
const COMPARE_STATES: usize = 64;

/// The estimated work (see [`Spent::nanos`]) after which a candidate's
/// visit stops short of [`COMPARE_STATES`] states: a chess-sized game,
/// whose states cost a second each as written, is weighed on its first
/// few states rather than on 64, so that choosing costs seconds, not
/// minutes. Most games visit their 64 states well within it.
const COMPARE_BUDGET: f64 = 1e9;

/// How far past [`COMPARE_BUDGET`] one state may go before its visit
/// stops (and the candidate loses): a state that would take hours.
const STATE_PAST_BUDGET: f64 = 20.0;

/// The work of one unit of each kind, in nanoseconds, as measured on this
/// project's machines (2-core x86-64) by the ignored test
/// `calibrate_work_units`: what turns the counts of work of the engines
/// into one estimate that can be compared. They are constants: a machine
/// twice as fast shifts every estimate alike, and the choice stays.
const JOIN_NANOS: f64 = 80.0;
const INTERPRETED_STATE_NANOS: f64 = 3_000.0;
const GROUND_RULE_NANOS: f64 = 10.0;
const NETWORK_NANOS: f64 = 20.0;
const STEP_NANOS: f64 = 2_000.0;

/// What a game spent visiting states, in each engine's count of work.
#[derive(Clone, Copy, Debug, Default)]
struct Spent {
    /// Candidate facts the interpreter's joins looked at.
    joins: u64,
    /// Rules the ground rules' evaluations checked.
    rules: u64,
    /// Flips and rule reads of the stepper's network, and its top-down
    /// steps.
    network: u64,
    /// States visited by the interpreter, and by ground rules.
    interpreted: u64,
    stepped: u64,
}

impl Spent {
    /// The states visited.
    fn states(&self) -> u64 {
        self.interpreted + self.stepped
    }

    /// The estimated time of this work, in nanoseconds of this project's
    /// machines: a count weighted by constants, the same on every machine.
    fn nanos(&self) -> f64 {
        self.joins as f64 * JOIN_NANOS
            + self.rules as f64 * GROUND_RULE_NANOS
            + self.network as f64 * NETWORK_NANOS
            + self.interpreted as f64 * INTERPRETED_STATE_NANOS
            + self.stepped as f64 * STEP_NANOS
    }
}

/// What [`Game::cheaper_than`] found: whether the game plays cheaper, and
/// the estimated time a state of each (`None`: over the bound, or failed).
struct Weighed {
    cheaper: bool,
    mine: Option<f64>,
    theirs: Option<f64>,
    margin: f64,
}

impl Weighed {
    /// The estimate of the game the comparison keeps: the one weighed
    /// where it is cheaper, the other where not.
    fn kept(&self) -> Option<f64> {
        if self.cheaper { self.mine } else { self.theirs }
    }

    /// The comparison in words, the game weighed called `mine`, the other
    /// `theirs`.
    fn says(&self, mine: &str, theirs: &str) -> String {
        let estimate = |n: Option<f64>| match n {
            Some(n) => format!("{:.1} us a state", n / 1000.0),
            None => "too costly to finish".to_string(),
        };
        let verdict = match (self.cheaper, self.margin > 1.0) {
            (true, true) => format!("{mine} kept, cheaper by over {}x", self.margin),
            (true, false) => format!("{mine} kept, cheaper"),
            (false, _) => format!("{theirs} kept"),
        };
        format!(
            "{mine} estimated at {}, {theirs} at {} ({verdict})",
            estimate(self.mine),
            estimate(self.theirs)
        )
    }
}

/// How a game's visit of states went.
enum Visit {
    /// It visited its states (all it was asked for, or those within the
    /// budget), spending this.
    Done(Spent),
    /// One state would have cost far past the budget.
    OverBound,
    /// It stopped at an error other than the bound.
    Failed,
}

impl Game {
    /// Whether this game plays cheaper than `other` (the same game, planned
    /// or evaluated another way) by `margin`: each visits the same states
    /// of seeded random playouts ([`COMPARE_STATES`], or fewer where they
    /// cost past [`COMPARE_BUDGET`]), asking what a playout asks, and the
    /// work each spends a state is compared as [`Spent::nanos`] weighs it
    /// (counts, not times: the same on every machine). A game that fails,
    /// or one of whose states costs far past the budget, loses; a tie, or
    /// both failing, keeps `other`.
    fn cheaper_than(&self, other: &Game, margin: f64) -> Weighed {
        self.cheaper_than_estimate(other.per_state(), margin)
    }

    /// Whether this game plays cheaper by `margin` than another whose
    /// [`Game::per_state`] estimate is `theirs` (see
    /// [`Game::cheaper_than`]).
    fn cheaper_than_estimate(&self, theirs: Option<f64>, margin: f64) -> Weighed {
        let mine = self.per_state();
        let cheaper = match (mine, theirs) {
            (Some(mine), Some(theirs)) => mine * margin < theirs,
            (Some(_), None) => true,
            (None, _) => false,
        };
        Weighed {
            cheaper,
            mine,
            theirs,
            margin,
        }
    }

    /// The estimated time of one of the game's states in nanoseconds (as
    /// [`Spent::nanos`] weighs its work) over the states of seeded random
    /// playouts that [`Game::cheaper_than`] visits; `None` where a state
    /// costs far past the bound or the visit fails.
    fn per_state(&self) -> Option<f64> {
        match self.clone().visit(COMPARE_STATES, COMPARE_BUDGET) {
            Visit::Done(spent) => Some(spent.nanos() / spent.states().max(1) as f64),
            Visit::OverBound | Visit::Failed => None,
        }
    }

    /// What the game spends visiting `count` states of seeded random
    /// playouts ([`Game::play`] of a random player in the engine's order),
    /// or fewer: the visit stops once it has spent past `budget` (and
    /// fails where one state would cost [`STATE_PAST_BUDGET`] times it,
    /// or where the game's limits stop it).
    fn visit(&mut self, count: usize, budget: f64) -> Visit {
        let joins = (budget * STATE_PAST_BUDGET / JOIN_NANOS) as u64;
        self.limits.max_work = self.limits.max_work.min(joins.max(1));
        let mut visitor = Visitor {
            rng: Pcg64::seed_from_u64(0),
            count,
            budget,
            states: 0,
            stepped: false,
            spent: Spent::default(),
            end: None,
        };
        loop {
            let start = self.initial_state();
            let played = self.play(&start, &mut visitor, Stop::steps(usize::MAX));
            if let Some(end) = visitor.end.take() {
                return end;
            }
            match played {
                // The last state was asked whether it is terminal and
                // for its goals, or had a role with no move: counted, and
                // a new game begins.
                Ok(_) | Err((_, GameError::NoLegalMove { .. })) => {
                    if let Some(end) = visitor.counted(self) {
                        return end;
                    }
                }
                Err((
                    _,
                    GameError::Limit {
                        kind: LimitKind::JoinWork,
                        ..
                    },
                )) => return Visit::OverBound,
                Err(_) => return Visit::Failed,
            }
        }
    }

    /// Whether the game's queries about `state` will be answered by its
    /// stepper (see `Game::positioned`).
    fn stepper_at(&mut self, state: &State) -> bool {
        self.positioned(state).is_some()
    }
}

/// The player of [`Game::visit`]: moves at random in the engine's order,
/// and the work of each state it reaches counted.
struct Visitor {
    rng: Pcg64,
    /// The states to visit, and the estimated work to stop past.
    count: usize,
    budget: f64,
    /// The states reached so far; whether the last one is on the stepper.
    states: usize,
    stepped: bool,
    spent: Spent,
    /// How the visit ended, once it has (the game is then stopped by an
    /// error that stands for it).
    end: Option<Visit>,
}

impl Visitor {
    /// The work of the state last reached counted (`game`'s counts now
    /// include it); how the visit ends, where it is over the budget.
    fn counted(&mut self, game: &Game) -> Option<Visit> {
        self.spent.joins = game.run.work_done;
        self.spent.rules = game.ground_work;
        self.spent.network = game.stepper.as_ref().map_or(0, |s| s.work());
        match self.stepped {
            true => self.spent.stepped += 1,
            false => self.spent.interpreted += 1,
        }
        let nanos = self.spent.nanos();
        if nanos > self.budget * STATE_PAST_BUDGET {
            return Some(Visit::OverBound);
        }
        (nanos > self.budget).then_some(Visit::Done(self.spent))
    }

    /// Ends the visit as `end`, and the game with an error standing for
    /// it.
    fn ended(&mut self, end: Visit) -> Result<(), GameError> {
        self.end = Some(end);
        Err(GameError::Cancelled)
    }
}

impl Players for Visitor {
    fn joint(&mut self, game: &mut Game, state: &State) -> Result<Vec<Move>, GameError> {
        InEngineOrder(&mut self.rng).joint(game, state)
    }

    fn reached(
        &mut self,
        game: &mut Game,
        state: &State,
        joint: Option<&[Move]>,
    ) -> Result<(), GameError> {
        // The state before this one, which a joint move left, is done.
        if joint.is_some()
            && let Some(end) = self.counted(game)
        {
            return self.ended(end);
        }
        self.states += 1;
        if self.states > self.count {
            return self.ended(Visit::Done(self.spent));
        }
        // A cancelled load weighs nothing more (the load reports the
        // cancel).
        if crate::cancel::requested() {
            return self.ended(Visit::Failed);
        }
        self.stepped = game.stepper_at(state);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{Spent, Visit};
    use crate::{EngineChoice, Game, LoadOptions};
    use std::time::Instant;

    /// Prints, for each rules file of the folder `GDL_CALIBRATE`, the time
    /// and the counts of work of visiting states on each engine: the data
    /// the constants of `Spent::nanos` were fitted to. Run with
    /// `GDL_CALIBRATE=DIR cargo test --release -p gdl calibrate -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn calibrate_work_units() {
        let Some(dir) = std::env::var_os("GDL_CALIBRATE") else {
            return;
        };
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        files.sort();
        println!(
            "file\tengine\tns_per_state\tjoins\trules\tnetwork\tinterpreted\tstepped\testimate"
        );
        for file in files {
            for engine in [EngineChoice::Ground, EngineChoice::Interpreter] {
                let options = LoadOptions {
                    engine,
                    ..LoadOptions::default()
                };
                let Ok(game) = Game::load_with(&file, options) else {
                    continue;
                };
                let count = 200;
                let mut best = f64::MAX;
                let mut spent = Spent::default();
                for _ in 0..3 {
                    let mut g = game.clone();
                    let start = Instant::now();
                    let Visit::Done(s) = g.visit(count, 1e12) else {
                        break;
                    };
                    best = best.min(start.elapsed().as_secs_f64() * 1e9);
                    spent = s;
                    if best > 2e8 {
                        break;
                    }
                }
                if best == f64::MAX {
                    continue;
                }
                let n = (spent.interpreted + spent.stepped) as f64;
                println!(
                    "{}\t{engine}\t{:.0}\t{:.1}\t{:.1}\t{:.1}\t{}\t{}\t{:.0}",
                    file.file_name().unwrap().to_string_lossy(),
                    best / n,
                    spent.joins as f64 / n,
                    spent.rules as f64 / n,
                    spent.network as f64 / n,
                    spent.interpreted,
                    spent.stepped,
                    spent.nanos() / n,
                );
            }
        }
    }
}
