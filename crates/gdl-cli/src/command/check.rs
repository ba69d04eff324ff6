//! `gdl check FILE` and `gdl plan FILE`.

use super::{Failure, Format, LimitArgs, color, load_game_with, print_json};
use gdl::{Diagnostic, LoadError, Severity, SourceFile, Span, StratumPlan};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `gdl check`.
#[derive(clap::Args)]
#[command(after_long_help = "\
Examples:
  # Every diagnostic of a rules file, then a one-line summary:
  gdl check rules/tictactoe.gdl
  # Refuse the warnings too, as CI would:
  gdl check rules/english_draughts.gdl --deny-warnings
  # The diagnostics as JSON (file, line, column, code, severity, message):
  gdl check rules/tictactoe.gdl --format json")]
pub struct CheckArgs {
    /// The rules file (`-`: standard input).
    pub file: PathBuf,
    /// Also print the stratification and join plans.
    #[arg(long)]
    pub plan: bool,
    /// Output format: the diagnostics as JSON, with their file, line,
    /// column, code, severity and message, for editors and CI.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Arguments of `gdl plan`.
#[derive(clap::Args)]
#[command(after_long_help = "\
Examples:
  # The strata of tic-tac-toe and the join plan of each rule:
  gdl plan rules/tictactoe.gdl")]
pub struct PlanArgs {
    /// The rules file (`-`: standard input).
    pub file: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    #[command(flatten)]
    pub limits: LimitArgs,
}

fn count(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// Prints the diagnostics of a rules file, then a one-line summary on
/// standard output. Exit 0 valid, 1 invalid, 2 unreadable.
pub fn check(args: CheckArgs) -> Result<ExitCode, Failure> {
    let name = super::file_name(&args.file);
    let bytes = super::read_rules(&args.file, &args.limits)?;
    // Checking needs the rules and their static facts, not the ground
    // rules that make play fast (grounding a large game takes seconds),
    // unless `--engine ground` asks whether they ground.
    let engine = match args.limits.engine {
        gdl::EngineChoice::Ground => gdl::EngineChoice::Ground,
        _ => gdl::EngineChoice::Interpreter,
    };
    let limits = gdl::LoadOptions {
        engine,
        ..args.limits.to_options()
    };
    match load_game_with(&args.file, bytes, &args.limits, limits) {
        Ok(game) => {
            let warnings = &super::with_flags(game.warnings().to_vec());
            let roles: Vec<String> = game
                .roles()
                .iter()
                .map(|&r| gdl::shorten(game.role_name(r)))
                .collect();
            if args.format == Format::Json {
                let mut report = report(game.source(), warnings, Some(&roles));
                if args.plan {
                    report["plan"] = plan_json(&game.plan());
                }
                print_json(&report);
                return Ok(ExitCode::SUCCESS);
            }
            print!("{}", gdl::render(game.source(), warnings, color()));
            println!(
                "{name}: valid, {} ({}), {}",
                count(roles.len(), "role"),
                roles.join(" "),
                count(warnings.len(), "warning")
            );
            if args.plan {
                print!("{}", game.plan_text());
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e @ (LoadError::Io { .. } | LoadError::Cancelled)) => Err(Failure::Io(
            e.render(false)
                .trim_start_matches("error: ")
                .trim_end()
                .to_string(),
        )),
        Err(LoadError::Invalid { file, diagnostics }) => {
            let diagnostics = super::with_flags(diagnostics);
            if args.format == Format::Json {
                print_json(&report(&file, &diagnostics, None));
                return Ok(ExitCode::from(1));
            }
            print!("{}", gdl::render(&file, &diagnostics, color()));
            let errors = diagnostics.iter().filter(|d| d.is_error()).count();
            let warnings = diagnostics.len() - errors;
            println!(
                "{name}: invalid, {}, {}",
                count(errors, "error"),
                count(warnings, "warning")
            );
            Ok(ExitCode::from(1))
        }
    }
}

/// What `gdl check --format json` prints: the file, whether it is valid,
/// its roles (when it is), how many errors and warnings, and each
/// diagnostic.
fn report(file: &SourceFile, diagnostics: &[Diagnostic], roles: Option<&[String]>) -> Value {
    let errors = diagnostics.iter().filter(|d| d.is_error()).count();
    let mut report = json!({
        "file": file.name,
        "valid": roles.is_some(),
        "errors": errors,
        "warnings": diagnostics.len() - errors,
        "diagnostics": diagnostics.iter().map(|d| diagnostic(file, d)).collect::<Vec<_>>(),
    });
    if let Some(roles) = roles {
        report["roles"] = json!(roles);
    }
    report
}

/// Where a span starts and ends: 1-based lines and columns (columns count
/// characters), the end one past the last character.
fn place(file: &SourceFile, span: Span) -> Value {
    let (start, end) = (
        file.line_col(span.start as usize),
        file.line_col(span.end as usize),
    );
    json!({
        "line": start.line,
        "column": start.column,
        "end_line": end.line,
        "end_column": end.column,
    })
}

/// One diagnostic as JSON: where, how severe, its code and message, the
/// label under its text, its notes, and the other places it points at.
pub fn diagnostic(file: &SourceFile, d: &Diagnostic) -> Value {
    let mut value = json!({ "file": file.name });
    if let (Value::Object(v), Value::Object(at)) = (&mut value, place(file, d.span)) {
        v.extend(at);
    }
    value["severity"] = json!(match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    });
    value["code"] = json!(d.code);
    value["message"] = json!(d.message);
    value["label"] = json!(d.label);
    value["notes"] = json!(d.notes);
    value["related"] = (d.secondary.iter())
        .map(|(span, message)| {
            let mut at = place(file, *span);
            at["message"] = json!(message);
            at
        })
        .collect();
    value
}

/// The plans as JSON: each stratum with its phase, whether it is recursive,
/// its relations, and each rule's head and plan steps.
fn plan_json(strata: &[StratumPlan]) -> Value {
    (strata.iter().enumerate())
        .map(|(n, s)| {
            json!({
                "stratum": n,
                "phase": s.phase,
                "recursive": s.recursive,
                "relations": s.relations,
                "rules": s.rules.iter().map(|r| json!({
                    "head": r.head,
                    "steps": r.steps,
                    "deltas": r.deltas,
                })).collect::<Vec<_>>(),
            })
        })
        .collect()
}

/// Prints the plans of a valid rules file.
pub fn plan(args: PlanArgs) -> Result<ExitCode, Failure> {
    let loaded = super::load(&args.file, &args.limits)?;
    let game = &loaded.game;
    match args.format {
        Format::Text => print!(
            "engine: {}\n  why: {}\n{}",
            game.engine(),
            game.engine_choice(),
            game.plan_text()
        ),
        Format::Json => print_json(&json!({
            "file": loaded.name,
            "engine": game.engine().to_string(),
            "engine_choice": game.engine_choice(),
            "strata": plan_json(&game.plan()),
        })),
    }
    Ok(ExitCode::SUCCESS)
}
