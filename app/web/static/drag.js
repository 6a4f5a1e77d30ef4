// Drag to move, with a live ruler. The route and its running cost come from the engine's
// reachable area (the server sends the cheapest route to every cell it holds); the browser only
// looks them up. Out of the area, the ruler says so and a drop asks the engine anyway, so its
// refusal and reason are shown. A pause on a cell (or W) makes it a waypoint: from there the
// route is the engine's dry run of the waypoints joined by straight lines, as Shift+click makes
// them. A drop opens the same preview a tap on the cell opens; on the GM's screen it also offers to
// put the token there by hand, a `place` ruling with its reason (gm.js), wherever the rules say no.
import { api } from "./api.js";
import { el, fmt, drawRoute } from "./board.js";
import { $, S, fighterOf, hooks, isGM, say } from "./shared.js";
import { cellAt } from "./view.js";
import { clearPreview, loadReach, startPreview } from "./actions.js";
import { offerPlace } from "./gm.js";

// How long the pointer must rest on a cell to make it a waypoint (a slow hand or a test may set it).
const pauseMs = () => window.TABLETRAIL_PAUSE_MS || 800;

/** A drag on another side's fighter: say whose it is (the board pans instead). */
export function refuseDrag(fid) {
  const f = fighterOf(fid);
  if (!f) return;
  say("info", `${f.name} is ${f.side}'s fighter: this screen moves ${S.me.role}'s.`);
}

export async function startDrag(fid, touch) {
  if (S.selected !== fid) {
    S.selected = fid;
    clearPreview();
    hooks.paint();
  } else {
    clearPreview();
  }
  S.drag = { fid, cell: null, waypoints: [], timer: null, ask: 0, dry: null, touch };
  $("board").classList.add("dragging");
  if (!S.reach || S.reach.fighter !== fid || S.reach.version !== S.version) await loadReach();
  if (S.drag && S.drag.cell) drawRuler();
}

export function dragOver(px, py) {
  const d = S.drag;
  if (!d) return;
  const cell = cellAt(px, py);
  d.px = px; d.py = py;
  const key = cell ? cell.join(",") : "off";
  clearTimeout(d.timer);  // only a pointer at rest makes a waypoint
  if (cell) d.timer = setTimeout(() => addWaypoint(), pauseMs());
  if (key === (d.cell ? d.cell.join(",") : "off")) { placeTip(); return; }
  d.cell = cell;
  if (d.waypoints.length) askDry(); else drawRuler();
}

export function addWaypoint() {
  const d = S.drag;
  if (!d || !d.cell) return;
  const f = fighterOf(d.fid);
  const last = d.waypoints.length ? d.waypoints[d.waypoints.length - 1] : f.pos;
  if (d.cell[0] === last[0] && d.cell[1] === last[1]) return;
  if (!d.waypoints.length) {  // the cheapest route so far becomes straight-line waypoints the engine retraces
    const route = routeTo(S.reach, d.cell.join(","));
    d.waypoints = route ? route.map(([x, y]) => [x, y]) : [d.cell];
  } else {
    d.waypoints = [...d.waypoints, d.cell];
  }
  askDry();
}

// With waypoints, the engine's dry run of the move so far prices the ruler (debounced; the last answer wins).
function askDry() {
  const d = S.drag;
  clearTimeout(d.dryTimer);
  drawRuler();
  d.dryTimer = setTimeout(async () => {
    const mine = ++d.ask;
    const cells = dragCells();
    if (!cells.length) return;
    const { status, data } = await api("POST", "/api/preview", { version: S.version, move: { fighter: d.fid, waypoints: cells } });
    if (S.drag !== d || mine !== d.ask) return;
    d.dry = status === 200 ? data : { ok: false, reason: data.message };
    drawRuler();
  }, 120);
}

function dragCells() {
  const d = S.drag;
  const cells = [...d.waypoints];
  if (d.cell) {
    const last = cells[cells.length - 1];
    if (!last || last[0] !== d.cell[0] || last[1] !== d.cell[1]) cells.push(d.cell);
  }
  return cells;
}

function band(cost, inArea, eventful) {
  if (!inArea) return "out";
  if (S.reach && cost > S.reach.budget) return "further";
  return eventful ? "event" : "in";
}

function drawRuler() {
  const g = $("board").querySelector("#route");
  const d = S.drag;
  if (!g || !d) return;
  g.replaceChildren();
  const f = fighterOf(d.fid);
  const from = [f.pos[0], f.pos[1]];
  const tip = $("ruler-tip");
  const unit = S.reach ? S.reach.unit : S.board.ruleset.unit;
  for (const [x, y] of d.waypoints) g.append(el("circle", { cx: x + 0.5, cy: y + 0.5, r: 0.12, class: "waypoint" }));
  if (!d.cell) {
    tip.hidden = false; tip.className = "out"; tip.textContent = "off the board";
    placeTip();
    return;
  }
  let pts, words, kind;
  if (!d.waypoints.length) {
    const key = d.cell.join(",");
    const route = S.reach && (routeTo(S.reach, key) || routeTo(S.reach.further, key));
    const events = new Set((S.reach ? S.reach.events : []).map((c) => c.join(",")));
    if (S.reach && S.reach.blocked) {
      pts = [from, d.cell]; kind = "out"; words = "can't move now";
    } else if (route && route.length) {
      pts = [from, ...route.map(([x, y]) => [x, y])];
      const cost = route[route.length - 1][2];
      kind = band(cost, true, events.has(key));
      words = kind === "further"
        ? `${fmt(cost)} ${unit}: past this move's ${fmt(S.reach.budget)}, needs ${S.reach.further.action}`
        : `${fmt(cost)} ${unit} of ${fmt(S.reach.budget)}` + (kind === "event" ? " · a check or stop there" : "");
      for (const [x, y] of route.slice(0, -1)) g.append(el("circle", { cx: x + 0.5, cy: y + 0.5, r: 0.07, class: `ruler-dot ${kind}` }));
    } else if (d.cell[0] === from[0] && d.cell[1] === from[1]) {
      pts = [from]; kind = "in"; words = "drop here to stay";
    } else {
      pts = [from, d.cell]; kind = "out"; words = "out of reach";
    }
  } else {
    pts = [from, ...dragCells()];
    const dry = d.dry;
    if (!dry) { kind = "pending"; words = "…"; }
    else if (dry.ok) {
      const m = (dry.moves || [])[0];
      kind = "in";
      words = m ? `${fmt(m.total)} ${m.unit} of ${fmt(m.budget)} (waypoints)` : "ok";
      if (dry.path) pts = [from, ...dry.path];
    } else if (dry.needs_roll) { kind = "event"; words = "a table roll is needed"; if (dry.path) pts = [from, ...dry.path]; }
    else { kind = "out"; words = dry.reason ? "refused" : "out of reach"; if (dry.path) pts = [from, ...dry.path]; }
  }
  g.append(el("polyline", { points: pts.map(([x, y]) => `${x + 0.5},${y + 0.5}`).join(" "), class: `ruler ${kind}`, id: "ruler" }));
  g.append(el("circle", { cx: d.cell[0] + 0.5, cy: d.cell[1] + 0.5, r: 0.2, class: `ruler-end ${kind}` }));
  tip.hidden = false;
  tip.className = kind === "in" || kind === "pending" ? "" : kind === "event" ? "far" : kind === "further" ? "further" : "out";
  tip.textContent = words;
  tip.dataset.band = kind;
  placeTip();
}

// Beside the pointer, on the side with room, never past the board's edges (its words are never
// cut); above a fingertip, which would hide it.
function placeTip() {
  const d = S.drag, tip = $("ruler-tip");
  if (!d || d.px === undefined) return;
  const r = $("board-box").getBoundingClientRect();
  const w = tip.offsetWidth, hgt = tip.offsetHeight, gap = 14;
  const x = d.px - r.left, y = d.py - r.top;
  let left, top;
  if (d.touch) { left = x - w / 2; top = y - hgt - 56; }
  else {
    left = x + gap + w > r.width - 4 ? x - gap - w : x + gap;
    top = y - hgt - 8;
  }
  if (top < 4) top = y + (d.touch ? 56 : 24);
  tip.style.left = `${Math.max(4, Math.min(left, r.width - w - 4))}px`;
  tip.style.top = `${Math.max(4, Math.min(top, r.height - hgt - 4))}px`;
}

function endDrag() {
  const d = S.drag;
  if (d) { clearTimeout(d.timer); clearTimeout(d.dryTimer); }
  S.drag = null;
  $("ruler-tip").hidden = true;
  $("board").classList.remove("dragging");
}

export function cancelDrag() {
  endDrag();
  drawRoute($("board"), S.board, S.preview, S.waypoints);
}

export async function dropAt(px, py) {
  const d = S.drag;
  if (!d) return;
  dragOver(px, py);
  const cell = d.cell;
  const wps = d.waypoints;
  const cells = dragCells();
  endDrag();
  const f = fighterOf(d.fid);
  if (!cell) { cancelDrag(); say("refused", "Dropped off the board: nothing was moved."); return; }
  if (!wps.length && cell[0] === f.pos[0] && cell[1] === f.pos[1]) { cancelDrag(); return; }
  if (isGM()) offerPlace(d.fid, cell);  // the GM may also put it there by hand, as a ruling
  if (wps.length) {
    S.waypoints = cells;
    await startPreview({ move: { fighter: d.fid, waypoints: S.waypoints } });
  } else {
    S.waypoints = [];
    await startPreview({ move: { fighter: d.fid, to: cell } });  // exactly what a tap on the cell sends
  }
}

// The cheapest route to a cell ("x,y") as [x, y, running cost] steps, read from the reach answer's
// tree of steps (each step's last number is the step before it, -1 from the start).
function routeTo(r, key) {
  if (!r || !r.tree || !(key in r.tree.ends)) return null;
  const out = [];
  for (let i = r.tree.ends[key]; i >= 0; i = r.tree.steps[i][3]) out.push(r.tree.steps[i].slice(0, 3));
  return out.reverse();
}
