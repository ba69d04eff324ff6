import { chromium } from "playwright-core";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
const url = process.argv[2];
const out = process.argv[3];
const context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), "chromium-")), {
  executablePath: "/usr/bin/chromium",
  headless: true,
  viewport: { width: 1400, height: 900 },
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const page = await context.newPage();
page.on("console", (m) => console.log("console:", m.text()));
page.on("pageerror", (e) => console.log("pageerror:", e.message));
await page.goto(url);
await page.waitForSelector("svg.board", { timeout: 10000 }).catch((e) => console.log("no board", e.message));
await page.waitForTimeout(800);
await page.screenshot({ path: out });
await context.close();
