// The page of `gdl studio`: the rules in an editor with the checker's
// diagnostics, the state drawn as a board, the game played by clicks along
// a timeline, the recorded games, and the analysis with plots. Everything
// it shows comes from the studio's JSON API (crates/gdl-cli/src/command/
// studio/api.rs); every request carries the run's token, taken from the
// address the studio printed.

import { EditorView, basicSetup } from "codemirror";
import { keymap } from "@codemirror/view";
import { StreamLanguage, StringStream } from "@codemirror/language";
import { linter, lintGutter, Diagnostic as CmDiagnostic } from "@codemirror/lint";
import { drawBoard, Grid } from "./board";
import { drawPlots } from "./plots";

const token = new URLSearchParams(location.search).get("token") ?? "";

/** Calls the API: the parsed JSON, or an Error with the server's message. */
async function api(path: string, body?: unknown): Promise<any> {
  const init: RequestInit = { headers: { "X-Gdl-Token": token } };
  if (body !== undefined) {
    init.method = "POST";
    (init.headers as Record<string, string>)["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch("/api/" + path, init);
  const value = await response.json().catch(() => ({ error: `status ${response.status}` }));
  if (!response.ok) throw new Error(value.error ?? `status ${response.status}`);
  return value;
}

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...children);
  return e;
}

function say(text: string | null, error = false) {
  const m = $("message");
  m.hidden = !text;
  m.textContent = text ?? "";
  m.className = error ? "error" : "";
}

// ---- The editor -----------------------------------------------------------

const KEYWORDS = new Set([
  "role", "init", "true", "next", "legal", "does", "goal", "terminal", "distinct",
  "not", "or", "base", "input", "<=",
]);

/** GDL as KIF: comments, variables, the keywords of GDL, parentheses. */
const gdl = StreamLanguage.define<{}>({
  token(stream: StringStream) {
    if (stream.eatSpace()) return null;
    if (stream.match(";!")) {
      stream.skipToEnd();
      return "meta";
    }
    if (stream.peek() === ";") {
      stream.skipToEnd();
      return "comment";
    }
    const c = stream.next();
    if (c === "(" || c === ")") return "bracket";
    stream.eatWhile(/[^\s();]/);
    const word = stream.current();
    if (word.startsWith("?")) return "variableName";
    if (KEYWORDS.has(word.toLowerCase())) return "keyword";
    if (/^-?\d+$/.test(word)) return "number";
    return "atom";
  },
  languageData: { commentTokens: { line: ";" } },
});

interface ServerDiagnostic {
  line: number; column: number; end_line: number; end_column: number;
  severity: "error" | "warning"; code: string; message: string; label?: string;
  notes?: string[];
}

let lastDiagnostics: ServerDiagnostic[] = [];

function offset(view: EditorView, line: number, column: number): number {
  const doc = view.state.doc;
  const l = doc.line(Math.min(Math.max(line, 1), doc.lines));
  return Math.min(l.from + Math.max(column - 1, 0), l.to);
}

function showDiagnostics(view: EditorView, check: any) {
  lastDiagnostics = check.diagnostics;
  const status = $("check-status");
  status.textContent = check.valid
    ? `valid, ${check.warnings} warning${check.warnings === 1 ? "" : "s"}`
    : `${check.errors} error${check.errors === 1 ? "" : "s"}, ${check.warnings} warning${check.warnings === 1 ? "" : "s"}`;
  status.className = check.valid ? "ok" : "bad";
  const list = $("diagnostics");
  list.replaceChildren(
    ...lastDiagnostics.map((d) => {
      const item = el("li", { class: d.severity },
        `${d.line}:${d.column} ${d.severity}[${d.code}]: ${d.message}`);
      item.addEventListener("click", () => {
        const at = offset(view, d.line, d.column);
        view.dispatch({ selection: { anchor: at }, scrollIntoView: true });
        view.focus();
      });
      return item;
    }),
  );
}

const checker = linter(
  async (view) => {
    const text = view.state.doc.toString();
    let check;
    try {
      check = await api("check", { text });
    } catch (e) {
      say(`cannot check the rules: ${(e as Error).message}`, true);
      return [];
    }
    if (view.state.doc.toString() !== text) return [];
    showDiagnostics(view, check);
    return check.diagnostics.map((d: ServerDiagnostic): CmDiagnostic => {
      const from = offset(view, d.line, d.column);
      let to = offset(view, d.end_line, d.end_column);
      if (to <= from) to = Math.min(from + 1, view.state.doc.length);
      const notes = (d.notes ?? []).map((n) => `\nnote: ${n}`).join("");
      return { from, to, severity: d.severity, source: d.code, message: d.message + notes };
    });
  },
  { delay: 300 },
);

let savedText = "";
let editor: EditorView;

function markUnsaved() {
  const changed = editor.state.doc.toString() !== savedText;
  $("save-status").textContent = changed ? "unsaved changes" : "saved";
}

async function save() {
  const text = editor.state.doc.toString();
  try {
    const answer = await api("save", { text });
    savedText = text;
    markUnsaved();
    showDiagnostics(editor, answer);
    showView(answer.view);
    loadTestsList();
    say(answer.view.load_error
      ? `saved; ${answer.view.load_error}: the game shown is of the last rules that loaded`
      : null, !!answer.view.load_error);
  } catch (e) {
    say(`cannot save: ${(e as Error).message}`, true);
  }
}

// ---- The game -------------------------------------------------------------

interface Move { text: string; cells: [string, string][] }
interface View {
  loaded: boolean; load_error: string | null; notice: string | null; error: string | null;
  roles: string[]; seats: Record<string, string>; iterations: number;
  step: number; last: number; history: string[][]; facts: string[]; board: Grid | null;
  terminal: boolean; goals: number[] | null; to_move: string[];
  legal: { role: string; moves: Move[] }[];
  /** Whether the machine is choosing a move now (`GET /api/state`). */
  thinking?: boolean;
}

let view: View | null = null;
/** The moves chosen so far for the step, by role (simultaneous games). */
let chosen: Record<string, string> = {};
/** The cells clicked so far towards a move. */
let clicked: [string, string][] = [];

function humanRolesToChoose(v: View): string[] {
  return v.to_move.filter((r) => v.seats[r] === "human");
}

async function play(role: string, move: string) {
  if (!view) return;
  chosen[role] = move;
  clicked = [];
  const waiting = humanRolesToChoose(view).filter((r) => !(r in chosen));
  if (waiting.length > 0) {
    showView(view);
    return;
  }
  const moves = chosen;
  chosen = {};
  await playAndWait(moves);
}

/** Plays a step, and the machine's after it: while the machine thinks,
 * the page shows the game so far (the person's move played) and says that
 * the machine thinks, with a button that stops it. */
async function playAndWait(moves: Record<string, string>) {
  const machines = view !== null && Object.values(view.seats).some((s) => s !== "human");
  let waiting = true;
  const played = api("play", { moves }).finally(() => { waiting = false; });
  if (machines) {
    showThinking();
    (async () => {
      while (waiting) {
        await new Promise((r) => setTimeout(r, 250));
        const shown = await api("state").catch(() => null);
        if (waiting && shown?.thinking) {
          showView(shown);
          showThinking();
        }
      }
    })();
  }
  try {
    const answer = await played;
    say(null);
    showView(answer);
  } catch (e) {
    say((e as Error).message, true);
    if (view) showView(view);
  }
}

/** Says, after the status, that the machine thinks, with its Stop. */
function showThinking() {
  const stop = el("button", { "data-testid": "stop-machine" }, "Stop");
  stop.addEventListener("click", async () => {
    stop.disabled = true;
    try { await api("stop", {}); } catch (e) { say((e as Error).message, true); }
  });
  $("status").append(el("span", { class: "thinking" }, " (the machine is thinking…) ", stop));
}

function movesOf(v: View, role: string): Move[] {
  return v.legal.find((l) => l.role === role)?.moves ?? [];
}

/** What clicking a cell does: picks the moves whose cells start with the
 * cells clicked; one move whose cells are all clicked is played. */
function clickCell(file: string, rank: string) {
  if (!view || view.terminal) return;
  const roles = humanRolesToChoose(view).filter((r) => !(r in chosen));
  const path = [...clicked, [file, rank] as [string, string]];
  const same = (a: [string, string][], b: [string, string][]) =>
    a.every((c, i) => b[i] && b[i][0] === c[0] && b[i][1] === c[1]);
  let candidates: { role: string; move: Move }[] = [];
  for (const role of roles) {
    for (const move of movesOf(view, role)) {
      if (move.cells.length >= path.length && same(path, move.cells)) candidates.push({ role, move });
    }
  }
  if (candidates.length === 0) {
    // A fresh start from this cell.
    clicked = [];
    if (path.length > 1) return clickCell(file, rank);
    showView(view);
    return;
  }
  const complete = candidates.filter((c) => c.move.cells.length === path.length);
  if (complete.length === 1 && candidates.length === 1) {
    play(complete[0].role, complete[0].move.text);
    return;
  }
  if (complete.length === 1 && candidates.every((c) => c.move.text === complete[0].move.text)) {
    play(complete[0].role, complete[0].move.text);
    return;
  }
  clicked = path;
  showView(view);
}

function showView(v: View) {
  view = v;
  if (!v.loaded) {
    $("status").textContent = v.load_error ?? "the rules do not load";
    $("board").replaceChildren();
    $("facts").replaceChildren();
    $("legal").replaceChildren();
    return;
  }
  // Status: whose turn, terminal, goals.
  const status = $("status");
  if (v.terminal) {
    const goals = v.roles.map((r, i) => `${r} ${v.goals?.[i] ?? "?"}`).join(", ");
    status.replaceChildren(el("span", { class: "over" }, `Game over at step ${v.step}: goals ${goals}`));
  } else {
    const turn = v.to_move.length > 0 ? `${v.to_move.join(" and ")} to move` : "no one has a choice";
    status.textContent = `Step ${v.step}: ${turn}`;
  }
  if (v.error) status.append(el("div", { class: "outcome-failed" }, `error of the rules: ${v.error}`));
  if (v.notice) say(v.notice);
  // The board, the facts.
  const targets: [string, string][] = [];
  const roles = humanRolesToChoose(v).filter((r) => !(r in chosen));
  for (const role of roles) {
    for (const m of movesOf(v, role)) {
      const c = m.cells;
      if (clicked.length === 0 && c.length > 0) targets.push(c[0]);
      else if (c.length > clicked.length &&
        clicked.every((k, i) => c[i][0] === k[0] && c[i][1] === k[1])) targets.push(c[clicked.length]);
    }
  }
  const board = $("board");
  board.replaceChildren();
  if (v.board) {
    board.append(drawBoard(v.board, { targets, selected: clicked, onClick: clickCell }));
  }
  $("facts").replaceChildren(...v.facts.map((f) => el("li", {}, f)));
  // The timeline.
  const step = $<HTMLInputElement>("step");
  step.max = String(v.last);
  step.value = String(v.step);
  $("step-label").textContent = `step ${v.step} of ${v.last}`;
  $<HTMLButtonElement>("first").disabled = v.step === 0;
  $<HTMLButtonElement>("back").disabled = v.step === 0;
  $<HTMLButtonElement>("forward").disabled = v.step === v.last;
  $<HTMLButtonElement>("last").disabled = v.step === v.last;
  // The legal moves.
  const legal = $("legal");
  legal.replaceChildren();
  for (const { role, moves } of v.legal) {
    const row = el("div", { class: "role", "data-role": role }, el("span", { class: "role-name" }, `${role}:`));
    const mine = v.seats[role] === "human";
    for (const m of moves) {
      const b = el("button", { "data-move": m.text, "data-role": role }, m.text);
      if (chosen[role] === m.text) b.classList.add("chosen");
      b.disabled = moves.length === 1 || !mine;
      b.addEventListener("click", () => play(role, m.text));
      row.append(b);
    }
    if (!mine && moves.length > 1) row.append(el("em", {}, ` (played by the ${v.seats[role]} player)`));
    legal.append(row);
  }
  if (!v.terminal && v.to_move.length > 0 && humanRolesToChoose(v).length === 0 && !v.thinking) {
    const b = el("button", { "data-testid": "machine-step" }, "Machine step");
    b.addEventListener("click", () => playAndWait({}));
    legal.append(b);
  }
  // The seats.
  const seats = $("seats");
  seats.replaceChildren(
    ...v.roles.map((role) => {
      const select = el("select", { "data-seat": role });
      for (const kind of ["human", "random", "search"]) {
        const o = el("option", { value: kind }, kind === "search" ? "search player" : kind);
        if (v.seats[role] === kind) o.selected = true;
        select.append(o);
      }
      select.addEventListener("change", () => setSeats({ [role]: select.value }));
      return el("label", {}, `${role}: `, select);
    }),
  );
  const iterations = el("input", { type: "number", min: "1", value: String(v.iterations), style: "width:8em" });
  iterations.addEventListener("change", () => setSeats({}, Number(iterations.value)));
  seats.append(el("label", {}, "search iterations a move: ", iterations));
  // The moves played.
  $("history").replaceChildren(
    ...v.history.map((joint, i) => {
      const item = el("li", {}, joint.join(" "));
      if (i === v.step - 1) item.classList.add("current");
      item.addEventListener("click", () => goto(i + 1));
      return item;
    }),
  );
}

async function setSeats(seats: Record<string, string>, iterations?: number) {
  try {
    showView(await api("seats", { seats, iterations }));
    // The machine may have a move to make now.
    if (view && !view.terminal && view.to_move.length > 0 &&
      humanRolesToChoose(view).length === 0 && Object.values(view.seats).includes("human")) {
      await playAndWait({});
    }
  } catch (e) {
    say((e as Error).message, true);
  }
}

async function goto(step: number) {
  chosen = {};
  clicked = [];
  try { showView(await api("goto", { step })); } catch (e) { say((e as Error).message, true); }
}

// ---- Recorded games -------------------------------------------------------

async function loadTestsList() {
  try {
    const list = await api("tests");
    $("tests-folder").textContent = list.folder;
    const select = $<HTMLSelectElement>("replay-game");
    select.replaceChildren(...list.games.map((g: any) => el("option", { value: g.game }, g.game)));
    if (!$("tests").childElementCount) {
      $("tests").replaceChildren(...list.games.map((g: any) =>
        el("li", { "data-game": g.game }, g.game, g.pending ? " (a new version is pending)" : "")));
    }
  } catch (e) {
    say((e as Error).message, true);
  }
}

function factList(facts: string[], others: Set<string>, kind: string) {
  return el("ul", { class: "facts" },
    ...facts.map((f) => el("li", others.has(f) ? {} : { class: kind }, f)));
}

let testsJob: number | null = null;

async function runTests() {
  const button = $<HTMLButtonElement>("run-tests");
  const cancel = $<HTMLButtonElement>("cancel-tests");
  const progress = $<HTMLProgressElement>("tests-progress");
  button.disabled = true;
  $("tests-summary").textContent = "running…";
  try {
    testsJob = (await api("tests/run", {})).job;
    cancel.disabled = false;
    progress.hidden = false;
    const status = await follow(testsJob!, (s) => {
      progress.max = Math.max(1, s.total);
      progress.value = s.done;
      $("tests-summary").textContent = `${s.done} of ${s.total} replayed…`;
    });
    if (status.state === "failed") throw new Error(status.error);
    const run = status.result;
    $("tests-summary").textContent = `${run.passed} passed, ${run.failed} failed` +
      (status.state === "cancelled" ? `: cancelled after ${status.done} of ${status.total}` : "");
    $("tests").replaceChildren(...run.games.map(testItem));
  } catch (e) {
    $("tests-summary").textContent = "";
    say((e as Error).message, true);
  } finally {
    testsJob = null;
    button.disabled = false;
    cancel.disabled = true;
    progress.hidden = true;
  }
}

function testItem(g: any): HTMLElement {
  const passed = g.outcome === "passed";
  const item = el("li", { "data-game": g.game, "data-outcome": g.outcome },
    el("span", { class: passed ? "outcome-passed" : "outcome-failed" }, passed ? "ok " : "FAILED "),
    g.game);
  const replay = el("button", {}, "Replay");
  replay.addEventListener("click", () => replayGame(g.game));
  item.append(" ", replay);
  if (g.error) item.append(el("div", {}, g.error));
  const e = g.earliest;
  if (e) {
    item.append(el("div", {}, `earliest difference at step ${e.step}`));
    const box = el("div", { class: "difference" });
    if (e.before) {
      // The step before, where the recorded game and the rules still agree.
      const part = el("div", { "data-testid": "step-before" },
        el("h4", {}, `Step ${e.step - 1}, the same in both`));
      if (e.before.board) part.append(drawBoard(e.before.board, {}));
      if (e.before.moves) part.append(el("p", {}, `played: ${e.before.moves.join(" ")}`));
      box.append(part);
    }
    const recorded: string[] = e.recorded?.facts ?? [];
    const now: string[] = e.rules?.facts ?? [];
    const changed = changedCells(e.recorded?.board, e.rules?.board);
    for (const [title, side, facts, other, kind] of [
      ["As recorded (before)", e.recorded, recorded, new Set(now), "removed"],
      ["As the rules now give it (after)", e.rules, now, new Set(recorded), "added"],
    ] as const) {
      const part = el("div", {}, el("h4", {}, title));
      if (side?.board) part.append(drawBoard(side.board, { changed }));
      if (side) part.append(factList(facts, other, kind));
      else part.append(el("p", {}, "(no state)"));
      box.append(part);
    }
    item.append(box);
    for (const step of g.differences ?? []) {
      for (const d of step.differences) {
        if (d.kind === "legal") {
          item.append(el("div", { class: "moves-changed" },
            `${d.role}'s legal moves: `,
            ...d.added.map((m: string) => el("span", { class: "added", style: "color:#1b5e20" }, `+${m} `)),
            ...d.removed.map((m: string) => el("span", { class: "removed", style: "color:#b3261e" }, `-${m} `))));
        } else if (d.kind !== "state") {
          item.append(el("div", { class: "moves-changed" }, describeDifference(d)));
        }
      }
    }
  }
  if (g.pending) {
    const accept = el("button", { "data-testid": "accept" }, "Accept the new version");
    const reject = el("button", { "data-testid": "reject" }, "Reject it");
    accept.addEventListener("click", () => decide(g.game, true));
    reject.addEventListener("click", () => decide(g.game, false));
    item.append(el("div", {}, accept, " ", reject));
  }
  return item;
}

function describeDifference(d: any): string {
  switch (d.kind) {
    case "terminal": return `terminal: recorded ${d.recorded}, the rules say ${d.rules}`;
    case "goals": return `goals: recorded ${JSON.stringify(d.recorded)}, the rules give ${JSON.stringify(d.rules)}`;
    case "illegal-move": return `${d.role} played ${d.played}, which the rules do not allow`;
    case "stopped": return d.reason;
    case "roles": return `roles: recorded ${d.recorded.join(" ")}, the rules' ${d.rules.join(" ")}`;
    case "step-number": return `the step is numbered ${d.recorded} in the record`;
    default: return JSON.stringify(d);
  }
}

function changedCells(a?: Grid, b?: Grid): Set<string> {
  const out = new Set<string>();
  if (!a || !b) return out;
  const key = (s: any) => JSON.stringify(s);
  b.rows.forEach((row, y) => row.forEach((s, x) => {
    const other = a.ranks[y] === b.ranks[y] && a.files[x] === b.files[x] ? a.rows[y]?.[x] : undefined;
    if (!other || key(other) !== key(s)) out.add(`${b.files[x]},${b.ranks[y]}`);
  }));
  return out;
}

async function decide(game: string, accept: boolean) {
  try {
    await api(accept ? "tests/accept" : "tests/reject", { game });
    say(`${game}: new version ${accept ? "accepted" : "rejected"}`);
    await runTests();
  } catch (e) {
    say((e as Error).message, true);
  }
}

async function replayGame(game: string) {
  try {
    const answer = await api("replay", { game });
    showView(answer.view);
    selectTab("play");
    say(answer.stopped ? `${game}: ${answer.stopped}` : `${game}: ${answer.replayed} moves, shown from the start`, !!answer.stopped);
  } catch (e) {
    say((e as Error).message, true);
  }
}

// ---- Analysis -------------------------------------------------------------

let job: number | null = null;

async function analyse(event: Event) {
  event.preventDefault();
  const strengths = $<HTMLInputElement>("strengths").value.split(/[\s,]+/).filter(Boolean).map(Number);
  const asked = {
    games: Number($<HTMLInputElement>("games").value),
    strengths,
    max_steps: Number($<HTMLInputElement>("max-steps").value),
  };
  try {
    job = (await api("analyse", asked)).job;
  } catch (e) {
    say((e as Error).message, true);
    return;
  }
  const mine = job!;
  $<HTMLButtonElement>("cancel-analysis").disabled = false;
  const progress = $<HTMLProgressElement>("analysis-progress");
  progress.hidden = false;
  let status;
  try {
    status = await follow(mine, (s) => {
      if (job !== mine) return;
      progress.max = s.total;
      progress.value = s.done;
      $("analysis-status").textContent = `${s.done} of ${s.total} games`;
    });
  } catch (e) {
    status = { state: "failed", error: (e as Error).message };
  }
  // A newer analysis (which stopped this one) has the page now.
  if (job !== mine) return;
  $<HTMLButtonElement>("cancel-analysis").disabled = true;
  progress.hidden = true;
  if (status.state === "failed") {
    $("analysis-status").textContent = `failed: ${status.error}`;
  } else {
    $("analysis-status").textContent = status.state === "cancelled"
      ? `cancelled after ${status.done} of ${status.total} games: the figures are of those`
      : `${status.done} games played`;
    drawPlots($("plots"), status.result);
  }
}

/** Polls a job (an analysis, a run of the recorded games) until it ends,
 * telling `progress` how far it is: its last status. */
async function follow(id: number, progress: (status: any) => void): Promise<any> {
  for (;;) {
    const status = await api(`jobs/${id}`);
    progress(status);
    if (status.state !== "running") return status;
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function cancelAnalysis() {
  if (job === null) return;
  try { await api(`jobs/${job}/cancel`, {}); } catch (e) { say((e as Error).message, true); }
}

// ---- The page -------------------------------------------------------------

function selectTab(name: string) {
  for (const tab of document.querySelectorAll<HTMLElement>(".tab")) {
    tab.setAttribute("aria-selected", String(tab.dataset.tab === name));
  }
  for (const body of document.querySelectorAll<HTMLElement>(".tab-body")) {
    body.hidden = body.id !== `tab-${name}`;
  }
}

async function start() {
  if (!token) {
    say("this page needs the token of the address gdl studio printed: open that address", true);
    return;
  }
  let session;
  try {
    session = await api("session");
  } catch (e) {
    say((e as Error).message, true);
    return;
  }
  $("file").textContent = session.file;
  document.title = `${session.file} — gdl studio`;
  savedText = session.text;
  editor = new EditorView({
    doc: session.text,
    parent: $("editor"),
    extensions: [
      basicSetup,
      gdl,
      checker,
      lintGutter(),
      keymap.of([{ key: "Mod-s", preventDefault: true, run: () => { save(); return true; } }]),
      EditorView.updateListener.of((u) => { if (u.docChanged) markUnsaved(); }),
    ],
  });
  markUnsaved();
  showView(session.view);
  $("save").addEventListener("click", save);
  for (const tab of document.querySelectorAll<HTMLElement>(".tab")) {
    tab.addEventListener("click", () => selectTab(tab.dataset.tab!));
  }
  $("first").addEventListener("click", () => goto(0));
  $("back").addEventListener("click", () => view && goto(Math.max(0, view.step - 1)));
  $("forward").addEventListener("click", () => view && goto(Math.min(view.last, view.step + 1)));
  $("last").addEventListener("click", () => view && goto(view.last));
  $("step").addEventListener("input", () => goto(Number($<HTMLInputElement>("step").value)));
  $("restart").addEventListener("click", async () => {
    chosen = {};
    clicked = [];
    try { showView(await api("restart", {})); say(null); } catch (e) { say((e as Error).message, true); }
  });
  $("replay").addEventListener("click", () => replayGame($<HTMLSelectElement>("replay-game").value));
  $("replay-file").addEventListener("change", async () => {
    const file = $<HTMLInputElement>("replay-file").files?.[0];
    if (!file) return;
    try {
      const answer = await api("replay", { text: await file.text(), name: file.name });
      showView(answer.view);
      say(answer.stopped ? `${file.name}: ${answer.stopped}` : `${file.name}: ${answer.replayed} moves, shown from the start`, !!answer.stopped);
    } catch (e) {
      say((e as Error).message, true);
    }
  });
  $("run-tests").addEventListener("click", runTests);
  $("cancel-tests").addEventListener("click", async () => {
    if (testsJob === null) return;
    try { await api(`jobs/${testsJob}/cancel`, {}); } catch (e) { say((e as Error).message, true); }
  });
  $("analyse-form").addEventListener("submit", analyse);
  $("cancel-analysis").addEventListener("click", cancelAnalysis);
  window.addEventListener("beforeunload", (e) => {
    if (editor.state.doc.toString() !== savedText) e.preventDefault();
  });
  loadTestsList();
}

start();
