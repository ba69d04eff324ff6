// The extension: a language client that starts `gdl lsp` for GDL rules files
// (.gdl, .kif, and the infix syntax's .hrf), and commands that check, trace and play the open file in a
// terminal. Everything the editor shows about the rules comes from the
// server; this file only starts it and runs `gdl`.
import * as vscode from "vscode";
import { LanguageClient, LanguageClientOptions, ServerOptions } from "vscode-languageclient/node";

let client: LanguageClient | undefined;

/** The `gdl` command the settings name. */
function gdlPath(): string {
  return vscode.workspace.getConfiguration("ggp-gdl").get<string>("path") || "gdl";
}

/** Starts the language server. */
async function start(context: vscode.ExtensionContext): Promise<void> {
  const command = gdlPath();
  const serverOptions: ServerOptions = {
    run: { command, args: ["lsp"] },
    debug: { command, args: ["lsp"] },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ language: "ggp-gdl" }, { language: "ggp-gdl-infix" }],
  };
  client = new LanguageClient("ggp-gdl", "GDL language server", serverOptions, clientOptions);
  await client.start();
}

/** Quotes a path for a POSIX shell or PowerShell. */
function quoted(path: string): string {
  return "'" + path.replace(/'/g, "'\\''") + "'";
}

/** Runs `gdl SUBCOMMAND FILE ARGS...` on the open rules file in a terminal. */
function inTerminal(subcommand: string, args: string[]): void {
  const editor = vscode.window.activeTextEditor;
  const languages = ["ggp-gdl", "ggp-gdl-infix"];
  if (!editor || !languages.includes(editor.document.languageId)) {
    vscode.window.showErrorMessage("Open a GDL rules file (.gdl, .kif or .hrf) first.");
    return;
  }
  const run = () => {
    const terminal = vscode.window.createTerminal(`gdl ${subcommand}`);
    terminal.show();
    const line = [quoted(gdlPath()), subcommand, quoted(editor.document.uri.fsPath), ...args];
    terminal.sendText(line.join(" "));
  };
  if (editor.document.isDirty) {
    editor.document.save().then(run);
  } else {
    run();
  }
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  context.subscriptions.push(
    vscode.commands.registerCommand("ggp-gdl.check", () => inTerminal("check", [])),
    vscode.commands.registerCommand("ggp-gdl.trace", () => inTerminal("trace", ["--seed", "1"])),
    vscode.commands.registerCommand("ggp-gdl.play", () => inTerminal("play", [])),
    vscode.commands.registerCommand("ggp-gdl.restart", async () => {
      if (client) {
        await client.stop();
      }
      await start(context);
    }),
  );
  try {
    await start(context);
  } catch (e) {
    vscode.window.showErrorMessage(
      `Cannot start \`${gdlPath()} lsp\` (${e}): install gdl or set ggp-gdl.path.`,
    );
  }
}

export async function deactivate(): Promise<void> {
  if (client) {
    await client.stop();
  }
}
