//! The fuzzing smoke run of CI: every input of the checked-in corpus
//! (`fuzz/corpus/`: the seeds and what the fuzzers found) goes through the
//! three fuzz targets' bodies, `gdl::fuzz::{parse_bytes, check_bytes,
//! play_bytes}`, exactly as `cargo fuzz` runs them. Any panic fails.
//!
//! Why this and not `cargo fuzz` itself in CI: cargo-fuzz needs a nightly
//! compiler (sanitizer flags) and builds the crate a second time with
//! coverage instrumentation, minutes on 2 cores before the first input;
//! replaying the corpus here costs about 1 s in release mode.

#[test]
fn the_corpus_passes_every_fuzz_target() {
    let dir = crate::path("fuzz/corpus");
    let mut inputs: Vec<_> = std::fs::read_dir(&dir)
        .expect("fuzz/corpus is checked in")
        .map(|e| e.expect("a corpus entry").path())
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 30, "the corpus has {} inputs", inputs.len());
    for path in inputs {
        let data = std::fs::read(&path).expect("a corpus input");
        eprintln!("{}", path.display());
        gdl::fuzz::parse_bytes(&data);
        gdl::fuzz::check_bytes(&data);
        gdl::fuzz::play_bytes(&data);
    }
}
