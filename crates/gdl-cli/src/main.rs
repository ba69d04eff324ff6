//! `gdl`: step through, replay, record and explore a GDL rules file.
//!
//! A thin layer over the library: each subcommand lives in its own module
//! under `command/` of the `gdl_cli` crate. Exit status: 0 success, 1 a rules file or game that fails
//! (invalid rules, an illegal move, an error of the rules while playing),
//! 2 a usage or I/O error, 130 interrupted (Ctrl-C).

use clap::Parser;
use gdl_cli::cli::{Args, STACK_BYTES, is_print_failure, message};
use gdl_cli::command;
use gdl_cli::command::stop;
use std::io::Write;
use std::process::ExitCode;

/// Counts the bytes the process holds, so that `--max-memory` is enforced.
#[global_allocator]
static ALLOCATOR: gdl::CountingAllocator = gdl::CountingAllocator;

/// Ends the process with exit status 1 once `seconds` have passed, after
/// the file being written, if any (games saved with `--save` are written
/// whole after every move, so what a timeout interrupts is never
/// half-written). A command that keeps its work (`random`, `analyse`,
/// `bench`) is asked to stop first, and given a second to print what
/// finished. A time too long for a `Duration` (`1e20`, billions of years)
/// is no time limit at all.
fn watchdog(seconds: f64) {
    let Ok(limit) = std::time::Duration::try_from_secs_f64(seconds) else {
        return;
    };
    std::thread::spawn(move || {
        std::thread::sleep(limit);
        if stop::request(stop::Reason::TimedOut(seconds)) {
            std::thread::sleep(stop::GRACE);
        }
        command::exit_after_writes(1, Some(&format!("error: {}", stop::timed_out(seconds))));
    });
}

/// Ctrl-C (SIGINT): the process ends with exit status 130 once the file
/// being written, if any, is whole, saying what the command asked to be
/// said (`play`: where the game so far is); a command that keeps its work
/// (`random`, `analyse`, `bench`) is asked to stop first, and given a
/// second to print what finished. A second Ctrl-C ends it at once. A process started with SIGINT ignored (`gdl player &` from a
/// script) keeps ignoring it.
#[cfg(unix)]
mod interrupt {
    use gdl_cli::command;
    use gdl_cli::command::stop;
    use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

    /// The end of the pipe the handler writes a byte to.
    static WRITE_END: AtomicI32 = AtomicI32::new(-1);
    /// Whether a SIGINT came already.
    static ONCE: AtomicBool = AtomicBool::new(false);

    /// The signal handler: only what is async-signal-safe (an atomic, a
    /// write, an _exit).
    extern "C" fn on_sigint(_: libc::c_int) {
        if ONCE.swap(true, Ordering::SeqCst) {
            // SAFETY: _exit is async-signal-safe.
            unsafe { libc::_exit(command::INTERRUPTED.into()) }
        }
        let byte = 1u8;
        // SAFETY: write is async-signal-safe; the buffer is one live byte.
        unsafe {
            libc::write(
                WRITE_END.load(Ordering::SeqCst),
                std::ptr::from_ref(&byte).cast(),
                1,
            );
        }
    }

    /// Installs the handler and the thread that ends the process when the
    /// handler has written to the pipe. Call it before any other thread.
    pub fn install() {
        // SAFETY: plain system calls on values of this function: asking
        // SIGINT's current action, making a pipe, setting the handler.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(libc::SIGINT, std::ptr::null(), &mut old) != 0
                || old.sa_sigaction == libc::SIG_IGN
            {
                return;
            }
            let mut fds = [0; 2];
            if libc::pipe(fds.as_mut_ptr()) != 0 {
                return;
            }
            for fd in fds {
                libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
            }
            WRITE_END.store(fds[1], Ordering::SeqCst);
            let read_end = fds[0];
            let watcher = std::thread::Builder::new()
                .name("interrupt".into())
                .spawn(move || {
                    loop {
                        let mut byte = 0u8;
                        // SAFETY: reads one byte into a live local.
                        let n = libc::read(read_end, std::ptr::from_mut(&mut byte).cast(), 1);
                        if n == 1 {
                            if stop::request(stop::Reason::Interrupted) {
                                std::thread::sleep(stop::GRACE);
                            }
                            command::exit_after_writes(command::INTERRUPTED, None);
                        }
                        if n == 0
                            || (n < 0
                                && std::io::Error::last_os_error().kind()
                                    != std::io::ErrorKind::Interrupted)
                        {
                            return;
                        }
                    }
                });
            if watcher.is_err() {
                return;
            }
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_sigint as extern "C" fn(libc::c_int) as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(libc::SIGINT, &action, std::ptr::null_mut());
        }
    }
}

/// Makes glibc's malloc give large freed blocks back to the system at once,
/// so that the resident set follows the count the memory budget is checked
/// against (`gdl::CountingAllocator`).
///
/// By default glibc raises the size from which it maps blocks of their own
/// each time such a block is freed (up to 32 MiB), and keeps what is freed
/// below it: a join whose tables doubled past 16 MiB was left holding
/// 20-35 MiB past a 128 MiB budget that its count respected. With the size
/// fixed at 4 MiB (and the heap's top given back past 8 MiB) the same join
/// peaks within its budget, and the playouts, whose loops reuse their
/// memory, run as fast. Called before any thread starts.
fn return_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only sets two of malloc's parameters, here to valid
    // values, before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 4 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 8 << 20);
    }
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
    #[cfg(unix)]
    interrupt::install();
    return_freed_memory();
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
    let code = match result.and_then(|code| flushed.map(|()| code)) {
        Ok(code) => code,
        Err(failure) => failure.report(),
    };
    write_peak();
    code
}

/// With `GDL_PEAK_FILE` set, writes the process's peak resident set in
/// KiB to that file as it ends (see docs/manual.md): how scripts and the
/// tests measure that a memory budget held.
fn write_peak() {
    if let (Some(path), Some(kib)) = (
        std::env::var_os("GDL_PEAK_FILE"),
        gdl_cli::measure::peak_rss_kib(),
    ) && let Err(e) = std::fs::write(&path, format!("{kib}\n"))
    {
        eprintln!(
            "warning: GDL_PEAK_FILE {}: cannot write the peak memory: {e}",
            std::path::Path::new(&path).display()
        );
    }
}
