//! The pieces of the `gdl` command: its subcommands, recorded games compared
//! with the rules, timing, the match protocol, the language server (the
//! boards, traces and
//! recorded games themselves are the library's `gdl::record`). A library
//! only so that the
//! command's benchmarks, fuzz targets and tests reach them; `main.rs` is
//! the binary.

pub mod cli;
pub mod command;
pub mod compare;
pub mod fuzz;
pub mod http;
pub mod lsp;
pub mod measure;
pub mod protocol;
pub mod server;
