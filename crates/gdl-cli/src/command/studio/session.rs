//! What the studio acts on: the rules file, the game its rules make, and
//! the game played in the page, a timeline of states that the page steps
//! back and forward along. Every answer is a JSON value for the page; a
//! request that cannot be done is an [`ApiError`] that says why.

use crate::command::{Existing, Failure, LimitArgs};
use crate::command::{describe, file_name, load_game, read_record, read_rules, write_file};
use gdl::record::{Board, BoardSpec, Record, legal_move, sorted_moves};
use gdl::{Budget, Game, GameError, Move, RandomPlayer, Role, SearchPlayer, State};
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// A request the API cannot do: the HTTP status and what to tell.
#[derive(Debug)]
pub struct ApiError {
    /// The HTTP status.
    pub status: u16,
    /// Why, for a person.
    pub message: String,
}

impl ApiError {
    /// A request that cannot be done as asked (status 400).
    pub fn bad(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 400,
            message: message.into(),
        }
    }

    /// A request that asks for what the studio is not in a state to do
    /// (status 409): a move after the end, a game of rules that do not
    /// load.
    pub fn conflict(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 409,
            message: message.into(),
        }
    }

    /// A failure of the command's (a file that cannot be written...).
    pub fn failure(failure: &Failure) -> ApiError {
        let status = match failure {
            Failure::Io(_) => 500,
            _ => 400,
        };
        ApiError {
            status,
            message: failure.message().trim_end().to_string(),
        }
    }
}

/// The result of a request.
pub type Answer = Result<Value, ApiError>;

/// Who plays a role in the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Seat {
    /// The author, by clicking.
    Human,
    /// The machine, at random.
    Random,
    /// The search player.
    Search,
}

impl Seat {
    fn name(self) -> &'static str {
        match self {
            Seat::Human => "human",
            Seat::Random => "random",
            Seat::Search => "search",
        }
    }
}

/// The search player's default budget in the page: iterations a move.
pub const DEFAULT_ITERATIONS: u64 = 1000;

/// The most steps played in a row with no person to choose (machines
/// against each other are stepped one step a request).
pub const MAX_AUTOMATIC_STEPS: usize = 1000;

/// The studio's state.
pub struct Studio {
    /// The rules file.
    pub path: PathBuf,
    /// Its name, as messages say it.
    pub name: String,
    /// The limits and engine the command was given.
    pub limits: LimitArgs,
    /// The rules file's text as last read or saved.
    pub text: String,
    /// The game of the last rules that loaded.
    game: Option<Game>,
    /// How its states are drawn.
    board: Board,
    /// Why the rules as saved do not load, when they do not.
    load_error: Option<String>,
    /// The states of the timeline, from the initial state.
    states: Vec<State>,
    /// The joint move played from each state but the last.
    moves: Vec<Vec<Move>>,
    /// The state shown: an index of `states`.
    cursor: usize,
    /// Who plays each role.
    seats: Vec<Seat>,
    /// The search player's iterations a move.
    iterations: u64,
    /// The random player's choices.
    random: RandomPlayer,
    /// What went wrong last while playing, if anything.
    notice: Option<String>,
    /// Counts the changes of the timeline, seats and game (see
    /// [`Studio::apply`]).
    version: u64,
}

/// A step planned under the studio's lock ([`Studio::plan`]), whose
/// search player's moves, if any, are chosen off it ([`Step::search`]).
pub struct Step {
    /// The studio's version when it was planned.
    version: u64,
    /// The state it is played from.
    state: State,
    /// The joint move, by role (a search player's a placeholder until
    /// searched).
    joint: Vec<Move>,
    /// The search player's part, if it plays a role with a choice.
    search: Option<Search>,
}

/// The search player's moves of a step: searched in a game of their own.
struct Search {
    /// A clone of the studio's game, so that the search runs unlocked.
    game: Game,
    /// The roles the search player chooses for.
    roles: Vec<Role>,
    /// Its iterations a move.
    iterations: u64,
    /// The step, which seeds the search (with the role).
    step: u64,
    /// What it chose, by role, as text (read back in the studio's game).
    chosen: Vec<(Role, String)>,
}

impl Step {
    /// The studio's version when the step was planned.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Whether the step waits for the search player.
    pub fn searches(&self) -> bool {
        self.search.is_some()
    }

    /// Runs the search player for its roles (the caller holds no lock; a
    /// [`gdl::Cancel`] scope around it stops it with
    /// [`GameError::Cancelled`]).
    pub fn search(&mut self) -> Result<(), GameError> {
        let Some(s) = &mut self.search else {
            return Ok(());
        };
        for &role in &s.roles {
            let mut player = SearchPlayer::new(
                &s.game,
                role,
                Budget::Iterations(s.iterations),
                s.step + role.0 as u64,
            );
            let m = player.choose(&mut s.game, &self.state)?;
            s.chosen.push((role, s.game.move_text(m)));
        }
        Ok(())
    }
}

/// Locks a mutex; a panic elsewhere while it was held leaves it usable.
pub fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Why rules do not load, in a line or a few.
fn load_failure(e: gdl::LoadError) -> String {
    match e {
        gdl::LoadError::Invalid { diagnostics, .. } => {
            let errors = diagnostics.iter().filter(|d| d.is_error()).count();
            let first = diagnostics
                .iter()
                .find(|d| d.is_error())
                .map(|d| format!(": {}", d.message))
                .unwrap_or_default();
            format!(
                "the rules do not load ({errors} error{}{first})",
                if errors == 1 { "" } else { "s" }
            )
        }
        other => other
            .render(false)
            .trim_start_matches("error: ")
            .trim_end()
            .to_string(),
    }
}

impl Studio {
    /// Opens the rules file `path` (a file not there yet is an empty one,
    /// created on the first save).
    pub fn open(path: PathBuf, limits: LimitArgs) -> Result<Studio, Failure> {
        let bytes = if path.exists() {
            read_rules(&path, &limits)?
        } else {
            Vec::new()
        };
        let text = String::from_utf8(bytes).map_err(|_| {
            Failure::Usage(format!(
                "{} is not UTF-8 text: the studio edits text",
                path.display()
            ))
        })?;
        let mut studio = Studio {
            name: file_name(&path),
            path,
            limits,
            text,
            game: None,
            board: Board::default(),
            load_error: None,
            states: Vec::new(),
            moves: Vec::new(),
            cursor: 0,
            seats: Vec::new(),
            iterations: DEFAULT_ITERATIONS,
            random: RandomPlayer::new(0),
            notice: None,
            version: 0,
        };
        studio.reload();
        Ok(studio)
    }

    /// Loads the rules of `self.text`. When they load, the game becomes
    /// theirs and the moves of the timeline are played again as far as
    /// they stay legal; when they do not, the last game that loaded stays
    /// and `load_error` says why.
    fn reload(&mut self) {
        self.changed();
        let loaded = load_game(&self.path, self.text.clone().into_bytes(), &self.limits);
        let mut game = match loaded {
            Ok(game) => game,
            Err(e) => {
                self.load_error = Some(load_failure(e));
                return;
            }
        };
        self.load_error = None;
        let texts: Vec<Vec<String>> = match &self.game {
            Some(old) => (self.moves.iter())
                .map(|j| j.iter().map(|&m| old.move_text(m)).collect())
                .collect(),
            None => Vec::new(),
        };
        let old_roles = self.role_names();
        let (spec, _) = BoardSpec::from_source(&self.text);
        self.board = Board::new(spec);
        let roles = game.roles();
        let names: Vec<String> = roles
            .iter()
            .map(|&r| game.role_name(r).to_string())
            .collect();
        if names != old_roles {
            self.seats = vec![Seat::Human; roles.len()];
        }
        let cursor = self.cursor;
        self.states = vec![game.initial_state()];
        self.moves.clear();
        self.notice = None;
        // The game so far, as far as its moves are legal under the rules.
        if names == old_roles {
            for (step, joint) in texts.iter().enumerate() {
                let state = self.states[step].clone();
                let moves: Result<Vec<Move>, GameError> = (roles.iter().zip(joint))
                    .map(|(&r, text)| legal_move(&mut game, &state, r, text))
                    .collect();
                match moves.and_then(|m| game.next_state(&state, &m).map(|next| (m, next))) {
                    Ok((m, next)) => {
                        self.moves.push(m);
                        self.states.push(next);
                    }
                    Err(e) => {
                        self.notice = Some(format!(
                            "the game so far was played again under the new rules up to step \
                             {step}: {}",
                            describe(&e)
                        ));
                        break;
                    }
                }
            }
        }
        self.cursor = cursor.min(self.states.len() - 1);
        for state in &self.states {
            self.board.observe(&game.state_facts(state));
        }
        self.game = Some(game);
    }

    fn role_names(&self) -> Vec<String> {
        match &self.game {
            Some(g) => g
                .roles()
                .iter()
                .map(|&r| g.role_name(r).to_string())
                .collect(),
            None => Vec::new(),
        }
    }

    /// The game, or why there is none.
    fn game(&mut self) -> Result<&mut Game, ApiError> {
        let why = self.load_error.clone();
        self.game.as_mut().ok_or_else(|| {
            ApiError::conflict(why.unwrap_or_else(|| "the rules do not load".to_string()))
        })
    }

    /// The game of the last rules that loaded, for the analysis and the
    /// recorded games (cloned: they run beside the page).
    pub fn loaded_game(&self) -> Option<(Game, String)> {
        self.game.as_ref().map(|g| (g.clone(), self.name.clone()))
    }

    /// `GET /api/session`: the file, its text, and the state shown.
    pub fn session(&mut self) -> Answer {
        Ok(json!({
            "file": self.name,
            "text": self.text,
            "view": self.view(),
        }))
    }

    /// `POST /api/check`: the diagnostics of a text, as `gdl lsp` gives
    /// them while one types (`gdl check`'s, before the rules are played).
    pub fn check(&self, text: &str) -> Answer {
        let (file, diagnostics, _) = gdl::outline_source(&self.name, text);
        let errors = diagnostics.iter().filter(|d| d.is_error()).count();
        let shown: Vec<Value> = (diagnostics.iter())
            .map(|d| crate::command::check::diagnostic(&file, d))
            .collect();
        Ok(json!({
            "valid": errors == 0,
            "errors": errors,
            "warnings": diagnostics.len() - errors,
            "diagnostics": shown,
        }))
    }

    /// `POST /api/save`: writes the text to the rules file atomically (as
    /// `play --save` writes, through a temporary file renamed in place)
    /// and loads the rules again.
    pub fn save(&mut self, text: String) -> Answer {
        write_file(&self.path, text.as_bytes(), Existing::Replace)
            .map_err(|e| ApiError::failure(&e))?;
        self.text = text;
        self.reload();
        let mut answer = self.check(&self.text.clone())?;
        answer["saved"] = json!(true);
        answer["view"] = self.view();
        Ok(answer)
    }

    /// The state shown, for the page: the step and the timeline, the facts
    /// and the board, whose turn, each role's legal moves (with the cells
    /// each names, so that the page can play it by clicks), terminal and
    /// goals.
    pub fn view(&mut self) -> Value {
        let load_error = self.load_error.clone();
        let notice = self.notice.clone();
        let (seats, iterations) = (self.seats.clone(), self.iterations);
        let Some(game) = self.game.as_mut() else {
            return json!({
                "loaded": false,
                "load_error": load_error,
            });
        };
        let state = self.states[self.cursor].clone();
        let roles = game.roles();
        let names: Vec<String> = roles
            .iter()
            .map(|&r| game.role_name(r).to_string())
            .collect();
        let mut facts = game.state_facts(&state);
        facts.sort_by(|a, b| gdl::natural_cmp(a, b));
        self.board.observe(&facts);
        let grid = self.board.grid(&facts);
        let history: Vec<Vec<String>> = (self.moves.iter())
            .map(|j| j.iter().map(|&m| game.move_text(m)).collect())
            .collect();
        let mut error = None;
        let terminal = game.is_terminal(&state).unwrap_or_else(|e| {
            error = Some(describe(&e));
            false
        });
        let goals = if terminal {
            match game.goals(&state) {
                Ok(g) => Some(g),
                Err(e) => {
                    error = Some(describe(&e));
                    None
                }
            }
        } else {
            None
        };
        let mut legal = Vec::new();
        let mut to_move = Vec::new();
        if !terminal {
            for (&role, name) in roles.iter().zip(&names) {
                let moves = match game.legal_moves(&state, role) {
                    Ok(moves) => sorted_moves(game, &moves),
                    Err(e) => {
                        error = Some(describe(&e));
                        Vec::new()
                    }
                };
                if moves.len() > 1 {
                    to_move.push(name.clone());
                }
                let listed: Vec<Value> = (moves.iter())
                    .map(|(_, text)| {
                        let cells = match &grid {
                            Some(grid) => self.board.move_cells(grid, text),
                            None => Vec::new(),
                        };
                        json!({ "text": text, "cells": cells })
                    })
                    .collect();
                legal.push(json!({ "role": name, "moves": listed }));
            }
        }
        json!({
            "loaded": true,
            "load_error": load_error,
            "notice": notice,
            "error": error,
            "roles": names,
            "seats": (names.iter().zip(&seats))
                .map(|(n, s)| (n.clone(), s.name()))
                .collect::<BTreeMap<_, _>>(),
            "iterations": iterations,
            "step": self.cursor,
            "last": self.states.len() - 1,
            "history": history,
            "facts": facts,
            "board": grid,
            "terminal": terminal,
            "goals": goals,
            "to_move": to_move,
            "legal": legal,
        })
    }

    /// Refuses the role names of `chosen` that are not roles.
    pub fn check_roles(&mut self, chosen: &BTreeMap<String, String>) -> Result<(), ApiError> {
        let game = self.game()?;
        let roles = game.roles();
        for name in chosen.keys() {
            if game.role_by_name(name).is_none() {
                let names: Vec<&str> = roles.iter().map(|&r| game.role_name(r)).collect();
                return Err(ApiError::bad(format!(
                    "{name} is not a role; the roles are {}",
                    names.join(" ")
                )));
            }
        }
        Ok(())
    }

    /// Whether a person plays some role.
    pub fn has_people(&self) -> bool {
        self.seats.contains(&Seat::Human)
    }

    /// Plans one step from the state shown (`POST /api/play`): the moves
    /// chosen (by role name), each role's only move, the random player's,
    /// and, for the roles the search player plays, a search to run off
    /// the studio's lock ([`Step::search`]) before [`Studio::apply`]. With
    /// `asked`, a step the person asked for: a role that has a choice, is
    /// played by a person and is not in `chosen` is an error. Without it,
    /// a step only if no person has a choice (none otherwise, or at the
    /// end).
    pub fn plan(
        &mut self,
        chosen: &BTreeMap<String, String>,
        asked: bool,
    ) -> Result<Option<Step>, ApiError> {
        let state = self.states[self.cursor].clone();
        let at = self.cursor;
        let fail = |e: GameError| ApiError::conflict(format!("step {at}: {}", describe(&e)));
        let game = self.game()?;
        if game.is_terminal(&state).map_err(fail)? {
            if asked {
                return Err(ApiError::conflict("the game is over: step back to play on"));
            }
            return Ok(None);
        }
        let roles = game.roles();
        let mut legal = Vec::new();
        for &role in &roles {
            legal.push(game.legal_moves(&state, role).map_err(fail)?);
        }
        let person_to_choose = (roles.iter().zip(&legal))
            .any(|(&r, l)| l.len() > 1 && self.seats[r.0 as usize] == Seat::Human);
        if !asked && person_to_choose {
            return Ok(None);
        }
        let game = self.game.as_mut().expect("a game is loaded");
        let mut joint = Vec::new();
        let mut searched = Vec::new();
        for (&role, moves) in roles.iter().zip(&legal) {
            let name = game.role_name(role).to_string();
            let seat = self.seats[role.0 as usize];
            let m = match chosen.get(&name) {
                Some(text) => legal_move(game, &state, role, text).map_err(|e| match e {
                    GameError::BadMoveText { .. } | GameError::IllegalMove { .. } => {
                        ApiError::bad(describe(&e))
                    }
                    other => fail(other),
                })?,
                None if moves.len() == 1 => moves[0],
                None if seat == Seat::Random => {
                    let sorted: Vec<Move> = (sorted_moves(game, moves).into_iter())
                        .map(|(m, _)| m)
                        .collect();
                    self.random.choose(game, &sorted)
                }
                None if seat == Seat::Search => {
                    searched.push(role);
                    moves[0]
                }
                None => {
                    return Err(ApiError::bad(format!(
                        "{name} has {} legal moves: choose one",
                        moves.len()
                    )));
                }
            };
            joint.push(m);
        }
        let search = (!searched.is_empty()).then(|| Search {
            game: game.clone(),
            roles: searched,
            iterations: self.iterations,
            step: at as u64,
            chosen: Vec::new(),
        });
        Ok(Some(Step {
            version: self.version,
            state,
            joint,
            search,
        }))
    }

    /// Plays a step planned by [`Studio::plan`] (its searches run), unless
    /// the timeline changed since it was planned (another request played,
    /// stepped or reloaded meanwhile): then nothing is played (false).
    pub fn apply(&mut self, step: Step) -> Result<bool, ApiError> {
        if step.version != self.version {
            return Ok(false);
        }
        let at = self.cursor;
        let fail = |e: GameError| ApiError::conflict(format!("step {at}: {}", describe(&e)));
        let game = self
            .game
            .as_mut()
            .expect("a game is loaded while the version holds");
        let mut joint = step.joint;
        for (role, text) in step.search.into_iter().flat_map(|s| s.chosen) {
            joint[role.0 as usize] = legal_move(game, &step.state, role, &text).map_err(fail)?;
        }
        let next = game.next_state(&step.state, &joint).map_err(fail)?;
        self.board.observe(&game.state_facts(&next));
        self.states.truncate(self.cursor + 1);
        self.moves.truncate(self.cursor);
        self.states.push(next);
        self.moves.push(joint);
        self.cursor += 1;
        self.notice = None;
        self.changed();
        Ok(true)
    }

    /// Says why the machine did not move, when the step planned at
    /// `version` was stopped (by `POST /api/stop`) and nothing has changed
    /// since.
    pub fn stopped(&mut self, version: u64, why: String) {
        if version == self.version {
            self.notice = Some(why);
        }
    }

    /// Marks a change of the timeline, the seats or the game: a step
    /// planned before it is not played.
    fn changed(&mut self) {
        self.version += 1;
    }

    /// `POST /api/goto`: shows another step of the timeline.
    pub fn goto(&mut self, step: usize) -> Answer {
        self.game()?;
        if step >= self.states.len() {
            return Err(ApiError::bad(format!(
                "no step {step}: the timeline has steps 0 to {}",
                self.states.len() - 1
            )));
        }
        self.cursor = step;
        self.changed();
        Ok(self.view())
    }

    /// `POST /api/restart`: a new game from the initial state.
    pub fn restart(&mut self) -> Answer {
        let game = self.game()?;
        let initial = game.initial_state();
        self.states = vec![initial];
        self.moves.clear();
        self.cursor = 0;
        self.notice = None;
        self.changed();
        Ok(self.view())
    }

    /// `POST /api/seats`: who plays each role (by name), and the search
    /// player's iterations a move.
    pub fn seats(&mut self, seats: &BTreeMap<String, Seat>, iterations: Option<u64>) -> Answer {
        let game = self.game()?;
        let mut indexes = Vec::new();
        for name in seats.keys() {
            match game.role_by_name(name) {
                Some(r) => indexes.push(r.0 as usize),
                None => return Err(ApiError::bad(format!("{name} is not a role"))),
            }
        }
        if let Some(n) = iterations {
            if !(1..=1_000_000).contains(&n) {
                return Err(ApiError::bad("iterations: from 1 to 1000000"));
            }
            self.iterations = n;
        }
        for (i, seat) in indexes.into_iter().zip(seats.values()) {
            self.seats[i] = *seat;
        }
        self.changed();
        Ok(self.view())
    }

    /// `POST /api/replay`: a recorded game (gdl's JSON trace, a match
    /// record of ggp-base, or a moves file) played again from the initial
    /// state: the timeline becomes its steps, shown from the first. Moves
    /// that the rules do not allow stop it, and the answer says where.
    pub fn replay(&mut self, text: &str, name: &str) -> Answer {
        let record: Record =
            read_record(text, name, &self.limits).map_err(|e| ApiError::failure(&e))?;
        let game = self.game()?;
        let roles = game.roles();
        let mut states = vec![game.initial_state()];
        let mut moves = Vec::new();
        let mut stopped = None;
        for (step, joint) in record.moves().iter().enumerate() {
            let state = states[step].clone();
            if joint.len() != roles.len() {
                stopped = Some(format!(
                    "step {step}: {} moves recorded for {} roles",
                    joint.len(),
                    roles.len()
                ));
                break;
            }
            let played: Result<Vec<Move>, GameError> = (roles.iter().zip(joint))
                .map(|(&r, text)| legal_move(game, &state, r, text))
                .collect();
            match played.and_then(|m| game.next_state(&state, &m).map(|next| (m, next))) {
                Ok((m, next)) => {
                    moves.push(m);
                    states.push(next);
                }
                Err(e) => {
                    stopped = Some(format!("step {step}: {}", describe(&e)));
                    break;
                }
            }
        }
        let facts: Vec<Vec<String>> = states.iter().map(|s| game.state_facts(s)).collect();
        for f in &facts {
            self.board.observe(f);
        }
        let count = moves.len();
        self.states = states;
        self.moves = moves;
        self.cursor = 0;
        self.changed();
        self.notice = stopped
            .clone()
            .map(|s| format!("{name} replayed as far as it is legal: {s}"));
        Ok(json!({
            "replayed": count,
            "stopped": stopped,
            "view": self.view(),
        }))
    }
}
