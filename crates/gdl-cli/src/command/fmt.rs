//! `gdl fmt FILE...`: rules files in their canonical layout, KIF or infix
//! (`gdl::convert_source`), rewritten in place or checked (`--check`), or
//! converted to the other syntax (`--to`).

use super::{Existing, Failure, LimitArgs, color, file_name, is_stdin, read_rules, write_file};
use gdl::SourceFile;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `gdl fmt`.
#[derive(clap::Args)]
#[command(after_long_help = "\
The layout: a list that fits in 100 columns on one line; a longer one broken
with one item a line, aligned under its first argument (a rule's head on its
first line, a body literal a line); one blank line kept where the author left
some between forms; facts written on one line kept together; comments kept
where they are. Only white space changes, so the rules stay the same, and
formatting twice changes nothing more. An infix file (`.hrf`, or text such
as `role(x)`) is laid out in infix: one statement a line, a long rule one
literal a line after `head :-`. `--to` converts to the other syntax.

Examples:
  # Format rules files in place:
  gdl fmt rules/*.gdl
  # In CI: list the files that are not formatted, exit 1 if any is:
  gdl fmt --check rules/*.gdl
  # Format standard input to standard output (for an editor):
  gdl fmt - < rules/tictactoe.gdl
  # Convert to the infix syntax of the Stanford course, and back:
  gdl fmt --to infix rules/tictactoe.gdl > tictactoe.hrf
  gdl fmt --to kif tictactoe.hrf")]
pub struct FmtArgs {
    /// The rules files (`-`: standard input, written formatted to standard
    /// output).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Write nothing: name each file that is not formatted (on standard
    /// output) and exit with status 1 if any is.
    #[arg(long)]
    pub check: bool,
    /// Convert to this syntax (`kif` or `infix`), written to standard
    /// output; the file is read in the syntax of its name (`.hrf` is
    /// infix) or its text.
    #[arg(long, value_name = "SYNTAX", value_parser = ["kif", "infix"], conflicts_with = "check")]
    pub to: Option<String>,
    /// Deepest nesting of lists read (at most 10000).
    #[arg(long, help_heading = super::LIMITS, value_name = "N",
          value_parser = clap::value_parser!(u16).range(1..=gdl::MAX_NESTING_CEILING as i64))]
    pub max_nesting: Option<u16>,
    /// Largest rules file read, in bytes [default: 16 MiB].
    #[arg(long, help_heading = super::LIMITS, value_name = "BYTES",
          value_parser = clap::value_parser!(u64).range(1..=gdl::MAX_SOURCE_BYTES as u64))]
    pub max_file_size: Option<u64>,
}

impl FmtArgs {
    /// The limits of the files read: those given, the defaults of every
    /// command otherwise.
    fn limits(&self) -> LimitArgs {
        LimitArgs {
            strict: false,
            deny_warnings: false,
            engine: gdl::EngineChoice::Auto,
            max_facts: None,
            max_term_depth: None,
            max_nesting: self.max_nesting,
            max_work: None,
            max_ground_atoms: None,
            max_ground_work: None,
            max_file_size: self.max_file_size,
            max_memory: None,
        }
    }
}

/// What became of one file.
enum Outcome {
    /// Already in its layout.
    Formatted,
    /// Not in its layout (rewritten, unless `--check`).
    Changed,
    /// Not readable as s-expressions: its diagnostics were printed.
    Invalid,
}

/// Formats every file named: rewrites those not in their layout (standard
/// input goes to standard output), or with `--check` names them. Exit 0
/// when all were formatted (or are now), 1 when `--check` found one to
/// change or a file has syntax errors (all files are still seen), 2 when
/// one cannot be read or written.
pub fn fmt(args: FmtArgs) -> Result<ExitCode, Failure> {
    let limits = args.limits();
    let max_nesting = limits.to_limits().max_nesting;
    let to = match args.to.as_deref() {
        Some("infix") => Some(gdl::Syntax::Infix),
        Some(_) => Some(gdl::Syntax::Kif),
        None => None,
    };
    let mut status = 0u8;
    for path in &args.files {
        let bytes = read_rules(path, &limits)?;
        let name = file_name(path);
        let outcome = format_one(path, &name, bytes, max_nesting, args.check, to)?;
        match outcome {
            Outcome::Formatted => {}
            Outcome::Changed if args.check => {
                println!("{name}: not formatted");
                status = 1;
            }
            Outcome::Changed => {}
            Outcome::Invalid => status = 1,
        }
    }
    Ok(ExitCode::from(status))
}

/// Formats one file read as `bytes`, writing it back where it changed
/// (standard input to standard output, always) unless `check`; converted
/// to `to`, it goes to standard output.
fn format_one(
    path: &std::path::Path,
    name: &str,
    bytes: Vec<u8>,
    max_nesting: usize,
    check: bool,
    to: Option<gdl::Syntax>,
) -> Result<Outcome, Failure> {
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let file = SourceFile::new(name, String::from_utf8_lossy(e.as_bytes()));
            let line_col = file.line_col(at);
            eprintln!("error: {name}:{line_col}: not UTF-8 text (is it a binary file?)");
            return Ok(Outcome::Invalid);
        }
    };
    let formatted = match gdl::convert_source(name, &text, to, max_nesting) {
        Ok(formatted) => formatted,
        Err(diagnostics) => {
            let file = SourceFile::new(name, text);
            let diagnostics = super::with_flags(diagnostics);
            eprint!("{}", gdl::render(&file, &diagnostics, color()));
            return Ok(Outcome::Invalid);
        }
    };
    let outcome = if formatted == text {
        Outcome::Formatted
    } else {
        Outcome::Changed
    };
    if check {
        return Ok(outcome);
    }
    if is_stdin(path) || to.is_some() {
        let mut stdout = std::io::stdout().lock();
        stdout
            .write_all(formatted.as_bytes())
            .and_then(|()| stdout.flush())
            .map_err(|e| Failure::Io(format!("cannot write standard output: {e}")))?;
    } else if matches!(outcome, Outcome::Changed) {
        write_file(path, formatted.as_bytes(), Existing::Replace)?;
    }
    Ok(outcome)
}
