//! The criterion benchmarks of gdl live in `benches/`; this empty library
//! only makes the package one that cargo can build.
