//! `gdl lsp` under a client nobody here wrote: Neovim's built-in LSP
//! client, headless (Debian's `neovim`, which `.ci/run` installs; the test
//! says it skipped where `nvim` is missing). A Lua script opens a rules file
//! with a mistake (in KIF, then the same game in infix, `.hrf`), attaches
//! the client to `gdl lsp`, and writes down the diagnostics it shows, where
//! a jump to a definition lands, and the file after a rename. It is written for Neovim 0.7 (Debian 12's) and later:
//! `vim.lsp.start_client`, `vim.diagnostic`, `vim.lsp.buf.definition` and
//! `vim.lsp.buf.rename`. Each wait of the script gives up after a minute,
//! so that a server that never answers fails the test instead of hanging it.

use crate::cli_lsp::{GAME, INFIX_GAME};
use crate::common::scratch;
use std::process::Command;

const SCRIPT: &str = r#"
local out = {}
local function say(s) table.insert(out, s) end
local function run()
  local file = os.getenv("GDL_FILE")
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  local id = vim.lsp.start_client({
    name = "gdl",
    cmd = { os.getenv("GDL_BIN"), "lsp" },
    root_dir = vim.fn.fnamemodify(file, ":p:h"),
  })
  if not id then say("no client") return end
  vim.lsp.buf_attach_client(buf, id)
  local shown = vim.wait(60000, function() return #vim.diagnostic.get(buf) > 0 end, 20)
  if not shown then say("no diagnostics") return end
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code) or "?"
    say(string.format("diagnostic %d:%d %s", d.lnum + 1, d.col + 1, code))
  end
  -- On a use of `blocked` (GDL_LINE, GDL_COLUMN: 1-based line, 0-based
  -- column), whose rule is on another line.
  local line, column = tonumber(os.getenv("GDL_LINE")), tonumber(os.getenv("GDL_COLUMN"))
  vim.api.nvim_win_set_cursor(0, { line, column })
  vim.lsp.buf.definition()
  vim.wait(60000, function() return vim.api.nvim_win_get_cursor(0)[1] ~= line end, 20)
  local at = vim.api.nvim_win_get_cursor(0)
  say(string.format("definition %d:%d", at[1], at[2] + 1))
  vim.api.nvim_win_set_cursor(0, { line, column })
  vim.lsp.buf.rename("stuck")
  vim.wait(60000, function()
    return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n"):find("stuck") ~= nil
  end, 20)
  for _, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    say("line " .. line)
  end
end
local ok, err = pcall(run)
if not ok then say("error " .. tostring(err)) end
local f = io.open(os.getenv("GDL_RESULT"), "w")
f:write(table.concat(out, "\n") .. "\n")
f:close()
vim.cmd("qa!")
"#;

/// What the script wrote after editing `text` as the file `name` in
/// Neovim, with the cursor put on `blocked` at `line` (1-based) and
/// `column` (0-based); `None` where there is no `nvim`.
fn neovim(name: &str, text: &str, line: usize, column: usize) -> Option<String> {
    let nvim = Command::new("nvim").arg("--version").output();
    if !nvim.is_ok_and(|o| o.status.success()) {
        eprintln!(
            "skipped: no `nvim` on the PATH (Debian's `neovim` package; .ci/run installs it)"
        );
        return None;
    }
    let dir = scratch(&format!("neovim-{name}"));
    std::fs::write(dir.join(name), text).unwrap();
    std::fs::write(dir.join("test.lua"), SCRIPT).unwrap();
    let result = dir.join("result.txt");
    let run = Command::new("nvim")
        .args([
            "--headless",
            "-u",
            "NONE",
            "-i",
            "NONE",
            "-n",
            "-c",
            "luafile test.lua",
        ])
        .current_dir(&dir)
        .env("GDL_BIN", env!("CARGO_BIN_EXE_gdl"))
        .env("GDL_FILE", dir.join(name))
        .env("GDL_LINE", line.to_string())
        .env("GDL_COLUMN", column.to_string())
        .env("GDL_RESULT", &result)
        .env("HOME", &dir)
        .env("XDG_STATE_HOME", dir.join("state"))
        .env("XDG_DATA_HOME", dir.join("data"))
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .stdin(std::process::Stdio::null())
        .output()
        .expect("nvim runs");
    let said = std::fs::read_to_string(&result).unwrap_or_else(|e| {
        panic!(
            "nvim wrote no result ({e}); status {:?}\n{}",
            run.status,
            String::from_utf8_lossy(&run.stderr)
        )
    });
    assert!(!said.lines().any(|l| l.starts_with("error")), "{said}");
    Some(said)
}

#[test]
fn neovim_shows_the_diagnostics_jumps_and_renames() {
    let Some(said) = neovim("game.gdl", GAME, 3, 59) else {
        return;
    };
    let lines: Vec<&str> = said.lines().collect();
    assert!(lines.contains(&"diagnostic 3:66 negated-unbound"), "{said}");
    assert!(lines.contains(&"definition 8:6"), "{said}");
    assert!(
        lines
            .contains(&"line (<= (legal white (move ?x)) (true (cell ?x ?y ?z)) (not (stuck ?w)))"),
        "{said}"
    );
    assert!(lines.contains(&"line (<= (stuck ?x) (intit ?x))"), "{said}");
}

/// The same in infix: the diagnostics are located in the infix text, the
/// definition of `blocked` is its rule on line 9, and the rename writes
/// infix.
#[test]
fn neovim_edits_an_infix_file_too() {
    let use_line = INFIX_GAME.lines().nth(3).unwrap();
    let blocked = use_line.find("blocked").unwrap();
    let Some(said) = neovim("game.hrf", INFIX_GAME, 4, blocked + 2) else {
        return;
    };
    let lines: Vec<&str> = said.lines().collect();
    let unbound = format!(
        "diagnostic 4:{} negated-unbound",
        use_line.find("W)").unwrap() + 1
    );
    assert!(lines.contains(&unbound.as_str()), "{said}");
    assert!(lines.contains(&"definition 9:1"), "{said}");
    assert!(
        lines.contains(&"line legal(white, move(X)) :- true(cell(X, Y, Z)) & ~stuck(W)"),
        "{said}"
    );
    assert!(lines.contains(&"line stuck(X) :- intit(X)"), "{said}");
}
