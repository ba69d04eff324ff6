//! What an editor waits for after each change of a rules file: `gdl lsp`
//! reads the whole text again through `gdl::outline_source` (parse, normal
//! form, every check, the outline of names and the plan's strata) before it
//! publishes the diagnostics. `cargo bench -p gdl-bench --bench editor` times it on the
//! largest published games of the corpus beside the repository
//! (`../shared/corpus`: `stateSpaceLarge`, `chess`), and on the largest
//! game of `rules/`, and the largest of them again in infix (`NAME.hrf`);
//! the aim is under 100 ms a change.

use criterion::{BenchmarkId, Criterion};
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

fn benches(c: &mut Criterion) {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut games = vec![here.join("../../rules/brazilian_draughts.gdl")];
    for name in ["stateSpaceLarge", "chess"] {
        let path = here.join(format!("../../../shared/corpus/{name}.kif"));
        if path.exists() {
            games.push(path);
        } else {
            eprintln!("skipped {name}: no corpus at ../shared/corpus");
        }
    }
    let mut group = c.benchmark_group("editor");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    for path in &games {
        let text = std::fs::read_to_string(path).expect("a rules file");
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let (_, diagnostics, outline) = gdl::outline_source(&name, &text);
        assert!(outline.is_some(), "{name}: {diagnostics:?}");
        group.bench_function(BenchmarkId::from_parameter(&name), |b| {
            b.iter(|| black_box(gdl::outline_source(&name, &text).1.len()))
        });
    }
    // The largest game again, in infix (`NAME.hrf`): the same work through
    // the infix reader.
    if let Some(path) = games.get(1).or(games.first()) {
        let text = std::fs::read_to_string(path).expect("a rules file");
        let name = format!("{}.hrf", path.file_stem().unwrap().to_string_lossy());
        let infix = gdl::convert_source("kif", &text, Some(gdl::Syntax::Infix), 200)
            .expect("converts to infix");
        let (_, diagnostics, outline) = gdl::outline_source(&name, &infix);
        assert!(outline.is_some(), "{name}: {diagnostics:?}");
        group.bench_function(BenchmarkId::from_parameter(&name), |b| {
            b.iter(|| black_box(gdl::outline_source(&name, &infix).1.len()))
        });
    }
    group.finish();
}

criterion::criterion_group!(editor, benches);
criterion::criterion_main!(editor);
