//! Agreement with the reference: every published game of the corpus beside
//! the repository (`../shared/corpus/NAME.kif`, with `NAME.0.json` and
//! `NAME.1.json`, random games traced by ggp-base) is replayed move by
//! move, and every step's state, each role's legal moves (as sets: the
//! traces sort them as plain strings), terminal and the final goals must be
//! the reference's. Texts compare without case: ggp-base writes names in
//! lower case, gdl as the rules file writes them. Each game plays on the engine its loading picks, and
//! again on the interpreter alone for its first steps (`INTERPRETED_STEPS`),
//! so that both engines are held to the reference within the CI budget.
//! Each game loads once an engine for all its traces. Without the corpus
//! (a clone of the project alone) the test says it skipped and passes.

use gdl::{Game, Limits, State};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The steps of each trace the interpreter replays too.
const INTERPRETED_STEPS: usize = 10;

/// The corpus, if it is beside the repository; if not, a test that needs
/// it says it skipped.
pub(crate) fn corpus() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    if !dir.is_dir() {
        eprintln!("skipped: no published corpus at ../shared/corpus beside the repository");
    }
    dir.is_dir().then_some(dir)
}

#[test]
fn every_published_game_agrees_with_its_reference_traces() {
    let Some(dir) = corpus() else {
        return;
    };
    let traces = files_of(&dir, "json");
    assert!(
        traces.len() > 100,
        "{} traces in {}",
        traces.len(),
        dir.display()
    );
    // The traces of each game (`NAME.0.json`, `NAME.1.json` beside
    // `NAME.kif`), so that each game loads once an engine.
    let mut games: BTreeMap<PathBuf, Vec<JsonTrace>> = BTreeMap::new();
    for trace in &traces {
        let name = trace.file_name().unwrap().to_string_lossy();
        let rules = trace.with_file_name(format!("{}.kif", name.split('.').next().unwrap()));
        let trace = JsonTrace::read(trace).unwrap_or_else(|e| panic!("{e}"));
        games.entry(rules).or_default().push(trace);
    }
    let games: Vec<_> = games.into_iter().collect();
    let failures = agree_all(&games);
    eprintln!(
        "{} reference traces of {} games replayed",
        traces.len(),
        games.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The warnings for literals that never hold (`impossible-constant`,
/// `never-true`) on the published games: each was read in its game and is
/// right (a typo, a placeholder never defined, a frame axiom of a fact
/// nothing starts), so a new one is a false positive until shown otherwise.
#[test]
fn literals_that_never_hold_are_found_only_where_they_are() {
    let Some(dir) = corpus() else {
        return;
    };
    let games = files_of(&dir, "kif");
    let mut found = Vec::new();
    for path in &games {
        let text = std::fs::read_to_string(path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let (file, diagnostics) = gdl::check_source(&name, &text);
        for d in diagnostics {
            if matches!(d.code, "impossible-constant" | "never-true") {
                let line = file.line_col(d.span.start as usize).line;
                found.push(format!("{name}:{line} {}", d.code));
            }
        }
    }
    let expected = [
        // `(next (lightson ?c))` from `(true (lightson ?c))` alone.
        "factoringMutuallyAssuredDestruction.kif:42 never-true",
        // The same frame axiom for `(cell ?x ?y)`, which nothing starts.
        "mummymaze1p.kif:218 never-true",
        // `goal_reached` reads `(cell 4 2 piece2)`: cells are `y1`..`y5`.
        "slidingpieces.kif:129 never-true",
        "slidingpieces.kif:146 impossible-constant",
        "slidingpieces.kif:147 impossible-constant",
        "slidingpieces.kif:148 impossible-constant",
        "slidingpieces.kif:149 impossible-constant",
        // No item is a `healingitem`, no terrorist a `verticalterrorist`.
        "wargame01.kif:85 impossible-constant",
        "wargame01.kif:296 impossible-constant",
        "wargame01.kif:379 impossible-constant",
    ];
    assert_eq!(found, expected);
}

/// The files of `dir` with the extension `extension`, sorted.
pub(crate) fn files_of(dir: &Path, extension: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == extension))
        .collect();
    files.sort();
    files
}

/// A reference trace that can be replayed on a loaded game: the whole JSON
/// trace here, its digest for the collection (`trace_digest`).
pub(crate) trait Replay: Sync {
    /// The trace's name in messages (its file name).
    fn name(&self) -> &str;
    /// Replays its first `steps` steps on `game`, comparing each with the
    /// reference's, and the goals if it replays to the end.
    fn replay(&self, game: &mut Game, steps: usize) -> Result<(), String>;
}

/// A reference trace as `reference-trace` writes it (JSON).
pub(crate) struct JsonTrace {
    name: String,
    trace: Value,
}

impl JsonTrace {
    /// Reads a trace file.
    pub(crate) fn read(path: &Path) -> Result<JsonTrace, String> {
        let text = std::fs::read_to_string(path).unwrap();
        let trace: Value = serde_json::from_str(&text)
            .map_err(|e| format!("{}: bad trace: {e}", path.display()))?;
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        Ok(JsonTrace { name, trace })
    }
}

impl Replay for JsonTrace {
    fn name(&self) -> &str {
        &self.name
    }

    fn replay(&self, game: &mut Game, steps: usize) -> Result<(), String> {
        replay(game, &self.trace, steps)
    }
}

/// [`agree`] on every game (its rules and its traces), on two workers (the
/// games are independent, and CI has two cores): the failures, each
/// naming its game. With `GDL_TEST_TIMES` set, each game's time is printed
/// (to find what makes the test long; nothing is decided by it).
pub(crate) fn agree_all<T: Replay>(games: &[(PathBuf, Vec<T>)]) -> Vec<String> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    let mut failures = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some((rules, traces)) = games.get(i) else {
                            break;
                        };
                        let started = std::time::Instant::now();
                        let agreed = agree(rules, traces);
                        if std::env::var_os("GDL_TEST_TIMES").is_some() {
                            let seconds = started.elapsed().as_secs_f64();
                            eprintln!("{seconds:.2} s {}", rules.display());
                        }
                        if let Err(e) = agreed {
                            failures.push(format!("{}: {e}", rules.display()));
                        }
                    }
                    failures
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    })
}

/// Replays a game's traces on the engine loading picks, then their first
/// steps on the interpreter alone (unless loading picked it).
fn agree<T: Replay>(rules: &Path, traces: &[T]) -> Result<(), String> {
    let interpreted = gdl::LoadOptions {
        limits: Limits::default(),
        engine: gdl::EngineChoice::Interpreter,
    };
    // Where loading picked the interpreter, its replay is not done twice.
    let mut interpreted_already = false;
    for (options, steps) in [
        (Limits::default().into(), usize::MAX),
        (interpreted, INTERPRETED_STEPS),
    ] {
        if options.engine == gdl::EngineChoice::Interpreter && interpreted_already {
            break;
        }
        let mut game = Game::load_with(rules, options).map_err(|e| e.render(false))?;
        interpreted_already = game.engine() == gdl::Engine::Interpreter;
        for trace in traces {
            (trace.replay(&mut game, steps))
                .map_err(|e| format!("{}, {} engine: {e}", trace.name(), game.engine()))?;
        }
    }
    Ok(())
}

/// Replays the first `steps` steps of a trace, comparing each.
fn replay(game: &mut Game, trace: &Value, steps: usize) -> Result<(), String> {
    let roles = game.roles();
    let recorded = trace["steps"].as_array().ok_or("no steps")?;
    let mut state = game.initial_state();
    for step in recorded.iter().take(steps) {
        let n = &step["step"];
        let facts = facts_of(game, &state);
        if facts != texts(&step["state"]) {
            return Err(format!(
                "step {n}: {}",
                difference("state", &facts, &texts(&step["state"]))
            ));
        }
        let terminal = game.is_terminal(&state).map_err(|e| e.to_string())?;
        if Some(terminal) != step["terminal"].as_bool() {
            return Err(format!("step {n}: terminal is {terminal}"));
        }
        if terminal {
            break;
        }
        for (r, legal) in roles
            .iter()
            .zip(step["legal"].as_array().ok_or("no legal")?)
        {
            let moves = legal_texts(game, &state, *r)?;
            if moves != texts(legal) {
                let what = format!("legal moves of {}", game.role_name(*r));
                return Err(format!(
                    "step {n}: {}",
                    difference(&what, &moves, &texts(legal))
                ));
            }
        }
        let Some(played) = step["moves"].as_array() else {
            break;
        };
        let joint = (played.iter())
            .map(|m| game.parse_move(m.as_str().unwrap_or_default()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| e.to_string())?;
        state = next(game, &state, &joint)?;
    }
    if steps == usize::MAX && recorded.last().is_some_and(|s| s["terminal"] == true) {
        let goals = game.goals(&state).map_err(|e| e.to_string())?;
        let recorded: Vec<u64> = (trace["goals"].as_array().ok_or("no goals")?.iter())
            .filter_map(Value::as_u64)
            .collect();
        let goals: Vec<u64> = goals.into_iter().map(u64::from).collect();
        if goals != recorded {
            return Err(format!("goals {goals:?}, the reference's {recorded:?}"));
        }
    }
    Ok(())
}

/// The state after a joint move, or the error as text.
pub(crate) fn next(game: &mut Game, state: &State, joint: &[gdl::Move]) -> Result<State, String> {
    game.next_state(state, joint).map_err(|e| e.to_string())
}

/// A state's facts as the reference writes them: texts in lower case.
pub(crate) fn facts_of(game: &Game, state: &State) -> BTreeSet<String> {
    (game.state_facts(state).iter())
        .map(|f| f.to_ascii_lowercase())
        .collect()
}

/// A role's legal moves as the reference writes them: texts in lower case.
pub(crate) fn legal_texts(
    game: &mut Game,
    state: &State,
    role: gdl::Role,
) -> Result<BTreeSet<String>, String> {
    Ok((game.legal_moves(state, role).map_err(|e| e.to_string())?)
        .into_iter()
        .map(|m| game.move_text(m).to_ascii_lowercase())
        .collect())
}

/// The strings of a JSON array in lower case, as a set.
pub(crate) fn texts(v: &Value) -> BTreeSet<String> {
    (v.as_array().into_iter().flatten())
        .filter_map(|s| s.as_str().map(str::to_ascii_lowercase))
        .collect()
}

/// What one set has that the other lacks.
fn difference(what: &str, ours: &BTreeSet<String>, theirs: &BTreeSet<String>) -> String {
    let only = |a: &BTreeSet<String>, b: &BTreeSet<String>| {
        a.difference(b)
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join(" ")
    };
    format!(
        "{what} differ: gdl only [{}], reference only [{}]",
        only(ours, theirs),
        only(theirs, ours)
    )
}
