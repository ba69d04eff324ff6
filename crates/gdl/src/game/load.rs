//! Loading: the pipeline run once per rules file (parse, normalize, check,
//! plan, derive the static facts, ground when it fits).

use super::ground::GroundTables;
use super::memo::{Memo, DEFAULT_INTERPRETED_MEMO_CAPACITY, DEFAULT_MEMO_CAPACITY, MEMO_SHARE};
use super::rules::Rules;
use super::stepper::step_tables;
use super::types::State;
use super::Game;
use crate::engine::ground::{Grounded, Values};
use crate::engine::interp::{run_strata, RunScratch, SizeHints, Store, Target};
use crate::error::{Diagnostic, GameError, LoadError};
use crate::limits::Limits;
use crate::plan::{self, Phase, Program, RelId};
use crate::source::SourceFile;
use crate::syntax::symbol::Symbols;
use crate::syntax::term::{TermId, TermTable};
use crate::syntax::{kif, normal};
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
        })
    }
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
