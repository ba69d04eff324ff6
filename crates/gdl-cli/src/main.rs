//! `gdl`: step through, replay, record and explore a GDL rules file.
//!
//! A thin layer over the library: each subcommand lives in its own module
//! under `command/` of the `gdl_cli` crate. Exit status: 0 success, 1 a rules file or game that fails
//! (invalid rules, an illegal move, an error of the rules while playing),
//! 2 a usage or I/O error.

use clap::Parser;
use gdl_cli::cli::{is_print_failure, message, Args, STACK_BYTES};
use gdl_cli::command;
use std::io::Write;
use std::process::ExitCode;

/// Counts the bytes the process holds, so that `--max-memory` is enforced.
#[global_allocator]
static ALLOCATOR: gdl::CountingAllocator = gdl::CountingAllocator;

/// Ends the process with exit status 1 once `seconds` have passed. Games
/// saved with `--save` are written whole after every move, so what a
/// timeout interrupts is never half-written. A time too long for a
/// `Duration` (`1e20`, billions of years) is no time limit at all.
fn watchdog(seconds: f64) {
    let Ok(limit) = std::time::Duration::try_from_secs_f64(seconds) else {
        return;
    };
    std::thread::spawn(move || {
        std::thread::sleep(limit);
        // Not eprintln!: a full standard error must not stop the exit.
        let _ = writeln!(
            std::io::stderr(),
            "error: the time limit ({seconds} seconds) was reached; raise it with --timeout"
        );
        std::process::exit(1);
    });
}

fn main() -> ExitCode {
    // Die quietly when the reader of standard output goes away (`gdl trace
    // FILE | head`), as command-line tools do, instead of panicking.
    #[cfg(unix)]
    // SAFETY: restoring the default action of a signal at start-up, before
    // any thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // A stream that cannot be written (`> /dev/full`, a full disk) makes
    // print! panic; that panic is not a bug to show with a backtrace but
    // an I/O error, reported below.
    let bug = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !info.payload_as_str().is_some_and(is_print_failure) {
            bug(info);
        }
    }));
    let command = std::thread::Builder::new()
        .name("gdl".into())
        .stack_size(STACK_BYTES)
        .spawn(run)
        .expect("the command's thread starts");
    match command.join() {
        Ok(code) => code,
        Err(panic) => match message(&*panic).filter(|m| is_print_failure(m)) {
            Some(m) => {
                // "failed printing to stdout: No space left on device ...",
                // said on standard error unless that is what failed.
                if let Some(why) = m.strip_prefix("failed printing to stdout") {
                    let _ = writeln!(
                        std::io::stderr(),
                        "error: cannot write to standard output{why}"
                    );
                }
                ExitCode::from(2)
            }
            None => std::panic::resume_unwind(panic),
        },
    }
}

fn run() -> ExitCode {
    let args = Args::parse();
    if let Some(seconds) = args.timeout {
        watchdog(seconds);
    }
    let result = args.command.run();
    // What print! left in the buffer is written at exit, where a failure
    // goes unnoticed: write it now, and say so when it cannot be.
    let flushed = std::io::stdout()
        .flush()
        .map_err(|e| command::Failure::Io(format!("cannot write to standard output: {e}")));
    match result.and_then(|code| flushed.map(|()| code)) {
        Ok(code) => code,
        Err(failure) => failure.report(),
    }
}
