//! Fuzz target for the evaluator: any bytes loaded with small limits and played a few random steps, ground rules against the interpreter (see `gdl::fuzz::play_bytes`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gdl::fuzz::play_bytes(data));
