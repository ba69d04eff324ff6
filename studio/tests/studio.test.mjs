// The page of `gdl studio` end to end, in a real browser: Debian's
// chromium, driven by playwright-core (which never downloads a browser of
// its own). Each test starts the real `gdl studio` (the binary that
// `cargo build --release` made, or $GDL) on a copy of a game, opens the
// address it prints, and does what an author does: sees the board, plays
// by clicking, makes a typo and sees its diagnostic, runs the recorded
// games and sees one fail, runs a small analysis and sees its plots.
// Screenshots are kept in target/studio-screenshots/.
//
// Run by `scripts/studio test` (and so by .ci/run).

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { chromium } from "playwright-core";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const gdl = process.env.GDL ?? join(root, "target/release/gdl");
const shots = join(root, "target/studio-screenshots");
const browserPath = process.env.CHROMIUM ?? "/usr/bin/chromium";
mkdirSync(shots, { recursive: true });

let context;
const studios = [];

before(async () => {
  // A new empty profile each run: the machine's closed network refuses the
  // browser's background connections, which these flags turn off.
  context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), "gdl-studio-chromium-")), {
    executablePath: browserPath,
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
    ],
  });
});

after(async () => {
  await context?.close();
  for (const s of studios) s.kill();
});

/** A folder with a copy of `rules/NAME.gdl`, as `game.gdl`, and `seeds`
 * random games of it recorded beside it. */
function game(name, seeds = 0) {
  const dir = mkdtempSync(join(tmpdir(), `gdl-studio-${name}-`));
  copyFileSync(join(root, "rules", `${name}.gdl`), join(dir, "game.gdl"));
  if (seeds > 0) {
    execFileSync(gdl, ["record", "game.gdl", "--games", String(seeds), "--seed", "1"], { cwd: dir, stdio: "ignore" });
  }
  return dir;
}

/** Starts `gdl studio game.gdl` in `dir` and opens the address it prints
 * (and waits for the board, unless the game draws none). */
async function open(dir, { board = true } = {}) {
  const child = spawn(gdl, ["studio", "game.gdl", "--port", "0", "--timeout", "600"], {
    cwd: dir,
    stdio: ["ignore", "pipe", "inherit"],
  });
  studios.push(child);
  const lines = createInterface({ input: child.stdout });
  const first = await new Promise((resolve, reject) => {
    lines.once("line", resolve);
    child.once("exit", (code) => reject(new Error(`gdl studio ended (${code}) before printing its address`)));
  });
  const url = first.match(/http:\/\/\S+/)?.[0];
  assert.ok(url, `an address in ${first}`);
  const page = await context.newPage();
  const problems = [];
  page.on("pageerror", (e) => problems.push(e.message));
  await page.goto(url);
  if (board) await page.waitForSelector("svg.board");
  else await page.waitForFunction(() => /Step 0/.test(document.querySelector("#status")?.textContent ?? ""));
  return { page, problems, url };
}

async function shot(page, name) {
  await page.screenshot({ path: join(shots, `${name}.png`) });
}

test("tic-tac-toe: the board, a move by clicking, a typo and its diagnostic", async () => {
  const { page, problems } = await open(game("tictactoe"));
  assert.equal(await page.locator("svg.board g.cell").count(), 9);
  assert.match(await page.textContent("#status"), /Step 0: xplayer to move/);
  // (mark 1 2): row 1, column 2, drawn in file 2 of rank 1.
  await page.click('g.cell[data-cell="2,1"]');
  await page.waitForSelector('g.cell[data-cell="2,1"][data-piece="x"]');
  assert.match(await page.textContent("#status"), /Step 1: oplayer to move/);
  assert.match(await page.textContent("#history"), /\(mark 1 2\) noop/);
  // oplayer answers from the list of moves.
  await page.click('#legal button[data-move="(mark 2 2)"]');
  await page.waitForSelector('g.cell[data-cell="2,2"][data-piece="o"]');
  // Back along the timeline and forward again.
  await page.click("#back");
  await page.waitForSelector('g.cell[data-cell="2,2"][data-kind="empty"]');
  await page.click("#forward");
  await page.waitForSelector('g.cell[data-cell="2,2"][data-piece="o"]');
  await shot(page, "tictactoe-play");
  // A typo: `ture` for `true`, typed at the end of the rules.
  await page.click(".cm-content");
  await page.keyboard.press("Control+End");
  await page.keyboard.type("\n(<= (legal ?r pass) (ture (control ?r)))\n");
  const diagnostic = page.locator("#diagnostics li", { hasText: "ture" });
  await diagnostic.waitFor();
  assert.match(await diagnostic.textContent(), /warning\[undefined-relation\]/);
  await page.waitForSelector(".cm-lintRange-warning");
  assert.match(await page.textContent("#save-status"), /unsaved/);
  await shot(page, "tictactoe-typo");
  assert.deepEqual(problems, []);
});

test("tic-tac-toe: the recorded games run, one fails after a change, and is accepted", async () => {
  const dir = game("tictactoe", 2);
  const { page, problems } = await open(dir);
  // A rule added and saved (Ctrl-S): once an x is on the board, the
  // player in control may pass too.
  await page.click(".cm-content");
  await page.keyboard.press("Control+End");
  await page.keyboard.type("\n(<= (legal ?r pass) (true (control ?r)) (true (cell ?m ?n x)))\n");
  await page.keyboard.press("Control+s");
  await page.waitForFunction(() => document.querySelector("#save-status")?.textContent === "saved");
  assert.match(readFileSync(join(dir, "game.gdl"), "utf8"), /\(legal \?r pass\)/);
  // The game reloaded: after x's first mark, pass is a legal move.
  await page.click('g.cell[data-cell="2,1"]');
  await page.waitForSelector('#legal button[data-move="pass"]');
  await page.click('.tab[data-tab="tests"]');
  await page.click("#run-tests");
  await page.waitForFunction(() => /failed/.test(document.querySelector("#tests-summary")?.textContent ?? ""));
  assert.match(await page.textContent("#tests-summary"), /0 passed, 2 failed/);
  const failing = page.locator('#tests li[data-outcome="failed"]').first();
  assert.match(await failing.textContent(), /earliest difference at step 1/);
  assert.match(await failing.textContent(), /\+pass/);
  // The step before (where both agree, with the moves played there), then
  // the state as recorded and as the rules now give it.
  assert.equal(await failing.locator("svg.board").count(), 3);
  assert.match(await failing.locator('[data-testid="step-before"]').textContent(),
    /Step 0, the same in both.*played: \(mark/);
  await shot(page, "tictactoe-tests");
  // Accepted, game by game.
  await failing.locator('button[data-testid="accept"]').click();
  await page.waitForFunction(() => /1 passed, 1 failed/.test(document.querySelector("#tests-summary")?.textContent ?? ""));
  assert.deepEqual(problems, []);
});

test("tic-tac-toe: a small analysis, its progress and its plots", async () => {
  const { page, problems } = await open(game("tictactoe"));
  await page.click('.tab[data-tab="analysis"]');
  await page.fill("#games", "4");
  await page.fill("#strengths", "5 20 80");
  await page.fill("#max-steps", "20");
  await page.click("#analyse");
  await page.waitForSelector('.plot[data-plot="win-rates"] svg', { timeout: 120000 });
  for (const plot of ["win-rates", "lengths", "branching", "first-moves"]) {
    assert.equal(await page.locator(`.plot[data-plot="${plot}"] svg`).count() > 0, true, plot);
  }
  assert.match(await page.textContent("#analysis-status"), /12 games played/);
  // A plot saved as an SVG file.
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.click('.plot[data-plot="win-rates"] button[data-testid="save-plot"]'),
  ]);
  assert.equal(download.suggestedFilename(), "win-rates.svg");
  const svg = readFileSync(await download.path(), "utf8");
  assert.match(svg, /^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  await shot(page, "tictactoe-analysis");
  assert.deepEqual(problems, []);
});

test("breakthrough: a pawn moved by two clicks, a recorded game replayed", async () => {
  const { page, problems } = await open(game("breakthrough", 1));
  assert.equal(await page.locator("svg.board g.cell").count(), 64);
  assert.match(await page.textContent("#status"), /white to move/);
  // From b2 (targets show where it may go), then to c3.
  await page.click('g.cell[data-cell="b,2"]');
  await page.waitForSelector('g.cell[data-cell="c,3"][data-target="true"]');
  await page.click('g.cell[data-cell="c,3"]');
  await page.waitForSelector('g.cell[data-cell="c,3"][data-piece="white"]');
  assert.equal(await page.getAttribute('g.cell[data-cell="b,2"]', "data-kind"), "empty");
  assert.match(await page.textContent("#status"), /black to move/);
  await shot(page, "breakthrough-play");
  // The recorded game, from its first step to its last.
  await page.click("#replay-box summary");
  await page.selectOption("#replay-game", "seed-1.json");
  await page.click("#replay");
  await page.waitForFunction(() => /seed-1.json: \d+ moves/.test(document.querySelector("#message")?.textContent ?? ""));
  assert.match(await page.textContent("#step-label"), /step 0 of \d+/);
  await page.click("#last");
  await page.waitForFunction(() => /Game over/.test(document.querySelector("#status")?.textContent ?? ""));
  await shot(page, "breakthrough-replay");
  assert.deepEqual(problems, []);
});

// A game that never ends (crates/gdl-cli/tests/studio/endless.gdl, which
// the API's tests play too): the search player's playouts and the replays
// of its long recorded games take as long as they are let.
const ENDLESS = readFileSync(join(root, "crates/gdl-cli/tests/studio/endless.gdl"), "utf8");

test("long work stopped: a run of the recorded games, and the machine's move", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gdl-studio-endless-"));
  writeFileSync(join(dir, "game.gdl"), ENDLESS);
  execFileSync(gdl, ["record", "game.gdl", "--games", "3", "--max-steps", "20000"], { cwd: dir, stdio: "ignore" });
  const { page, problems } = await open(dir, { board: false });
  // The recorded games: a progress bar, and a cancel that keeps the games
  // replayed before it.
  await page.click('.tab[data-tab="tests"]');
  await page.click("#run-tests");
  await page.waitForSelector("#cancel-tests:not([disabled])");
  await page.click("#cancel-tests");
  await page.waitForFunction(() => /passed/.test(document.querySelector("#tests-summary")?.textContent ?? ""));
  assert.match(await page.textContent("#tests-summary"), /cancelled after [0-2] of 3|3 passed, 0 failed/);
  assert.equal(await page.locator("#tests-progress").isHidden(), true);
  // The search player on a million iterations a move: the page says it
  // thinks, and its Stop stops it.
  await page.click('.tab[data-tab="play"]');
  await page.selectOption('select[data-seat="o"]', "search");
  const iterations = page.locator('#seats input[type="number"]');
  await iterations.fill("1000000");
  await iterations.dispatchEvent("change");
  await page.waitForFunction(() => document.querySelector('#seats input[type="number"]')?.value === "1000000");
  await page.click('#legal button[data-role="x"][data-move="(pick a)"]');
  // The person's move shown while the machine thinks about its own.
  await page.waitForFunction(() => /Step 1: o to move \(the machine is thinking/.test(document.querySelector("#status")?.textContent ?? ""));
  await shot(page, "machine-thinking");
  await page.click('button[data-testid="stop-machine"]');
  await page.waitForFunction(() => /stopped/.test(document.querySelector("#message")?.textContent ?? ""));
  assert.match(await page.textContent("#status"), /Step 1: o to move/);
  assert.deepEqual(problems, []);
});
