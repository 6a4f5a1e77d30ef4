// The free ruler (issue 38, item 4): anyone at the table taps "Ruler", then two cells; the page says
// the distance in the ruleset's unit and, when the first cell holds a fighter, what going to the second
// would cost it now. The numbers are the server's (GET /api/ruler: the ruleset's diagonal rule, the
// fighter's reachable area); this module only asks and shows. Standalone: the table page loads it with
// one <script type="module"> line and nothing else of the page changes. While it is on, taps on the
// board measure instead of selecting or moving (Esc or the button again turns it off).
import { api } from "./api.js";

const SVG = "http://www.w3.org/2000/svg";
const box = document.getElementById("board-box");
const board = document.getElementById("board");
const tools = document.querySelector(".board-tools");
const R = { on: false, first: null, line: null };

const button = document.createElement("button");
button.type = "button";
button.id = "free-ruler";
button.textContent = "Ruler";
button.title = "Measure: tap two cells (the distance, and for a fighter on the first, what going there costs it now)";
button.setAttribute("aria-pressed", "false");
const tip = document.createElement("div");
tip.id = "free-ruler-tip";
tip.setAttribute("role", "status");
tip.hidden = true;
Object.assign(tip.style, {
  position: "absolute", left: "8px", bottom: "8px", zIndex: 4, maxWidth: "calc(100% - 16px)", padding: "6px 10px",
  borderRadius: "8px", background: "rgba(20, 28, 40, .9)", color: "#fff", font: "600 14px system-ui, sans-serif",
  pointerEvents: "none",
});

function cellAt(ev) {
  for (const el of document.elementsFromPoint(ev.clientX, ev.clientY)) {
    if (el.dataset && el.dataset.cell && el.closest("#board")) return el.dataset.cell.split(",").map(Number);
  }
  return null;
}

function overlay() {
  let g = board.querySelector("#free-ruler-layer");
  if (!g) {
    g = document.createElementNS(SVG, "g");
    g.id = "free-ruler-layer";
    g.setAttribute("pointer-events", "none");
    board.append(g);
  }
  return g;
}

function draw() {
  const g = overlay();
  g.replaceChildren();
  const mark = (c) => {
    const r = document.createElementNS(SVG, "rect");
    for (const [k, v] of Object.entries({ x: c[0] + 0.08, y: c[1] + 0.08, width: 0.84, height: 0.84, fill: "none",
      stroke: "#ffb000", "stroke-width": 0.08, "stroke-dasharray": "0.15 0.08" })) r.setAttribute(k, v);
    g.append(r);
  };
  if (R.first) mark(R.first);
  if (R.line) {
    const [a, b] = R.line;
    mark(b);
    const l = document.createElementNS(SVG, "line");
    for (const [k, v] of Object.entries({ x1: a[0] + 0.5, y1: a[1] + 0.5, x2: b[0] + 0.5, y2: b[1] + 0.5, stroke: "#ffb000",
      "stroke-width": 0.09, "stroke-linecap": "round" })) l.setAttribute(k, v);
    g.append(l);
  }
}

function say(text) {
  tip.textContent = text;
  tip.hidden = !text;
}

function turn(on) {
  R.on = on;
  R.first = null;
  R.line = null;
  button.setAttribute("aria-pressed", String(on));
  button.style.outline = on ? "3px solid #ffb000" : "";
  button.style.background = on ? "#fff7dc" : "";
  box.classList.toggle("measuring", on);
  say(on ? "Ruler: tap the first cell" : "");
  draw();
}

async function measure(a, b) {
  const q = `from=${a[0]},${a[1]}&to=${b[0]},${b[1]}`;
  const { status, data } = await api("GET", `/api/ruler?${q}`);
  if (status !== 200) { say(data.message || "The ruler can't measure that."); return; }
  say(data.words + (data.fighter ? ` · ${data.fighter.words}` : ""));
}

function stop(ev) {
  if (!R.on) return;
  ev.stopPropagation();
  ev.preventDefault();
}

function tap(ev) {
  if (!R.on) return;
  stop(ev);
  const cell = cellAt(ev);
  if (!cell) return;
  if (!R.first || R.line) {  // a new measure starts at this cell
    R.first = cell;
    R.line = null;
    say(`Ruler: from ${cell[0]},${cell[1]}, tap the second cell`);
  } else {
    R.line = [R.first, cell];
    measure(R.first, cell);
  }
  draw();
}

// Capturing on the board's box: while measuring, the board's own handlers (select, move, drag, pan)
// never see these events.
for (const kind of ["pointerdown", "pointermove", "mousedown", "mouseup", "touchstart", "click"]) {
  box.addEventListener(kind, stop, { capture: true });
}
box.addEventListener("pointerup", tap, { capture: true });
button.addEventListener("click", () => turn(!R.on));
document.addEventListener("keydown", (e) => { if (e.key === "Escape" && R.on) turn(false); });
// The board is drawn again at every change of the encounter: the ruler's marks are put back on it.
new MutationObserver(() => { if ((R.first || R.line) && !board.querySelector("#free-ruler-layer")) draw(); })
  .observe(board, { childList: true });

tools.prepend(button);
box.append(tip);
