//! `gdl lsp`: the language server (`crate::lsp`) on standard input and
//! output, until the editor shuts it down.

use super::Failure;
use std::process::ExitCode;

/// Arguments of `gdl lsp`.
#[derive(clap::Args)]
#[command(after_long_help = "\
The server speaks the Language Server Protocol on standard input and output:
an editor starts it and talks to it; nobody types to it. On every change of
an open rules file it publishes every error and warning of `gdl check`, with
their ranges, codes and related places. It answers hover (a relation's arity,
definitions, stratum and whether it depends on the state or the moves; what a
keyword means), go to definition, find references, rename, document symbols,
semantic tokens, completion (keywords, relations, roles), formatting (as
`gdl fmt`) and quick fixes for the checker's \"did you mean ...?\". Text that
does not read (a form half typed) still gets its diagnostics and answers.

docs/editors.md shows how VS Code, Neovim, Helix and Emacs start it.

Exit status: 0 after the editor's `shutdown` and `exit`; 1 when it exits
without `shutdown` or closes standard input; 2 when what it sends is not the
protocol.

Examples:
  # What an editor runs (`--stdio`, which some clients add, is accepted):
  gdl lsp
  gdl lsp --stdio")]
pub struct LspArgs {
    /// Speak over standard input and output (the only way it speaks; the
    /// flag is accepted because some clients pass it).
    #[arg(long)]
    pub stdio: bool,
}

/// Serves the editor until it exits.
pub fn lsp(_args: LspArgs) -> Result<ExitCode, Failure> {
    let (connection, io_threads) = lsp_server::Connection::stdio();
    let end = crate::lsp::serve(&connection);
    // Dropping the connection closes the writer's channel, so that its
    // thread ends once everything is written.
    drop(connection);
    let joined = io_threads.join();
    match (end, joined) {
        (Ok(crate::lsp::End::Shutdown), Ok(())) => Ok(ExitCode::SUCCESS),
        (Ok(crate::lsp::End::Abrupt), _) => Ok(ExitCode::from(1)),
        (Ok(crate::lsp::End::Shutdown), Err(e)) => Err(Failure::Io(format!(
            "gdl lsp: standard input or output: {e}"
        ))),
        (Err(e), _) => Err(Failure::Usage(format!("gdl lsp: {e}"))),
    }
}
