//! The fuzzing smoke run of the command line: every input of the
//! checked-in corpus `fuzz/corpus-command_line/` (the seeds, one per
//! subcommand and way of calling it, and whatever the fuzzer found) runs
//! through `gdl_cli::fuzz::command_line`, the body of the fuzz target, as
//! `cargo fuzz` runs it. Any panic fails, and so does a seed that the
//! target would pass over (it would fuzz nothing).
//!
//! A test binary of its own: the target makes a scratch folder the working
//! folder of the process.

use std::path::Path;

/// Counts the bytes held, as the binary and the fuzz target do, so that
/// `--max-memory` is enforced here too.
#[global_allocator]
static ALLOCATOR: gdl::CountingAllocator = gdl::CountingAllocator;

#[test]
fn the_command_line_corpus_runs_without_a_panic() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus-command_line");
    let mut inputs: Vec<_> = std::fs::read_dir(&dir)
        .expect("fuzz/corpus-command_line is checked in")
        .map(|e| e.expect("a corpus entry").path())
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 20, "the corpus has {} inputs", inputs.len());
    for path in inputs {
        let data = std::fs::read(&path).expect("a corpus input");
        eprintln!("{}", path.display());
        assert!(
            gdl_cli::fuzz::command_line(&data),
            "{} is passed over by the target",
            path.display()
        );
    }
}
