//! `gdl play FILE`: step through a game.
//!
//! Each turn shows the state (the board drawn as a grid when it has one)
//! and, for each role a person plays that has a choice, its legal moves
//! numbered in natural order. A move is taken by its number or by typing its
//! term (a number that is itself a legal move is that move; `#N` is always
//! the Nth); roles with a single legal move (a `noop`) play it by themselves, and
//! `--random ROLE` lets the machine play a role at random, `--ai ROLE` the
//! search player (thinking `--think SECONDS` a move, 1 by default, or
//! `--iterations N`). Commands: `undo`, `facts`,
//! `legal`, `board`, `moves`, `save FILE`, `help`, `quit`.
//!
//! On a terminal, input is read with line editing and history; otherwise
//! (or with `--moves FILE`) it is read line by line and echoed after the
//! prompt, and the first bad line stops the game with exit status 1.
//! `--save FILE` keeps FILE up to date with the game so far after every
//! move, so an error or an interrupt (Ctrl-C) leaves a game that `--load`
//! and `gdl replay` bring back to the same position; Ctrl-C ends the game
//! with exit status 130 once the move under way is saved, saying where
//! the game is. A save that fails is told and the game goes on (the exit
//! status is then 2).

use super::ai::{AiArgs, Seats};
use super::{BoardMode, read_record};
use super::{Failure, LimitArgs, describe, file_name, is_stdin, load, read_file, save_moves};
use gdl::RandomPlayer;
use gdl::record::{Board, is_recorded_game, legal_move, sorted_moves};
use gdl::{Game, GameError, Move, Role, State};
use std::io::{BufRead, IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `gdl play`.
#[derive(clap::Args)]
#[command(after_long_help = "\
Examples:
  # Play xplayer; the search player plays oplayer:
  gdl play rules/tictactoe.gdl --ai oplayer
  # Play both roles, keeping the game in game.moves after every move:
  gdl play rules/tictactoe.gdl --save game.moves
  # Go on from a saved game, the machine playing oplayer at random:
  gdl play rules/tictactoe.gdl --load game.moves --random oplayer")]
pub struct PlayArgs {
    /// The rules file (`-`: standard input).
    pub file: PathBuf,
    /// Let the machine play this role (repeat for several roles).
    #[arg(long, value_name = "ROLE")]
    pub random: Vec<String>,
    /// The search player's seats and budget (1 second a move unless
    /// `--think` or `--iterations` says otherwise).
    #[command(flatten)]
    pub ai: AiArgs,
    /// Seed of the machine's random choices.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Read the input from this file instead of the terminal (`-`:
    /// standard input, read to its end first).
    #[arg(long, value_name = "FILE")]
    pub moves: Option<PathBuf>,
    /// Start from a saved game (a moves file or a JSON trace; `-`: standard
    /// input).
    #[arg(long, value_name = "GAME")]
    pub load: Option<PathBuf>,
    /// Keep this file up to date with the game so far.
    #[arg(long, value_name = "FILE")]
    pub save: Option<PathBuf>,
    /// How to draw each state: as the rules file's `;!` annotations say or
    /// as the facts look, never as a grid, or as a grid whenever one can be.
    #[arg(long, value_enum, default_value_t = BoardMode::Auto, value_name = "MODE")]
    pub board: BoardMode,
    #[command(flatten)]
    pub limits: LimitArgs,
}

const HELP: &str = "\
commands:
  N             play the move numbered N, or the move N when one reads so
  #N            play the move numbered N, always
  (move ...)    play a move by its term (the parentheses may be left out)
  undo          take back the last move you chose
  facts         show the raw facts of the state
  legal         show the legal moves again
  board         show the board again
  moves         show the moves played so far
  save FILE     save the game so far (gdl replay and gdl play --load read it)
  help          show this
  quit          stop
";

/// Where commands come from.
enum Input {
    /// A terminal, with line editing and history.
    Editor(Box<rustyline::DefaultEditor>),
    /// Lines of a file or of a pipe, echoed after the prompt, none longer
    /// than the given number of bytes (`--max-file-size`).
    Script(Box<dyn BufRead>, u64),
}

impl Input {
    /// The next line, or `None` at the end of the input (or Ctrl-C, Ctrl-D).
    fn read(&mut self, prompt: &str) -> Result<Option<String>, Failure> {
        match self {
            Input::Editor(editor) => match editor.readline(prompt) {
                Ok(line) => {
                    if !line.trim().is_empty() {
                        let _ = editor.add_history_entry(line.as_str());
                    }
                    Ok(Some(line))
                }
                // Ctrl-C at the prompt (the terminal, in raw mode, sends
                // no signal): the game stops as on an interrupt.
                Err(rustyline::error::ReadlineError::Interrupted) => {
                    Err(Failure::Interrupted(String::new()))
                }
                Err(_) => Ok(None),
            },
            Input::Script(lines, limit) => {
                let mut line = String::new();
                match Read::take(&mut **lines, limit.saturating_add(1)).read_line(&mut line) {
                    Ok(0) => Ok(None),
                    Ok(n) if n as u64 > *limit => Err(Failure::Game(format!(
                        "a line of the input is longer than {limit} bytes; \
                         raise it with --max-file-size"
                    ))),
                    Ok(_) => {
                        let line = line.trim_end_matches(['\n', '\r']).to_string();
                        println!("{prompt}{line}");
                        Ok(Some(line))
                    }
                    Err(e) => Err(Failure::Io(format!("cannot read the input: {e}"))),
                }
            }
        }
    }

    fn scripted(&self) -> bool {
        matches!(self, Input::Script(..))
    }
}

/// One move played: the state it was played in, the joint move, and
/// whether a person chose part of it.
struct Turn {
    before: State,
    joint: Vec<Move>,
    chosen: bool,
}

/// A game being played.
struct Session {
    game: Game,
    board: Board,
    name: String,
    state: State,
    turns: Vec<Turn>,
    machine: Vec<bool>,
    player: RandomPlayer,
    seats: Seats,
    save: Option<PathBuf>,
    /// The `--max-file-size` a save is read back under: a larger one is
    /// refused.
    max_file_size: u64,
    /// Whether the `--save` file is behind the game: its last save failed.
    unsaved: bool,
    /// Whether any save failed (the exit status is then 2).
    save_failed: bool,
}

/// What a person's line asked for.
enum Action {
    Move(Move),
    Undo,
    Quit,
    /// Shown or done something; ask again.
    Again,
}

impl Session {
    fn roles(&self) -> Vec<Role> {
        self.game.roles()
    }

    fn step(&self) -> usize {
        self.turns.len()
    }

    fn moves_text(&self) -> Vec<Vec<String>> {
        self.turns
            .iter()
            .map(|t| t.joint.iter().map(|&m| self.game.move_text(m)).collect())
            .collect()
    }

    fn save_to(&self, path: &Path) -> Result<(), Failure> {
        let roles: Vec<String> = self
            .roles()
            .iter()
            .map(|&r| self.game.role_name(r).to_string())
            .collect();
        save_moves(
            path,
            &self.name,
            &roles,
            &self.moves_text(),
            self.max_file_size,
        )
    }

    /// Brings the `--save` file up to date with the game.
    fn autosave(&mut self) -> Result<(), Failure> {
        if let Some(path) = &self.save {
            self.save_to(path)?;
        }
        self.unsaved = false;
        Ok(())
    }

    /// Brings the `--save` file up to date after a move: a failure is told
    /// and the game goes on (a later move may save again). Then sets what
    /// an interrupt says.
    fn autosave_after_move(&mut self) {
        if let Err(e) = self.autosave() {
            self.unsaved = true;
            self.failed_to_save(&e);
        }
        super::on_interrupt(Some(self.stopped("interrupted")));
    }

    /// What `play` says when it stops (`how`: stopped, interrupted) before
    /// the end: the step, and where the game so far is.
    fn stopped(&self, how: &str) -> String {
        let step = self.step();
        match &self.save {
            Some(path) if self.unsaved => format!(
                "{how} at step {step}; the last save to {} failed",
                path.display()
            ),
            Some(path) => format!(
                "{how} at step {step}; the game so far is in {}",
                path.display()
            ),
            None => format!("{how} at step {step}"),
        }
    }

    /// Tells of a save that failed; the game goes on, the exit status will
    /// be 2.
    fn failed_to_save(&mut self, e: &Failure) {
        self.save_failed = true;
        eprintln!("error: {}; the game goes on", e.message());
    }

    fn show(&mut self) {
        let facts = self.game.state_facts(&self.state);
        self.board.observe(&facts);
        println!("\n== step {} ==", self.step());
        print!("{}", self.board.draw(&facts));
    }

    fn sorted_legal(&mut self, role: Role) -> Result<Vec<(Move, String)>, GameError> {
        let moves = self.game.legal_moves(&self.state, role)?;
        if moves.is_empty() {
            return Err(GameError::NoLegalMove {
                role: self.game.role_name(role).to_string(),
            });
        }
        Ok(sorted_moves(&self.game, &moves))
    }

    fn play(&mut self, joint: Vec<Move>, chosen: bool) -> Result<(), Failure> {
        let next = self
            .game
            .next_state(&self.state, &joint)
            .map_err(|e| Failure::at_step(self.step(), &e))?;
        // An interrupt waits for the move to be played and saved.
        super::uninterrupted(|| {
            let before = std::mem::replace(&mut self.state, next);
            self.turns.push(Turn {
                before,
                joint,
                chosen,
            });
            self.autosave_after_move();
        });
        Ok(())
    }

    /// Takes back moves up to and including the last one a person chose,
    /// and saves the game so far.
    fn undo(&mut self) -> bool {
        if !self.turns.iter().any(|t| t.chosen) {
            println!("nothing to undo");
            return false;
        }
        self.seats.reset();
        super::uninterrupted(|| {
            while let Some(turn) = self.turns.pop() {
                self.state = turn.before;
                if turn.chosen {
                    break;
                }
            }
            self.autosave_after_move();
        });
        true
    }

    /// Reads one person's line for `role` until it names a legal move or a
    /// command that changes the game.
    fn ask(
        &mut self,
        input: &mut Input,
        role: Role,
        legal: &[(Move, String)],
    ) -> Result<Action, Failure> {
        let name = self.game.role_name(role).to_string();
        let prompt = format!("{name}> ");
        let Some(line) = input.read(&prompt)? else {
            return Ok(Action::Quit);
        };
        let line = line.trim();
        let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        let step = self.step();
        let fail = |input: &Input, message: String| {
            if input.scripted() {
                Err(Failure::Game(format!("step {step}: {message}")))
            } else {
                println!("{message}");
                Ok(Action::Again)
            }
        };
        match word {
            "" => Ok(Action::Again),
            "quit" | "exit" | "q" => Ok(Action::Quit),
            "undo" | "u" => Ok(Action::Undo),
            "help" | "?" => {
                print!("{HELP}");
                Ok(Action::Again)
            }
            "facts" => {
                for f in self.game.state_facts(&self.state) {
                    println!("{f}");
                }
                Ok(Action::Again)
            }
            "board" => {
                let facts = self.game.state_facts(&self.state);
                print!("{}", self.board.draw(&facts));
                Ok(Action::Again)
            }
            "legal" => {
                print_legal(&name, legal);
                Ok(Action::Again)
            }
            "moves" => {
                for (i, joint) in self.moves_text().iter().enumerate() {
                    println!("{i}: {}", joint.join(" "));
                }
                Ok(Action::Again)
            }
            "save" if !rest.is_empty() => {
                match self.save_to(Path::new(rest)) {
                    Ok(()) => println!("saved {} moves to {rest}", self.step()),
                    Err(e) => self.failed_to_save(&e),
                }
                Ok(Action::Again)
            }
            "save" => fail(input, "save needs a file name: save FILE".into()),
            // A number is a legal move when one reads so, else a position
            // in the list; `#N` is always a position.
            _ if is_number(line) => match legal.iter().find(|(_, text)| text == line) {
                Some(&(m, _)) => Ok(Action::Move(m)),
                None => at_position(line, &name, legal).map_or_else(|e| fail(input, e), Ok),
            },
            _ if line.strip_prefix('#').is_some_and(is_number) => {
                at_position(&line[1..], &name, legal).map_or_else(|e| fail(input, e), Ok)
            }
            _ => {
                let text = if line.starts_with('(') || !line.contains(char::is_whitespace) {
                    line.to_string()
                } else {
                    format!("({line})")
                };
                match legal_move(&mut self.game, &self.state, role, &text) {
                    Ok(m) => Ok(Action::Move(m)),
                    Err(e @ GameError::IllegalMove { .. }) => fail(input, describe(&e)),
                    Err(GameError::BadMoveText { reason, .. }) => fail(
                        input,
                        format!(
                            "cannot read {line:?} as a move or a command ({reason}); type help"
                        ),
                    ),
                    Err(e) => Err(Failure::at_step(self.step(), &e)),
                }
            }
        }
    }
}

/// Whether `text` is a whole number written in digits.
fn is_number(text: &str) -> bool {
    !text.is_empty() && text.chars().all(|c| c.is_ascii_digit())
}

/// The move at position `number` (from 1) of the list of `role`'s legal
/// moves shown.
fn at_position(number: &str, role: &str, legal: &[(Move, String)]) -> Result<Action, String> {
    match number.parse::<usize>() {
        Ok(n) if (1..=legal.len()).contains(&n) => Ok(Action::Move(legal[n - 1].0)),
        _ => Err(format!(
            "no move numbered {number}: {role} has moves 1 to {}",
            legal.len()
        )),
    }
}

fn print_legal(role: &str, legal: &[(Move, String)]) {
    println!("{role} to move:");
    let mut line = String::new();
    for (i, (_, text)) in legal.iter().enumerate() {
        let item = format!("{:>3}) {text}", i + 1);
        if !line.is_empty() && line.len() + item.len() > 96 {
            println!("{}", line.trim_end());
            line.clear();
        }
        line.push_str(&item);
        line.push_str("  ");
    }
    if !line.is_empty() {
        println!("{}", line.trim_end());
    }
}

/// Runs `gdl play`.
pub fn play(args: PlayArgs) -> Result<ExitCode, Failure> {
    // Standard input read as a file (`-`) is read to its end: what would
    // be typed must then come from a file.
    let taken = [
        ("the rules are", Some(&args.file)),
        ("the saved game (--load) is", args.load.as_ref()),
    ]
    .into_iter()
    .find(|(_, p)| p.is_some_and(|p| is_stdin(p)));
    if let (Some((what, _)), None) = (taken, &args.moves) {
        return Err(Failure::Usage(format!(
            "{what} read from standard input (`-`), so the moves cannot be typed there: \
             give them with --moves FILE"
        )));
    }
    let loaded = load(&args.file, &args.limits)?;
    let game = loaded.game;
    let roles = game.roles();
    let mut machine = vec![false; roles.len()];
    for name in &args.random {
        let role = game.role_by_name(name).ok_or_else(|| {
            let names: Vec<&str> = roles.iter().map(|&r| game.role_name(r)).collect();
            Failure::Usage(format!(
                "--random {name}: no such role; the roles are {}",
                names.join(" ")
            ))
        })?;
        machine[role.0 as usize] = true;
    }
    let limit = args.limits.file_limit();
    let budget = args
        .ai
        .budget(gdl::Budget::Time(std::time::Duration::from_secs(1)));
    let seats = args.ai.seats(&game, budget, args.seed)?;
    if let Some(both) = (0..roles.len()).find(|&i| machine[i] && seats.is_ai(i)) {
        return Err(Failure::Usage(format!(
            "{} is given to both --random and --ai",
            game.role_name(roles[both])
        )));
    }
    let mut input = match &args.moves {
        Some(path) => {
            let text = read_file(path, &args.limits)?;
            if is_recorded_game(&text) {
                return Err(Failure::Usage(format!(
                    "{0} is a recorded game, not typed input: start from it with --load {0} \
                     (--moves reads what would be typed, one move or command a line)",
                    file_name(path)
                )));
            }
            Input::Script(Box::new(std::io::Cursor::new(text)), limit)
        }
        None if std::io::stdin().is_terminal() => match rustyline::DefaultEditor::new() {
            Ok(editor) => Input::Editor(Box::new(editor)),
            Err(_) => Input::Script(Box::new(std::io::stdin().lock()), limit),
        },
        None => Input::Script(Box::new(std::io::stdin().lock()), limit),
    };
    let state = game.initial_state();
    let mut session = Session {
        game,
        board: Board::new(args.board.apply(loaded.spec)),
        name: loaded.name,
        state,
        turns: Vec::new(),
        machine,
        player: RandomPlayer::new(args.seed),
        seats,
        save: args.save,
        max_file_size: args.limits.file_limit(),
        unsaved: false,
        save_failed: false,
    };
    if let Some(path) = &args.load {
        // Saved once, after the loading, not after each move loaded.
        let save = session.save.take();
        let record = read_record(
            &read_file(path, &args.limits)?,
            &file_name(path),
            &args.limits,
        )?;
        for joint in record.moves() {
            if joint.len() != roles.len() {
                let e = GameError::WrongMoveCount {
                    expected: roles.len(),
                    given: joint.len(),
                };
                return Err(Failure::at_step(session.step(), &e));
            }
            let mut moves = Vec::new();
            for (&role, text) in roles.iter().zip(&joint) {
                let m = legal_move(&mut session.game, &session.state, role, text)
                    .map_err(|e| Failure::at_step(session.step(), &e))?;
                moves.push(m);
            }
            session.play(moves, true)?;
        }
        println!("loaded {} moves from {}", session.step(), file_name(path));
        session.save = save;
    }
    // A file that cannot be saved before the first move stops the game:
    // nothing is lost yet.
    session.autosave()?;
    super::on_interrupt(Some(session.stopped("interrupted")));
    if !input.scripted() {
        println!("type a move's number or its term; help lists the commands");
    }
    let code = match run(&mut session, &mut input) {
        Err(Failure::Interrupted(_)) => {
            return Err(Failure::Interrupted(session.stopped("interrupted")));
        }
        other => other?,
    };
    Ok(if session.save_failed {
        ExitCode::from(2)
    } else {
        code
    })
}

/// The most steps in a row `play` goes on by itself, no person having a
/// choice (every role has one move or is the machine's): past it the game
/// may never end, and `play` stops (as `trace` does at its `--max-steps`).
const MAX_STEPS_WITHOUT_CHOICE: usize = 1000;

fn run(session: &mut Session, input: &mut Input) -> Result<ExitCode, Failure> {
    // Steps in a row that no person chose.
    let mut unchosen = 0;
    'turn: loop {
        session.show();
        let step = session.step();
        let terminal = session
            .game
            .is_terminal(&session.state)
            .map_err(|e| Failure::at_step(step, &e))?;
        if terminal {
            let goals = session
                .game
                .goals(&session.state)
                .map_err(|e| Failure::at_step(step, &e))?;
            let parts: Vec<String> = session
                .roles()
                .iter()
                .zip(&goals)
                .map(|(&r, g)| format!("{} {g}", session.game.role_name(r)))
                .collect();
            println!("game over after {step} steps; goals: {}", parts.join(", "));
            let people =
                (0..session.machine.len()).any(|i| !session.machine[i] && !session.seats.is_ai(i));
            if input.scripted() || !people {
                return Ok(ExitCode::SUCCESS);
            }
            println!("undo to take back a move, quit to stop");
            loop {
                match input.read("> ")?.as_deref().map(str::trim) {
                    None | Some("quit" | "exit" | "q") => return Ok(ExitCode::SUCCESS),
                    Some("undo" | "u") => {
                        if session.undo() {
                            continue 'turn;
                        }
                    }
                    Some("") => {}
                    Some(other) => println!("the game is over: undo or quit, not {other:?}"),
                }
            }
        }
        let roles = session.roles();
        let mut joint = Vec::new();
        let mut chosen = false;
        for &role in &roles {
            let legal = session
                .sorted_legal(role)
                .map_err(|e| Failure::at_step(step, &e))?;
            let name = session.game.role_name(role).to_string();
            if session.seats.is_ai(role.0 as usize) {
                let m = session
                    .seats
                    .choose(&mut session.game, &session.state, role.0 as usize)
                    .map_err(|e| Failure::at_step(step, &e))?;
                let (iterations, value) = session.seats.last(role.0 as usize).unwrap_or_default();
                let how = if legal.len() == 1 {
                    "only move".to_string()
                } else {
                    format!(
                        "search: {iterations} iterations, expects {:.0}",
                        value * 100.0
                    )
                };
                println!("{name} plays {} ({how})", session.game.move_text(m));
                joint.push(m);
                continue;
            }
            if session.machine[role.0 as usize] {
                let moves: Vec<Move> = legal.iter().map(|(m, _)| *m).collect();
                let m = session.player.choose(&session.game, &moves);
                println!("{name} plays {} (machine)", session.game.move_text(m));
                joint.push(m);
                continue;
            }
            if legal.len() == 1 {
                println!("{name} plays {} (only move)", legal[0].1);
                joint.push(legal[0].0);
                continue;
            }
            print_legal(&name, &legal);
            loop {
                match session.ask(input, role, &legal)? {
                    Action::Move(m) => {
                        joint.push(m);
                        chosen = true;
                        break;
                    }
                    Action::Undo => {
                        session.undo();
                        continue 'turn;
                    }
                    Action::Quit => {
                        println!("{}", session.stopped("stopped"));
                        return Ok(ExitCode::SUCCESS);
                    }
                    Action::Again => {}
                }
            }
        }
        let texts: Vec<String> = joint.iter().map(|&m| session.game.move_text(m)).collect();
        println!("played: {}", texts.join(" "));
        session.seats.observe(&joint);
        session.play(joint, chosen)?;
        unchosen = if chosen { 0 } else { unchosen + 1 };
        if unchosen == MAX_STEPS_WITHOUT_CHOICE {
            session.show();
            println!(
                "stopped at step {}: no one has had a choice for {MAX_STEPS_WITHOUT_CHOICE} \
                 steps, the game may never end",
                session.step()
            );
            return Ok(ExitCode::SUCCESS);
        }
    }
}
