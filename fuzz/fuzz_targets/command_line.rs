//! Fuzz target for the command line: arguments and the files they name, together, run as the binary runs them (see `gdl_cli::fuzz::command_line`).
#![no_main]

/// Counts the bytes held, as the binary does, so that `--max-memory` is enforced.
#[global_allocator]
static ALLOCATOR: gdl::CountingAllocator = gdl::CountingAllocator;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    gdl_cli::fuzz::command_line(data);
});
