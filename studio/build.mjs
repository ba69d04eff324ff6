// Builds the page of `gdl studio` into the folder the gdl binary embeds
// (crates/gdl-cli/src/command/studio/page/): the HTML and CSS as they are,
// the TypeScript bundled and minified by esbuild into one script. The
// output depends on the sources and the locked packages only, so that
// `scripts/studio check` can prove the committed bundle is what they build
// to. `node build.mjs --out DIR` writes elsewhere (the check's folder).

import * as esbuild from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const at = process.argv.indexOf("--out");
const out = at > 0 ? process.argv[at + 1] : join(here, "../crates/gdl-cli/src/command/studio/page");
mkdirSync(out, { recursive: true });
await esbuild.build({
  entryPoints: [join(here, "src/main.ts")],
  bundle: true,
  minify: true,
  format: "iife",
  target: "es2020",
  legalComments: "eof",
  charset: "utf8",
  outfile: join(out, "studio.js"),
  logLevel: "warning",
});
copyFileSync(join(here, "src/index.html"), join(out, "index.html"));
copyFileSync(join(here, "src/studio.css"), join(out, "studio.css"));
