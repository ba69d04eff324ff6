// The analysis's plots, drawn in SVG by Observable Plot: each role's win
// rate with its 95% interval against the search player's strength, the
// game lengths, the branching at each step, and how often each first move
// wins. Each plot can be saved as an SVG file.

import * as Plot from "@observablehq/plot";

interface Rate { count: number; rate: number; low: number; high: number }

function saveButton(name: string, figure: Element): HTMLButtonElement {
  const button = document.createElement("button");
  button.textContent = "Save SVG";
  button.dataset.testid = "save-plot";
  button.addEventListener("click", () => {
    const svg = figure.tagName.toLowerCase() === "svg" ? figure : figure.querySelector("svg");
    if (!svg) return;
    const clone = svg.cloneNode(true) as SVGSVGElement;
    clone.setAttribute("xmlns", "http://www.w3.org/2000/svg");
    const blob = new Blob([new XMLSerializer().serializeToString(clone)], { type: "image/svg+xml" });
    const link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = `${name}.svg`;
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 1000);
  });
  return button;
}

function box(parent: HTMLElement, name: string, title: string, figure: Element) {
  const div = document.createElement("div");
  div.className = "plot";
  div.dataset.plot = name;
  const h = document.createElement("h3");
  h.append(title, saveButton(name, figure));
  div.append(h, figure);
  parent.append(div);
}

/** Draws the plots of an analysis's result into `parent`. */
export function drawPlots(parent: HTMLElement, result: any) {
  parent.replaceChildren();
  if (!result || result.strengths.length === 0) {
    parent.textContent = "no game finished";
    return;
  }
  const width = Math.min(640, parent.clientWidth || 640);
  // Win rates against strength.
  // Each role a little beside the strength, so that the intervals do not
  // hide each other.
  const n = result.roles.length;
  const wins = result.strengths.flatMap((s: any) =>
    s.seats.map((seat: any, i: number) => ({
      iterations: s.iterations * (1 + 0.05 * (i - (n - 1) / 2)),
      role: seat.role,
      rate: (seat.wins as Rate).rate,
      low: (seat.wins as Rate).low,
      high: (seat.wins as Rate).high,
    })),
  );
  const draws = result.strengths.map((s: any) => ({ iterations: s.iterations, rate: s.seats[0]?.draws.rate ?? 0 }));
  const logX = result.strengths.length > 1;
  box(parent, "win-rates", "Win rate against the search player's strength (95% intervals)", Plot.plot({
    width,
    height: 300,
    marginRight: 50,
    x: { type: logX ? "log" : "linear", label: "search iterations a move (both players)", ticks: result.strengths.map((s: any) => s.iterations), tickFormat: "~s" },
    y: { domain: [0, 1], label: "share of games", grid: true, tickFormat: ".0%" },
    color: { legend: true },
    marks: [
      Plot.ruleX(wins, { x: "iterations", y1: "low", y2: "high", stroke: "role", strokeWidth: 2, dx: 0 }),
      Plot.line(wins, { x: "iterations", y: "rate", stroke: "role", marker: "circle" }),
      Plot.line(draws, { x: "iterations", y: "rate", stroke: "#999", strokeDasharray: "4 3" }),
      Plot.text(draws.slice(-1), { x: "iterations", y: "rate", text: () => "draws", dx: 6, textAnchor: "start", fill: "#777" }),
    ],
  }));
  // Game lengths.
  box(parent, "lengths", "Game lengths", Plot.plot({
    width,
    height: 260,
    x: { label: "steps" },
    y: { label: "games", grid: true },
    color: { legend: result.strengths.length > 1, type: "ordinal" },
    marks: [
      Plot.rectY(result.lengths, Plot.binX<Plot.RectYOptions>({ y: "count" }, { x: "length", fill: "iterations", thresholds: 20 })),
      Plot.ruleY([0]),
    ],
  }));
  // Branching by step.
  box(parent, "branching", "Branching by step (mean joint moves)", Plot.plot({
    width,
    height: 260,
    x: { label: "step" },
    y: { label: "joint moves", grid: true },
    color: { legend: result.strengths.length > 1, type: "ordinal" },
    marks: [Plot.line(result.branching, { x: "step", y: "branching", stroke: "iterations" })],
  }));
  // First moves.
  const firsts = result.first_moves.flatMap((f: any) =>
    f.roles.map((r: any) => ({ first: f.first, role: r.role, rate: r.wins.rate, games: f.games })),
  );
  if (firsts.length > 0) {
    box(parent, "first-moves", "How often each first move wins (all strengths)", Plot.plot({
      width,
      height: Math.max(160, 22 * result.first_moves.length * result.roles.length + 60),
      marginLeft: 140,
      x: { domain: [0, 1], label: "win rate", grid: true, tickFormat: ".0%" },
      y: { label: null },
      fy: { label: null },
      color: { legend: true },
      marks: [
        Plot.barX(firsts, { x: "rate", y: "role", fy: "first", fill: "role" }),
        Plot.text(firsts, { x: "rate", y: "role", fy: "first", text: (d: any) => `${Math.round(d.rate * 100)}% of ${d.games}`, dx: 4, textAnchor: "start" }),
      ],
    }));
  }
  // The table of `gdl analyse`.
  const table = document.createElement("table");
  table.className = "analysis-table";
  const pct = (r: Rate) => `${(r.rate * 100).toFixed(1)}% (${(r.low * 100).toFixed(1)}–${(r.high * 100).toFixed(1)})`;
  table.innerHTML = "<tr><th>iterations</th><th>role</th><th>wins</th><th>draws</th><th>losses</th><th>mean length</th></tr>";
  for (const s of result.strengths) {
    for (const seat of s.seats) {
      const row = table.insertRow();
      for (const v of [s.iterations, seat.role, pct(seat.wins), pct(seat.draws), pct(seat.losses), s.mean_length.toFixed(1)]) {
        row.insertCell().textContent = String(v);
      }
    }
  }
  parent.append(table);
}
