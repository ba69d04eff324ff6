//! A game made of prepared rules, ground one way or not at all: the
//! candidates among which loading chooses.

use super::choose::FIRST_TRY_ATOMS;
use super::prepare::{Prepared, Runaway, base_relation, derive_base, derive_static_in, start};
use crate::engine::ground::{Grounded, static_facts_for};
use crate::engine::interp::{SizeHints, Store};
use crate::error::{Diagnostic, GameError};
use crate::game::Game;
use crate::game::ground::GroundTables;
use crate::game::memo::{
    DEFAULT_INTERPRETED_MEMO_CAPACITY, DEFAULT_MEMO_CAPACITY, MEMO_SHARE, Memo,
};
use crate::game::rules::{Fixed, Rules, Split};
use crate::game::stepper::{Stepper, Tables, outcome_tables, seeded_playouts, step_tables};
use crate::limits::Limits;
use crate::plan::{self, Phase, Program, RelId};
use crate::rewrite::fixed::FixedRelation;
use crate::source::SourceFile;
use crate::syntax::normal::Clause;
use crate::syntax::symbol::Symbols;
use crate::syntax::term::TermId;
use std::sync::Arc;

impl Game {
    /// The game of the rules `written`, ground within `base` where they
    /// declare it and where it fits the limits, or whole where random play
    /// leaves `base` (a `base` that leaves out facts random play reaches
    /// sends much of play to the interpreter).
    pub(super) fn as_written(prepared: Prepared, written: &Written<'_>, limits: Limits) -> Game {
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
    pub(super) fn assemble(
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
            max_rules,
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
                (max_rules, within_base),
            )
        });
        let grounding_stop = match &grounded {
            Some(Err(GameError::Limit { kind, .. })) => Some(*kind),
            _ => None,
        };
        let (ground, written, split) = match grounded.and_then(Result::ok) {
            Some(g) => (Some(g.grounded), g.written, g.split),
            None => (None, None, Split::Condensed),
        };
        let Prepared {
            program,
            sizes,
            static_facts,
            terms,
        } = prepared;
        let ground =
            ground.map(|g| Arc::new(GroundTables::new(g, &program, &static_facts, &roles)));
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
            written,
            ground,
            split,
            grounding_stop,
            stepper,
            outcomes: std::sync::OnceLock::new(),
            fixed: std::sync::OnceLock::new(),
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
        let memo = Memo::new(capacity, limits.max_memory / MEMO_SHARE);
        Game::with_rules(Arc::new(rules), (terms, symbols), limits, memo)
    }

    /// Keeps the rules as written, `clauses`, beside this game, whose rules
    /// read the relations `fixed` from static copies (`rewrite::fixed`):
    /// they answer a state whose facts of those relations are not `init`'s.
    /// Their static facts are derived over this game's terms, so that one
    /// state means the same to both.
    pub(super) fn keep_written(
        &mut self,
        mut clauses: Vec<Clause>,
        fixed: &[FixedRelation],
        read: Read<'_>,
    ) -> Result<(), Runaway> {
        let mut symbols = self.symbols.clone();
        let prepared =
            derive_static_in(self.terms.clone(), &mut clauses, &mut symbols, &self.limits)?;
        let written = read.rules(&clauses, &symbols);
        let written = Game::assemble(prepared, &written, self.limits, Grounding::Off);
        // The terms and names of both: those of the rules as written
        // extend this game's.
        self.terms = written.terms;
        self.symbols = written.symbols;
        let fixed = Fixed::new(fixed, &self.rules.initial, &self.terms, written.rules);
        // The stepper of random outcomes, when loading made it already.
        let outcomes = self.rules.outcomes.get().and_then(Option::as_ref);
        for tables in self.rules.stepper.iter().chain(outcomes) {
            tables.set_fixed(|f| fixed.is_fixed(f, &self.terms));
        }
        // Set once, by loading, before the game is handed out.
        let _ = self.rules.fixed.set(fixed);
        Ok(())
    }

    /// The tables of the game's stepper of random outcomes, made on first
    /// use (loading makes them for the rules it chooses), where the game
    /// has one (see `stepper::outcome_tables`).
    pub(crate) fn outcome_tables(&self) -> Option<&Arc<Tables>> {
        let rules = &*self.rules;
        let made = rules.outcomes.get_or_init(|| {
            let (g, whole) = (rules.ground.as_ref()?, rules.stepper.as_ref()?);
            let roles = (&rules.roles[..], &rules.role_names[..]);
            let names = (&self.terms, &self.symbols);
            let tables = outcome_tables(g, &rules.program, roles, names, (&rules.initial, whole))?;
            if let Some(fixed) = rules.fixed.get() {
                tables.set_fixed(|f| fixed.is_fixed(f, &self.terms));
            }
            Some(Arc::new(tables))
        });
        made.as_ref()
    }

    /// Whether random play leaves the facts of the ground rules (which a
    /// `base` that leaves out reachable facts bounds too tightly) within
    /// the seeded playouts of `seeded_playouts` on the stepper; false where
    /// there is no stepper or no `next` fact outside them.
    fn leaves_base(&self) -> bool {
        let Some(tables) = self.rules.stepper.as_ref().filter(|t| t.can_leave()) else {
            return false;
        };
        let mut stepper = Stepper::new(Arc::clone(tables));
        seeded_playouts(&mut stepper, &self.rules.initial)
    }
}

/// The most condensed ground rules for which the rules as written are
/// ground too, to keep the fewer.
const MAX_WRITTEN_TRY: usize = 1_000_000;

/// Ground rules, and how they were made.
struct Ground {
    grounded: Grounded,
    /// The plan of the rules as written, when the ground rules are of
    /// rewritten ones (which `prepared`'s plan then is).
    written: Option<Program>,
    /// How their bodies were split beyond condensation.
    split: Split,
}

/// Grounds the rules `clauses`, planned as `prepared`, under the limits:
/// their condensed form (plan::condense) where it differs, which then
/// replaces `prepared`'s plan and static facts, the plan replaced coming
/// back with the ground rules; where they do not ground, with their
/// chains of conditions cut (on the try without a count of atoms), then
/// with their variables eliminated; the limit the first reached where
/// grounding gives up.
fn ground(
    prepared: &mut Prepared,
    clauses: &[Clause],
    initial: &[TermId],
    symbols: &mut Symbols,
    limits: &Limits,
    (max_rules, within_base): (usize, bool),
) -> Result<Ground, GameError> {
    let bounds = (max_rules, within_base);
    let stop = match ground_condensed(prepared, clauses, initial, symbols, limits, bounds) {
        Ok((grounded, written)) => {
            return Ok(Ground {
                grounded,
                written,
                split: Split::Condensed,
            });
        }
        Err(stop) => stop,
    };
    // Under a share of the work: most rules that do not ground condensed
    // do not ground split either (chess, amazonsTorus), and each try
    // would add to their loading.
    let share = &Limits {
        max_ground_work: limits.max_ground_work / SPLIT_WORK_SHARE,
        ..*limits
    };
    let mut split = |rewritten: Vec<Clause>, symbols: &mut Symbols, how: Split| {
        let r = Rewritten::plan(prepared, &rewritten, symbols);
        let g = r.ground(prepared, &rewritten, initial, symbols, share, bounds);
        g.ok().map(|grounded| Ground {
            grounded,
            written: Some(r.adopt(prepared)),
            split: how,
        })
    };
    // Rules that do not ground condensed may ground with their chains of
    // conditions cut (`rewrite::condense::condense_chains`:
    // gt_two_thirds_6p's sum of six guesses), tried by the try without a
    // count of atoms only (`choose`), not by the quick first one.
    if limits.max_ground_atoms > FIRST_TRY_ATOMS
        && let Some(chains) = crate::rewrite::condense::condense_chains(clauses, symbols)
        && let Some(g) = split(chains, symbols, Split::Chains)
    {
        return Ok(g);
    }
    // Then with their variables eliminated (`rewrite::eliminate`: a war of
    // attrition's score from two bids); the first stop is the rules' own.
    let eliminated = crate::rewrite::eliminate::eliminate(clauses, symbols);
    eliminated
        .and_then(|e| split(e, symbols, Split::Variables))
        .ok_or(stop)
}

/// Rewritten rules, planned, with their static facts: ground them, and
/// adopt them as the game's program when they ground.
struct Rewritten {
    program: Program,
    sizes: Arc<SizeHints>,
    facts: Store,
}

impl Rewritten {
    /// The plan and the static facts of `rewritten`.
    fn plan(prepared: &mut Prepared, rewritten: &[Clause], symbols: &mut Symbols) -> Self {
        let terms = &mut prepared.terms;
        let program = plan::plan(rewritten, terms, symbols);
        let sizes = Arc::new(SizeHints::new(program.relations.len()));
        let facts = static_facts_for(
            &program,
            &sizes,
            &prepared.program,
            &prepared.static_facts,
            terms,
        );
        Rewritten {
            program,
            sizes,
            facts,
        }
    }

    /// The rewritten rules ground, under `limits`, in at most `max_rules`
    /// rules.
    fn ground(
        &self,
        prepared: &mut Prepared,
        rewritten: &[Clause],
        initial: &[TermId],
        symbols: &mut Symbols,
        limits: &Limits,
        (max_rules, within_base): (usize, bool),
    ) -> Result<Grounded, GameError> {
        Grounded::new(
            &self.program,
            rewritten,
            &self.facts,
            initial,
            &mut prepared.terms,
            symbols,
            limits,
            max_rules,
            within_base,
        )
    }

    /// Makes the rewritten rules the game's program; returns the rules as
    /// written.
    fn adopt(self, prepared: &mut Prepared) -> Program {
        prepared.sizes = self.sizes;
        prepared.static_facts = self.facts;
        std::mem::replace(&mut prepared.program, self.program)
    }
}

/// [`ground`] of the rules as written and condensed.
fn ground_condensed(
    prepared: &mut Prepared,
    clauses: &[Clause],
    initial: &[TermId],
    symbols: &mut Symbols,
    limits: &Limits,
    (max_rules, within_base): (usize, bool),
) -> Result<(Grounded, Option<Program>), GameError> {
    let Some(condensed) = crate::rewrite::condense::condense(clauses, symbols) else {
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
            max_rules,
            within_base,
        );
        return g.map(|g| (g, None));
    };
    let rewritten = Rewritten::plan(prepared, &condensed, symbols);
    let bounds = (max_rules, within_base);
    let g = rewritten.ground(prepared, &condensed, initial, symbols, limits, bounds)?;
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
            &mut prepared.terms,
            symbols,
            limits,
            g.rules(),
            within_base,
        );
        if let Ok(written) = written {
            return Ok((written, None));
        }
    }
    Ok((g, Some(rewritten.adopt(prepared))))
}

/// The share of grounding's work that each try of rules split beyond
/// condensation may take: half (gt_two_thirds_6p grounds with its chains
/// cut within 6 million candidate facts, a quarter of the try without a
/// count of atoms).
const SPLIT_WORK_SHARE: u64 = 2;

/// Rules to assemble a game of, with what loading read of them.
#[derive(Clone, Copy)]
pub(super) struct Written<'a> {
    clauses: &'a [Clause],
    symbols: &'a Symbols,
    file: &'a SourceFile,
    warnings: &'a [Diagnostic],
    /// The most ground rules they may ground in (see `at_most`).
    max_rules: usize,
}

impl Written<'_> {
    /// The same rules, ground in at most `rules` rules (past them they
    /// are not ground): a try beside rules that ground gives up where it
    /// could not do better.
    pub(super) fn at_most(self, rules: usize) -> Self {
        Written {
            max_rules: rules,
            ..self
        }
    }
}

/// What loading read of a rules file: the file and its warnings.
#[derive(Clone, Copy)]
pub(super) struct Read<'a> {
    pub(super) file: &'a SourceFile,
    pub(super) warnings: &'a [Diagnostic],
}

impl<'a> Read<'a> {
    /// The rules `clauses` (with their names), of this file.
    pub(super) fn rules<'b>(self, clauses: &'b [Clause], symbols: &'b Symbols) -> Written<'b>
    where
        'a: 'b,
    {
        Written {
            clauses,
            symbols,
            file: self.file,
            warnings: self.warnings,
            max_rules: usize::MAX,
        }
    }
}

/// How `Game::assemble` grounds the rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Grounding {
    /// Not at all: the interpreter plays them.
    Off,
    /// Over the facts the rules declare with `base`, where they declare
    /// some, few enough to derive (see `engine::ground`).
    WithinBase,
    /// Over every fact the relaxed rules reach.
    Whole,
}
