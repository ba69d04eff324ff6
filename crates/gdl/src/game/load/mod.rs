//! Loading: a rules file to a game, in stages, each a file of its own or
//! of the stage before: the front end shared with `check_source`
//! (`analysis::front_end`: parse, normal form, checks), [`prepare`] (plan,
//! derive the static facts), and [`choose`] (the engine, as the caller
//! asks or by a rule that counts work, never time), which weighs games
//! that [`assemble`] makes of the prepared rules.

mod assemble;
mod choose;
mod prepare;

use super::Game;
use super::types::EngineChoice;
use crate::analysis::front_end;
use crate::error::{Diagnostic, LoadError};
use crate::limits::Limits;
use crate::source::SourceFile;
use crate::syntax::symbol::Symbols;
use std::path::Path;

/// How to load a rules file: the limits of its evaluation and the engine
/// that plays it. `Limits` converts into it (with the engine `auto`).
///
/// ```
/// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../rules/tictactoe.gdl");
/// use gdl::{EngineChoice, LoadOptions};
/// let options = LoadOptions { engine: EngineChoice::Interpreter, ..LoadOptions::default() };
/// let game = gdl::Game::load_with(path, options)?;
/// assert_eq!(game.engine(), gdl::Engine::Interpreter);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// The bounds of every stage.
    pub limits: Limits,
    /// The engine: `auto` (the default) chooses by a rule that gives one
    /// file the same engine on any machine.
    pub engine: EngineChoice,
}

impl From<Limits> for LoadOptions {
    fn from(limits: Limits) -> LoadOptions {
        LoadOptions {
            limits,
            engine: EngineChoice::Auto,
        }
    }
}

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
        Game::load_with(path, LoadOptions::default())
    }

    /// Like `load`, with limits on the evaluation and the engine to use
    /// (`Limits` alone, or [`LoadOptions`]).
    pub fn load_with(
        path: impl AsRef<Path>,
        options: impl Into<LoadOptions>,
    ) -> Result<Game, LoadError> {
        let path = path.as_ref();
        let name = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|error| LoadError::Io {
            path: name.clone(),
            error,
        })?;
        Game::from_bytes_with(&name, bytes, options)
    }

    /// Like `from_source_with`, from the bytes of a file read by the
    /// caller (who may bound its size): bytes that are not UTF-8 are an
    /// error located at the first bad byte.
    pub fn from_bytes_with(
        name: &str,
        bytes: Vec<u8>,
        options: impl Into<LoadOptions>,
    ) -> Result<Game, LoadError> {
        let name = name.to_string();
        match String::from_utf8(bytes) {
            Ok(text) => Game::build(SourceFile::new(name, text), options.into()),
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                let binary = e.as_bytes().contains(&0);
                let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
                let file = SourceFile::new(name, text);
                if !binary {
                    // Text in another encoding (Latin-1 in a comment, most
                    // often): read with each bad byte replaced, as ggp-base
                    // reads it; a replaced byte outside a comment is then
                    // a syntax error.
                    let d = Diagnostic::warning(
                        "not-utf8",
                        crate::source::Span::new(at, at + '\u{FFFD}'.len_utf8()),
                        "the file is not UTF-8 text: each byte that is not is read as \
                         the character \u{FFFD}",
                    )
                    .with_label("this byte is not valid UTF-8")
                    .with_note(
                        "a byte of another encoding, such as Latin-1, in a comment changes \
                         nothing; ggp-base reads such files alike",
                    )
                    .with_note(crate::analysis::check::ALLOWED_IN_PUBLISHED_GAMES);
                    return Game::build_with(file, options.into(), vec![d]);
                }
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
        Game::build(SourceFile::new(name, text), LoadOptions::default())
    }

    /// Like `from_source`, with limits on the evaluation and the engine
    /// to use (`Limits` alone, or [`LoadOptions`]).
    pub fn from_source_with(
        name: &str,
        text: &str,
        options: impl Into<LoadOptions>,
    ) -> Result<Game, LoadError> {
        Game::build(SourceFile::new(name, text), options.into())
    }

    /// The stages of loading: the front end, the static facts, the engine.
    /// Under a [`crate::Cancel`] flag that is set, a stage stops at its
    /// next look and the load ends with [`LoadError::Cancelled`] (whatever
    /// a stage made of its error: grounding, say, gives up quietly).
    fn build(file: SourceFile, options: LoadOptions) -> Result<Game, LoadError> {
        Game::build_with(file, options, Vec::new())
    }

    /// [`Game::build`], with the warnings of reading the file (`read`)
    /// before the analysis's.
    fn build_with(
        file: SourceFile,
        options: LoadOptions,
        read: Vec<Diagnostic>,
    ) -> Result<Game, LoadError> {
        let invalid = |file: SourceFile, diagnostics: Vec<Diagnostic>| LoadError::Invalid {
            file: Box::new(file),
            diagnostics,
        };
        let cancelled = || crate::cancel::requested().then_some(LoadError::Cancelled);
        if let Some(e) = cancelled() {
            return Err(e);
        }
        let limits = options.limits;
        let analysed = front_end(&file, limits.max_nesting);
        if let Some(e) = cancelled() {
            return Err(e);
        }
        let mut analysed = match analysed {
            Ok(analysed) => analysed,
            Err(diagnostics) => return Err(invalid(file, [read, diagnostics].concat())),
        };
        analysed.warnings.splice(0..0, read);
        let mut symbols = analysed.description.symbols.clone();
        let mut clauses = analysed.clauses;
        // The places that only carry a domain, dropped whatever the
        // engine: no engine need enumerate their values.
        let mut rewrites = Vec::new();
        if let Some((projected, dropped)) =
            crate::rewrite::domain_places::drop_domain_places(&clauses, &mut symbols)
        {
            rewrites.push(crate::rewrite::domain_places::describe(&dropped, &symbols));
            clauses = projected;
        }
        // The relations of the state that no move changes, read from
        // static copies of `init` whatever the engine; the rules as written
        // are kept for states built with other facts of them.
        let mut written = None;
        if let Some((read_fixed, fixed)) =
            crate::rewrite::fixed::read_fixed_as_static(&clauses, &mut symbols)
        {
            rewrites.push(crate::rewrite::fixed::describe(&fixed, &symbols));
            written = Some((std::mem::replace(&mut clauses, read_fixed), fixed));
        }
        let prepared = prepare::derive_static(&mut clauses, &mut symbols, &limits);
        if let Some(e) = cancelled() {
            return Err(e);
        }
        let runaway = |e: prepare::Runaway, symbols: &Symbols| {
            let span = prepare::limit_span(&e.error, &e.program, &analysed.description, symbols);
            let mut d = Diagnostic::error("runaway", span, e.error.to_string())
                .with_label("deriving the facts that do not depend on the state");
            if let crate::error::GameError::Limit { kind, .. } = e.error {
                d = d.with_limit(kind);
            }
            vec![d]
        };
        let prepared = match prepared {
            Ok(p) => p,
            Err(e) => {
                let d = runaway(e, &symbols);
                return Err(invalid(file, d));
            }
        };
        let read = assemble::Read {
            file: &file,
            warnings: &analysed.warnings,
        };
        let chosen = choose::choose(prepared, &clauses, symbols, read, options, &rewrites);
        if let Some(e) = cancelled() {
            return Err(e);
        }
        let first_rule = analysed.description.rules.first().map(|r| r.span);
        let mut game = chosen.map_err(|stop| {
            let why = match stop {
                Some(kind) => format!(
                    "ground rules were asked for, and the rules do not ground within \
                     the {kind} limit (`{}`)",
                    kind.field()
                ),
                None => "ground rules were asked for, and these rules cannot be ground".into(),
            };
            let mut d = Diagnostic::error("not-ground", first_rule.unwrap_or_default(), why)
                .with_note("the interpreter plays them: choose the engine `auto` or `interpreter`");
            d.limit = stop;
            invalid(file.clone(), vec![d])
        })?;
        if let Some((clauses, fixed)) = written {
            let symbols = game.symbols.clone();
            game.keep_written(clauses, &fixed, read)
                .map_err(|e| invalid(file.clone(), runaway(e, &symbols)))?;
        }
        Ok(game)
    }
}
