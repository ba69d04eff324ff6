//! A fixed number of random playouts of a rules file, for profilers: the
//! same work at every run, unlike `gdl bench`'s timed rounds, so that
//! instruction counts (`valgrind --tool=callgrind`) compare exactly. The
//! playouts are `Game::random_outcome`'s, as `gdl bench` plays them.
//!
//! `cargo run --release --example playouts -- rules/breakthrough.gdl 2000`
//! plays 2,000 playouts from seed 0 and prints how many joint moves they
//! took. A third argument chooses the engine as `gdl --engine` does
//! (`auto`, the default, `ground` or `interpreter`).

use gdl::{EngineChoice, Game, LoadOptions, RandomPlayer, Stop};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(file), Some(n)) = (args.next(), args.next()) else {
        return Err("usage: playouts RULES_FILE PLAYOUTS [ENGINE]".into());
    };
    let n: u64 = n.parse()?;
    let engine: EngineChoice = match args.next() {
        Some(engine) => engine.parse()?,
        None => EngineChoice::Auto,
    };
    let options = LoadOptions {
        engine,
        ..LoadOptions::default()
    };
    let mut game = Game::load_with(&file, options)?;
    let initial = game.initial_state();
    let mut player = RandomPlayer::in_engine_order(0);
    let mut steps = 0;
    for _ in 0..n {
        let outcome = game.random_outcome(&initial, &mut player, Stop::steps(10_000));
        steps += outcome.map_err(|(_, e)| e)?.steps;
    }
    println!("{n} playouts, {steps} joint moves");
    Ok(())
}
