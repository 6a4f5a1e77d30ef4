// Pointers on the board: pan the empty board, drag a token, pinch to zoom, wheel to zoom
// (mouse, touch and pen alike). A drag hands over to drag.js; a tap stays a click.
import { $, S, canCommand } from "./shared.js";
import { V, applyView, boardPixels, clampZoom, follow, sizeBox, toBoard, zoomAt } from "./view.js";
import { cancelDrag, dragOver, dropAt, refuseDrag, startDrag } from "./drag.js";

export const P = { pointers: new Map(), down: null, mode: null, pinch: null, suppress: false, touch: false };
const DRAG_START_PX = 6;

function onPointerDown(ev) {
  if (!S.board || (ev.pointerType === "mouse" && ev.button !== 0)) return;
  P.pointers.set(ev.pointerId, [ev.clientX, ev.clientY]);
  if (P.pointers.size === 2) {  // two fingers: pinch and pan together; a drag under way is dropped
    if (P.mode === "drag") cancelDrag();
    const [[x1, y1], [x2, y2]] = [...P.pointers.values()];
    P.mode = "pinch";
    P.pinch = { d: Math.hypot(x2 - x1, y2 - y1) || 1, z: V.z, mid: toBoard((x1 + x2) / 2, (y1 + y2) / 2) };
    capture(ev);
    return;
  }
  if (P.pointers.size > 2) return;
  const tok = ev.target.closest("[data-fid]");
  const fid = tok && S.live ? tok.dataset.fid : null;
  P.touch = ev.pointerType !== "mouse";
  P.down = { x: ev.clientX, y: ev.clientY, fid, cx: V.cx, cy: V.cy, id: ev.pointerId };
  P.mode = null;
}

function capture(ev) {
  try { $("board").setPointerCapture(ev.pointerId); } catch (_) { /* the pointer is gone already */ }
}

function onPointerMove(ev) {
  if (!P.pointers.has(ev.pointerId)) return;
  P.pointers.set(ev.pointerId, [ev.clientX, ev.clientY]);
  if (P.mode === "pinch" && P.pointers.size === 2) {
    const [[x1, y1], [x2, y2]] = [...P.pointers.values()];
    const [w, h, r] = boardPixels();
    V.z = clampZoom(P.pinch.z * Math.hypot(x2 - x1, y2 - y1) / P.pinch.d);
    const mx = (x1 + x2) / 2, my = (y1 + y2) / 2;
    V.anchor = null;
    V.cx = P.pinch.mid[0] - (mx - r.left - w / 2) / V.z;
    V.cy = P.pinch.mid[1] - (my - r.top - h / 2) / V.z;
    V.auto = false;
    applyView();
    return;
  }
  const d = P.down;
  if (!d || d.id !== ev.pointerId) return;
  if (!P.mode) {
    if (Math.hypot(ev.clientX - d.x, ev.clientY - d.y) < DRAG_START_PX) return;
    if (d.fid && !canCommand(d.fid)) {  // another side's fighter: say whose it is, and pan instead
      refuseDrag(d.fid);
      d.fid = null;
    }
    P.mode = d.fid ? "drag" : "pan";
    capture(ev);
    if (P.mode === "drag") startDrag(d.fid, P.touch);
    else $("board").classList.add("panning");
  }
  if (P.mode === "pan") {
    V.anchor = null;
    V.cx = d.cx - (ev.clientX - d.x) / V.z;
    V.cy = d.cy - (ev.clientY - d.y) / V.z;
    V.auto = false;
    applyView();
  } else if (P.mode === "drag") {
    dragOver(ev.clientX, ev.clientY);
  }
}

function onPointerUp(ev) {
  if (!P.pointers.has(ev.pointerId)) return;
  P.pointers.delete(ev.pointerId);
  const wasDrag = P.mode === "drag" && P.down && P.down.id === ev.pointerId;
  if (P.mode) P.suppress = true;  // the click that follows a pan, pinch or drag is not a click
  if (wasDrag) {
    if (ev.type === "pointercancel") cancelDrag();
    else dropAt(ev.clientX, ev.clientY);
  }
  if (!P.pointers.size) {
    P.mode = null; P.down = null; P.pinch = null;
    $("board").classList.remove("panning");
    setTimeout(() => { P.suppress = false; }, 0);
  }
}

function onWheel(ev) {
  if (!S.board) return;
  ev.preventDefault();
  zoomAt(ev.clientX, ev.clientY, Math.exp(-ev.deltaY * (ev.deltaMode === 1 ? 0.05 : 0.0015)));
}

/** Listen on the board: pointers, wheel, and redraw the view when the board's box changes size. */
export function listenGestures(board) {
  board.addEventListener("pointerdown", onPointerDown);
  board.addEventListener("pointermove", onPointerMove);
  board.addEventListener("pointerup", onPointerUp);
  board.addEventListener("pointercancel", onPointerUp);
  board.addEventListener("wheel", onWheel, { passive: false });
  new ResizeObserver(() => { sizeBox(); applyView(); if (!P.mode) follow(); }).observe(board);
}
