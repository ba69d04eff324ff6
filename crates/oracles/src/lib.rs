//! Direct Rust implementations of the games in `rules/` (no GDL in them),
//! the pieces several of them share, and the drivers that play a rules file
//! and its oracle side by side: what the game tests check gdl against, and
//! what the playouts benchmark measures it beside.
#![allow(missing_docs)]

pub mod games;
pub mod oracle;
pub mod side_by_side;

pub mod brazilian_draughts;
pub mod breakthrough;
pub mod connect_four;
pub mod english_draughts;
pub mod escort_breakthrough;
pub mod mad_bishops;
pub mod skirmish_holes;
pub mod tictactoe;

use std::path::{Path, PathBuf};

/// A path of the repository (`rules/tictactoe.gdl`) as an absolute path,
/// whatever the directory the tests run in.
pub fn repo_path(path: impl AsRef<Path>) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
}
