//! Loading rules with very long bodies, where the planner's cost shows:
//! `cargo bench -p gdl-bench --bench load` times `Game::from_source` of a one-rule game
//! whose body has 10,000 literals (`load/apart`: each literal its own
//! variable; `load/chain`: each joins the one before). Planning a body
//! was quadratic in its length before the planner kept its literals in a
//! heap by rank.

use criterion::{BenchmarkId, Criterion};
use gdl::Game;
use std::hint::black_box;
use std::time::Duration;

/// A game that is over at once when the long rule holds.
const GAME: &str = "(role you)\n(init (count 0))\n(legal you go)\n\
                    (<= (next (count 1)) (does you go))\n(goal you 100)\n";

/// The game with the rule `(<= (q ?x0) BODY)` whose body is `n` literals
/// made by `literal`.
fn long_rule(facts: &str, n: usize, literal: impl Fn(usize) -> String) -> String {
    let body: Vec<String> = (0..n).map(literal).collect();
    format!(
        "{GAME}{facts}\n(<= (q ?x0) {})\n(<= terminal (q 1))\n",
        body.join(" ")
    )
}

fn benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("load");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    let n = 10_000;
    let games = [
        ("apart", long_rule("(r 1)", n, |i| format!("(r ?x{i})"))),
        (
            "chain",
            long_rule("(r 1 1)", n, |i| format!("(r ?x{i} ?x{})", i + 1)),
        ),
    ];
    for (name, text) in &games {
        assert!(Game::from_source("long.gdl", text).is_ok(), "{name} loads");
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| black_box(Game::from_source("long.gdl", text).is_ok()))
        });
    }
    group.finish();
}

criterion::criterion_group!(load, benches);
criterion::criterion_main!(load);
