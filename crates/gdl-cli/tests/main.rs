//! The command's tests, one binary: the real `gdl` run as a user runs it
//! (`cli_*`), and the games of `rules/` played by hand, checked against
//! their direct Rust engines (`gdl_oracles`) and snapshotted as traces.

/// The allocator of the `gdl` command, so that `Limits::max_memory` (and
/// grounding's share of it) holds here as it does there: without it a
/// game too large to ground grounds on until its work runs out (brazilian
/// draughts: 3.5 GB and 100 s of loading instead of 0.4 GB and 7 s).
#[global_allocator]
static ALLOCATOR: gdl::CountingAllocator = gdl::CountingAllocator;

mod common;

mod cli_ai;
mod cli_bench_bound;
mod cli_boards;
mod cli_check;
mod cli_docs;
mod cli_files;
mod cli_fmt;
mod cli_ggp;
mod cli_help;
mod cli_hostile;
mod cli_infix;
mod cli_json;
mod cli_lsp;
mod cli_match;
mod cli_memory;
mod cli_names;
mod cli_neovim;
mod cli_partial;
mod cli_play;
mod cli_player;
mod cli_player_bounds;
mod cli_record;
mod cli_shell;
mod cli_stats;
mod cli_studio;
mod cli_trace;

mod brazilian_draughts;
mod breakthrough;
mod connect_four;
mod english_draughts;
mod escort_breakthrough;
mod mad_bishops;
mod skirmish_holes;
mod tictactoe;
