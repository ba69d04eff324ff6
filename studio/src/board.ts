// A state drawn as a board in SVG, from the grid the studio finds in the
// state's facts (gdl::record::Grid): squares of two shades, holes dark,
// pieces as chess glyphs, marks (x, o) or discs coloured by their owner,
// the coordinates on the edges.

export type Square =
  | { kind: "piece"; content: string; shown: string }
  | { kind: "empty" }
  | { kind: "hole" }
  | { kind: "unused" };

export interface Grid {
  files: string[];
  ranks: string[];
  file_labels: string[];
  rank_labels: string[];
  rows: Square[][];
  numbers: (number | null)[][];
  legend: [string, string][];
  others: string[];
}

export interface Options {
  /** Cells that a click would go to next. */
  targets?: [string, string][];
  /** Cells clicked so far. */
  selected?: [string, string][];
  /** Cells that differ from another board. */
  changed?: Set<string>;
  /** Called with a cell's file and rank when it is clicked. */
  onClick?: (file: string, rank: string) => void;
}

const SVG = "http://www.w3.org/2000/svg";

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

const CHESS: Record<string, string> = {
  k: "♚", q: "♛", r: "♜", b: "♝", n: "♞", p: "♟",
  king: "♚", queen: "♛", rook: "♜", bishop: "♝", knight: "♞", pawn: "♟",
};

/** The owner of a piece, from its name: white, black, red or none. */
function owner(content: string): string | null {
  const c = content.toLowerCase().replace(/[()]/g, "").trim();
  if (/^(white|w)([\s_]|$|[a-z]$)/.test(c) || c === "w") return "white";
  if (/^(black|b)([\s_]|$|[a-z]$)/.test(c) || c === "b") return "black";
  if (/^(red|r)([\s_]|$|[a-z]$)/.test(c)) return "red";
  return null;
}

/** The chess piece a content names, if it names one. */
function chessPiece(content: string, chessy: boolean): string | null {
  if (!chessy) return null;
  const c = content.toLowerCase().replace(/[()]/g, "").trim();
  const m = c.match(/^(?:white|black|w|b)[\s_]?(king|queen|rook|bishop|knight|pawn|[kqrbnp])$/);
  return m ? CHESS[m[1]] : null;
}

/** Whether the board's pieces look like chess men (some queen, rook,
 * knight or pawn among them), so that `wk` is a king and not a draughts
 * king. */
function looksLikeChess(grid: Grid): boolean {
  return grid.legend.some(([, content]) =>
    /^(?:white|black|w|b)[\s_]?(queen|rook|knight|pawn|[qrnp])$/.test(content.toLowerCase()));
}

const HUES = ["#3f6fb5", "#c0392b", "#27ae60", "#8e44ad", "#d35400", "#16a085", "#7f8c8d"];

function hue(text: string): string {
  let h = 0;
  for (const ch of text) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return HUES[h % HUES.length];
}

function drawPiece(g: SVGGElement, x: number, y: number, size: number, content: string, shown: string, chessy: boolean) {
  const cx = x + size / 2;
  const cy = y + size / 2;
  const r = size * 0.36;
  const lower = content.toLowerCase();
  const glyph = chessPiece(content, chessy);
  const who = owner(content);
  if (glyph) {
    const t = svg("text", {
      x: cx, y: cy + size * 0.03, "text-anchor": "middle", "dominant-baseline": "central",
      "font-size": size * 0.8, fill: who === "black" ? "#111" : "#fff",
      stroke: who === "black" ? "#fff" : "#111", "stroke-width": 1, "paint-order": "stroke",
    });
    t.textContent = glyph;
    g.append(t);
    return;
  }
  if (lower === "x") {
    const d = size * 0.28;
    for (const [a, b] of [[-1, -1], [-1, 1]]) {
      g.append(svg("line", {
        x1: cx + a * d, y1: cy + b * d, x2: cx - a * d, y2: cy - b * d,
        stroke: "#c0392b", "stroke-width": size * 0.09, "stroke-linecap": "round",
      }));
    }
    return;
  }
  if (lower === "o") {
    g.append(svg("circle", { cx, cy, r: size * 0.28, fill: "none", stroke: "#2c5aa0", "stroke-width": size * 0.09 }));
    return;
  }
  const fill = who === "white" ? "#f8f8f8" : who === "black" ? "#222" : who === "red" ? "#c0392b" : hue(lower);
  const ink = who === "white" ? "#222" : "#fff";
  g.append(svg("circle", { cx, cy, r, fill, stroke: "#333", "stroke-width": 1.5 }));
  // A king of draughts (`wk`, `bk`, `white king`): a ring inside.
  if (/^(?:white|black|red|w|b|r)[\s_]?(k|king)$/.test(lower)) {
    g.append(svg("circle", { cx, cy, r: r * 0.6, fill: "none", stroke: ink, "stroke-width": 2 }));
  }
  // The text shown, unless a colour says all (a plain man).
  const plain = who !== null && /^(?:white|black|red|w|b|r)[\s_]?(m|man|p|pawn|piece)?$/.test(lower);
  if (!plain) {
    const t = svg("text", {
      x: cx, y: cy, "text-anchor": "middle", "dominant-baseline": "central",
      "font-size": Math.min(size * 0.38, (size * 1.1) / Math.max(shown.length, 1)),
      "font-family": "ui-monospace, monospace", fill: ink,
    });
    t.textContent = shown;
    g.append(t);
  }
}

/** The board of a grid, as an SVG element. */
export function drawBoard(grid: Grid, options: Options = {}): SVGSVGElement {
  const files = grid.files.length;
  const ranks = grid.ranks.length;
  const size = Math.max(22, Math.min(56, Math.floor(440 / Math.max(files, ranks, 1))));
  const margin = 20;
  const width = files * size + 2 * margin;
  const height = ranks * size + 2 * margin;
  const root = svg("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img", class: "board" });
  root.setAttribute("aria-label", `a board of ${files} files and ${ranks} ranks`);
  const chessy = looksLikeChess(grid);
  const has = (list: [string, string][] | undefined, f: string, r: string) =>
    (list ?? []).some(([a, b]) => a === f && b === r);
  grid.rows.forEach((row, yi) => {
    row.forEach((square, xi) => {
      const file = grid.files[xi];
      const rank = grid.ranks[yi];
      const x = margin + xi * size;
      const y = margin + yi * size;
      const g = svg("g", { class: "cell", "data-cell": `${file},${rank}`, "data-kind": square.kind });
      const dark = (xi + (ranks - 1 - yi)) % 2 === 0;
      const fill = square.kind === "hole" ? "#4a4a4a" : square.kind === "unused" ? "#f3ecd9" : dark ? "#c9b48d" : "#efe4c8";
      g.append(svg("rect", { x, y, width: size, height: size, fill, stroke: "#8b7b5a", "stroke-width": 0.5 }));
      const number = grid.numbers[yi]?.[xi];
      if (number != null) {
        const t = svg("text", { x: x + 2, y: y + 9, "font-size": 8, fill: "#6b5b3a" });
        t.textContent = String(number);
        g.append(t);
      }
      if (square.kind === "piece") {
        g.append(svg("title", {}));
        g.lastElementChild!.textContent = square.content;
        g.setAttribute("data-piece", square.content);
        drawPiece(g, x, y, size, square.content, square.shown, chessy);
      }
      if (has(options.selected, file, rank)) {
        g.append(svg("rect", { x: x + 2, y: y + 2, width: size - 4, height: size - 4, class: "selected" }));
      }
      if (has(options.targets, file, rank)) {
        g.append(svg("circle", { cx: x + size / 2, cy: y + size / 2, r: size * 0.14, class: "target" }));
        g.setAttribute("data-target", "true");
      }
      if (options.changed?.has(`${file},${rank}`)) {
        g.append(svg("rect", { x: x + 1.5, y: y + 1.5, width: size - 3, height: size - 3, class: "changed" }));
      }
      if (options.onClick) {
        const click = options.onClick;
        g.addEventListener("click", () => click(file, rank));
      }
      root.append(g);
    });
  });
  // Coordinates on every edge.
  const label = (text: string, x: number, y: number) => {
    const t = svg("text", { x, y, "text-anchor": "middle", "dominant-baseline": "central", "font-size": 11, fill: "#555" });
    t.textContent = text;
    root.append(t);
  };
  grid.file_labels.forEach((f, xi) => {
    label(f, margin + xi * size + size / 2, margin / 2);
    label(f, margin + xi * size + size / 2, height - margin / 2);
  });
  grid.rank_labels.forEach((r, yi) => {
    label(r, margin / 2, margin + yi * size + size / 2);
    label(r, width - margin / 2, margin + yi * size + size / 2);
  });
  return root;
}
