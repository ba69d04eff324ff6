//! Fuzz target for the checker: any bytes parsed, normalised and checked (see `gdl::fuzz::check_bytes`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gdl::fuzz::check_bytes(data));
