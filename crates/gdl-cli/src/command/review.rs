//! `gdl test --review`, `--accept` and `--reject`: the pending new versions
//! of failing recorded games (`GAME.json.new`, written by `gdl test`),
//! each shown beside the recorded game (what ends each, what made each,
//! the lines that changed) and accepted (it replaces the recorded game) or
//! rejected (it is removed), one by one at a prompt or all at once, as
//! cargo-insta reviews snapshots.

use super::test_cmd::{Suite, TestArgs, pending_of};
use super::{Existing, Failure, read_file, read_record, write_file};
use gdl::record::Record;
use std::io::{BufRead, Write};
use std::path::Path;
use std::process::ExitCode;

/// The most changed lines shown of a game.
const MOST_LINES: usize = 24;

/// What to do with one pending version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Choice {
    Accept,
    Reject,
    Skip,
}

/// Runs the review of the pending versions of the games of `suites`:
/// `--accept` and `--reject` decide for all, `--review` asks on standard
/// input for each (the end of the input skips the rest).
pub fn review(suites: &[Suite], args: &TestArgs) -> Result<ExitCode, Failure> {
    let pending: Vec<&Path> = suites
        .iter()
        .flat_map(|s| &s.games)
        .map(|g| g.as_path())
        .filter(|g| pending_of(g).is_file())
        .collect();
    if pending.is_empty() {
        println!("no new versions pending: every recorded game named passed its last test");
        return Ok(ExitCode::SUCCESS);
    }
    let mut input = std::io::stdin().lock();
    let mut at_end = false;
    let (mut accepted, mut rejected, mut skipped) = (0, 0, 0);
    for game in pending {
        let new = pending_of(game);
        print!("{}", describe(game, &new, args)?);
        let choice = if args.accept {
            Choice::Accept
        } else if args.reject {
            Choice::Reject
        } else if at_end {
            Choice::Skip
        } else {
            let (choice, end) = ask(&mut input)?;
            at_end = end;
            choice
        };
        match choice {
            Choice::Accept => {
                let text = std::fs::read(&new)
                    .map_err(|e| Failure::Io(format!("cannot read {}: {e}", new.display())))?;
                write_file(game, &text, Existing::Replace)?;
                remove(&new)?;
                println!("  accepted: {} replaced", game.display());
                accepted += 1;
            }
            Choice::Reject => {
                remove(&new)?;
                println!("  rejected: {} removed", new.display());
                rejected += 1;
            }
            Choice::Skip => {
                println!("  skipped: {} kept pending", new.display());
                skipped += 1;
            }
        }
    }
    println!("\n{accepted} accepted, {rejected} rejected, {skipped} skipped");
    Ok(ExitCode::SUCCESS)
}

/// Asks what to do with one version: `a`, `r` or `s` (a word starting so,
/// in any case); anything else asks again. The end of the input skips.
fn ask(input: &mut dyn BufRead) -> Result<(Choice, bool), Failure> {
    loop {
        print!("  accept (a), reject (r) or skip (s)? ");
        std::io::stdout()
            .flush()
            .map_err(|e| Failure::Io(format!("cannot write to standard output: {e}")))?;
        let mut line = String::new();
        let n = input
            .read_line(&mut line)
            .map_err(|e| Failure::Io(format!("cannot read standard input: {e}")))?;
        if n == 0 {
            println!();
            return Ok((Choice::Skip, true));
        }
        let answer = line.trim().to_ascii_lowercase();
        println!("{}", line.trim());
        match answer.chars().next() {
            Some('a') => return Ok((Choice::Accept, false)),
            Some('r') => return Ok((Choice::Reject, false)),
            Some('s') => return Ok((Choice::Skip, false)),
            _ => {}
        }
    }
}

/// Removes a pending version.
fn remove(path: &Path) -> Result<(), Failure> {
    std::fs::remove_file(path)
        .map_err(|e| Failure::Io(format!("cannot remove {}: {e}", path.display())))
}

/// One pending version beside its recorded game: how each ends and what
/// made each, a warning when the game no longer ends, and the changed
/// lines of the files.
fn describe(game: &Path, new: &Path, args: &TestArgs) -> Result<String, Failure> {
    let old_text = read_file(game, &args.limits)?;
    let new_text = read_file(new, &args.limits)?;
    let name = |p: &Path| p.display().to_string();
    let old = read_record(&old_text, &name(game), &args.limits).ok();
    let fresh = read_record(&new_text, &name(new), &args.limits)?;
    let mut out = format!("\n{}\n", game.display());
    out.push_str(&format!(
        "  recorded: {}\n",
        old.as_ref().map_or("(unreadable)".into(), summary)
    ));
    out.push_str(&format!("  new:      {}\n", summary(&fresh)));
    if old.as_ref().is_some_and(|o| o.goals.is_some()) && fresh.goals.is_none() {
        out.push_str(
            "  warning: the recorded game ends and the new version does not: accepting it \
             weakens the test\n",
        );
    }
    out.push_str(&changed_lines(&old_text, &new_text));
    Ok(out)
}

/// `9 joint moves, terminal, goals 50 50; rules x.gdl sha256 1a2b3c4d,
/// seed 3, gdl 0.1.0` (what made it, when the record says).
fn summary(record: &Record) -> String {
    let moves = record.moves().len();
    let end = match &record.goals {
        Some(goals) => format!(
            "terminal, goals {}",
            goals
                .iter()
                .map(u8::to_string)
                .collect::<Vec<_>>()
                .join(" ")
        ),
        None => "not terminal".to_string(),
    };
    let mut out = format!("{moves} joint moves, {end}");
    match &record.recorded {
        Some(made) => {
            out.push_str(&format!(
                "; rules {} sha256 {}",
                made.rules,
                &made.rules_sha256[..made.rules_sha256.len().min(8)]
            ));
            if let Some(seed) = made.seed {
                out.push_str(&format!(", seed {seed}"));
            }
            if let Some(moves) = &made.moves {
                out.push_str(&format!(", moves {moves}"));
            }
            out.push_str(&format!(", gdl {}", made.gdl));
        }
        None => out.push_str("; made by an older gdl (no metadata)"),
    }
    out
}

/// The lines that changed between two files, as a unified diff of a line
/// of context (`-` the recorded game, `+` the new version), at most
/// [`MOST_LINES`] changed lines.
fn changed_lines(old: &str, new: &str) -> String {
    let diff = similar::TextDiff::from_lines(old, new);
    let mut out = String::new();
    let mut shown = 0;
    let mut more = 0;
    for group in diff.grouped_ops(1) {
        let first = group.first().map_or(0, |op| op.old_range().start);
        if shown < MOST_LINES {
            out.push_str(&format!("  @@ line {} @@\n", first + 1));
        }
        for op in &group {
            for change in diff.iter_changes(op) {
                let sign = match change.tag() {
                    similar::ChangeTag::Delete => '-',
                    similar::ChangeTag::Insert => '+',
                    similar::ChangeTag::Equal => ' ',
                };
                if sign != ' ' {
                    if shown == MOST_LINES {
                        more += 1;
                        continue;
                    }
                    shown += 1;
                } else if shown == MOST_LINES {
                    continue;
                }
                out.push_str(&format!("    {sign}{}", change.value()));
                if change.missing_newline() {
                    out.push('\n');
                }
            }
        }
    }
    if out.is_empty() {
        return "  the files are the same\n".to_string();
    }
    if more > 0 {
        out.push_str(&format!("  ... and {more} more changed lines\n"));
    }
    format!("  changed lines (- recorded, + new):\n{out}")
}

#[cfg(test)]
mod tests {
    use super::changed_lines;

    #[test]
    fn the_changed_lines_are_shown_with_a_line_of_context() {
        assert_eq!(
            changed_lines("a\nb\nc\nd\ne\n", "a\nb\nx\nd\ne\n"),
            "  changed lines (- recorded, + new):\n  @@ line 2 @@\n     b\n    -c\n    +x\n     d\n"
        );
        assert_eq!(changed_lines("a\n", "a\n"), "  the files are the same\n");
    }
}
