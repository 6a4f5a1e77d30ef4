// What the page's modules share: its state, the HTML helpers, the message line, and hooks the
// glue (table.js) fills in so a module can ask for a reload or a redraw without importing it.
import * as board from "./board.js";

export const S = {
  board: null,      // the board as last drawn (live, or a past point when scrubbing)
  version: 0,       // the live log's record count: every write carries it
  live: true,       // false while the timeline shows a past point (read-only)
  selected: null,   // the selected fighter's id
  reach: null,      // the reachable area of the selected fighter
  pending: null,    // the body of the command being previewed
  rolls: [],        // table rolls entered for the pending command
  preview: null,    // the last dry run's answer
  waypoints: [],
  explainSeq: null,
  events: [],
  centres: {},      // fighter id -> [x, y, r]: where its token is drawn (fighters sharing a cell sit side by side)
  me: null,         // who this screen speaks for (/api/me)
};

/** Filled in by table.js: loadLive(), paint() (the whole board), and the like. */
export const hooks = {};

export const $ = (id) => document.getElementById(id);

export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k.startsWith("data-") || k.startsWith("aria-") || k === "role") node.setAttribute(k, v);
    else node[k] = v;
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false || c === "") continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

export const isGM = () => Boolean(S.me && S.me.gm);

// Events that are the engine's own memory (a mark set or cleared: "on the way at 3,2, movement 200…"):
// the GM reads them; a player's screen says what happened, not what the engine notes down — except a
// mark that explains an outcome ("the move waits for bo's answer", "ari is kept out"): the server
// flags it (`explains`) and a player reads it by its note.
const MEMORY = new Set(["marked", "unmarked", "board-marked"]);
export const forPlayers = (e) => isGM() || !MEMORY.has(e.type) || Boolean(e.explains);
/** A dry run's event as this screen says it: an explaining mark by its note for a player. */
export const asSaid = (e) => (!isGM() && e.explains && MEMORY.has(e.type) ? { ...e, text: e.note, note: "" } : e);

export function ruleChip(id) { return h("span", { class: "rule" }, id); }

/** "why?": what stays one tap away on every screen, the GM's too (rule ids, numbers, steps). */
export function whyBox(...parts) {
  const shown = parts.filter((p) => p !== null && p !== undefined && p !== "");
  if (!shown.length) return "";
  return h("details", { class: "why-more" }, h("summary", {}, "why?"), ...shown);
}

// The message line under the board shows its words in whole lines, as many as table.css gives it
// (two on a laptop, three on a phone); longer words end in "…" with "more" beside them, which
// shows them all ("less" folds them again). "why?" stays beside the words, one tap away.
const refit = new ResizeObserver(() => fitMessage());

export function say(kind, ...parts) {
  const m = $("message");
  m.className = kind;
  refit.disconnect();
  const shown = parts.filter((p) => p !== "" && p != null).map((p) => (p instanceof Node ? p : document.createTextNode(String(p))));
  if (!shown.length) { m.replaceChildren(); return; }
  const isWhy = (p) => p instanceof Element && p.matches("details.why-more");
  const said = h("span", { class: "said" }, ...shown.filter((p) => !isWhy(p)));
  m.replaceChildren(said, ...shown.filter(isWhy));
  fitMessage();
  refit.observe(said);  // a turned phone or a resized window: the lines break elsewhere
}

/** "more" beside the words only when they run past the lines shown (or, all shown, to fold them again). */
function fitMessage() {
  const m = $("message"), said = m.querySelector(".said");
  if (!said) return;
  const long = m.classList.contains("open") || said.scrollHeight > said.clientHeight + 1;
  const more = m.querySelector(".more-words");
  if (long && !more) said.after(moreButton(m));
  if (!long && more) more.remove();
}

function moreButton(m) {
  const more = h("button", { type: "button", class: "more-words", "aria-expanded": "false", title: "Show the whole message" }, "more");
  more.addEventListener("click", () => {
    const open = m.classList.toggle("open");
    more.textContent = open ? "less" : "more";
    more.title = open ? "Fold the message to its first lines" : "Show the whole message";
    more.setAttribute("aria-expanded", String(open));
  });
  return more;
}

export const fighterOf = (fid) => (S.board ? S.board.fighters.find((x) => x.id === fid) : undefined);
export const nameOf = (fid) => { const f = fighterOf(fid); return f ? f.name : fid; };
/** The engine's words with each fighter's id read as its name ("kel's turn" -> "Kel's turn"), for a player. */
export function named(text) {
  let out = String(text == null ? "" : text);
  if (!S.board) return out;  // every screen, the GM's too, reads names where the engine wrote ids
  for (const f of S.board.fighters) {
    if (!f.name || f.name === f.id) continue;
    out = out.replace(new RegExp(`(^|[^\\w,|])${f.id.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\w,|])`, "g"), `$1${f.name}`);
  }
  return out;
}

export const sideColour = (side) => board.sideColour(S.board, side);
export const centre = (f) => board.centreOf(S.centres, f);

/** May this screen command that fighter? (The server decides; this only spares a request it would refuse.) */
export function canCommand(fid) {
  const f = fighterOf(fid);
  return Boolean(f && S.me && (S.me.gm || S.me.role === f.side));
}

export const NARROW = window.matchMedia("(max-width: 760px)");
