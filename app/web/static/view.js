// The view: which part of the board shows, and how big. The map is drawn once in board units
// (a cell is 1); the viewBox says what shows. V.z is CSS pixels per cell. At first the whole map
// shows if its cells are big enough to read and tap (MIN_CELL), else MIN_CELL-sized cells
// around the fighter that matters to this screen.
import { $, S, centre } from "./shared.js";

export const MIN_CELL = 44;   // CSS px: a fingertip
const MAX_CELL = 160;
export const V = { z: 0, cx: 0, cy: 0, auto: true };

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

function defaultView() {
  const fit = fitZoom(), m = S.board.map;
  V.z = Math.min(MAX_CELL, Math.max(fit, MIN_CELL));
  const f = V.z > fit + 0.01 ? focusFighter() : null;
  [V.cx, V.cy] = f ? centre(f) : [m.width / 2, m.height / 2];
}

export function applyView() {
  if (!S.board) return;
  if (V.auto || !V.z) defaultView();
  const [w, h] = boardPixels(), m = S.board.map;
  const vw = w / V.z, vh = h / V.z;
  // Keep some map in view: the centre stays on the map; a map narrower than the view sits in its middle.
  V.cx = vw >= m.width ? m.width / 2 : Math.min(Math.max(V.cx, vw / 2 - 0.5), m.width - vw / 2 + 0.5);
  V.cy = vh >= m.height ? m.height / 2 : Math.min(Math.max(V.cy, vh / 2 - 0.5), m.height - vh / 2 + 0.5);
  $("board").setAttribute("viewBox", `${(V.cx - vw / 2).toFixed(4)} ${(V.cy - vh / 2).toFixed(4)} ${vw.toFixed(4)} ${vh.toFixed(4)}`);
  $("board").dataset.cell = V.z.toFixed(1);  // CSS px per cell, for the tests and the curious
  // Names stay a readable 13-16 px whatever the zoom (in board units, a cell being 1).
  $("board").style.setProperty("--plate", `${Math.min(0.3, 16 / V.z).toFixed(3)}px`);
}

export function zoomAt(px, py, factor) {
  const [w, h, r] = boardPixels();
  const before = toBoard(px, py);
  V.z = clampZoom(V.z * factor);
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
  V.auto = false;
  applyView();
}

export function centreOnSelected() {
  const f = S.board.fighters.find((x) => x.id === S.selected) || focusFighter();
  if (!f) return;
  [V.cx, V.cy] = centre(f);
  if (V.z < MIN_CELL) V.z = MIN_CELL;
  V.auto = false;
  applyView();
}

/** Centre on a fighter only when it is off the view (or too near its edge). */
export function keepInView(f) {
  const [w, h] = boardPixels();
  const [x, y] = centre(f);
  const vw = w / V.z, vh = h / V.z;
  if (Math.abs(x - V.cx) > vw / 2 - 1 || Math.abs(y - V.cy) > vh / 2 - 1) centreOnSelected();
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
