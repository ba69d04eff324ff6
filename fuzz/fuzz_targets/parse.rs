//! Fuzz target for the parser: any bytes as a rules file and as a typed move (see `gdl::fuzz::parse_bytes`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gdl::fuzz::parse_bytes(data));
