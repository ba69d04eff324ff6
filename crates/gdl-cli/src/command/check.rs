//! `gdl check FILE` and `gdl plan FILE`.

use super::{color, load_game_with, Failure, LimitArgs};
use gdl::LoadError;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `gdl check`.
#[derive(clap::Args)]
#[command(after_long_help = "\
Examples:
  # Every diagnostic of a rules file, then a one-line summary:
  gdl check rules/tictactoe.gdl
  # Refuse the warnings too, as CI would:
  gdl check rules/english_draughts.gdl --deny-warnings")]
pub struct CheckArgs {
    /// The rules file.
    pub file: PathBuf,
    /// Also print the stratification and join plans.
    #[arg(long)]
    pub plan: bool,
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
    /// The rules file.
    pub file: PathBuf,
    #[command(flatten)]
    pub limits: LimitArgs,
}

fn count(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// Prints the diagnostics of a rules file, then a one-line summary on
/// standard output. Exit 0 valid, 1 invalid, 2 unreadable.
pub fn check(args: CheckArgs) -> Result<ExitCode, Failure> {
    let name = args.file.display().to_string();
    let bytes = super::read_rules(&args.file, &args.limits)?;
    // Checking needs the rules and their static facts, not the ground
    // rules that make play fast: grounding a large game takes seconds.
    let limits = gdl::Limits {
        max_ground_work: 0,
        ..args.limits.to_limits()
    };
    match load_game_with(&args.file, bytes, &args.limits, limits) {
        Ok(game) => {
            let warnings = game.warnings();
            print!("{}", gdl::render(game.source(), warnings, color()));
            let roles: Vec<String> = game
                .roles()
                .iter()
                .map(|&r| gdl::shorten(game.role_name(r)))
                .collect();
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
        Err(e @ LoadError::Io { .. }) => Err(Failure::Io(
            e.render(false)
                .trim_start_matches("error: ")
                .trim_end()
                .to_string(),
        )),
        Err(e) => {
            print!("{}", e.render(color()));
            let errors = e.diagnostics().iter().filter(|d| d.is_error()).count();
            let warnings = e.diagnostics().len() - errors;
            println!(
                "{name}: invalid, {}, {}",
                count(errors, "error"),
                count(warnings, "warning")
            );
            Ok(ExitCode::from(1))
        }
    }
}

/// Prints the plans of a valid rules file.
pub fn plan(args: PlanArgs) -> Result<ExitCode, Failure> {
    let loaded = super::load(&args.file, &args.limits)?;
    print!("{}", loaded.game.plan_text());
    Ok(ExitCode::SUCCESS)
}
