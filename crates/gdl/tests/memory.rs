//! Memory over long runs, through the public API: a game that visits a
//! million distinct states keeps its resident set bounded, because the memo
//! of state models (`Game::set_memo_capacity`) keeps at most two
//! generations of them. Linux only: the resident set is read from
//! `/proc/self/statm`.
//!
//! The one test binary of the library apart from `main`: the resident set
//! is the whole process's, so these tests need a process of their own (in
//! `main`, the corpus replay or another test allocating beside them would
//! count as their growth).
#![cfg(target_os = "linux")]

use gdl::{Game, Limits, State};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_pcg::Pcg64;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Mutex;

const MIB: usize = 1 << 20;

/// The allocator of the `gdl` command, so that `Limits::max_memory` is
/// enforced here as there.
#[global_allocator]
static ALLOCATOR: gdl::CountingAllocator = gdl::CountingAllocator;

/// The resident set is the whole process's: the tests of this file take
/// turns, so that one's models never count as another's growth.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The resident set of this process now, in bytes.
fn resident_bytes() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("/proc/self/statm");
    let pages: usize = statm
        .split_whitespace()
        .nth(1)
        .and_then(|f| f.parse().ok())
        .expect("statm's second field is the resident page count");
    // SAFETY: sysconf only reads a configuration value.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    pages * usize::try_from(page).expect("a positive page size")
}

fn hash_of(state: &State) -> u64 {
    let mut h = DefaultHasher::new();
    state.hash(&mut h);
    h.finish()
}

/// What a long run saw.
struct Run {
    /// Hashes of the states visited, one per visit.
    hashes: Vec<u64>,
    /// Resident set after the warm-up, and the largest seen after it.
    baseline: usize,
    peak: usize,
}

/// Plays random games of `game` from its initial state, two at a time in
/// alternation, querying terminal and legal moves of every state met, until
/// `visits` states have been visited. (A game played move by move is
/// answered by the game's stepper, which follows one line of play; the
/// states of the other line go through the memo of models, which is what
/// these tests measure.) The resident set is sampled every `every` visits;
/// the first sample at or after `warm_up` visits is the baseline, and the
/// run stops early (returning what it saw) once the resident set exceeds
/// the baseline by `stop_above` bytes.
fn visit(game: &mut Game, visits: usize, warm_up: usize, every: usize, stop_above: usize) -> Run {
    // Written once now, so that the pages of the hash log count in the
    // baseline rather than as growth.
    let mut hashes = vec![u64::MAX; visits];
    hashes.clear();
    let roles = game.roles();
    let mut rng = Pcg64::seed_from_u64(5);
    let mut baseline = None;
    let mut peak = 0;
    let mut lines = [game.initial_state(), game.initial_state()];
    for turn in 0.. {
        let state = &mut lines[turn % 2];
        hashes.push(hash_of(state));
        if hashes.len() % every == 0 && hashes.len() >= warm_up {
            let now = resident_bytes();
            let base = *baseline.get_or_insert(now);
            peak = peak.max(now);
            if now > base + stop_above {
                break;
            }
        }
        if hashes.len() == visits {
            break;
        }
        if game.is_terminal(state).unwrap() {
            *state = game.initial_state();
            continue;
        }
        let joint: Vec<_> = roles
            .iter()
            .map(|&r| {
                *game
                    .legal_moves(state, r)
                    .unwrap()
                    .choose(&mut rng)
                    .unwrap()
            })
            .collect();
        *state = game.next_state(state, &joint).unwrap();
    }
    Run {
        hashes,
        baseline: baseline.expect("the run is longer than its warm-up"),
        peak,
    }
}

impl Run {
    /// How far the resident set rose above the baseline, logged with `what`.
    fn growth(&self, what: &str) -> usize {
        eprintln!(
            "{what}: baseline {} KiB, peak {} KiB, {} visits",
            self.baseline / 1024,
            self.peak / 1024,
            self.hashes.len()
        );
        self.peak.saturating_sub(self.baseline)
    }
}

fn distinct(mut hashes: Vec<u64>) -> usize {
    hashes.sort_unstable();
    hashes.dedup();
    hashes.len()
}

fn breakthrough() -> Game {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../rules/breakthrough.gdl");
    let game = Game::load(path).unwrap_or_else(|e| panic!("{}", e.render(false)));
    assert!(
        matches!(game.engine(), gdl::Engine::Ground { .. }),
        "{}",
        game.engine()
    );
    game
}

/// A million state visits of random breakthrough games (942,047 distinct
/// states) with a memo of 64 models a generation: the resident set grows by
/// less than 16 MiB after the first 100,000 visits (it grew by 8 KiB when
/// this was written). About 8 s in release mode on a loaded 2-core machine.
#[test]
fn a_million_states_through_a_small_memo_keep_memory_bounded() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut game = breakthrough();
    game.set_memo_capacity(64);
    let run = visit(&mut game, 1_000_000, 100_000, 25_000, 16 * MIB);
    let growth = run.growth("bounded memo");
    assert!(
        growth <= 16 * MIB,
        "resident set grew by {} MiB after the warm-up (from {} MiB), stopped after {} visits",
        growth / MIB,
        run.baseline / MIB,
        run.hashes.len()
    );
    assert_eq!(run.hashes.len(), 1_000_000);
    let distinct = distinct(run.hashes);
    eprintln!("{distinct} distinct states");
    assert!(distinct > 900_000, "only {distinct} distinct states");
}

/// The check above can fail: with a memo large enough to keep every model
/// (about 1.5 KiB each), the same games grow the resident set past the
/// bound within 40,000 visits, where the run stops. Well under 1 s in
/// release mode.
#[test]
fn an_unbounded_memo_would_be_caught() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut game = breakthrough();
    game.set_memo_capacity(usize::MAX);
    let run = visit(&mut game, 200_000, 20_000, 10_000, 16 * MIB);
    let growth = run.growth("unbounded memo");
    assert!(
        growth > 16 * MIB,
        "resident set grew by only {} MiB with every model kept",
        growth / MIB
    );
}

/// A game whose every state has a model of about 4 MiB: `big` pairs every
/// two of 300 numbers (two apart: without the `distinct`, its places would
/// only carry the domain `d`, and loading would drop them,
/// `rewrite::domain_places`) for the state's step, and `terminal` asks for
/// all of it (with every place free, so that no demand narrows it).
fn big_models(max_memory: usize) -> Game {
    let mut text = String::from("(role p)\n(init (step 0))\n(legal p go)\n(goal p 100)\n");
    for i in 0..300 {
        text.push_str(&format!("(d {i})\n"));
    }
    for i in 0..1000 {
        text.push_str(&format!("(succ {i} {})\n", i + 1));
    }
    text.push_str(
        "(<= (next (step ?n)) (true (step ?k)) (succ ?k ?n))\n\
         (<= (big ?k ?a ?b) (true (step ?k)) (d ?a) (d ?b) (distinct ?a ?b))\n\
         (<= terminal (true (step 1000)))\n\
         (<= terminal (big ?k ?a ?b) (not (d ?a)))\n",
    );
    let limits = Limits {
        max_memory,
        ..Limits::default()
    };
    Game::from_source_with("big_models.gdl", &text, limits)
        .unwrap_or_else(|e| panic!("{}", e.render(false)))
}

/// The resident set's growth over `steps` states of [`big_models`] after
/// the first ten, each state's terminal and legal moves asked.
fn walk(game: &mut Game, steps: usize) -> usize {
    let mut state = game.initial_state();
    let mut baseline = 0;
    let mut peak = 0;
    for step in 0..steps {
        assert!(!game.is_terminal(&state).unwrap(), "step {step}");
        let go = game.legal_moves(&state, game.roles()[0]).unwrap();
        state = game.next_state(&state, &go).unwrap();
        if step == 10 {
            baseline = resident_bytes();
        }
        peak = peak.max(resident_bytes());
    }
    eprintln!("baseline {} MiB, peak {} MiB", baseline / MIB, peak / MIB);
    peak.saturating_sub(baseline)
}

/// The memo of models is bounded in bytes, not only in models: with a
/// budget of 64 MiB (2 MiB a generation) 150 states of 4 MiB models grow
/// the resident set by less than 32 MiB (2 MiB when this was written);
/// with a large budget the memo keeps 64 models a generation, and 80
/// states grow it past 64 MiB. About 4 s in release mode.
#[test]
fn big_models_are_bounded_by_the_memory_budget() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let growth = walk(&mut big_models(64 * MIB), 150);
    assert!(growth < 32 * MIB, "grew by {} MiB", growth / MIB);
    let growth = walk(&mut big_models(16 << 30), 80);
    assert!(
        growth > 64 * MIB,
        "only {} MiB with a large budget: the check above proves nothing",
        growth / MIB
    );
}

/// A join of 30^12 matches stops at the memory budget with an error naming
/// the relation and the limit, long before the machine's memory runs out.
#[test]
fn a_runaway_join_stops_at_the_memory_budget() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut text = String::from(
        "(role p)\n(init s)\n(legal p go)\n(<= (next s) (true s))\n\
         (<= terminal (true s))\n(goal p 100)\n",
    );
    for i in 0..30 {
        text.push_str(&format!("(c k{i})\n"));
    }
    text.push_str("(<= (big ?a ?b ?c ?d ?e ?f ?g ?h) (c ?a) (c ?b) (c ?c) (c ?d) (c ?e) (c ?f) (c ?g) (c ?h))\n");
    // Asked with every place free: derived whole, not on demand.
    text.push_str("(<= (next t) (big ?a ?b ?c ?d ?e ?f ?g ?h))\n");
    let limits = Limits {
        max_memory: 64 * MIB,
        max_facts: usize::MAX,
        max_work: u64::MAX,
        ..Limits::default()
    };
    let error = Game::from_source_with("join.gdl", &text, limits)
        .err()
        .expect("the join cannot fit in 64 MiB");
    let message = error.render(false);
    assert!(
        message
            .contains("the memory limit (`max_memory`, 64 MiB) was reached while deriving `big`"),
        "{message}"
    );
    // The library names the limit; each caller says how to raise it.
    assert!(!message.contains("--max-memory"), "{message}");
    assert_eq!(error.diagnostics()[0].limit, Some(gdl::LimitKind::Memory));
    let held = gdl::heap_bytes().expect("the counting allocator is installed");
    assert!(held < 64 * MIB, "{} MiB still held", held / MIB);
}

/// A random walk over the 2^40 states of forty bits, 100 steps long: a
/// state term of the interpreter is new at almost every step. The goal is
/// the first bit at the end.
fn random_walk(max_memory: usize) -> Game {
    const BITS: usize = 40;
    let bits = |n: Option<usize>| -> String {
        (0..BITS)
            .map(|i| match n {
                Some(k) if k == i => "?n".to_string(),
                _ => format!("?b{i}"),
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut text = format!(
        "(role p)\n(init (c{}))\n(init (step 0))\n(flipv 0 1)\n(flipv 1 0)\n",
        " 0".repeat(BITS)
    );
    for i in 0..100 {
        text.push_str(&format!("(succ {i} {})\n", i + 1));
    }
    for i in 0..BITS {
        text.push_str(&format!(
            "(legal p (flip {i}))\n\
             (<= (next (c {})) (does p (flip {i})) (true (c {})) (flipv ?b{i} ?n))\n",
            bits(Some(i)),
            bits(None)
        ));
    }
    text.push_str(&format!(
        "(<= (next (step ?n)) (true (step ?k)) (succ ?k ?n))\n\
         (<= terminal (true (step 100)))\n\
         (<= (goal p 100) (true (c 1 {rest})))\n\
         (<= (goal p 0) (true (c 0 {rest})))\n",
        rest = (1..BITS)
            .map(|i| format!("?b{i}"))
            .collect::<Vec<_>>()
            .join(" ")
    ));
    let limits = Limits {
        max_memory,
        ..Limits::default()
    };
    let game = Game::from_source_with("walk.gdl", &text, limits)
        .unwrap_or_else(|e| panic!("{}", e.render(false)));
    assert_eq!(game.engine(), gdl::Engine::Interpreter);
    game
}

/// Random games one after the other keep the interned terms bounded: with
/// a budget of 32 MiB the terms of 3,000 random walks (300,000 states,
/// about 50 MiB of terms if kept) are forgotten at 2 MiB, and the
/// resident set grows by less than 12 MiB (by nothing when this was
/// written). The same games played through
/// `Game::playout`, whose last states the caller holds, keep every term:
/// with a large budget the resident set grows past 24 MiB, and with the
/// budget of 32 MiB they stop at it, with an error naming the limit. And
/// forgetting changes no game: each seed's outcome is the one a fresh
/// game plays move by move. About 9 s in release mode.
#[test]
fn random_games_forget_the_terms_they_interned() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut game = random_walk(32 * MIB);
    let start = game.initial_state();
    let mut outcomes = Vec::new();
    let mut baseline = 0;
    let mut peak = 0;
    for seed in 0..3000 {
        let mut player = gdl::RandomPlayer::new(seed);
        let stop = gdl::Stop::steps(1000);
        outcomes.push(game.random_outcome(&start, &mut player, stop).unwrap());
        if seed == 100 {
            baseline = resident_bytes();
        }
        peak = peak.max(resident_bytes());
    }
    eprintln!(
        "random_outcome: baseline {} MiB, peak {} MiB",
        baseline / MIB,
        peak / MIB
    );
    assert!(
        peak - baseline < 12 * MIB,
        "grew by {} MiB",
        (peak - baseline) / MIB
    );

    // Each outcome is the game RandomPlayer plays on a game of its own.
    let mut fresh = random_walk(32 * MIB);
    for seed in (0..3000).step_by(97) {
        let mut player = gdl::RandomPlayer::new(seed);
        let mut state = fresh.initial_state();
        while !fresh.is_terminal(&state).unwrap() {
            let joint = player.joint(&mut fresh, &state).unwrap();
            state = fresh.next_state(&state, &joint).unwrap();
        }
        let outcome = &outcomes[seed as usize];
        assert_eq!(outcome.steps, 100);
        assert_eq!(
            outcome.goals.as_deref(),
            Some(&fresh.goals(&state).unwrap()[..]),
            "seed {seed}"
        );
    }
    let wins = outcomes
        .iter()
        .filter(|o| o.goals.as_deref() == Some(&[100][..]))
        .count();
    assert!((1000..2000).contains(&wins), "{wins} wins of 3000");

    // Without forgetting, the same number of states grows the resident set
    // (under a budget large enough to hold them).
    let mut game = random_walk(16 << 30);
    let mut player = gdl::RandomPlayer::in_engine_order(1);
    let initial = game.initial_state();
    let mut kept = Vec::new();
    let baseline = resident_bytes();
    for _ in 0..3000 {
        kept.push(
            game.playout(&initial, &mut player, gdl::Stop::steps(1000))
                .unwrap()
                .last,
        );
    }
    let growth = resident_bytes().saturating_sub(baseline);
    eprintln!("playout: grew by {} MiB", growth / MIB);
    assert!(
        growth > 24 * MIB,
        "only {} MiB: the bound above proves nothing",
        growth / MIB
    );
    // The budget counts the whole process's heap: the game that kept
    // every term goes before the next loads under 32 MiB.
    drop(kept);
    drop(game);

    // Under the budget of 32 MiB, the states kept stop at the budget.
    let mut game = random_walk(32 * MIB);
    let initial = game.initial_state();
    let mut kept = Vec::new();
    let error = loop {
        match game.playout(&initial, &mut player, gdl::Stop::steps(1000)) {
            Ok(playout) => kept.push(playout.last),
            Err((_, e)) => break e.to_string(),
        }
        assert!(kept.len() < 3000, "3,000 playouts kept within 32 MiB");
    };
    assert!(
        error.contains("the memory limit (`max_memory`, 32 MiB) was reached"),
        "{error}"
    );
}

/// Searches of `budget` iterations from the first `moves` states of a
/// random walk (the search player plays it), with the resident set's
/// growth after the first search: each search's chosen move and its root
/// statistics, and the growth.
fn searches(max_memory: usize, iterations: u64, moves: usize) -> (Vec<gdl::SearchStats>, usize) {
    let mut game = random_walk(max_memory);
    let role = game.roles()[0];
    let mut player = gdl::SearchPlayer::new(&game, role, gdl::Budget::Iterations(iterations), 3)
        .playout_steps(1000);
    let mut state = game.initial_state();
    let mut stats = Vec::new();
    let mut baseline = 0;
    let mut peak = 0;
    for k in 0..moves {
        let chosen = player.choose(&mut game, &state).unwrap();
        stats.push(player.stats().clone());
        if k == 0 {
            baseline = resident_bytes();
        }
        peak = peak.max(resident_bytes());
        player.observe(&[chosen]);
        state = game.next_state(&state, &[chosen]).unwrap();
    }
    (stats, peak.saturating_sub(baseline))
}

/// The search player keeps nothing of its walks down the tree and its
/// playouts but the moves of new nodes, and forgets the terms they
/// interned: with a budget of 32 MiB (2 MiB of terms), 12 searches of 200
/// iterations from a random walk of new states (each search some 20,000
/// states, 4 MiB of terms; 48 MiB in all if kept) grow the resident set by
/// less than 10 MiB after the first search (by nothing when this was
/// written; by about 24 MiB without forgetting, 42 MiB for 20 searches).
/// Forgetting changes nothing the search finds: with a budget too large
/// for the terms to be forgotten during a search, every search chooses the
/// same move with the same statistics. About 6 s in release mode.
#[test]
fn searches_forget_the_terms_of_their_playouts() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (small, growth) = searches(32 * MIB, 200, 12);
    eprintln!("searches: grew by {} KiB", growth / 1024);
    assert!(growth < 10 * MIB, "grew by {} MiB", growth / MIB);
    let (large, _) = searches(16 << 30, 200, 12);
    assert_eq!(small.len(), large.len());
    for (k, (a, b)) in small.iter().zip(&large).enumerate() {
        assert_eq!(
            (a.iterations, a.nodes, a.reused, &a.root),
            (b.iterations, b.nodes, b.reused, &b.root),
            "search {k}"
        );
    }
}

/// A game of `roles` roles with two moves each.
fn many_roles(roles: usize) -> Game {
    let mut text = String::from("(init s)\n(<= terminal (true t))\n(<= (next t) (true s))\n");
    for r in 0..roles {
        text.push_str(&format!(
            "(role r{r})\n(legal r{r} a)\n(legal r{r} b)\n(goal r{r} 0)\n"
        ));
    }
    Game::from_source("roles.gdl", &text).unwrap_or_else(|e| panic!("{}", e.render(false)))
}

/// Every joint move is listed when the list fits; 26 roles of two moves
/// (67 million joint moves, some 9 GB) are refused before any is built.
#[test]
fn joint_moves_that_cannot_fit_are_a_memory_limit() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut game = many_roles(10);
    let state = game.initial_state();
    assert_eq!(game.joint_moves(&state).unwrap().len(), 1 << 10);
    let mut game = many_roles(26);
    let state = game.initial_state();
    let error = game.joint_moves(&state).unwrap_err().to_string();
    assert!(
        error.contains("memory limit") && error.contains("`joint moves`"),
        "{error}"
    );
}
