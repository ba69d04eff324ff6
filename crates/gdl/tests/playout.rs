//! The playout driver and the batch runner: where a playout stops (its
//! step limit, a deadline already passed, a flag), on the stepper and
//! through the general API; what `Players` sees; the results of
//! `play_games` in game order whatever the threads, and a run ended
//! early. No test races a clock: a deadline is either far off or already
//! past.

use gdl::{
    Budget, EngineChoice, Game, GameError, LoadOptions, Move, Players, RandomPlayer, SearchPlayer,
    State, Stop, play_games,
};
use std::ops::ControlFlow;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// A game that never ends: a light flipped on and off (or left), forever.
const ENDLESS: &str = "(role r) (init (light off))
    (<= (legal r flip) (true (light ?x))) (<= (legal r wait) (true (light ?x)))
    (<= (next (light on)) (does r flip) (true (light off)))
    (<= (next (light off)) (does r flip) (true (light on)))
    (<= (next (light ?x)) (does r wait) (true (light ?x)))
    (<= terminal (true (light broken))) (goal r 50)";

/// The endless game on the ground engine (with a stepper) and on the
/// interpreter.
fn endless() -> Vec<Game> {
    [EngineChoice::Ground, EngineChoice::Interpreter]
        .into_iter()
        .map(|engine| {
            let options = LoadOptions {
                engine,
                ..LoadOptions::default()
            };
            Game::from_source_with("endless.gdl", ENDLESS, options).unwrap()
        })
        .collect()
}

#[test]
fn a_playout_stops_at_its_step_limit() {
    for mut game in endless() {
        let start = game.initial_state();
        let mut player = RandomPlayer::in_engine_order(1);
        let p = game.playout(&start, &mut player, Stop::steps(300)).unwrap();
        assert_eq!((p.steps, &p.goals, p.stopped), (300, &None, false));
        let o = (game.random_outcome(&start, &mut player, Stop::steps(0))).unwrap();
        assert_eq!((o.steps, o.goals, o.stopped), (0, None, false));
    }
}

#[test]
fn a_deadline_already_past_stops_a_playout_within_a_few_steps() {
    let mut games = endless();
    assert!(games[0].stepper().is_some() && games[1].stepper().is_none());
    // The stepper looks at the clock every 16 steps, the first after 15;
    // the general API before every step.
    for (game, most) in games.iter_mut().zip([15, 0]) {
        let start = game.initial_state();
        let past = Stop::steps(usize::MAX).until(Instant::now());
        let mut player = RandomPlayer::new(3);
        let p = game.playout(&start, &mut player, past).unwrap();
        assert!(p.stopped && p.goals.is_none() && p.steps == most, "{p:?}");
        let o = game.random_outcome(&start, &mut player, past).unwrap();
        assert!(o.stopped && o.steps == most, "{o:?}");
        // A deadline far off stops nothing.
        let later = Stop::steps(100).until(Instant::now() + Duration::from_secs(3600));
        let p = game.playout(&start, &mut player, later).unwrap();
        assert!(!p.stopped && p.steps == 100, "{p:?}");
    }
}

#[test]
fn a_flag_set_stops_a_playout_as_a_deadline_does() {
    let cancel = AtomicBool::new(true);
    for (mut game, most) in endless().into_iter().zip([15, 0]) {
        let start = game.initial_state();
        let stop = Stop::steps(usize::MAX).or_cancelled(&cancel);
        let mut player = RandomPlayer::in_engine_order(3);
        let o = game.random_outcome(&start, &mut player, stop).unwrap();
        assert!(o.stopped && o.steps == most, "{o:?}");
    }
}

/// A search out of time plays its iteration's playout only until the
/// playout looks at the clock: without that look, a playout of this game
/// (which never ends, and may play as many steps as it likes) would never
/// come back. A search whose time is gone before its first iteration (the
/// position took it all) runs none, and plays the first legal move.
#[test]
fn a_search_out_of_time_stops_within_its_playout() {
    for mut game in endless() {
        let start = game.initial_state();
        let role = game.roles()[0];
        let legal = game.legal_moves(&start, role).unwrap();
        let mut player = SearchPlayer::new(&game, role, Budget::Time(Duration::ZERO), 1)
            .playout_steps(usize::MAX);
        assert_eq!(player.choose(&mut game, &start).unwrap(), legal[0]);
        assert_eq!(player.stats().iterations, 0);
        // A millisecond: one iteration at most (if it starts in time),
        // its endless playout stopped by the clock.
        let mut player = SearchPlayer::new(&game, role, Budget::Time(Duration::from_millis(1)), 1)
            .playout_steps(usize::MAX);
        let chosen = player.choose(&mut game, &start).unwrap();
        assert!(legal.contains(&chosen));
        assert!(player.stats().iterations <= 1, "{:?}", player.stats());
    }
}

/// Players that play each role's first legal move and note the states
/// they reach.
struct Noting {
    seen: Vec<(State, Option<Vec<Move>>)>,
}

impl Players for Noting {
    fn joint(&mut self, game: &mut Game, state: &State) -> Result<Vec<Move>, GameError> {
        let roles = game.roles();
        roles
            .into_iter()
            .map(|r| Ok(game.legal_moves(state, r)?[0]))
            .collect()
    }

    fn reached(
        &mut self,
        _: &mut Game,
        state: &State,
        joint: Option<&[Move]>,
    ) -> Result<(), GameError> {
        self.seen.push((state.clone(), joint.map(<[Move]>::to_vec)));
        if self.seen.len() == 4 {
            return Err(GameError::Terminal);
        }
        Ok(())
    }
}

#[test]
fn players_see_every_state_reached_and_may_end_the_game() {
    let mut game = Game::load(crate::path("rules/tictactoe.gdl")).unwrap();
    let start = game.initial_state();
    let mut noting = Noting { seen: Vec::new() };
    // The fourth state reached ends it: an error at step 3.
    let ended = game.play(&start, &mut noting, Stop::steps(100));
    assert!(matches!(ended, Err((3, GameError::Terminal))), "{ended:?}");
    assert_eq!(noting.seen.len(), 4);
    assert_eq!(noting.seen[0], (start.clone(), None));
    let mut state = start;
    for (reached, joint) in &noting.seen[1..] {
        let joint = joint.as_ref().expect("the joint move that led there");
        state = game.next_state(&state, joint).unwrap();
        assert_eq!(reached, &state);
    }
}

/// Game `i`'s outcome: random play from seed `i`.
fn outcome(game: &mut Game, i: usize, cancel: &AtomicBool) -> (usize, Option<Vec<u8>>) {
    let start = game.initial_state();
    let stop = Stop::steps(200).or_cancelled(cancel);
    let o = game.random_outcome(&start, &mut RandomPlayer::new(i as u64), stop);
    let o = o.unwrap();
    (o.steps, o.goals.map(Vec::from))
}

#[test]
fn a_batch_gives_its_results_in_game_order_whatever_the_threads() {
    let game = Game::load(crate::path("rules/connect_four.gdl")).unwrap();
    let run = |threads| {
        let mut results = Vec::new();
        play_games(&game, 300, threads, outcome, |r| {
            if let Some((i, o)) = r {
                assert_eq!(i, results.len());
                results.push(o);
            }
            ControlFlow::Continue(())
        });
        results
    };
    let one = run(1);
    assert_eq!(one.len(), 300);
    assert_eq!(run(3), one);
    assert_eq!(run(0), one);
    // Game i is the playout of seed i, as `Game::playout` plays it.
    let mut game = game;
    let start = game.initial_state();
    for i in [0, 17, 299] {
        let p = game.playout(&start, &mut RandomPlayer::new(i as u64), Stop::steps(200));
        let p = p.unwrap();
        assert_eq!(one[i as usize], (p.steps, p.goals));
    }
    // No game, no result.
    play_games(&game, 0, 2, outcome, |r| {
        assert!(r.is_none(), "no game was asked for");
        ControlFlow::Continue(())
    });
}

#[test]
fn a_batch_ended_early_hands_nothing_after() {
    let game = Game::load(crate::path("rules/tictactoe.gdl")).unwrap();
    let mut seen = Vec::new();
    play_games(&game, 100_000, 2, outcome, |r| {
        if let Some((i, _)) = r {
            seen.push(i);
            if i == 40 {
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    });
    assert_eq!(seen, (0..=40).collect::<Vec<_>>());
}
