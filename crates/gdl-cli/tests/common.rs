//! Running the real `gdl` binary for the CLI tests, and showing what a user
//! sees: the exit status, standard output and standard error.
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What one run of `gdl` printed.
pub struct Run {
    /// The exit status (-1 if killed by a signal).
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

impl Run {
    /// Everything a user sees, for a snapshot.
    pub fn screen(&self) -> String {
        format!(
            "exit status: {}\n--- stdout\n{}--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

/// Runs `gdl ARGS` in the crate's directory (`tests/cli/x.gdl` is a file of
/// its tests) with `stdin` as its input.
pub fn gdl(args: &[&str], stdin: &str) -> Run {
    gdl_in(Path::new(env!("CARGO_MANIFEST_DIR")), args, stdin)
}

/// The repository's root, where `rules/` is: `gdl_in(&root(), ...)` runs a
/// game of `rules/` as a user in the checkout would.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The library's crate, where the checker's test files are
/// (`tests/check/invalid/x.gdl`).
pub fn library() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../gdl")
}

/// Runs `gdl ARGS` in `dir` (so that file names print as given) with
/// `stdin` as its input.
pub fn gdl_in(dir: &Path, args: &[&str], stdin: &str) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gdl"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the gdl binary runs");
    let mut input = child.stdin.take().expect("stdin is piped");
    // The command may stop reading early (an error): ignore a closed pipe.
    let _ = input.write_all(stdin.as_bytes());
    drop(input);
    let out = child.wait_with_output().expect("gdl finishes");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `gdl ARGS` in `dir` with nothing on standard input, as
/// [`gdl_in`] does, and measures the most memory the process held: its
/// peak resident set in bytes, as it reports it through `GDL_PEAK_FILE`
/// (its memory's high-water mark, which `wait4` cannot give: a child's
/// `ru_maxrss` counts the test process's own memory, shared until the
/// child runs gdl). `None` where gdl ended before it could say (a usage
/// error).
pub fn gdl_peak(dir: &Path, args: &[&str]) -> (Run, Option<usize>) {
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let file =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("peak-{}-{n}.txt", std::process::id()));
    let _ = std::fs::remove_file(&file);
    let out = Command::new(env!("CARGO_BIN_EXE_gdl"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("GDL_PEAK_FILE", &file)
        .stdin(Stdio::null())
        .output()
        .expect("the gdl binary runs");
    let run = Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    let kib: Option<usize> = std::fs::read_to_string(&file)
        .ok()
        .and_then(|t| t.trim().parse().ok());
    let _ = std::fs::remove_file(&file);
    (run, kib.map(|k| k * 1024))
}

/// A fresh scratch directory for files a test writes.
pub fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// The crate's directory, where `tests/record` is.
pub fn here() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `gdl ARGS` in `dir`, requires exit status `code`.
pub fn expect(dir: &Path, args: &[&str], code: i32) -> Run {
    let run = gdl_in(dir, args, "");
    assert_eq!(run.code, code, "{args:?}:\n{}", run.screen());
    run
}

/// A fresh copy of `tests/record` to change.
pub fn copy_of_the_records(test: &str) -> PathBuf {
    let dir = scratch(test);
    copy(&here().join("tests/record"), &dir);
    dir
}

/// Copies a folder and what it holds.
pub fn copy(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

/// Adds rules at the end of a rules file.
pub fn append(file: &Path, rules: &str) {
    let mut text = std::fs::read_to_string(file).unwrap();
    text.push_str(rules);
    std::fs::write(file, text).unwrap();
}

/// A changed pawn rule: white may step two squares from its second rank.
/// Every recorded move stays legal; white's legal moves change.
pub const DOUBLE_STEP: &str = "
(<= (legal white (move ?x 2 ?x 4))
    (true (control white))
    (true (cell ?x 2 white))
    (not (occupied ?x 3))
    (not (occupied ?x 4)))
";

/// A process a test started, killed when the test ends, even by a failed
/// assertion (its `Drop`), and what it wrote on standard error so far.
pub struct Process {
    child: std::process::Child,
    stderr: std::sync::Arc<std::sync::Mutex<String>>,
}

impl Process {
    /// Starts `program ARGS`, its standard error collected by a thread.
    pub fn start(program: &Path, args: &[&str], dir: &Path) -> Process {
        let mut command = Command::new(program);
        command
            .args(args)
            .current_dir(dir)
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        default_sigint(&mut command);
        let mut child = command
            .spawn()
            .unwrap_or_else(|e| panic!("{} starts: {e}", program.display()));
        let stderr = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let mut pipe = child.stderr.take().expect("stderr is piped");
        let collected = std::sync::Arc::clone(&stderr);
        std::thread::spawn(move || {
            let mut buffer = [0u8; 4096];
            while let Ok(n) = std::io::Read::read(&mut pipe, &mut buffer) {
                if n == 0 {
                    break;
                }
                let text = String::from_utf8_lossy(&buffer[..n]).into_owned();
                collected.lock().unwrap().push_str(&text);
            }
        });
        Process { child, stderr }
    }

    /// Sends SIGINT (Ctrl-C) and waits (at most 30 seconds) for the
    /// process to end: its exit status.
    #[cfg(unix)]
    pub fn interrupt(&mut self) -> std::process::ExitStatus {
        // SAFETY: a plain kill(2) of our own child process.
        let sent = unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGINT) };
        assert_eq!(sent, 0);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            if let Some(status) = self
                .child
                .try_wait()
                .expect("the process can be waited for")
            {
                return status;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "still running 30 s after SIGINT"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    /// Its process id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// What it wrote on standard error so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Waits (at most 30 seconds) for standard error to hold `text`;
    /// returns it all.
    pub fn wait_for(&self, text: &str) -> String {
        self.wait_for_count(text, 1)
    }

    /// Waits (at most 30 seconds) for standard error to hold `text` at
    /// least `count` times (what the process wrote reaches the test
    /// through a reader thread: a line written may not be read yet);
    /// returns it all.
    pub fn wait_for_count(&self, text: &str, count: usize) -> String {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            let now = self.stderr();
            if now.matches(text).count() >= count {
                return now;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "not {count} times `{text}` on standard error in 30 s:\n{now}"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `gdl player` on a free port of 127.0.0.1 (`--port 0`), with `args`
/// added, ended by the test at the latest after 5 minutes (`--timeout`):
/// the process and its address (`127.0.0.1:PORT`).
pub fn gdl_player(args: &[&str]) -> (Process, String) {
    let mut all = vec!["player", "--port", "0", "--timeout", "300"];
    all.extend_from_slice(args);
    let player = Process::start(Path::new(env!("CARGO_BIN_EXE_gdl")), &all, &root());
    let log = player.wait_for("\n");
    let address = log
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("gdl player listening on http://"))
        .unwrap_or_else(|| panic!("the first line names the address:\n{log}"))
        .to_string();
    (player, address)
}

/// Sends `request` (a whole HTTP request) to `address` and reads the
/// reply to its end (at most 30 seconds).
pub fn http_raw(address: &str, request: &[u8]) -> String {
    use std::io::Read;
    let mut stream = std::net::TcpStream::connect(address).expect("the player listens");
    let limit = Some(std::time::Duration::from_secs(30));
    stream.set_read_timeout(limit).unwrap();
    stream.set_write_timeout(limit).unwrap();
    stream.write_all(request).unwrap();
    let mut reply = Vec::new();
    let _ = stream.read_to_end(&mut reply);
    String::from_utf8_lossy(&reply).into_owned()
}

/// Posts the message `body` to the player at `address` as a game manager
/// does: the status code and body of the reply, the headers checked.
pub fn post(address: &str, body: &str) -> (String, String) {
    let request = format!(
        "POST / HTTP/1.0\r\nContent-Type: text/acl\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let reply = http_raw(address, request.as_bytes());
    let (head, body) = reply
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("an HTTP reply: {reply:?}"));
    for header in [
        "Content-Type: text/acl",
        "Access-Control-Allow-Origin: *",
        "Access-Control-Allow-Methods: POST, GET, OPTIONS",
        "Access-Control-Allow-Headers: Content-Type",
    ] {
        assert!(head.contains(header), "{header} in:\n{head}");
    }
    let status = head.split_whitespace().nth(1).unwrap_or("").to_string();
    (status, body.to_string())
}

/// Gives the command the default action of SIGINT, whatever the tests
/// were started with (a shell starts a command run in the background with
/// SIGINT ignored, and `gdl` keeps a SIGINT it finds ignored so).
pub fn default_sigint(command: &mut Command) {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: signal(2) is async-signal-safe, as pre_exec requires.
        unsafe {
            command.pre_exec(|| {
                libc::signal(libc::SIGINT, libc::SIG_DFL);
                Ok(())
            });
        }
    }
    #[cfg(not(unix))]
    let _ = command;
}

/// The numbers `N` of the log's `N {what}` (`N iterations between
/// messages`), line by line of the replies of kind `kind` (`nil ->`,
/// `-> noop`).
pub fn counts(log: &str, kind: &str, what: &str) -> Vec<u64> {
    (log.lines().filter(|l| l.contains(kind)))
        .filter_map(|l| {
            let (before, _) = l.split_once(what)?;
            (before
                .trim_end()
                .rsplit(|c: char| !c.is_ascii_digit())
                .next()?)
            .parse()
            .ok()
        })
        .collect()
}
