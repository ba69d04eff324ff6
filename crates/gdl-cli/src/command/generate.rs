//! `gdl completions SHELL` and `gdl manpage`: the shell completions and the
//! manual pages of `gdl`, generated from its command-line definition (so
//! that they name every subcommand and flag of the binary that prints them).

use super::{Existing, Failure, write_file};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `gdl completions`.
#[derive(clap::Args)]
#[command(after_long_help = "\
Examples:
  # Bash, for this session, then for every new one:
  source <(gdl completions bash)
  gdl completions bash > ~/.local/share/bash-completion/completions/gdl
  # Zsh (a folder of $fpath), fish:
  gdl completions zsh > ~/.zfunc/_gdl
  gdl completions fish > ~/.config/fish/completions/gdl.fish")]
pub struct CompletionsArgs {
    /// The shell whose completion script to print.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Arguments of `gdl manpage`.
#[derive(clap::Args)]
#[command(after_long_help = "\
Examples:
  # Read the manual page of gdl:
  gdl manpage | man -l -
  # Install gdl(1) and a page for each subcommand (gdl-play(1), ...):
  gdl manpage --out ~/.local/share/man/man1")]
pub struct ManpageArgs {
    /// Write gdl.1 and a page for each subcommand (gdl-check.1, gdl-play.1,
    /// ...) into this folder instead of printing gdl.1.
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    pub out: Option<PathBuf>,
}

/// Runs `gdl completions`: the script for `args.shell` of the command
/// line `cli`, on standard output.
pub fn completions(args: CompletionsArgs, mut cli: clap::Command) -> Result<ExitCode, Failure> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cli, "gdl", &mut script);
    print!("{}", String::from_utf8_lossy(&script));
    Ok(ExitCode::SUCCESS)
}

/// Runs `gdl manpage`: the roff of gdl(1) on standard output, or every
/// page in `--out`.
pub fn manpage(args: ManpageArgs, cli: clap::Command) -> Result<ExitCode, Failure> {
    match args.out {
        Some(dir) => {
            std::fs::create_dir_all(&dir)
                .map_err(|e| Failure::Io(format!("cannot create {}: {e}", dir.display())))?;
            let mut cli = cli.disable_help_subcommand(true);
            cli.build();
            write_pages(cli, &dir)?;
        }
        None => {
            let mut cli = cli.disable_help_subcommand(true);
            cli.build();
            let roff = whole_page(&cli)
                .map_err(|e| Failure::Io(format!("cannot render the manual page: {e}")))?;
            print!("{roff}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// gdl(1) whole: the page of `gdl`, then a section for each subcommand
/// with all its page says (synopsis, description, its flags and limits,
/// examples), their headings made subsections, so that `man gdl` alone
/// describes every command.
fn whole_page(cli: &clap::Command) -> std::io::Result<String> {
    let mut roff = Vec::new();
    clap_mangen::Man::new(cli.clone()).render(&mut roff)?;
    let mut page = String::from_utf8_lossy(&roff).into_owned();
    for sub in cli.get_subcommands().filter(|s| !s.is_hide_set()) {
        let man = clap_mangen::Man::new(sub.clone());
        let mut part = Vec::new();
        man.render_synopsis_section(&mut part)?;
        man.render_description_section(&mut part)?;
        man.render_options_section(&mut part)?;
        if sub.get_after_long_help().is_some() {
            man.render_extra_section(&mut part)?;
        }
        let part = String::from_utf8_lossy(&part)
            .replace(".SH EXTRA", ".SH EXAMPLES")
            .replace(".SH ", ".SS ");
        let name = sub.get_bin_name().unwrap_or(sub.get_name()).to_uppercase();
        page.push_str(&format!(".SH \"COMMAND: {name}\"\n"));
        // Each part begins with roff's preamble, which needs saying once.
        page.extend(
            part.lines()
                .filter(|l| !l.starts_with(".ie ") && !l.starts_with(".el "))
                .map(|l| format!("{l}\n")),
        );
    }
    Ok(page)
}

/// Writes the page of `cmd` and those of its subcommands (hidden ones left
/// out) into `dir`, as `clap_mangen::generate_to` does, but each through
/// [`write_file`]: whole, and only over a regular file.
fn write_pages(cmd: clap::Command, dir: &Path) -> Result<(), Failure> {
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()).cloned() {
        write_pages(sub, dir)?;
    }
    let man = clap_mangen::Man::new(cmd);
    let mut roff = Vec::new();
    man.render(&mut roff)
        .map_err(|e| Failure::Io(format!("cannot render the manual page: {e}")))?;
    write_file(&dir.join(man.get_filename()), &roff, Existing::Replace)
}
