// The encounter builder: a draft is the scenario's own structure (what a scenario file's TOML
// decodes to). Each change sends the whole draft; the server keeps it only if the scenario reader
// `tabletrail new` uses accepts it, else it names the field and the page shows why beside it.
import { $, api, buildHref, h, homeHref, TOKEN, BASE } from "./home-api.js";
import { sideColour as boardSideColour } from "./board.js";

const SVG = "http://www.w3.org/2000/svg";
// The terrains' colours are the table's own (table.css, `.t-rough { fill: … }`), read once at start.
const TERRAIN_COLOURS = {};
async function readTerrainColours() {
  try {
    const css = await (await fetch(`${BASE}/static/table.css`)).text();
    for (const m of css.matchAll(/((?:\.t-[a-z-]+\s*,?\s*)+)\{\s*fill:\s*(#[0-9a-fA-F]{3,6})/g)) {
      for (const t of m[1].matchAll(/\.t-([a-z-]+)/g)) TERRAIN_COLOURS[t[1]] = m[2];
    }
  } catch (_) { /* the cells are then drawn grey: nothing else depends on it */ }
}
const WALL_STYLE = { both: ["#222", ""], movement: ["#8a4b12", "2 3"], sight: ["#6b3fa0", "7 4"] };
const WALL_WORDS = { both: "Wall", movement: "Railing (stops walking, not sight)", sight: "Sight-only wall" };
const WALL_TOOLS = { both: "Wall", movement: "Railing", sight: "Sight wall" };

const S = {
  cat: null, draft: null, raw: null, undo: [], redo: [], tool: { kind: "terrain", terrain: "rough" },
  sel: -1, side: "blue", tab: "map", cell: 40,
};

// ---------- the draft and the server ----------

const clone = (x) => JSON.parse(JSON.stringify(x));
const ruleset = () => S.cat.rulesets.find((r) => r.id === S.raw.encounter.ruleset);
const width = () => S.raw.map.rows[0].length;
const height = () => S.raw.map.rows.length;

// Every save, resize and upload counts here, as it is sent and as it is answered: a size check or a new
// fighter's form check asked before either moment is stale and must not put its problem back over theirs
// (nor clear a refusal they show).
let asked = 0;

function showProblem(problem) {
  const root = $("work").hidden ? $("create") : $("work");  // the form on screen: the new draft's, or the draft's
  document.querySelectorAll("[data-err]").forEach((e) => { e.textContent = ""; });
  document.querySelectorAll(".invalid").forEach((e) => e.classList.remove("invalid"));
  $("problem").hidden = true;
  if (!problem) return;
  let field = problem.field || "";
  const who = field.match(/^fighters\[(\d+)\]/);
  if (who && +who[1] < S.raw.fighters.length && +who[1] !== S.sel) {
    S.sel = +who[1];  // a placed fighter's mistake is shown in its own form, beside the field
    renderFighters();
    drawBoard();
  }
  let spot = root.querySelector(`[data-err="${CSS.escape(field)}"]`);
  while (field && !spot) {  // the field itself, else the nearest enclosing one the page shows
    const up = field.replace(/(\.[^.[\]]+|\[\d+\])$/, "");
    field = up === field ? "" : up;
    spot = field ? root.querySelector(`[data-err="${CSS.escape(field)}"]`) : null;
  }
  const words = problem.message;
  if (spot) {
    const tab = spot.closest(".tab");  // the field's own tab is shown, its folded part opened
    if (tab && tab.hidden && !$("work").hidden) showTab(tab.id.replace("tab-", ""));
    const folded = spot.closest("details");
    if (folded) folded.open = true;
    spot.textContent = words;
    const input = root.querySelector(`[data-field="${CSS.escape(field)}"]`);
    if (input) input.classList.add("invalid");
    if (!spot.closest("[hidden]")) return;
  }
  $("problem").textContent = (problem.field ? problem.field + ": " : "") + words;
  $("problem").hidden = false;
}

function setSaved(text, kind) {
  $("saved").textContent = text;
  $("saved").className = "chip " + (kind || "");
}

function readyState() {
  const ready = !!(S.draft && S.draft.ready);
  $("start").disabled = !ready;
  $("start").title = ready ? "Start the encounter: its log is written and the table opens" :
    (S.draft && S.draft.problem ? S.draft.problem.message : "");
  if (S.draft && S.draft.problem && S.draft.problem.field === "fighters" && !S.raw.fighters.length) {
    setSaved("Saved · place a fighter to start", "");
  }
}

/** Send the draft after one change; kept only if the reader accepts it. Answers whether it was kept. */
async function commit(next, { history = true, rerender = true } = {}) {
  asked += 1;
  setSaved("Checking…");
  const { status, data } = await api("PUT", `/api/home/drafts/${encodeURIComponent(S.draft.name)}`, { scenario: next });
  asked += 1;
  if (status === 200) {
    if (history) { S.undo.push(S.raw); S.redo = []; }
    S.draft = data;
    S.raw = data.scenario;
    setSaved("Saved", "good");
    showProblem(null);
    readyState();
    if (rerender) render();
    else drawBoard();
    return true;
  }
  setSaved("Not saved", "bad");
  showProblem(data.field !== undefined ? data : { field: "", message: data.message });
  drawBoard();
  return false;
}

async function undo() {
  if (!S.undo.length) return;
  const before = S.undo.pop();
  const now = S.raw;
  if (await commit(before, { history: false })) S.redo.push(now);
  else S.undo.push(before);
}

async function redo() {
  if (!S.redo.length) return;
  const next = S.redo.pop();
  const now = S.raw;
  if (await commit(next, { history: false })) S.undo.push(now);
}

// ---------- the map's structure ----------

function legendKey(legend, spec) {
  // The legend character of a terrain (with its numbers), made when the map has none yet.
  const same = (a, b) => JSON.stringify(norm(a)) === JSON.stringify(norm(b));
  for (const [ch, kind] of Object.entries(legend)) if (same(kind, spec)) return ch;
  const used = new Set(Object.keys(legend));
  const pool = (spec.terrain[0] + spec.terrain[0].toUpperCase() + "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789").split("");
  const ch = pool.find((c) => !used.has(c) && c !== ".");
  return ch;
}

function norm(kind) {
  const k = typeof kind === "string" ? { terrain: kind } : { ...kind };
  const out = { terrain: k.terrain || "floor" };
  for (const n of ["tags", "ground", "height", "depth", "climb"]) if (k[n] && (!Array.isArray(k[n]) || k[n].length)) out[n] = k[n];
  return out;
}

function kindAt(x, y) { return norm(S.raw.map.legend[S.raw.map.rows[y][x]] || "floor"); }

function corners(seg) {
  const [a, b] = seg.split("-").map((p) => p.split(",").map(Number));
  return [a, b];
}

/** Every wall as unit edges: "v,x,y" is the line x from corner y to y+1; "h,x,y" the line y from x to x+1. */
function unitEdges(at) {
  const [[x1, y1], [x2, y2]] = corners(at);
  const out = [];
  if (x1 === x2) for (let y = Math.min(y1, y2); y < Math.max(y1, y2); y++) out.push(`v,${x1},${y}`);
  else for (let x = Math.min(x1, x2); x < Math.max(x1, x2); x++) out.push(`h,${x},${y1}`);
  return out;
}
const edgeSegment = (e) => {
  const [d, x, y] = e.split(","); const X = +x, Y = +y;
  return d === "v" ? `${X},${Y}-${X},${Y + 1}` : `${X},${Y}-${X + 1},${Y}`;
};
const edgeDoor = (e) => {
  const [d, x, y] = e.split(","); const X = +x, Y = +y;
  return d === "v" ? `${X - 1},${Y}|${X},${Y}` : `${X},${Y - 1}|${X},${Y}`;
};
function doorEdge(at) {
  const [a, b] = at.split("|").map((p) => p.split(",").map(Number));
  if (a[1] === b[1]) return `v,${Math.max(a[0], b[0])},${a[1]}`;
  return `h,${a[0]},${Math.max(a[1], b[1])}`;
}
const wallAt = (w) => (typeof w === "string" ? w : w.at);
const wallBlocks = (w) => (typeof w === "string" ? "both" : w.blocks || "both");

// ---------- the tools ----------

function tools() {
  const rs = ruleset();
  const btn = (label, tool, title, swatch) => h("button", {
    type: "button", "aria-pressed": String(sameTool(tool)), title, "data-tool": toolName(tool),
    onclick: () => { S.tool = tool; if (tool.kind === "fighter") showTab("fighters"); render(); },
  }, swatch ? h("span", { class: "sw", style: swatch.startsWith("#") ? `background:${swatch}` : swatch }) : null, label);
  const line = (b) => `border:0;border-radius:0;height:0;border-top:4px ${WALL_STYLE[b][1] ? "dashed" : "solid"} ${WALL_STYLE[b][0]}`;
  const terrains = S.cat.terrains.map((t) => btn(t.terrain, { kind: "terrain", terrain: t.terrain },
    `Paint ${t.terrain} (${t.tags.join(", ")}): tap or drag over cells`, TERRAIN_COLOURS[t.terrain] || "#ccc"));
  const walls = S.cat.wall_blocks.slice().reverse().map((b) => btn(WALL_TOOLS[b], { kind: "wall", blocks: b },
    `Draw ${WALL_WORDS[b].toLowerCase()} on cell edges: tap an edge, or drag along a grid line; tap it again to take it away`,
    line(b)));
  return [
    ...terrains, h("span", { class: "sep" }),
    ...walls,
    btn("Door", { kind: "door" }, "Put a door on the edge between two cells: tap again to open it, again to take it away",
      "#8b5a2b"),
    h("span", { class: "sep" }),
    btn("Fighter", { kind: "fighter" }, `Place a fighter: tap a cell (${rs.title})`),
  ];
}
const toolName = (t) => t.kind + (t.terrain ? ":" + t.terrain : "") + (t.blocks ? ":" + t.blocks : "");
const sameTool = (t) => toolName(t) === toolName(S.tool);

const HINTS = {
  terrain: "Tap or drag over cells to paint them.",
  wall: "Tap a cell edge, or drag along a grid line, to draw a wall there; tap it again to take it away.",
  door: "Tap the edge between two cells: a closed door; tap again: open; again: no door.",
  fighter: "Tap an empty cell to place the fighter of the form; tap a fighter to change it.",
  none: "Drop a Universal VTT file on the map to import it.",
};

// ---------- the board ----------

function svg(tag, attrs) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  return el;
}

function sideColour(side) {
  // the table's own colours (board.js): the scenario's [sides] colour, a side's named colour, its palette
  const sides = [...new Set(S.raw.fighters.map((f) => f.side))];
  const colours = {};
  for (const [k, v] of Object.entries(S.raw.sides || {})) if (v && v.colour) colours[k] = v.colour;
  return boardSideColour({ side_colours: colours, sides }, side);
}

function drawBoard() {
  const board = $("board");
  const box = $("board-box").getBoundingClientRect();
  const W = width(), H = height();
  const cell = Math.max(8, Math.floor(Math.min((box.width - 8) / W, (box.height - 8) / H)));
  S.cell = cell;
  const ox = Math.floor((box.width - cell * W) / 2), oy = Math.floor((box.height - cell * H) / 2);
  S.origin = [ox, oy];
  board.replaceChildren();
  const g = svg("g", { transform: `translate(${ox},${oy})` });
  board.append(g);
  const pic = S.raw.picture;
  if (pic) {
    const img = svg("image", {
      href: `${BASE}/api/home/drafts/${encodeURIComponent(S.draft.name)}/picture?token=${encodeURIComponent(TOKEN)}&v=${S.draft.updated}`,
      x: (pic.origin ? pic.origin[0] : 0) * cell, y: (pic.origin ? pic.origin[1] : 0) * cell,
      width: W * cell, height: H * cell, preserveAspectRatio: "none", opacity: "0.9",
    });
    g.append(img);
  }
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const k = kindAt(x, y);
      const plain = k.terrain === "floor" && pic;
      const r = svg("rect", {
        x: x * cell, y: y * cell, width: cell, height: cell, "data-x": x, "data-y": y, "data-terrain": k.terrain,
        fill: plain ? "transparent" : TERRAIN_COLOURS[k.terrain] || "#ccc", "fill-opacity": pic ? 0.55 : 1,
        stroke: "#b9b2a3", "stroke-width": 1,
      });
      g.append(r);
      const n = k.height || k.ground || k.depth;
      if (n) {
        const dark = ["wall", "gap", "deep-water"].includes(k.terrain);
        const t = svg("text", { x: x * cell + 3, y: y * cell + 12, "font-size": 11, fill: dark ? "#fff" : "#222" });
        t.textContent = (k.depth ? "↓" : "") + n;
        g.append(t);
      }
    }
  }
  for (const w of S.raw.map.walls || []) {
    const [stroke, dash] = WALL_STYLE[wallBlocks(w)];
    const [[x1, y1], [x2, y2]] = corners(wallAt(w));
    g.append(svg("line", { x1: x1 * cell, y1: y1 * cell, x2: x2 * cell, y2: y2 * cell, stroke, "stroke-width": 5,
      "stroke-dasharray": dash, "stroke-linecap": "round", "data-wall": wallAt(w), "data-blocks": wallBlocks(w) }));
  }
  for (const d of S.raw.map.doors || []) {
    let e;
    try { e = doorEdge(d.at); } catch (_) { continue; }
    const [dir, xs, ys] = e.split(","); const X = +xs, Y = +ys;
    const shut = d.closed !== false;
    const attrs = dir === "v" ? { x: X * cell - 4, y: Y * cell + cell * 0.15, width: 8, height: cell * 0.7 }
      : { x: X * cell + cell * 0.15, y: Y * cell - 4, width: cell * 0.7, height: 8 };
    g.append(svg("rect", { ...attrs, fill: shut ? "#8b5a2b" : "#fff", stroke: "#5a3a1a", "stroke-width": 2,
      "data-door": d.at, "data-closed": String(shut) }));
  }
  S.raw.fighters.forEach((f, i) => {
    const cx = (f.at[0] + 0.5) * cell, cy = (f.at[1] + 0.5) * cell;
    const c = svg("circle", { cx, cy, r: cell * 0.38, fill: sideColour(f.side), stroke: i === S.sel ? "#ffb000" : "#fff",
      "stroke-width": i === S.sel ? 4 : 2, "data-fighter": f.id });
    const t = svg("text", { x: cx, y: cy + 4, "text-anchor": "middle", "font-size": Math.max(9, cell * 0.3),
      "font-weight": 700, fill: "#fff", "pointer-events": "none" });
    t.textContent = (f.name || f.id).slice(0, cell >= 44 ? 3 : 2);
    const title = svg("title", {}); title.textContent = `${f.name || f.id} (${f.side})`;
    c.append(title);
    g.append(c, t);
  });
  g.append(svg("rect", { x: 0, y: 0, width: W * cell, height: H * cell, fill: "none", stroke: "#333", "stroke-width": 2 }));
}

function gridPoint(ev) {
  const r = $("board").getBoundingClientRect();
  return [(ev.clientX - r.left - S.origin[0]) / S.cell, (ev.clientY - r.top - S.origin[1]) / S.cell];
}

function nearestEdge([gx, gy]) {
  const W = width(), H = height();
  const fx = gx - Math.floor(gx), fy = gy - Math.floor(gy);
  const toV = Math.min(fx, 1 - fx), toH = Math.min(fy, 1 - fy);
  // near a grid corner the edge meant is a guess: a stroke passing a corner takes no edge there
  if (Math.max(toV, toH) < 0.22 || Math.min(toV, toH) > 0.4) return null;
  if (toV <= toH) {
    const x = Math.round(gx), y = Math.floor(gy);
    return x >= 0 && x <= W && y >= 0 && y < H ? `v,${x},${y}` : null;
  }
  const x = Math.floor(gx), y = Math.round(gy);
  return x >= 0 && x < W && y >= 0 && y <= H ? `h,${x},${y}` : null;
}

let stroke = null;

function onDown(ev) {
  if (ev.button > 0) return;
  $("board").setPointerCapture(ev.pointerId);
  const p = gridPoint(ev);
  const t = S.tool;
  stroke = { cells: new Set(), edges: new Set(), first: p, moved: false };
  if (t.kind === "terrain") addCell(p);
  else if (t.kind === "wall") addEdge(p);
}

function onMove(ev) {
  if (!stroke) return;
  const p = gridPoint(ev);
  stroke.moved = true;
  if (S.tool.kind === "terrain") addCell(p);
  else if (S.tool.kind === "wall") addEdge(p);
}

function addCell([gx, gy]) {
  const x = Math.floor(gx), y = Math.floor(gy);
  if (x < 0 || y < 0 || x >= width() || y >= height()) return;
  const key = `${x},${y}`;
  if (stroke.cells.has(key)) return;
  stroke.cells.add(key);
  const rect = document.querySelector(`#board rect[data-x="${x}"][data-y="${y}"]`);
  if (rect) { rect.setAttribute("fill", TERRAIN_COLOURS[S.tool.terrain] || "#ccc"); rect.setAttribute("fill-opacity", 1); }
}

function addEdge(p) {
  const e = nearestEdge(p);
  if (!e || stroke.edges.has(e)) return;
  stroke.edges.add(e);
  const [dir, xs, ys] = e.split(","); const X = +xs, Y = +ys, c = S.cell;
  const [col, dash] = WALL_STYLE[S.tool.blocks];
  const line = dir === "v" ? { x1: X * c, y1: Y * c, x2: X * c, y2: (Y + 1) * c } : { x1: X * c, y1: Y * c, x2: (X + 1) * c, y2: Y * c };
  $("board").firstChild.append(svg("line", { ...line, stroke: col, "stroke-width": 5, "stroke-dasharray": dash, opacity: 0.6 }));
}

function onUp(ev) {
  if (!stroke) return;
  const s = stroke;
  stroke = null;
  const t = S.tool;
  if (t.kind === "terrain") paint(s.cells);
  else if (t.kind === "wall") drawWalls(s.edges, s.moved);
  else if (t.kind === "door") placeDoor(nearestEdge(gridPoint(ev)));
  else if (t.kind === "fighter") tapFighterCell(gridPoint(ev));
}

function paint(cells) {
  if (!cells.size) return;
  const next = clone(S.raw);
  const spec = { terrain: S.tool.terrain };
  for (const n of ["ground", "height", "depth"]) {
    const v = Number(($(`paint-${n}`) || {}).value || 0);
    if (v) spec[n] = v;
  }
  const ch = legendKey(next.map.legend, spec);
  if (!next.map.legend[ch]) next.map.legend[ch] = spec;
  const rows = next.map.rows.map((r) => r.split(""));
  for (const key of cells) { const [x, y] = key.split(",").map(Number); rows[y][x] = ch; }
  next.map.rows = rows.map((r) => r.join(""));
  // a legend entry no cell uses any more is left out, as a GM writing the file would
  const used = new Set(next.map.rows.join(""));
  for (const k of Object.keys(next.map.legend)) if (!used.has(k)) delete next.map.legend[k];
  commit(next);
}

function drawWalls(edges, dragged) {
  if (!edges.size) return;
  const next = clone(S.raw);
  const walls = next.map.walls || [];
  const blocks = S.tool.blocks;
  const existing = new Map();  // unit edge -> index of the wall it lies on
  walls.forEach((w, i) => unitEdges(wallAt(w)).forEach((e) => existing.set(e, i)));
  if (!dragged && edges.size === 1) {
    const [e] = edges;
    if (existing.has(e)) {  // a tap on a wall takes that edge of it away
      const i = existing.get(e);
      const w = walls[i];
      const rest = unitEdges(wallAt(w)).filter((u) => u !== e).map((u) => (wallBlocks(w) === "both" ? edgeSegment(u) : { at: edgeSegment(u), blocks: wallBlocks(w) }));
      walls.splice(i, 1, ...rest);
      next.map.walls = walls;
      if (!walls.length) delete next.map.walls;
      commit(next);
      return;
    }
  }
  const fresh = [...edges].filter((e) => !existing.has(e));
  for (const seg of mergeEdges(fresh)) walls.push(blocks === "both" ? seg : { at: seg, blocks });
  next.map.walls = walls;
  commit(next);
}

function mergeEdges(edges) {
  // unit edges along one grid line joined into segments, as a GM would write them
  const lines = new Map();
  for (const e of edges) {
    const [d, x, y] = e.split(","); const key = d === "v" ? `v${x}` : `h${y}`;
    if (!lines.has(key)) lines.set(key, []);
    lines.get(key).push(d === "v" ? +y : +x);
  }
  const out = [];
  for (const [key, ns] of lines) {
    ns.sort((a, b) => a - b);
    const at = +key.slice(1);
    let start = ns[0], prev = ns[0];
    const flush = () => out.push(key[0] === "v" ? `${at},${start}-${at},${prev + 1}` : `${start},${at}-${prev + 1},${at}`);
    for (const n of ns.slice(1)) { if (n === prev + 1) prev = n; else { flush(); start = prev = n; } }
    flush();
  }
  return out;
}

function placeDoor(e) {
  if (!e) return;
  const next = clone(S.raw);
  const doors = next.map.doors || [];
  const i = doors.findIndex((d) => { try { return doorEdge(d.at) === e; } catch (_) { return false; } });
  if (i < 0) doors.push({ at: edgeDoor(e), closed: true, locked: false });
  else if (doors[i].closed !== false) doors[i] = { ...doors[i], closed: false, locked: false };
  else doors.splice(i, 1);
  next.map.doors = doors;
  if (!doors.length) delete next.map.doors;
  commit(next);
}

// ---------- fighters ----------

function fighterAt(x, y) { return S.raw.fighters.findIndex((f) => f.at[0] === x && f.at[1] === y); }

function slugId(name) {
  const base = (name || "fighter").toLowerCase().replace(/[^a-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "") || "fighter";
  const ids = new Set(S.raw.fighters.map((f) => f.id));
  let id = base, n = 2;
  while (ids.has(id)) id = `${base}-${n++}`;
  return id;
}

function formFighter() {
  // the fighter the form describes: what is typed, the stats the ruleset knows
  const rs = ruleset();
  const name = $("f-name").value.trim();
  const f = { id: "", name: name || "Fighter", side: S.side, at: [0, 0] };
  const size = $("f-size").value;
  if (size && size !== "medium") f.size = size;
  for (const st of rs.stats) {
    const raw = $(`f-stat-${st.name}`).value.trim();
    if (raw !== "") f[st.name] = Number(raw);
  }
  return f;
}

function tapFighterCell([gx, gy]) {
  const x = Math.floor(gx), y = Math.floor(gy);
  if (x < 0 || y < 0 || x >= width() || y >= height()) return;
  const there = fighterAt(x, y);
  if (there >= 0 && there !== S.sel) { select(there); return; }
  const next = clone(S.raw);
  if (S.sel >= 0) {  // the selected fighter goes to the tapped cell
    next.fighters[S.sel].at = [x, y];
    commit(next);
    return;
  }
  const f = formFighter();
  f.id = slugId(f.name);
  f.at = [x, y];
  next.fighters.push(f);
  commit(next).then((kept) => {
    if (kept) { S.formName = nextName(f.name); $("f-name").value = S.formName; }
  });
}

function nextName(name) {
  const m = name.match(/^(.*?)(\d+)$/);
  return m ? `${m[1]}${+m[2] + 1}` : `${name} 2`;
}

function select(i) {
  S.sel = i;
  renderFighters();
  drawBoard();
}

function changeSelected() {
  // the form edits the selected fighter: each change is checked as it is typed
  if (S.sel < 0) return;
  const next = clone(S.raw);
  const old = next.fighters[S.sel];
  const f = formFighter();
  f.id = old.id;
  const at = $("f-at").value.split(",").map((p) => p.trim());
  // as typed: whole numbers become the cell, anything else goes to the reader as written, to be refused
  f.at = at.length >= 2 && at.every((p) => /^-?\d+(\.\d+)?$/.test(p)) ? at.map(Number) : $("f-at").value;
  for (const k of ["tags", "image"]) if (old[k] !== undefined) f[k] = old[k];
  next.fighters[S.sel] = f;
  commit(next, { rerender: false }).then((kept) => { if (kept) renderFighterList(); });
}

let typing = null;
const debounced = (fn) => () => { clearTimeout(typing); typing = setTimeout(fn, 350); };

function renderFighters() {
  const rs = ruleset();
  const tab = $("tab-fighters");
  const sel = S.sel >= 0 ? S.raw.fighters[S.sel] : null;
  const idx = sel ? S.sel : S.raw.fighters.length;
  const sides = [...new Set(["blue", "red", ...S.raw.fighters.map((f) => f.side)])];
  if (sel) S.side = sel.side;
  const sideButtons = sides.map((s) => h("button", { type: "button", "aria-pressed": String(s === S.side), "data-side": s,
    onclick: () => { S.side = s; renderFighters(); if (S.sel >= 0) changeSelected(); } },
  h("span", { class: "dot", style: `background:${sideColour(s)}` }), " " + s));
  const other = h("input", { id: "f-side-new", placeholder: "another side", "data-field": `fighters[${idx}].side`, size: 10 });
  const statField = (st) => {
    const v = sel ? sel[st.name] : (S.lastStats || {})[st.name];
    const range = `${st.min === 0 ? "0" : "any"} or more` + (st.unit ? ` ${st.unit}` : "");
    const need = st.default === null ? "needed" : `default ${st.default}${st.unit ? " " + st.unit : ""}`;
    return h("label", { class: "field stat" },
      h("span", {}, h("b", {}, st.name), st.unit ? ` (${st.unit})` : ""),
      h("input", { id: `f-stat-${st.name}`, type: "number", step: "any", min: st.min, max: st.max, inputmode: "decimal",
        placeholder: st.default === null ? "" : String(st.default), value: v === undefined ? "" : String(v),
        "data-field": `fighters[${idx}].${st.name}`, oninput: onFormInput }),
      h("span", { class: "doc" }, `${st.doc} · ${need}; ${range}`),
      h("span", { class: "err", "data-err": `fighters[${idx}].${st.name}` }));
  };
  // the stats every fighter must be given first; those with a default folded away until wanted
  const needed = rs.stats.filter((st) => st.default === null).map(statField);
  const given = sel ? rs.stats.filter((st) => st.default !== null && sel[st.name] !== undefined).length : 0;
  const optional = rs.stats.filter((st) => st.default !== null);
  const stats = [...needed, optional.length ? h("details", { class: "more-stats", open: given > 0 },
    h("summary", {}, `Stats with a default (${optional.length})`), ...optional.map(statField)) : null];
  tab.replaceChildren(...[
    h("h3", {}, sel ? `Change ${sel.name || sel.id}` : "A new fighter"),
    h("p", { class: "muted" }, sel ? "Each change is checked as you type. Tap another cell to move this fighter there."
      : "Fill in the form, then tap a cell of the map to place the fighter; the form stays filled for the next."),
    h("label", { class: "field" }, "Name", h("input", { id: "f-name", value: sel ? sel.name : (S.formName || "Fighter 1"),
      "data-field": `fighters[${idx}].name`, oninput: onFormInput, autocomplete: "off" }),
    h("span", { class: "err", "data-err": `fighters[${idx}].name` }), h("span", { class: "err", "data-err": `fighters[${idx}].id` })),
    h("div", { class: "field" }, "Side", h("div", { class: "sides" }, ...sideButtons, other,
      h("button", { type: "button", onclick: () => { const s = other.value.trim(); if (s) { S.side = s; renderFighters(); if (S.sel >= 0) changeSelected(); } } }, "Add side")),
    h("span", { class: "err", "data-err": `fighters[${idx}].side` })),
    sel ? h("label", { class: "field" }, "Cell (column,row)", h("input", { id: "f-at", value: sel.at.join(","),
      "data-field": `fighters[${idx}].at`, oninput: onFormInput, inputmode: "numeric", autocomplete: "off" }),
    h("span", { class: "err", "data-err": `fighters[${idx}].at` })) : null,
    h("label", { class: "field" }, "Size", h("select", { id: "f-size", "data-field": `fighters[${idx}].size`, onchange: onFormInput },
      ...S.cat.sizes.map((z) => h("option", { value: z, selected: (sel ? sel.size || "medium" : "medium") === z }, z))),
    h("span", { class: "err", "data-err": `fighters[${idx}].size` })),
    ...stats,
    sel ? null : h("span", { class: "err", "data-err": `fighters[${idx}].at` }),
    h("span", { class: "err", "data-err": `fighters[${idx}]` }),
    h("div", { class: "inline" },
      sel ? h("button", { type: "button", onclick: () => select(-1) }, "New fighter") : null,
      sel ? h("button", { type: "button", onclick: removeSelected }, "Remove") : null),
    h("h3", {}, "Turn order"),
    h("p", { class: "muted" }, "Fighters act in this order (the scenario's initiative); move one up or down."),
    h("ul", { id: "fighter-list", class: "fighter-list" }),
    h("span", { class: "err", "data-err": "fighters" }),
    h("span", { class: "err", "data-err": "encounter.initiative" }),
  ].filter(Boolean));
  renderFighterList();
}

function onFormInput() {
  const f = formFighter();
  if (S.sel < 0) S.formName = $("f-name").value;
  S.lastStats = Object.fromEntries(ruleset().stats.map((st) => [st.name, f[st.name]]).filter(([, v]) => v !== undefined));
  if (S.sel >= 0) debounced(changeSelected)();
  else debounced(checkForm)();
}

async function checkForm() {
  // a new fighter's form checked as typed: the draft with it placed on the first free cell, not kept
  const next = clone(S.raw);
  const f = formFighter();
  f.id = slugId(f.name);
  let spot = null;
  for (let y = 0; y < height() && !spot; y++) for (let x = 0; x < width() && !spot; x++) {
    if (fighterAt(x, y) < 0 && !["wall", "obstacle", "stable"].includes(kindAt(x, y).terrain)) spot = [x, y];
  }
  if (!spot) return;
  f.at = spot;
  next.fighters.push(f);
  const sent = ++asked;
  const { status, data } = await api("POST", `/api/home/drafts/${encodeURIComponent(S.draft.name)}/check`, { scenario: next });
  if (sent !== asked) return;  // a save went out or came back since: its answer stands, not this older check's
  const mine = `fighters[${next.fighters.length - 1}]`;
  if (status !== 200 && data.field && data.field.startsWith(mine) && !data.field.endsWith(".at")) showProblem(data);
  else showProblem(null);
}

function renderFighterList() {
  const list = $("fighter-list");
  if (!list) return;
  list.replaceChildren(...S.raw.fighters.map((f, i) => h("li", { class: i === S.sel ? "sel" : "", "data-fid": f.id },
    h("span", { class: "dot", style: `background:${sideColour(f.side)}` }),
    h("span", { class: "who" }, `${i + 1}. ${f.name || f.id} · ${f.side} · ${f.at[0]},${f.at[1]}`),
    h("button", { type: "button", title: "Change this fighter", onclick: () => select(i) }, "Edit"),
    h("button", { type: "button", title: "Act earlier", disabled: i === 0, onclick: () => reorder(i, -1) }, "↑"),
    h("button", { type: "button", title: "Act later", disabled: i === S.raw.fighters.length - 1, onclick: () => reorder(i, 1) }, "↓"))));
}

function reorder(i, by) {
  const next = clone(S.raw);
  const [f] = next.fighters.splice(i, 1);
  next.fighters.splice(i + by, 0, f);
  if (next.encounter.initiative && next.encounter.initiative.length) next.encounter.initiative = next.fighters.map((x) => x.id);
  S.sel = S.sel === i ? i + by : S.sel;
  commit(next);
}

function removeSelected() {
  const next = clone(S.raw);
  const [gone] = next.fighters.splice(S.sel, 1);
  if (next.encounter.initiative) next.encounter.initiative = next.encounter.initiative.filter((id) => id !== gone.id);
  if (next.encounter.initiative && !next.encounter.initiative.length) delete next.encounter.initiative;
  S.sel = -1;
  commit(next);
}

// ---------- the encounter tab: name, ruleset, seed, settings, rules ----------

function settingInput(s, value) {
  const field = `settings.${s.name}`;
  const on = (v) => {
    const next = clone(S.raw);
    next.settings = { ...(next.settings || {}) };
    if (v === s.default) delete next.settings[s.name]; else next.settings[s.name] = v;
    if (!Object.keys(next.settings).length) delete next.settings;
    commit(next, { rerender: false });
  };
  if (s.choices.length) {
    return h("select", { "data-field": field, onchange: (e) => on(s.choices[e.target.selectedIndex]) },
      ...s.choices.map((c) => h("option", { selected: c === value }, String(c) + (c === s.default ? " (default)" : ""))));
  }
  if (typeof s.default === "boolean") {
    return h("select", { "data-field": field, onchange: (e) => on(e.target.value === "true") },
      h("option", { value: "true", selected: value === true }, "yes" + (s.default === true ? " (default)" : "")),
      h("option", { value: "false", selected: value === false }, "no" + (s.default === false ? " (default)" : "")));
  }
  const input = h("input", { value: String(value), "data-field": field });
  if (typeof s.default === "number") { input.type = "number"; input.step = "any"; }
  input.addEventListener("input", debounced(() => {
    on(typeof s.default === "number" ? (input.value === "" ? s.default : Number(input.value)) : input.value);
  }));
  return input;
}

function renderEncounter() {
  const rs = ruleset();
  const given = S.raw.settings || {};
  const tab = $("tab-encounter");
  const settings = rs.settings.map((s) => {
    const value = s.name in given ? given[s.name] : s.default;
    const input = settingInput(s, value);
    return h("div", { class: "setting" },
      h("div", {}, h("b", {}, s.name), " ", h("span", { class: "muted" }, `default: ${String(s.default)}`)),
      input, h("div", { class: "doc" }, s.doc), h("span", { class: "err", "data-err": `settings.${s.name}` }));
  });
  const name = h("input", { value: S.raw.encounter.name, "data-field": "encounter.name", autocomplete: "off" });
  name.addEventListener("input", debounced(() => {
    const next = clone(S.raw); next.encounter.name = name.value; commit(next, { rerender: false }).then((k) => { if (k) $("title").textContent = name.value; });
  }));
  const seed = h("input", { type: "number", value: String(S.raw.encounter.seed ?? 0), "data-field": "encounter.seed", min: 0 });
  seed.addEventListener("input", debounced(() => {
    const next = clone(S.raw); next.encounter.seed = seed.value === "" ? 0 : Number(seed.value); commit(next, { rerender: false });
  }));
  const pick = h("select", { "data-field": "encounter.ruleset" }, ...S.cat.rulesets.map((r) => h("option", { value: r.id, selected: r.id === rs.id }, `${r.title} (${r.id})`)));
  pick.addEventListener("change", () => changeRuleset(pick.value));
  tab.replaceChildren(
    h("label", { class: "field" }, "Name", name, h("span", { class: "err", "data-err": "encounter.name" })),
    h("label", { class: "field" }, "Ruleset", pick, h("span", { class: "err", "data-err": "encounter.ruleset" })),
    h("p", { class: "muted" }, `${rs.title}: rule ${rs.document_title}; a cell is 1 ${rs.unit}.`),
    h("label", { class: "field" }, "Dice seed", seed, h("span", { class: "doc muted" }, "The seeded dice: another number, other rolls."),
      h("span", { class: "err", "data-err": "encounter.seed" })),
    h("h3", {}, "Settings"), h("p", { class: "muted" }, "Each setting as the ruleset's document words it, with its default."),
    ...settings,
    h("details", {}, h("summary", {}, `The rules of ${rs.id} (${rs.rules.length})`),
      h("ul", { class: "rules" }, ...rs.rules.map((r) => h("li", {}, r.enforce,
        r.default ? h("div", { class: "muted" }, "default ruling: " + r.default) : null)))),
  );
}

function changeRuleset(id) {
  const to = S.cat.rulesets.find((r) => r.id === id);
  const names = new Set(to.stats.map((s) => s.name));
  const from = new Set(ruleset().stats.map((s) => s.name));
  const next = clone(S.raw);
  next.encounter.ruleset = id;
  delete next.settings;  // another ruleset's settings are not this one's
  next.fighters = next.fighters.map((f) => Object.fromEntries(Object.entries(f).filter(([k]) => !from.has(k) || names.has(k))));
  commit(next);
}

// ---------- the map tab: size, Universal VTT file, terrain numbers, walls and doors as text ----------

function renderMap() {
  const tab = $("tab-map");
  const w = h("input", { id: "grid-w", type: "number", min: 1, value: String(width()), "data-field": "map.rows", inputmode: "numeric" });
  const hh = h("input", { id: "grid-h", type: "number", min: 1, value: String(height()), inputmode: "numeric" });
  const sizeTyped = debounced(async () => {  // checked as typed; the map changes only on Resize
    const mine = ++asked;
    const body = { width: Number(w.value), height: Number(hh.value), check: true };
    const { status, data } = await api("POST", `/api/home/drafts/${encodeURIComponent(S.draft.name)}/grid`, body);
    if (mine === asked) showProblem(status === 200 ? null : data);
  });
  w.addEventListener("input", sizeTyped);
  hh.addEventListener("input", sizeTyped);
  const file = h("input", { id: "uvtt", type: "file", accept: ".dd2vtt,.df2vtt,.uvtt,application/json", "data-field": "map.file" });
  file.addEventListener("change", () => { if (file.files[0]) uploadMap(file.files[0]); });
  const doors = (S.raw.map.doors || []).map((d, i) => {
    const at = h("input", { value: d.at, size: 9, "data-field": `map.doors[${i}].at` });
    at.addEventListener("input", debounced(() => {
      const next = clone(S.raw); next.map.doors[i].at = at.value; commit(next, { rerender: false }).then((k) => { if (k) renderMap(); });
    }));
    const state = h("select", { "data-field": `map.doors[${i}].closed` },
      ...["closed", "open", "locked"].map((s) => h("option", { selected: s === (d.locked ? "locked" : d.closed === false ? "open" : "closed") }, s)));
    state.addEventListener("change", () => {
      const next = clone(S.raw);
      next.map.doors[i] = { at: d.at, closed: state.value !== "open", locked: state.value === "locked" };
      commit(next);
    });
    return h("li", {}, "Door ", at, state, h("button", { type: "button", onclick: () => {
      const next = clone(S.raw); next.map.doors.splice(i, 1); if (!next.map.doors.length) delete next.map.doors; commit(next);
    } }, "Remove"), h("span", { class: "err", "data-err": `map.doors[${i}].at` }), h("span", { class: "err", "data-err": `map.doors[${i}]` }));
  });
  const walls = (S.raw.map.walls || []).map((wl, i) => h("li", {},
    h("span", {}, `${WALL_WORDS[wallBlocks(wl)]} ${wallAt(wl)}`),
    h("button", { type: "button", onclick: () => {
      const next = clone(S.raw); next.map.walls.splice(i, 1); if (!next.map.walls.length) delete next.map.walls; commit(next);
    } }, "Remove"), h("span", { class: "err", "data-err": `map.walls[${i}]` })));
  const report = S.draft.report && S.draft.report.length ? h("div", {}, h("h3", {}, "What the import did"),
    h("div", { class: "report", id: "report" }, S.draft.report.join("\n"))) : null;
  tab.replaceChildren(...[
    h("h3", {}, "Size"),
    h("div", { class: "inline" }, h("label", {}, "Width ", w), h("label", {}, "Height ", hh),
      h("button", { type: "button", id: "resize", onclick: () => resize(Number(w.value), Number(hh.value)) }, "Resize")),
    h("span", { class: "err", "data-err": "map.rows" }),
    h("h3", {}, "A Universal VTT map"),
    h("p", { class: "muted" }, "A .dd2vtt, .df2vtt or .uvtt file (Dungeondraft, DungeonFog, Arkenforge, Dungeon Alchemist): its walls and doors on cell edges, its picture under the grid. It replaces this map; the fighters stay."),
    file, h("span", { class: "err", "data-err": "map.file" }),
    report,
    h("h3", {}, "Terrain numbers"),
    h("p", { class: "muted" }, `Painted with the next strokes (in ${ruleset().unit}): a ledge's or obstacle's height, the ground's height, water's depth.`),
    h("div", { class: "inline" },
      h("label", {}, "Height ", h("input", { id: "paint-height", type: "number", step: "any", value: "0", min: 0 })),
      h("label", {}, "Ground ", h("input", { id: "paint-ground", type: "number", step: "any", value: "0" })),
      h("label", {}, "Depth ", h("input", { id: "paint-depth", type: "number", step: "any", value: "0", min: 0 }))),
    h("span", { class: "err", "data-err": "map.legend" }),
    h("h3", {}, "Doors"), h("ul", { class: "door-list" }, ...doors), h("span", { class: "err", "data-err": "map.doors" }),
    h("h3", {}, "Walls"), h("ul", { class: "wall-list" }, ...walls), h("span", { class: "err", "data-err": "map.walls" }),
  ].filter(Boolean));
}

async function resize(w, hgt) {
  asked += 1;
  setSaved("Checking…");
  const { status, data } = await api("POST", `/api/home/drafts/${encodeURIComponent(S.draft.name)}/grid`, { width: w, height: hgt });
  asked += 1;
  if (status !== 200) { setSaved("Not saved", "bad"); showProblem(data); return; }
  S.undo.push(S.raw); S.redo = [];
  S.draft = data; S.raw = data.scenario;
  setSaved("Saved", "good"); showProblem(null); readyState(); render();
}

async function uploadMap(file) {
  asked += 1;
  setSaved("Importing…");
  const bytes = await file.arrayBuffer();
  const { status, data } = await api("POST", `/api/home/drafts/${encodeURIComponent(S.draft.name)}/map?file=${encodeURIComponent(file.name)}`, undefined, bytes);
  asked += 1;
  if (status !== 200) { setSaved("Not saved", "bad"); showProblem(data.field ? data : { field: "map.file", message: data.message }); return; }
  S.undo.push(S.raw); S.redo = [];
  S.draft = data; S.raw = data.scenario;
  setSaved("Saved", "good"); showProblem(null); readyState(); render();
}

// ---------- the page ----------

function showTab(name) {
  S.tab = name;
  document.querySelectorAll(".tabs button").forEach((b) => b.setAttribute("aria-selected", String(b.dataset.tab === name)));
  for (const t of ["encounter", "map", "fighters"]) $(`tab-${t}`).hidden = t !== name;
}

function render() {
  $("title").textContent = S.raw.encounter.name;
  $("tools").replaceChildren(...tools());
  $("hint").textContent = HINTS[S.tool.kind];
  $("undo").disabled = !S.undo.length;
  $("redo").disabled = !S.redo.length;
  if (S.sel >= S.raw.fighters.length) S.sel = -1;
  renderEncounter();
  renderMap();
  renderFighters();
  showTab(S.tab);
  drawBoard();
}

async function open(name) {
  const { status, data } = await api("GET", `/api/home/drafts/${encodeURIComponent(name)}`);
  if (status !== 200) { showProblem({ field: "", message: data.message }); return; }
  S.draft = data; S.raw = data.scenario; S.undo = []; S.redo = [];
  $("create").hidden = true; $("work").hidden = false;
  S.tab = data.scenario.fighters.length ? "fighters" : "map";
  setSaved("Saved", "good");
  readyState();
  render();
}

async function create(body) {
  showProblem(null);
  const { status, data } = await api("POST", "/api/home/drafts", body);
  if (status !== 200) { showProblem(data); return; }
  history.replaceState(null, "", buildHref(data.name));
  await open(data.name);
}

function createForm(fromScenario) {
  $("create").hidden = false; $("work").hidden = true;
  const pick = $("new-ruleset");
  pick.replaceChildren(...S.cat.rulesets.map((r) => h("option", { value: r.id }, `${r.title} (${r.id})`)));
  const words = () => {
    const r = S.cat.rulesets.find((x) => x.id === pick.value);
    $("new-ruleset-words").textContent = `Rule ${r.document_title}; a cell is 1 ${r.unit}; ${r.rules.length} rules, ${r.settings.length} settings (each changeable once the draft is made).`;
  };
  pick.addEventListener("change", words);
  words();
  $("create-blank").addEventListener("click", () => create({ name: $("new-name").value, ruleset: pick.value,
    width: Number($("new-width").value), height: Number($("new-height").value) }));
  if (fromScenario) {
    $("from-scenario-box").hidden = false;
    $("from-scenario-name").textContent = fromScenario;
    $("new-name").placeholder = "the scenario's own name";
    $("create-scenario").addEventListener("click", () => create({ name: $("new-name").value, scenario: fromScenario }));
  }
  $("new-name").focus();
}

async function start() {
  clearTimeout(typing);  // a field's pending check is of a draft that is about to be the encounter
  $("start").disabled = true;
  setSaved("Starting…");
  const { status, data } = await api("POST", `/api/home/drafts/${encodeURIComponent(S.draft.name)}/start`);
  if (status !== 200) { setSaved("Not started", "bad"); showProblem(data); readyState(); return; }
  $("started-title").textContent = `“${data.title}” has started`;
  $("links").replaceChildren(...data.links.map((l) => {
    const fig = h("figure", { "data-role": l.role });
    const qr = document.createElement("div");
    qr.innerHTML = l.qr;  // the server's own SVG drawing of the link
    fig.append(h("figcaption", {}, h("b", {}, l.role === "gm" ? "You (the GM)" : l.role === "watcher" ? "Watchers (view only)" : `Side ${l.role}`)),
      qr, h("input", { readonly: true, value: l.url, onclick: (e) => e.target.select() }),
      h("button", { type: "button", onclick: () => navigator.clipboard && navigator.clipboard.writeText(l.url) }, "Copy link"));
    return fig;
  }));
  $("open-table").href = data.links.find((l) => l.role === "gm").url;
  $("started").hidden = false;
}

async function main() {
  $("home").href = homeHref();
  $("back-home").href = homeHref();
  const { status, data } = await api("GET", "/api/home/rulesets");
  if (status !== 200) { showProblem({ field: "", message: data.message }); return; }
  S.cat = data;
  await readTerrainColours();
  document.querySelectorAll(".tabs button").forEach((b) => b.addEventListener("click", () => showTab(b.dataset.tab)));
  const board = $("board");
  board.addEventListener("pointerdown", onDown);
  board.addEventListener("pointermove", onMove);
  board.addEventListener("pointerup", onUp);
  board.addEventListener("pointercancel", () => { stroke = null; drawBoard(); });
  $("undo").addEventListener("click", undo);
  $("redo").addEventListener("click", redo);
  $("start").addEventListener("click", start);
  document.addEventListener("keydown", (e) => {
    if (e.target.closest("input, select, textarea")) return;
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "z") { e.preventDefault(); e.shiftKey ? redo() : undo(); }
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "y") { e.preventDefault(); redo(); }
  });
  new ResizeObserver(() => { if (S.raw) drawBoard(); }).observe($("board-box"));
  // a Universal VTT file dropped on the map is imported as if picked in the Map tab
  $("board-box").addEventListener("dragover", (e) => { e.preventDefault(); });
  $("board-box").addEventListener("drop", (e) => {
    e.preventDefault();
    const file = e.dataTransfer && e.dataTransfer.files[0];
    if (file && S.draft) { showTab("map"); uploadMap(file); }
  });
  const hash = decodeURIComponent(location.hash.slice(1));
  if (!hash || hash.startsWith("new")) {
    const m = hash.match(/scenario=(.+)$/);
    createForm(m ? decodeURIComponent(m[1]) : "");
  } else await open(hash);
}

main();
