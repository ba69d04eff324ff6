//! `gdl studio FILE`: the author's workbench in the browser. A local web
//! server whose page shows the rules in an editor with the checker's
//! diagnostics, the state drawn as a board with the legal moves to click,
//! a timeline of the game, the recorded games of `gdl test`, and `gdl
//! analyse` with plots.
//!
//! The page and its scripts are built into the binary (see [`assets`]):
//! nothing is fetched from the network. The server binds 127.0.0.1 by
//! default and prints its address with a token made afresh for the run;
//! every request to its API must carry the token and a `Host` of the
//! server's own (see [`http`]), so that no other site (DNS rebinding) nor
//! another local user drives it.
//!
//! The API, JSON in and out, is in [`api`]; what it acts on (the rules,
//! the game played, the timeline) in [`session`]; the recorded games in
//! [`tests`]; the analysis in [`analysis`]. Both run as jobs that report
//! their progress and can be cancelled ([`jobs`]).

pub mod analysis;
pub mod api;
pub mod assets;
pub mod http;
pub mod jobs;
pub mod session;
pub mod tests;

use super::{Failure, LimitArgs};
use std::io::Write;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `gdl studio`.
#[derive(clap::Args)]
#[command(after_long_help = "\
Examples:
  # Open tic-tac-toe in the studio: open the address it prints in a browser
  gdl studio rules/tictactoe.gdl
  # On a port of your choice
  gdl studio rules/breakthrough.gdl --port 8400

The address printed carries a token made afresh for each run: the page
needs it to change or run anything, so keep it to yourself.")]
pub struct StudioArgs {
    /// The rules file (created empty if it does not exist yet).
    pub file: PathBuf,
    /// The port to listen on; 0 lets the system choose a free one.
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// The address to listen on: 127.0.0.1 (this machine only) unless
    /// you mean to reach the studio from elsewhere.
    #[arg(long, default_value = "127.0.0.1", value_name = "ADDRESS")]
    pub host: IpAddr,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Runs `gdl studio`: serves until the process is stopped (Ctrl-C).
pub fn studio(args: StudioArgs) -> Result<ExitCode, Failure> {
    if super::is_stdin(&args.file) {
        return Err(Failure::Usage(
            "the studio edits and saves a rules file: name one, not standard input (`-`)".into(),
        ));
    }
    if args.file.is_dir() {
        return Err(Failure::Usage(format!(
            "{} is a folder: name a rules file",
            args.file.display()
        )));
    }
    let studio = session::Studio::open(args.file.clone(), args.limits.clone())?;
    let listener = std::net::TcpListener::bind(SocketAddr::new(args.host, args.port))
        .map_err(|e| Failure::Io(format!("cannot listen on {}:{}: {e}", args.host, args.port)))?;
    let address = listener
        .local_addr()
        .map_err(|e| Failure::Io(format!("cannot listen: {e}")))?;
    let token = http::new_token();
    let shown = match address.ip() {
        IpAddr::V6(ip) => format!("[{ip}]:{}", address.port()),
        IpAddr::V4(ip) => format!("{ip}:{}", address.port()),
    };
    // What is printed goes to a terminal, or to a reader that may go
    // away: the server goes on either way.
    http::ignore_sigpipe();
    let mut out = std::io::stdout();
    let _ = writeln!(
        out,
        "gdl studio: {} at http://{shown}/?token={token}\n\
         open that address in a browser; Ctrl-C stops the studio",
        super::file_name(&args.file)
    );
    let _ = out.flush();
    http::serve(listener, address, token, api::Api::new(studio))
}
