// The view: which part of the board shows, and how big. The map is drawn once in board units
// (a cell is 1); the viewBox says what shows. V.z is CSS pixels per cell. At first the whole map
// shows if its cells are big enough to read and tap (MIN_CELL), else MIN_CELL-sized cells
// around the fighter that matters to this screen.
import { layPlates } from "./board.js";
import { $, S, centre } from "./shared.js";

export const MIN_CELL = 44;   // CSS px: a fingertip
const MAX_CELL = 160;
export const V = { z: 0, cx: 0, cy: 0, auto: true, anchor: null };  // anchor: [left, top] whole cells, once snapped

export function boardPixels() {
  const r = $("board").getBoundingClientRect();
  return [Math.max(r.width, 1), Math.max(r.height, 1), r];
}

export function fitZoom() {
  const [w, h] = boardPixels(), m = S.board.map;
  return Math.min(w / m.width, h / m.height);
}

export function focusFighter() {
  const fs = S.board.fighters;
  return fs.find((f) => f.id === S.selected) || (S.me && !S.me.gm && fs.find((f) => f.side === S.me.role && f.active)) ||
    (S.me && !S.me.gm && fs.find((f) => f.side === S.me.role)) || fs.find((f) => f.active) || null;
}

// On a phone, or a tablet held upright, the board sits over the sheet: it takes the screen's
// width, and only the height its rows need at that size (no empty bands above and below it).
export const COLUMN = window.matchMedia("(max-width: 760px), (max-width: 1200px) and (orientation: portrait)");

// Upright, a map wider than the screen at MIN_CELL shows a whole number of columns (each a little
// over MIN_CELL), so the board's edge falls between cells and never cuts a token in half.
function widthZoom() {
  const [w] = boardPixels();
  const z = w / S.board.map.width;
  if (z >= MIN_CELL) return Math.min(MAX_CELL, z);
  return w / Math.max(1, Math.floor(w / MIN_CELL));
}

/** The view moved by less than a cell so its edges fall between cells: no token cut by the edge. */
function snap() {
  if (!COLUMN.matches) return;
  const [w, h] = boardPixels(), m = S.board.map;
  const vw = w / V.z, vh = h / V.z;
  // the row above the top row shown too: the name plates of those standing there sit above their tokens
  const left = vw < m.width ? Math.min(Math.max(Math.round(V.cx - vw / 2), 0), Math.ceil(m.width - vw)) : null;
  const top = vh < m.height ? Math.min(Math.max(Math.floor(V.cy - vh / 2), 0), Math.ceil(m.height - vh)) : null;
  V.anchor = [left, top];
}

function defaultView() {
  const m = S.board.map;
  const fit = COLUMN.matches ? Math.min(fitZoom(), boardPixels()[0] / m.width) : fitZoom();
  V.z = COLUMN.matches ? widthZoom() : Math.min(MAX_CELL, Math.max(fit, MIN_CELL));
  const f = V.z > fit + 0.01 ? focusFighter() : null;
  [V.cx, V.cy] = f ? centre(f) : [m.width / 2, m.height / 2];
  snap();
}

/**
 * The board box's height in a column layout: the map's rows at the width's zoom, or less when the
 * sheet under it needs the room (the sheet is never laid over the board).
 */
export function sizeBox() {
  const box = $("board-box");
  if (!COLUMN.matches || !S.board) { box.style.removeProperty("height"); return; }
  const z = widthZoom();
  const want = Math.ceil(S.board.map.height * z);
  const main = box.closest("main"), panel = $("panel");
  const sheet = [...panel.children].reduce((n, c) => n + (c.offsetParent ? c.offsetHeight + 6 : 0), 10);
  const more = document.body.classList.contains("drawer-open") ? 0.7 : 0.56;  // the sheet's most
  const room = main.clientHeight - 12 - $("board-foot").offsetHeight - Math.min(sheet, main.clientHeight * more);
  // fewer rows than the map's: a whole number of them, so the bottom edge cuts no token
  const rows = room < want ? Math.max(2, Math.floor(room / z)) * z : want;
  const height = `${Math.floor(Math.min(want, rows))}px`;
  if (box.style.height !== height) box.style.height = height;
}

/** Size the board box again whenever the sheet or the screen changes size. */
export function observeLayout() {
  const again = new ResizeObserver(() => sizeBox());
  again.observe($("board-box").closest("main"));
  again.observe($("board-foot"));
  for (const c of $("panel").children) again.observe(c);
}

/**
 * Keep what matters in view: the selected fighter (and the route's end, when given), nudged in
 * from the edges by a cell, or centred when `force` is set or they can't all show.
 */
export function follow(force = false, dest = null) {
  if (!S.board) return;
  const f = S.board.fighters.find((x) => x.id === S.selected);
  if (!f) return;
  const pts = [centre(f)];
  if (dest) pts.push([dest[0] + 0.5, dest[1] + 0.5]);
  const [w, h] = boardPixels();
  const vw = w / V.z, vh = h / V.z, pad = 0.8;
  const xs = pts.map((p) => p[0]), ys = pts.map((p) => p[1]);
  const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  if (force || x1 - x0 > vw - 2 * pad || y1 - y0 > vh - 2 * pad) {
    [V.cx, V.cy] = x1 - x0 > vw - 2 * pad || y1 - y0 > vh - 2 * pad ? pts[0] : [(x0 + x1) / 2, (y0 + y1) / 2];
  } else {
    if (x0 < V.cx - vw / 2 + pad) V.cx = x0 - pad + vw / 2;
    if (x1 > V.cx + vw / 2 - pad) V.cx = x1 + pad - vw / 2;
    if (y0 < V.cy - vh / 2 + pad) V.cy = y0 - pad + vh / 2;
    if (y1 > V.cy + vh / 2 - pad) V.cy = y1 + pad - vh / 2;
  }
  snap();
  if (V.auto) V.auto = false;
  applyView();
}

export function applyView() {
  if (!S.board) return;
  if (V.auto || !V.z) defaultView();
  const [w, h] = boardPixels(), m = S.board.map;
  const vw = w / V.z, vh = h / V.z;
  // Snapped (upright, by default or following a fighter): the edges stay between cells as the box
  // grows or shrinks under the sheet; a pan or a pinch lets go of it.
  if (V.anchor && COLUMN.matches) {
    if (V.anchor[0] !== null) V.cx = Math.min(V.anchor[0], Math.max(0, Math.ceil(m.width - vw))) + vw / 2;
    if (V.anchor[1] !== null) V.cy = Math.min(V.anchor[1], Math.max(0, Math.ceil(m.height - vh))) + vh / 2;
  }
  // Keep some map in view: the centre stays on the map; a map narrower than the view sits in its middle.
  // (Upright, the board is the screen's width: no margin beside the map, no band of nothing.)
  const edge = COLUMN.matches ? 0 : 0.5;
  V.cx = vw >= m.width ? m.width / 2 : Math.min(Math.max(V.cx, vw / 2 - edge), m.width - vw / 2 + edge);
  V.cy = vh >= m.height ? m.height / 2 : Math.min(Math.max(V.cy, vh / 2 - edge), m.height - vh / 2 + edge);
  $("board").setAttribute("viewBox", `${(V.cx - vw / 2).toFixed(4)} ${(V.cy - vh / 2).toFixed(4)} ${vw.toFixed(4)} ${vh.toFixed(4)}`);
  $("board").dataset.cell = V.z.toFixed(1);  // CSS px per cell, for the tests and the curious
  // Names stay a readable 13-16 px whatever the zoom (in board units, a cell being 1), and their
  // plates are laid out again for that size (beside the height numbers, which scale with them).
  $("board").style.setProperty("--plate", `${Math.min(0.3, 16 / V.z).toFixed(3)}px`);
  layPlates($("board"));
  keepPlates(V.cx - vw / 2, V.cx + vw / 2, V.cy - vh / 2, V.cy + vh / 2);
}

export function zoomAt(px, py, factor) {
  const [w, h, r] = boardPixels();
  const before = toBoard(px, py);
  V.z = clampZoom(V.z * factor);
  V.anchor = null;
  V.cx = before[0] - (px - r.left - w / 2) / V.z;
  V.cy = before[1] - (py - r.top - h / 2) / V.z;
  V.auto = false;
  applyView();
}

export function clampZoom(z) {
  return Math.min(MAX_CELL, Math.max(Math.min(fitZoom(), MIN_CELL) * 0.8, z));
}

export function zoomCentre(factor) {
  const [w, h, r] = boardPixels();
  zoomAt(r.left + w / 2, r.top + h / 2, factor);
}

export function fitMap() {
  const m = S.board.map;
  V.z = Math.min(MAX_CELL, fitZoom());
  V.cx = m.width / 2; V.cy = m.height / 2;
  V.auto = false; V.anchor = null;
  applyView();
}

export function centreOnSelected() {
  const f = S.board.fighters.find((x) => x.id === S.selected) || focusFighter();
  if (!f) return;
  [V.cx, V.cy] = centre(f);
  if (V.z < MIN_CELL) V.z = widthZoom();
  snap();
  V.auto = false;
  applyView();
}


/** A point of the screen in board units (x to the right, y down, a cell is 1). */
export function toBoard(px, py) {
  const svg = $("board");
  const p = new DOMPoint(px, py).matrixTransform(svg.getScreenCTM().inverse());
  return [p.x, p.y];
}

export function cellAt(px, py) {
  const [x, y] = toBoard(px, py), m = S.board.map;
  const cx = Math.floor(x), cy = Math.floor(y);
  return cx >= 0 && cy >= 0 && cx < m.width && cy < m.height ? [cx, cy] : null;
}


/** A name plate wider than its cell, its token in view by the board's side edge, slides in to be read whole,
 * as far as the height numbers either side of it let it (board.js layPlate: data-lo, data-hi; a plate
 * narrowed to fit between them stays); the plate of a token out of view is not shown poking in over the edge. */
function keepPlates(x0, x1, y0, y1) {
  for (const t of document.querySelectorAll("#fighters .name-plate")) {
    const row = Number(t.parentNode.dataset.y) + 0.5;
    t.style.visibility = row < y0 || row > y1 ? "hidden" : "";
    if (t.dataset.home === undefined) t.dataset.home = t.getAttribute("x");
    const home = Number(t.dataset.home);
    let x = home;
    if (home > x0 && home < x1 && !t.hasAttribute("transform")) {
      const w = t.getBBox().width;
      if (w < x1 - x0) x = Math.min(Math.max(home, x0 + w / 2 + 0.02), x1 - w / 2 - 0.02);
      const lo = t.dataset.lo ? Number(t.dataset.lo) + w / 2 : -Infinity;
      const hi = t.dataset.hi ? Number(t.dataset.hi) - w / 2 : Infinity;
      x = lo <= hi ? Math.min(Math.max(x, lo), hi) : home;
    }
    if (String(x) !== t.getAttribute("x")) t.setAttribute("x", String(x));
  }
}
