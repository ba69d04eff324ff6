//! What the rules declare beside play: the `base` facts and the `input`
//! moves, derived on demand (loading derives only what play needs).

use super::Game;
use super::types::{Move, Role};
use crate::engine::interp::{Store, Target, run_strata};
use crate::error::GameError;
use crate::plan::Phase;
use crate::syntax::natural::natural_cmp;
use crate::syntax::term::TermId;
use std::sync::Arc;

impl Game {
    /// The `base` facts the rules declare (every fact a state may hold, as
    /// they say), in KIF, in natural order ([`natural_cmp`]), each once;
    /// `None` when the rules declare no `base`. Derived anew at each call.
    ///
    /// ```
    /// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../rules/tictactoe.gdl");
    /// let mut game = gdl::Game::load(path)?;
    /// let base = game.base_facts()?.expect("tic-tac-toe declares its base");
    /// assert_eq!(base.len(), 3 * 3 * 3 + 2); // a mark or blank per cell, the control
    /// assert_eq!(base[0], "(cell 1 1 b)");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn base_facts(&mut self) -> Result<Option<Vec<String>>, GameError> {
        let Some(rows) = self.declared("base")? else {
            return Ok(None);
        };
        let mut facts: Vec<String> = rows
            .iter()
            .map(|r| self.terms.text(r[0], &self.symbols))
            .collect();
        facts.sort_by(|a, b| natural_cmp(a, b));
        facts.dedup();
        Ok(Some(facts))
    }

    /// The `input` moves the rules declare for `role` (every move it may
    /// ever make, as they say), in the natural order of their texts;
    /// `None` when the rules declare no `input`. Derived anew at each call.
    ///
    /// ```
    /// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../rules/tictactoe.gdl");
    /// let mut game = gdl::Game::load(path)?;
    /// let x = game.roles()[0];
    /// let input = game.input_moves(x)?.expect("tic-tac-toe declares its input");
    /// let texts: Vec<String> = input.iter().map(|&m| game.move_text(m)).collect();
    /// assert_eq!(texts.len(), 10);
    /// assert_eq!((texts[0].as_str(), texts[9].as_str()), ("(mark 1 1)", "noop"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn input_moves(&mut self, role: Role) -> Result<Option<Vec<Move>>, GameError> {
        let Some(rows) = self.declared("input")? else {
            return Ok(None);
        };
        let role_term = self.rules.roles.get(role.0 as usize).copied();
        let mut moves: Vec<(String, Move)> = rows
            .iter()
            .filter(|r| Some(r[0]) == role_term)
            .map(|r| (self.terms.text(r[1], &self.symbols), Move(r[1])))
            .collect();
        moves.sort_by(|a, b| natural_cmp(&a.0, &b.0));
        moves.dedup_by(|a, b| a.1 == b.1);
        Ok(Some(moves.into_iter().map(|(_, m)| m).collect()))
    }

    /// The rows of the static relation `name` (`base` or `input`), derived
    /// in a store of their own; `None` when the rules define no such
    /// relation. The checker makes sure neither depends on the state or
    /// the moves; one that did would not be derived here.
    fn declared(&mut self, name: &str) -> Result<Option<Vec<Vec<TermId>>>, GameError> {
        let rules = Arc::clone(&self.rules);
        let p = &rules.program;
        let Some(rel) = self.symbols.get(name).and_then(|s| p.relation(s)) else {
            return Ok(None);
        };
        if p.info(rel).phase != Phase::Static {
            return Ok(None);
        }
        let strata = p.needed(rel);
        let mut store = Store::new(p, &rules.sizes);
        run_strata(
            p,
            &strata,
            &mut store,
            Target::Static,
            &mut self.terms,
            &self.symbols,
            &self.limits,
        )?;
        Ok(Some(
            store.relation(rel).rows().map(<[_]>::to_vec).collect(),
        ))
    }
}
