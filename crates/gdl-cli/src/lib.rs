//! The pieces of the `gdl` command: its subcommands, and what they show a
//! person (boards, traces) and measure (timing). A library only so that the
//! command's benchmarks, fuzz targets and tests reach them; `main.rs` is
//! the binary.

pub mod board;
pub mod cli;
pub mod command;
pub mod compare;
pub mod fuzz;
pub mod http;
pub mod measure;
pub mod protocol;
pub mod record;
pub mod server;
pub mod trace;
