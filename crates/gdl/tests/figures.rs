//! Figures known independently of this code, reproduced by the evaluator.

use gdl::{Game, State};
use std::collections::HashSet;

fn load(name: &str) -> Game {
    let path = format!("{}/tests/games/{name}", env!("CARGO_MANIFEST_DIR"));
    Game::load(&path).unwrap_or_else(|e| panic!("{}", e.render(false)))
}

/// The same rules, evaluated by the interpreter (grounding switched off).
fn load_interpreted(name: &str) -> Game {
    let path = format!("{}/tests/games/{name}", env!("CARGO_MANIFEST_DIR"));
    let limits = gdl::LoadOptions {
        limits: gdl::Limits::default(),
        engine: gdl::EngineChoice::Interpreter,
    };
    let game = Game::load_with(&path, limits).unwrap_or_else(|e| panic!("{}", e.render(false)));
    assert_eq!(game.engine(), gdl::Engine::Interpreter);
    game
}

/// Counts complete games (sequences of joint moves from the initial state to
/// a terminal state) and collects every reachable state.
fn explore(game: &mut Game, state: &State, seen: &mut HashSet<State>) -> u64 {
    seen.insert(state.clone());
    if game.is_terminal(state).unwrap() {
        game.goals(state).unwrap();
        return 1;
    }
    let mut total = 0;
    for joint in game.joint_moves(state).unwrap() {
        let next = game.next_state(state, &joint).unwrap();
        total += explore(game, &next, seen);
    }
    total
}

#[test]
fn tictactoe_has_255168_games_and_5478_positions() {
    for mut game in [load("tictactoe.gdl"), load_interpreted("tictactoe.gdl")] {
        let mut seen = HashSet::new();
        let initial = game.initial_state();
        let games = explore(&mut game, &initial, &mut seen);
        assert_eq!(games, 255_168, "{}", game.engine());
        assert_eq!(seen.len(), 5_478, "{}", game.engine());
    }
}

/// Heap sizes of a nim state, read from its `(heap h size)` facts, where
/// sizes are successor terms.
fn heaps(game: &Game, state: &State) -> Vec<usize> {
    let mut sizes: Vec<(String, usize)> = game
        .state_facts(state)
        .into_iter()
        .filter_map(|f| {
            let rest = f.strip_prefix("(heap ")?;
            let (name, size) = rest.split_once(' ')?;
            Some((name.to_string(), size.matches("(s").count()))
        })
        .collect();
    sizes.sort();
    sizes.into_iter().map(|(_, n)| n).collect()
}

/// Complete games of nim from these heap sizes, counted directly.
fn nim_games(heaps: &mut Vec<usize>) -> u64 {
    if heaps.iter().all(|&h| h == 0) {
        return 1;
    }
    let mut total = 0;
    for i in 0..heaps.len() {
        let h = heaps[i];
        for smaller in 0..h {
            heaps[i] = smaller;
            total += nim_games(heaps);
        }
        heaps[i] = h;
    }
    total
}

/// The goal of the player to move under perfect play (minimax), from the
/// rules file.
fn minimax(game: &mut Game, state: &State, mover: usize) -> u8 {
    if game.is_terminal(state).unwrap() {
        return game.goals(state).unwrap()[mover];
    }
    let mut best = 0;
    for joint in game.joint_moves(state).unwrap() {
        let next = game.next_state(state, &joint).unwrap();
        best = best.max(100 - minimax(game, &next, 1 - mover));
    }
    best
}

#[test]
fn nim_matches_direct_counts_and_the_nim_sum_rule() {
    nim_figures(load("nim.gdl"));
    nim_figures(load_interpreted("nim.gdl"));
}

fn nim_figures(mut game: Game) {
    let initial = game.initial_state();
    assert_eq!(heaps(&game, &initial), [2, 3, 4]);
    let mut seen = HashSet::new();
    let games = explore(&mut game, &initial, &mut seen);
    assert_eq!(games, nim_games(&mut vec![2, 3, 4]));
    assert_eq!(games, 8_523);
    // Every position with counters left: the player to move wins under
    // perfect play exactly when the nim-sum is not zero.
    let mut checked = 0;
    for state in &seen {
        let h = heaps(&game, state);
        if h.iter().all(|&n| n == 0) {
            continue;
        }
        let mover = if game
            .state_facts(state)
            .contains(&"(control first)".to_string())
        {
            0
        } else {
            1
        };
        let nim_sum = h.iter().fold(0, |x, &n| x ^ n);
        let expected = if nim_sum != 0 { 100 } else { 0 };
        assert_eq!(minimax(&mut game, state, mover), expected, "heaps {h:?}");
        checked += 1;
    }
    // The reachable positions, found directly: (heap sizes, player to move).
    let mut direct = HashSet::new();
    let mut todo = vec![(vec![2, 3, 4], 0)];
    while let Some((h, mover)) = todo.pop() {
        if !direct.insert((h.clone(), mover)) {
            continue;
        }
        for i in 0..h.len() {
            for smaller in 0..h[i] {
                let mut next = h.clone();
                next[i] = smaller;
                todo.push((next, 1 - mover));
            }
        }
    }
    assert_eq!(seen.len(), direct.len());
    let empty = direct
        .iter()
        .filter(|(h, _)| h.iter().all(|&n| n == 0))
        .count();
    assert_eq!(checked, direct.len() - empty);
}

/// Buttons and lights, stepped directly: a toggles p, b swaps p and q, c
/// swaps q and r.
fn press(lights: [bool; 3], button: char) -> [bool; 3] {
    let [p, q, r] = lights;
    match button {
        'a' => [!p, q, r],
        'b' => [q, p, r],
        'c' => [p, r, q],
        _ => unreachable!(),
    }
}

#[test]
fn buttons_and_lights_agree_with_direct_stepping() {
    for mut game in [load("buttons.gdl"), load_interpreted("buttons.gdl")] {
        // Every sequence of presses: the rules and direct stepping agree on
        // the lights, the end and the goal.
        let mut frontier = vec![(game.initial_state(), [false; 3], 1)];
        let mut ends = 0;
        while let Some((state, lights, step)) = frontier.pop() {
            let facts = game.state_facts(&state);
            let lit: Vec<&str> = ["p", "q", "r"]
                .into_iter()
                .zip(lights)
                .filter(|(_, on)| *on)
                .map(|(name, _)| name)
                .collect();
            let mut expected: Vec<String> = lit.iter().map(|s| s.to_string()).collect();
            expected.push(step.to_string());
            expected.sort();
            assert_eq!(facts, expected);
            let won = lights == [true; 3];
            assert_eq!(game.is_terminal(&state).unwrap(), won || step == 7);
            if won || step == 7 {
                assert_eq!(game.goals(&state).unwrap(), [if won { 100 } else { 0 }]);
                ends += 1;
                continue;
            }
            for button in ['a', 'b', 'c'] {
                let m = game.parse_move(&button.to_string()).unwrap();
                let next = game.next_state(&state, &[m]).unwrap();
                frontier.push((next, press(lights, button), step + 1));
            }
        }
        assert!(ends > 0);
    }
}
