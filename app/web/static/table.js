// The table view: draws what the server sends and sends back what the table asks for.
// It holds no rules: reachable cells, move costs, refusals and table rolls all come from the engine.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const DARK_TERRAIN = new Set(["wall", "gap", "deep-water"]);  // light labels on these
const GLYPHS = {
  difficult: "∴", rough: "∴", hazard: "⚠", trap: "✶", slippery: "≈", unstable: "∿", gap: "▽", ladder: "H", stairs: "≡",
  ledge: "▭", obstacle: "■", deep: "≋", soft: "·", climbable: "↥",
};

const S = {
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
};

const $ = (id) => document.getElementById(id);

// The page is opened from an invitation link, …/join/TOKEN: the token says who this screen speaks
// for (the server writes by= from it) and goes with every request. BASE keeps the page working
// under a path prefix (a reverse proxy, or one server holding many encounters).
const JOIN = location.pathname.match(/^(.*)\/join\/([^/]+)$/);
const BASE = JOIN ? JOIN[1] : "";
const TOKEN = JOIN ? decodeURIComponent(JOIN[2]) : "";

function fmt(cu) {
  const sign = cu < 0 ? "-" : "";
  const a = Math.abs(cu);
  const whole = Math.floor(a / 100), frac = a % 100;
  if (frac === 0) return sign + whole;
  return (sign + whole + "." + String(frac).padStart(2, "0")).replace(/0+$/, "");
}

function el(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k.startsWith("data-")) node.setAttribute(k, v);
    else node[k] = v;
  }
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}

function ruleChip(id) { return h("span", { class: "rule" }, id); }

async function api(method, url, body) {
  const init = { method, headers: { Authorization: "Bearer " + TOKEN } };
  url = BASE + url;
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  try {
    const res = await fetch(url, init);
    let data = {};
    try { data = await res.json(); } catch (_) { data = { message: res.statusText }; }
    if (data.error === "bad link") shutOut(data.message);  // 401/403 for the link itself
    return { status: res.status, data };
  } catch (err) {
    return { status: 0, data: { error: "network", message: "the server can't be reached: " + err } };
  }
}

// A link that stopped working (revoked, expired): the board goes, and the page says why.
function shutOut(message) {
  S.shut = true;
  const box = $("shut");
  box.hidden = false;
  $("shut-reason").textContent = message || "this link no longer opens the table";
  if (S.source) S.source.close();
}

function say(kind, ...parts) {
  const m = $("message");
  m.className = kind;
  m.replaceChildren(...parts.map((p) => (p instanceof Node ? p : document.createTextNode(String(p)))));
}

function sayRefusal(data) {
  say("refused", "Refused by ", ruleChip(data.rule), ": ", h("span", { class: "reason" }, data.reason),
    data.enforce ? h("span", { class: "muted" }, ` (${data.rule}: ${data.enforce})`) : "");
}

// --- loading -------------------------------------------------------------------------------

async function loadLive() {
  const { status, data } = await api("GET", "/api/state");
  if (status !== 200) { say("error", data.message || "the board could not be loaded"); return; }
  const changed = S.board && data.version !== S.version;
  S.version = data.version;
  S.live = true;
  S.board = data;
  if (changed && S.pending) {
    clearPreview();
    say("info", "The board changed on another screen; the preview was cleared.");
  }
  if (S.selected && !data.fighters.some((f) => f.id === S.selected)) S.selected = null;
  render();
  await Promise.all([loadEvents(), S.selected ? loadReach() : Promise.resolve()]);
}

async function loadAt(at) {
  const { status, data } = await api("GET", "/api/state?at=" + at);
  if (status !== 200) { say("error", data.message); return; }
  say("", "");  // what was said was about the live game
  S.version = data.version;
  if (data.live) { await loadLive(); return; }
  S.live = false;
  S.board = data;
  S.reach = null;
  clearPreview();
  render();
  renderEvents();
}

async function loadEvents() {
  const { status, data } = await api("GET", "/api/events");
  if (status !== 200) return;
  S.events = data.events;
  renderEvents();
}

async function loadReach() {
  if (!S.selected || !S.live) { S.reach = null; drawReach(); return; }
  const { status, data } = await api("GET", "/api/reach?fighter=" + encodeURIComponent(S.selected));
  S.reach = status === 200 ? data : null;
  if (status !== 200) say("error", data.message);
  drawReach();
  renderFighter();  // its summary speaks of this area: never leave it naming the last one
}

// --- drawing ---------------------------------------------------------------------------------

function render() {
  const b = S.board;
  document.title = b.name + " · tabletrail";
  $("title").textContent = b.name;
  const t = b.turn;
  $("turn").textContent = `${b.ruleset.id} · round ${t.round}${t.pass > 1 ? ", pass " + t.pass : ""} · ${t.active} to act`;
  $("undo").disabled = !S.live || !b.undo;
  $("redo").disabled = !S.live || !b.redo;
  $("undo").title = b.undo ? `Undo “${b.undo.text}” (Ctrl+Z)` : "nothing to undo";
  $("redo").title = b.redo ? `Redo “${b.redo.text}” (Ctrl+Y)` : "nothing to redo";
  const me = b.me;
  S.me = me;
  document.body.classList.toggle("is-gm", me.gm);
  document.body.classList.toggle("is-player", !me.gm);
  $("role").textContent = me.gm ? "GM" : me.role;
  $("role").title = me.gm ? "this screen speaks for the GM: any fighter, rulings, settings, links"
    : `this screen speaks for ${me.role}: its own fighters, and undo of its own commands`;
  $("role").style.background = me.gm ? "" : sideColour(me.role);
  $("exposed").hidden = !b.exposed;
  const mine = b.commands.filter((c) => me.gm || !c.gm);
  $("verbs").replaceChildren(...mine.map((c) => h("option", { value: c.verb + " " })));
  $("usages").replaceChildren(...mine.map((c) => h("li", {}, h("code", {}, c.usage), c.doc ? " — " + c.doc : "")));
  if (me.gm) renderRulings();
  const scrub = $("scrubber");
  scrub.max = String(S.version);
  scrub.value = String(b.at);
  $("scrub-label").textContent = S.live ? `live: ${S.version} events` : `viewing event ${b.at} of ${S.version}`;
  $("to-live").hidden = S.live;
  const banner = $("banner");
  banner.hidden = S.live;
  banner.textContent = S.live ? "" : `Read-only: the board as it stood after event ${b.at} of ${S.version}. ` +
    "Nothing can be changed from here; “Back to live” returns to the game.";
  for (const id of ["confirm", "command-form-button"]) { const n = $(id); if (n) n.disabled = !S.live; }
  drawBoard();
  renderFighter();
  renderStrip();
}

function drawBoard() {
  const b = S.board, m = b.map;
  const svg = $("board");
  svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
  svg.replaceChildren(el("defs", { id: "defs" }));
  applyView();
  const terrain = el("g", { id: "terrain" });
  const heights = el("g", { id: "heights" });
  const tops = Object.values(m.legend).map((k) => k.ground + k.height - k.depth);
  const highest = Math.max(1, ...tops);
  for (let y = 0; y < m.height; y++) {
    for (let x = 0; x < m.width; x++) {
      const k = m.legend[m.rows[y][x]];
      const rect = el("rect", {
        x, y, width: 1, height: 1, class: `cell t-${k.terrain}`, "data-x": x, "data-y": y,
        "data-cell": `${x},${y}`, "data-terrain": k.terrain,
      });
      rect.append(el("title", {}, `${x},${y} ${k.terrain} [${k.tags.join(", ")}]` +
        (k.ground ? ` ground ${fmt(k.ground)} ${b.ruleset.unit}` : "") +
        (k.height ? ` obstacle ${fmt(k.height)} ${b.ruleset.unit}` : "") +
        (k.depth ? ` depth ${fmt(k.depth)} ${b.ruleset.unit}` : "")));
      terrain.append(rect);
      const top = k.ground + k.height - k.depth;
      if (top > 0 && k.terrain !== "wall") {  // the higher, the darker: a tower reads as one at a glance
        terrain.append(el("rect", { x, y, width: 1, height: 1, class: "raised", "fill-opacity": (0.05 + 0.22 * top / highest).toFixed(3) }));
      }
      if (top) {
        const dark = DARK_TERRAIN.has(k.terrain) ? " on-dark" : "";
        heights.append(el("text", { x: x + 0.06, y: y + 0.28, class: "height" + dark, "data-height": `${x},${y}` }, fmt(top)));
      }
      const glyph = k.tags.map((t) => GLYPHS[t]).find(Boolean);
      if (glyph && k.terrain !== "wall") {
        terrain.append(el("text", { x: x + 0.5, y: y + 0.68, class: "glyph", "text-anchor": "middle" }, glyph));
      }
    }
  }
  const picture = drawPicture(svg);
  svg.append(terrain, el("g", { id: "reach" }), heights, drawWalls(), el("g", { id: "rulings" }), el("g", { id: "links" }),
    el("g", { id: "route" }), el("g", { id: "fighters" }));
  if (picture) terrain.before(picture);
  S.centres = tokenPlaces(b.fighters);
  const rulings = svg.querySelector("#rulings");
  for (const [x, y] of b.rulings.forbid) {
    rulings.append(el("path", { d: `M${x + 0.2},${y + 0.2}L${x + 0.8},${y + 0.8}M${x + 0.8},${y + 0.2}L${x + 0.2},${y + 0.8}`, class: "forbid" }));
  }
  for (const [x, y, , why, target] of b.rulings.test) {
    const t = el("text", { x: x + 0.78, y: y + 0.4, class: "test", "text-anchor": "middle" }, "?");
    t.append(el("title", {}, `test ${target} to cross: ${why}`));
    rulings.append(t);
  }
  drawLinks();
  drawFighters();
  drawReach();
  drawRoute();
  drawTerrainKey();
}

// The battle-map picture ([picture] of the scenario) under the grid: in board units, a cell being 1,
// it is width / pixels_per_grid cells wide with its top-left corner at `origin`, so it zooms and pans
// with the board. The floor cells go clear over it; a picture that fails to load gives the floor back.
function drawPicture(svg) {
  const p = S.board.picture;
  svg.classList.toggle("has-picture", !!p);
  if (!p || !p.width || !p.height) return null;
  const img = el("image", {
    id: "picture", href: `${BASE}${p.url}&token=${encodeURIComponent(TOKEN)}`,
    x: p.origin[0], y: p.origin[1], width: p.width / p.pixels_per_grid, height: p.height / p.pixels_per_grid,
    preserveAspectRatio: "none", "data-name": p.name,
  });
  img.addEventListener("error", () => {
    svg.classList.remove("has-picture");
    img.remove();
    say("error", `The map picture ${p.name} could not be loaded: the server has no file with the bytes this encounter began with.`);
  });
  return img;
}

// Walls on cell edges and doors between two cells (the board's `walls` and `doors`, when the engine
// sends them): a wall is a thick line along a grid line; a door a bar across its edge, brown when
// closed, with a lock when locked, and swung open (a thin leaf on its hinge) when open.
function wallList(b) {
  const raw = b.walls || (b.map && b.map.walls) || [];
  return raw.map((w) => (Array.isArray(w) ? w : String(w).split(/[-,]/).map(Number))).filter((w) => w.length === 4 && w.every(Number.isFinite));
}

function doorList(b) {
  const raw = b.doors || (b.map && b.map.doors) || [];
  return raw.map((d) => {
    const cells = d.cells || String(d.at).split("|").map((c) => c.split(",").map(Number));
    const state = d.state || (d.locked ? "locked" : d.closed === false ? "open" : "closed");
    return { at: d.at || cells.map((c) => c.join(",")).join("|"), cells, state };
  }).filter((d) => d.cells.length === 2 && d.cells.flat().every(Number.isFinite));
}

function drawWalls() {
  const b = S.board, g = el("g", { id: "walls" });
  for (const [x1, y1, x2, y2] of wallList(b)) {
    g.append(el("line", { x1, y1, x2, y2, class: "wall", "data-wall": `${x1},${y1}-${x2},${y2}` }));
  }
  for (const d of doorList(b)) {
    const [[ax, ay], [bx, by]] = d.cells;
    // The edge the two cells share: upright when they sit side by side, level when one is above the other.
    const upright = ay === by;
    const ex = Math.max(ax, bx), ey = Math.max(ay, by);
    const [x1, y1, x2, y2] = upright ? [ex, ay, ex, ay + 1] : [ax, ey, ax + 1, ey];
    const grp = el("g", { class: `door ${d.state}`, "data-door": d.at, "data-state": d.state });
    grp.append(el("title", {}, `door ${d.at}: ${d.state}`));
    if (d.state === "open") {  // the leaf swung a quarter turn on its hinge, the doorway left clear
      grp.append(el("line", { x1, y1, x2: upright ? x1 + 0.9 : x1, y2: upright ? y1 : y1 + 0.9, class: "leaf" }));
      grp.append(el("line", { x1, y1, x2, y2, class: "doorway" }));
    } else {
      grp.append(el("line", { x1: x1 + (upright ? 0 : 0.08), y1: y1 + (upright ? 0.08 : 0),
        x2: x2 - (upright ? 0 : 0.08), y2: y2 - (upright ? 0.08 : 0), class: "slab" }));
      if (d.state === "locked") {
        const cx = (x1 + x2) / 2, cy = (y1 + y2) / 2;
        grp.append(el("circle", { cx, cy, r: 0.15, class: "lock" }));  // a padlock: shackle and body
        grp.append(el("path", { d: `M${cx - 0.05},${cy}v-0.04a0.05,0.05 0 0 1 0.1,0v0.04`, class: "shackle" }));
        grp.append(el("rect", { x: cx - 0.075, y: cy - 0.005, width: 0.15, height: 0.1, rx: 0.015, class: "lock-body" }));
      }
    }
    g.append(grp);
  }
  return g;
}

// The terrains of this map, each as the board draws it, with its name.
function drawTerrainKey() {
  const m = S.board.map, seen = new Map();
  for (const k of Object.values(m.legend)) if (!seen.has(k.terrain)) seen.set(k.terrain, k);
  const key = $("terrain-key");
  key.replaceChildren(...[...seen.values()].map((k) => {
    const swatch = document.createElementNS(SVG, "svg");
    swatch.setAttribute("viewBox", "0 0 1 1");
    swatch.setAttribute("class", "swatch");
    swatch.append(el("rect", { x: 0, y: 0, width: 1, height: 1, class: `cell t-${k.terrain}` }));
    const glyph = k.tags.map((t) => GLYPHS[t]).find(Boolean);
    if (glyph && k.terrain !== "wall") swatch.append(el("text", { x: 0.5, y: 0.72, class: "glyph", "text-anchor": "middle" }, glyph));
    return h("span", { class: "terrain-entry", "data-terrain": k.terrain }, swatch, " " + k.terrain);
  }));
}

// Where each token goes: the middle of its cell, or side by side when a cell holds several
// (some rules let fighters share a square).
function tokenPlaces(fighters) {
  const byCell = {};
  for (const f of fighters) (byCell[`${f.pos[0]},${f.pos[1]}`] ||= []).push(f);
  const out = {};
  for (const group of Object.values(byCell)) {
    const n = group.length;
    const r = n === 1 ? 0.36 : n === 2 ? 0.22 : 0.17;
    group.forEach((f, i) => {
      let dx = 0, dy = 0;
      if (n === 2) dx = i === 0 ? -0.24 : 0.24;
      else if (n > 2) { const a = (2 * Math.PI * i) / n - Math.PI / 2; dx = 0.25 * Math.cos(a); dy = 0.25 * Math.sin(a); }
      out[f.id] = [f.pos[0] + 0.5 + dx, f.pos[1] + 0.5 + dy, r, n];
    });
  }
  return out;
}

function initials(name) {
  const words = name.trim().split(/\s+/);
  return (words.length > 1 ? words[0][0] + words[1][0] : name.slice(0, 2)).toUpperCase();
}

function centre(f) { const c = S.centres[f.id]; return c ? [c[0], c[1]] : [f.pos[0] + 0.5, f.pos[1] + 0.5]; }

// A side's colour: the scenario's ([sides.NAME] colour = …), else its name's colour when it is one,
// else the next of a palette chosen so white names stay readable on every one of them.
const NAMED = { blue: "#2f6fd6", red: "#cf3a2e", green: "#2b8a4b", yellow: "#a8850f", gold: "#a8850f",
  purple: "#8345b8", orange: "#c8620f", teal: "#13837a", pink: "#c2185b", grey: "#5d6670", gray: "#5d6670",
  black: "#333", brown: "#8a5a2b" };
const PALETTE = ["#2f6fd6", "#cf3a2e", "#2b8a4b", "#8345b8", "#c8620f", "#13837a", "#c2185b", "#5d6670"];
function sideColour(side) {
  const b = S.board;
  if (b && b.side_colours && b.side_colours[side]) return b.side_colours[side];
  if (NAMED[side]) return NAMED[side];
  const sides = b ? b.sides.filter((x) => !NAMED[x]) : [];
  const i = Math.max(0, sides.indexOf(side));
  return PALETTE[(i + 2) % PALETTE.length];
}

function drawLinks() {
  const g = $("board").querySelector("#links");
  const byId = Object.fromEntries(S.board.fighters.map((f) => [f.id, f]));
  for (const [kind, a, b] of S.board.links) {
    if (!byId[a] || !byId[b]) continue;
    const [x1, y1] = centre(byId[a]), [x2, y2] = centre(byId[b]);
    const cls = kind === "engaged" || kind === "grab" ? kind : "other";
    const line = el("line", { x1, y1, x2, y2, class: `link ${cls}`, "data-link": `${kind}:${a}:${b}` });
    line.append(el("title", {}, `${a} ${kind} ${b}`));
    g.append(line);
    // Adjacent tokens hide most of the line: a marker halfway says which link it is.
    const mark = el("g", { class: `link-mark ${cls}` });
    mark.append(el("circle", { cx: (x1 + x2) / 2, cy: (y1 + y2) / 2, r: 0.13 }));
    mark.append(el("text", { x: (x1 + x2) / 2, y: (y1 + y2) / 2 + 0.07, "text-anchor": "middle" },
      kind === "engaged" ? "⚔" : kind === "grab" ? "∞" : "·"));
    mark.append(el("title", {}, `${a} ${kind} ${b}`));
    g.append(mark);
  }
  for (const f of S.board.fighters) {
    const d = f.heading;  // where a drift, a push-off or a glide carries it (the server reads the marks)
    if (!d || (!d.dx && !d.dy)) continue;
    const [cx, cy] = centre(f);
    const len = Math.hypot(d.dx, d.dy);
    const reach = Math.min(3, Math.max(1, d.speed || 1.6));
    const ux = d.dx / len, uy = d.dy / len;
    const ex = cx + ux * reach, ey = cy + uy * reach;
    const arrow = el("g", { class: "trajectory", "data-trajectory": f.id });
    arrow.append(el("path", { d: `M${cx},${cy}L${ex},${ey}` }));
    arrow.append(el("path", { class: "head", d: `M${ex},${ey}L${ex - 0.22 * ux + 0.14 * uy},${ey - 0.22 * uy - 0.14 * ux}` +
      `L${ex - 0.22 * ux - 0.14 * uy},${ey - 0.22 * uy + 0.14 * ux}Z` }));
    arrow.append(el("title", {}, `${f.id} ${d.why}`));
    g.append(arrow);
  }
}

// A state worth writing on the board: not the turn (the ring shows it) and not a machine at rest.
function shownStates(f) {
  const rest = S.board.machines || {};
  return Object.entries(f.states).filter(([m, v]) => m !== "turn" && rest[m] !== v).map(([, v]) => v.replace(/_/g, " "));
}

// Fit a label into `width` board units: long ones are squeezed rather than spilling onto the next cell.
function fitted(node, text, width, size) {
  if (text.length * size * 0.56 > width) {
    node.setAttribute("textLength", width.toFixed(3));
    node.setAttribute("lengthAdjust", "spacingAndGlyphs");
  }
  return node;
}

function drawFighters() {
  const g = $("board").querySelector("#fighters");
  for (const f of S.board.fighters) {
    const [cx, cy] = centre(f);
    const [, , r, sharing] = S.centres[f.id] || [0, 0, 0.36, 1];
    const states = shownStates(f);
    const prone = f.states.posture === "prone";
    const airborne = f.pos[2] > f.ground;
    const under = f.pos[2] < f.ground;  // below the cell's surface: swimming under water, down in a gap
    const classes = ["fighter"];
    if (f.id === S.selected) classes.push("selected");
    if (f.active) classes.push("active");
    if (prone) classes.push("prone");
    if (airborne) classes.push("airborne");
    if (under) classes.push("under");
    const grp = el("g", {
      class: classes.join(" "), "data-fid": f.id, "data-x": f.pos[0], "data-y": f.pos[1],
      "data-states": states.join(" "),
    });
    grp.append(el("title", {}, `${f.name} (${f.id}, ${f.side}) at ${f.pos[0]},${f.pos[1]}` +
      ` height ${fmt(f.pos[2])}${states.length ? " · " + states.join(", ") : ""}` +
      (f.damage ? ` · damage ${f.damage}` : "")));
    const k = r / 0.36;  // tokens sharing a cell are drawn smaller
    if (f.active) grp.append(el("circle", { cx, cy, r: r + 0.11 * k, class: "ring" }));
    const colour = sideColour(f.side);
    const token = prone
      ? el("ellipse", { cx, cy: cy + 0.1 * k, rx: 0.42 * k, ry: 0.22 * k, class: "token", fill: colour })
      : el("circle", { cx, cy, r, class: "token", fill: colour });
    grp.append(token);
    if (f.image && !prone) {  // the scenario's picture, clipped round, the side's colour as its rim
      const clip = `clip-${f.id}`;
      $("defs").append(Object.assign(el("clipPath", { id: clip }), {}));
      $("defs").lastChild.append(el("circle", { cx, cy, r: r * 0.86 }));
      grp.append(el("image", { href: `${BASE}/api/image/${encodeURIComponent(f.id)}?token=${encodeURIComponent(TOKEN)}`,
        x: cx - r, y: cy - r, width: 2 * r, height: 2 * r, "clip-path": `url(#${clip})`,
        preserveAspectRatio: "xMidYMid slice", class: "token-image" }));
    } else {
      grp.append(el("text", { x: cx, y: cy + (prone ? 0.2 : 0.1) * k, class: "token-label", "text-anchor": "middle",
        style: `font-size: ${(0.3 * k).toFixed(3)}px` }, initials(f.name)));
    }
    // The name on a plate under the token: what a player looks for on a crowded map. Beside
    // another fighter the plate keeps to its own cell, the first word only ("Ari the Quick" next
    // to "Bo" read "Ari the QuickBo").
    const crowded = S.board.fighters.some((o) => o.id !== f.id && o.pos[1] === f.pos[1] && Math.abs(o.pos[0] - f.pos[0]) === 1);
    let plate = f.name.length > 18 ? f.name.slice(0, 17) + "…" : f.name;
    if (crowded && sharing === 1) plate = plate.split(" ")[0];
    grp.append(fitted(el("text", { x: cx, y: cy - r - 0.06, class: "name-plate", "text-anchor": "middle" }, plate),
      plate, sharing > 1 ? 1 / sharing : crowded ? 0.96 : 2.2, 0.3));
    const badges = [...states];
    if (airborne) badges.push("↑" + fmt(f.pos[2] - f.ground));
    if (under) badges.push("↓" + fmt(f.ground - f.pos[2]));
    if (badges.length) {
      const text = badges.join(" ");
      const width = 0.96 / sharing;
      grp.append(fitted(el("text", { x: cx, y: f.pos[1] + 0.97, class: "badge", "text-anchor": "middle" }, text), text, width, 0.2));
    }
    if (f.damage) {
      const dx = cx + 0.7 * r, dy = cy - 0.7 * r;
      grp.append(el("circle", { cx: dx, cy: dy, r: 0.15 * Math.max(k, 0.7), class: "damage" }));
      grp.append(el("text", { x: dx, y: dy + 0.08, class: "damage-label", "text-anchor": "middle" }, f.damage));
    }
    g.append(grp);
  }
}

function drawReach() {
  const g = $("board").querySelector("#reach");
  if (!g) return;
  g.replaceChildren();
  const r = S.reach;
  if (!r || !S.live) return;
  const events = new Set(r.events.map(([x, y]) => `${x},${y}`));
  const budget = Math.max(r.budget, 1);
  for (const [x, y, cost] of r.cells) {
    const rect = el("rect", {
      x: x + 0.04, y: y + 0.04, width: 0.92, height: 0.92,
      class: "reach" + (events.has(`${x},${y}`) ? " event" : "") + (r.blocked ? " blocked" : ""),
      "fill-opacity": (0.55 - 0.4 * (cost / budget)).toFixed(3),
      "data-x": x, "data-y": y, "data-cost": cost,
    });
    rect.append(el("title", {}, `${x},${y}: ${fmt(cost)} ${r.unit}` +
      (events.has(`${x},${y}`) ? " (something happens here: a check or a stop)" : "") +
      (r.blocked ? ` (but it can't move now: ${r.blocked.rule}: ${r.blocked.reason})` : "")));
    g.append(rect);
    g.append(el("text", { x: x + 0.94, y: y + 0.92, class: "cost", "text-anchor": "end" }, fmt(cost)));
  }
  if (!r.further || r.blocked) return;
  for (const [x, y, cost] of r.further.cells) {  // the middle band: one more action would reach these
    const rect = el("rect", { x: x + 0.04, y: y + 0.04, width: 0.92, height: 0.92, class: "reach-further", "data-x": x, "data-y": y, "data-cost": cost });
    rect.append(el("title", {}, `${x},${y}: ${fmt(cost)} ${r.unit}, past this move's ${fmt(r.budget)} ${r.unit}: needs ${r.further.action}`));
    g.append(rect);
  }
}

function drawRoute() {
  const g = $("board").querySelector("#route");
  if (!g) return;
  g.replaceChildren();
  $("board").classList.toggle("previewing", Boolean(S.preview));  // the route's costs, not the area's
  for (const [x, y] of S.waypoints) g.append(el("circle", { cx: x + 0.5, cy: y + 0.5, r: 0.12, class: "waypoint" }));
  const p = S.preview;
  if (p && p.path && p.from && (!p.ok || !p.moves || !p.moves.length)) {
    // Refused, or waiting for a table roll: the route that was asked for, dashed, so the table sees
    // what was meant (red when refused).
    const kind = p.needs_roll ? "pending" : "refused";
    const pts = [[p.from[0], p.from[1]], ...p.path];
    g.append(el("polyline", { points: pts.map(([x, y]) => `${x + 0.5},${y + 0.5}`).join(" "), class: `path ${kind}`, id: "path" }));
    const [ex, ey] = p.path[p.path.length - 1];
    g.append(el("circle", { cx: ex + 0.5, cy: ey + 0.5, r: 0.16, class: `destination ${kind}` }));
    return;
  }
  if (!p || !p.moves || !p.moves.length) return;
  for (const m of p.moves) {
    const f = S.board.fighters.find((x) => x.id === m.fighter);
    const start = m === p.moves[0] && p.from ? p.from : f ? f.pos : m.steps[0].cell;
    const pts = [[start[0], start[1]], ...m.steps.map((s) => s.cell)];
    g.append(el("polyline", { points: pts.map(([x, y]) => `${x + 0.5},${y + 0.5}`).join(" "), class: "path", id: "path" }));
    for (const s of m.steps) {
      g.append(el("text", { x: s.cell[0] + 0.5, y: s.cell[1] + 0.34, class: "stepcost", "text-anchor": "middle" }, fmt(s.cost)));
    }
    const last = pts[pts.length - 1];
    g.append(el("circle", { cx: last[0] + 0.5, cy: last[1] + 0.5, r: 0.16, class: "destination" }));
  }
}

// The GM's own panel: the rulings and settings verbs (the command box takes them), and the links.
function renderRulings() {
  const gmVerbs = S.board.commands.filter((c) => c.gm);
  $("ruling-verbs").replaceChildren(...gmVerbs.map((c) => h("button", {
    type: "button", class: "small", "data-verb": c.verb, title: c.usage + (c.doc ? " — " + c.doc : ""),
    onclick: () => { $("command").value = c.verb + " "; $("command").focus(); },
  }, c.verb)));
}

async function loadInvites() {
  if (!S.me || !S.me.gm) return;
  const { status, data } = await api("GET", "/api/invites");
  if (status !== 200) return;
  const open = data.invites.filter((i) => !i.revoked && !(i.expires && i.expires * 1000 < Date.now()));
  $("invite-list").replaceChildren(...open.map((i) => h("li", { "data-invite": i.id },
    h("span", { class: "chip", style: `background:${i.role === "gm" ? "#2d3a4a" : sideColour(i.role)}` }, i.role),
    " " + (i.label || i.id) + " ",
    i.id === S.me.invite ? h("span", { class: "muted" }, "(this screen)") :
      h("button", { type: "button", class: "small", title: "The link stops working at once, its open page too",
        onclick: () => revokeInvite(i) }, "revoke"))));
  const role = $("invite-role");
  const chosen = role.value;
  role.replaceChildren(...[...S.board.sides, "gm"].map((s) => h("option", { value: s, selected: s === chosen }, s)));
}

async function makeInvite(ev) {
  ev.preventDefault();
  const { status, data } = await api("POST", "/api/invites", { role: $("invite-role").value, label: $("invite-label").value.trim() });
  if (status !== 200) { say("error", data.message); return; }
  const out = $("invite-made");
  out.hidden = false;
  $("invite-url").value = data.url;
  $("invite-url").select();
  $("invite-label").value = "";
  await loadInvites();
}

async function revokeInvite(i) {
  const { status, data } = await api("POST", `/api/invites/${encodeURIComponent(i.id)}/revoke`, {});
  if (status === 200) say("info", `Revoked the ${i.role} link ${i.label || i.id}: it stopped working.`);
  else say("error", data.message);
  await loadInvites();
}

function renderFighter() {
  const box = $("fighter-info"), quick = $("quick");
  const f = S.board.fighters.find((x) => x.id === S.selected);
  quick.replaceChildren();
  if (!f) { box.className = "muted"; box.textContent = "Click a fighter on the board."; return; }
  box.className = "";
  const unit = S.board.ruleset.unit;
  const states = Object.entries(f.states).map(([k, v]) => `${k} ${v}`).join(", ") || "—";
  const spent = f.spent_text.join(", ") || "—";
  const marks = Object.entries(f.marks).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(", ") || "—";
  const links = S.board.links.filter(([, a, b]) => a === f.id || b === f.id).map(([k, a, b]) => `${a} ${k} ${b}`).join(", ") || "—";
  const stats = Object.entries(f.stats).map(([k, v]) => `${k} ${v}`).join(", ");
  box.replaceChildren(
    h("div", {}, h("b", {}, f.name), ` (${f.id}, ${f.side}) at ${f.pos[0]},${f.pos[1]}, height ${fmt(f.pos[2])} ${unit}`),
    h("div", {}, "stats: " + stats),
    h("div", {}, "states: " + states),
    h("div", {}, "spent: " + spent + ` · damage ${f.damage}`),
    h("div", {}, "marks: " + marks),
    h("div", {}, "links: " + links),
    reachSummary(f),
  );
  if (!S.live) return;
  loadOptions(f.id);
}

// The quick commands: only those the rules allow right now (one batched dry run on the server);
// the rest wait under "more", each saying why not.
async function loadOptions(fid) {
  const want = `${fid}@${S.version}`;
  if (S.options && S.options.key === want) { drawOptions(S.options.data); return; }
  if (S.optionsFor === want) return;  // asked already; its answer draws them
  S.optionsFor = want;
  const { status, data } = await api("GET", "/api/options?fighter=" + encodeURIComponent(fid));
  if (S.optionsFor === want) S.optionsFor = null;
  if (status !== 200) return;
  S.options = { key: want, data };
  if (S.selected === fid && `${fid}@${S.version}` === want) drawOptions(data);
}

function drawOptions(data) {
  const quick = $("quick");
  const button = (o) => h("button", { type: "button", "data-verb": o.verb, title: `Preview “${o.text}”: ${o.doc || ""}`,
    onclick: () => startPreview({ text: o.text }) }, o.verb);
  const allowed = data.options.filter((o) => o.ok), refused = data.options.filter((o) => !o.ok);
  quick.replaceChildren(...allowed.map(button));
  if (!allowed.length) quick.append(h("span", { class: "muted" }, "No quick command is allowed now. "));
  if (refused.length) {
    quick.append(h("details", { class: "more" }, h("summary", {}, `more (${refused.length} not allowed now)`),
      h("ul", {}, ...refused.map((o) => h("li", { "data-verb": o.verb }, h("code", {}, o.verb), " — ",
        ruleChip(o.rule), " " + o.reason)))));
  }
}

function reachSummary(f) {
  const r = S.reach;
  const box = h("div", { id: "reach-summary" });
  if (!r || r.fighter !== f.id) return box;
  box.append(`reach: ${r.cells.length} cells, ${fmt(r.budget)} ${r.unit} left to spend`);
  if (r.blocked) {
    box.className = "blocked-note";
    box.append(h("br"), "but it can't move now: ", ruleChip(r.blocked.rule), " " + r.blocked.reason);
  } else if (!r.cells.length) {
    box.append(" (no cell is within reach)");
  }
  return box;
}

function renderEvents() {
  const list = $("events");
  const at = S.board ? S.board.at : Infinity;
  list.replaceChildren(...S.events.map((e) => {
    const cls = [e.status, e.seq > at && !S.live ? "future" : "", e.seq === S.explainSeq ? "chosen" : ""].filter(Boolean).join(" ");
    return h("li", { class: cls, "data-seq": e.seq, onclick: () => explain(e.seq) },
      `${e.seq} · ${e.text} `, ...e.rules.map(ruleChip), ...why(e));
  }));
  if (S.live) { list.scrollTop = list.scrollHeight; return; }
  const now = list.querySelector(`li[data-seq="${at}"]`);  // the point the board shows, mid-list
  if (now) list.scrollTop = now.offsetTop - list.clientHeight / 2;
}

// Why an event happened, in the rule's own words: inline after the sentence, never only a tooltip.
function why(e) {
  return e.note ? [h("span", { class: "why" }, ` — ${e.note}`)] : [];
}

function ruleLine(r) {
  return h("div", { class: "rule-line" }, ruleChip(r.id), " " + (r.enforce || "") + (r.default ? ` (default ruling: ${r.default})` : ""));
}

function cardText(c) {
  if (!c) return "—";
  return `${c.pos[0]},${c.pos[1]} height ${fmt(c.pos[2])}; spent ${c.spent_text.join(", ") || "nothing"}; ` +
    `damage ${c.damage}; may still move ${c.move_left_text}` +
    (Object.keys(c.states).length ? "; " + Object.entries(c.states).map(([k, v]) => `${k} ${v}`).join(", ") : "");
}

function fightersBlock(fighters) {
  return h("div", {}, ...fighters.map((f) => h("div", { class: "fighter-change" },
    h("b", {}, f.id), ": ", cardText(f.before), " → ", cardText(f.after))));
}

function checksBlock(checks) {
  return h("ul", { class: "checks" }, ...checks.map((c) => h("li", {},
    `${c.fighter}: ${c.check} check, ${c.source} `,
    c.hidden ? h("i", {}, "number hidden until the command is confirmed") : `rolled ${c.number}` +
      (c.modifier ? ` ${c.modifier > 0 ? "+" : ""}${c.modifier} = ${c.total}` : "") +
      (c.target !== null ? ` against ${c.target}: ${c.passed ? "passed" : "failed"}` : ""),
    " ", ...c.rules.map(ruleChip))));
}

async function explain(seq) {
  S.explainSeq = seq;
  const { status, data } = await api("GET", "/api/events/" + seq);
  const box = $("explain");
  if (status !== 200) { box.textContent = data.message; return; }
  box.className = "";
  const c = data.command;
  const parts = [
    h("div", {}, h("b", {}, `#${data.seq} ${data.type}`), ` · batch ${data.batch} · ${data.status}`),
    h("div", {}, data.text),
    h("div", {}, "command: ", h("code", {}, c.text), ` by ${c.by} (entered by ${c.actor} at ${c.at})` + (c.why ? ` · why: ${c.why}` : "")),
  ];
  if (data.note) parts.push(h("div", {}, "note: " + data.note));
  parts.push(h("div", {}, h("b", {}, "rules")), ...data.rules.map(ruleLine));
  const more = data.batch_rules.filter((r) => !data.rules.some((x) => x.id === r.id));
  if (more.length) parts.push(h("div", { class: "muted" }, "the rest of the batch cites:"), ...more.map(ruleLine));
  for (const m of data.moves) parts.push(stepsTable(m));
  if (data.checks.length) parts.push(checksBlock(data.checks));
  if (data.fighters.length) parts.push(h("div", {}, h("b", {}, "before → after")), fightersBlock(data.fighters));
  const bearing = data.settings.filter((x) => x.bears);
  if (bearing.length) parts.push(h("div", {}, "settings in force: " + bearing.map((x) => `${x.name} = ${JSON.stringify(x.value)}`).join(", ")));
  if (data.rulings.made_here.length) parts.push(h("div", {}, "GM ruling: " + data.rulings.made_here.map((r) => `${r.kind}: ${r.why}`).join("; ")));
  if (data.events.length > 1) {
    parts.push(h("div", {}, "same batch: " + data.events.map((e) => `#${e.seq} ${e.event.type}`).join(" · ")));
  }
  parts.push(h("details", {}, h("summary", {}, "the event as logged"), h("pre", {}, JSON.stringify(data.event))));
  box.replaceChildren(...parts);
  renderEvents();
}

// A move step by step; its line in words comes from the server (render.Words), as `explain` prints it.
function stepsTable(m) {
  const n = (v) => (m.length ? fmt(v) : String(v));
  const rows = m.steps.map((s) => h("tr", {},
    h("td", {}, String(s.n)), h("td", {}, `${s.cell[0]},${s.cell[1]}`), h("td", {}, n(s.cost)),
    h("td", {}, n(s.total)), h("td", {}, n(s.left)),
    h("td", {}, [s.terrain, s.diagonal ? "diagonal" : "", s.mode].filter(Boolean).join(", "))));
  const line = h("div", { class: "move-line" }, m.text + " ", ...m.rules.map(ruleChip));
  if (!rows.length) return h("div", {}, line);  // stopped before its first step: no table of none
  return h("div", {}, line,
    h("table", { class: "steps" },
      h("tr", {}, ...["#", "to", m.cost_unit, "total", "left", "why"].map((t) => h("th", {}, t))), ...rows));
}

// --- the view: zoom and pan ----------------------------------------------------------------------
// The map is drawn once in board units (a cell is 1); the viewBox says which part shows, and how big.
// V.z is CSS pixels per cell. At first the whole map shows if its cells are big enough to read and
// tap (MIN_CELL), else MIN_CELL-sized cells around the fighter that matters to this screen.

const MIN_CELL = 44;   // CSS px: a fingertip
const MAX_CELL = 160;
const V = { z: 0, cx: 0, cy: 0, auto: true };

function boardPixels() {
  const r = $("board").getBoundingClientRect();
  return [Math.max(r.width, 1), Math.max(r.height, 1), r];
}

function fitZoom() {
  const [w, h] = boardPixels(), m = S.board.map;
  return Math.min(w / m.width, h / m.height);
}

function focusFighter() {
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

function applyView() {
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

function zoomAt(px, py, factor) {
  const [w, h, r] = boardPixels();
  const min = Math.min(fitZoom(), MIN_CELL) * 0.8;
  const before = toBoard(px, py);
  V.z = Math.min(MAX_CELL, Math.max(min, V.z * factor));
  V.cx = before[0] - (px - r.left - w / 2) / V.z;
  V.cy = before[1] - (py - r.top - h / 2) / V.z;
  V.auto = false;
  applyView();
}

function zoomCentre(factor) {
  const [w, h, r] = boardPixels();
  zoomAt(r.left + w / 2, r.top + h / 2, factor);
}

function fitMap() {
  const m = S.board.map;
  V.z = Math.min(MAX_CELL, fitZoom());
  V.cx = m.width / 2; V.cy = m.height / 2;
  V.auto = false;
  applyView();
}

function centreOnSelected() {
  const f = S.board.fighters.find((x) => x.id === S.selected) || focusFighter();
  if (!f) return;
  [V.cx, V.cy] = centre(f);
  if (V.z < MIN_CELL) V.z = MIN_CELL;
  V.auto = false;
  applyView();
}

// A point of the screen in board units (x to the right, y down, a cell is 1).
function toBoard(px, py) {
  const svg = $("board");
  const p = new DOMPoint(px, py).matrixTransform(svg.getScreenCTM().inverse());
  return [p.x, p.y];
}

function cellAt(px, py) {
  const [x, y] = toBoard(px, py), m = S.board.map;
  const cx = Math.floor(x), cy = Math.floor(y);
  return cx >= 0 && cy >= 0 && cx < m.width && cy < m.height ? [cx, cy] : null;
}

// --- pointers: pan the board, drag a token, pinch to zoom (mouse, touch and pen alike) -----------

const P = { pointers: new Map(), down: null, mode: null, pinch: null, suppress: false };
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
  const fid = tok && canCommand(tok.dataset.fid) && S.live ? tok.dataset.fid : null;
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
    const min = Math.min(fitZoom(), MIN_CELL) * 0.8;
    V.z = Math.min(MAX_CELL, Math.max(min, P.pinch.z * Math.hypot(x2 - x1, y2 - y1) / P.pinch.d));
    const mx = (x1 + x2) / 2, my = (y1 + y2) / 2;
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
    P.mode = d.fid ? "drag" : "pan";
    capture(ev);
    if (P.mode === "drag") startDrag(d.fid);
    else $("board").classList.add("panning");
  }
  if (P.mode === "pan") {
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

// May this screen command that fighter? (The server decides; this only spares a drag it would refuse.)
function canCommand(fid) {
  const f = S.board.fighters.find((x) => x.id === fid);
  return Boolean(f && S.me && (S.me.gm || S.me.role === f.side));
}

// --- the turn strip ---------------------------------------------------------------------------------

function renderStrip() {
  const b = S.board, t = b.turn;
  const byId = Object.fromEntries(b.fighters.map((f) => [f.id, f]));
  const order = (t.order.length ? t.order : b.fighters.map((f) => f.id)).filter((id) => byId[id]);
  const label = h("span", { class: "turn-label" }, `Round ${t.round}${t.pass > 1 ? ` · pass ${t.pass}` : ""}`);
  $("strip").replaceChildren(label, ...order.map((id) => {
    const f = byId[id];
    const cls = [f.active ? "active" : "", f.id === S.selected ? "selected" : "", canCommand(f.id) && !S.me.gm ? "mine" : ""];
    const left = [f.move_left_text + " to move", ...(f.spent_text.length ? ["spent " + f.spent_text.join(", ")] : [])];
    if (f.turn_text) left.unshift(f.turn_text);
    return h("button", { type: "button", class: cls.filter(Boolean).join(" "), "data-fid": f.id,
      title: `${f.name} (${f.side})${f.active ? ", acting now" : ""}: ${left.join(", ")}. Click to select.`,
      onclick: () => selectFighter(f.id, true) },
    h("span", { class: "dot", style: `background:${sideColour(f.side)}` }),
    h("span", {}, h("span", { class: "who" }, f.name), h("br"), h("span", { class: "left" }, left.join(" · "))));
  }));
  const active = $("strip").querySelector("button.active");
  if (active && active.scrollIntoView) active.scrollIntoView({ block: "nearest", inline: "nearest" });
}

function selectFighter(fid, centreIt) {
  S.selected = fid === S.selected && !centreIt ? null : fid;
  clearPreview();
  drawBoard();
  renderFighter();
  renderStrip();
  if (centreIt && S.selected) {
    const f = S.board.fighters.find((x) => x.id === S.selected);
    const [w, h] = boardPixels();
    const [x, y] = centre(f);
    const vw = w / V.z, vh = h / V.z;
    if (Math.abs(x - V.cx) > vw / 2 - 1 || Math.abs(y - V.cy) > vh / 2 - 1) centreOnSelected();  // only if off view
  }
  loadReach().then(renderFighter);
}

const NARROW = window.matchMedia("(max-width: 760px)");

function setDrawer(open) {
  document.body.classList.toggle("drawer-open", open);
  $("drawer-toggle").setAttribute("aria-expanded", String(open));
}

// --- drag to move, with a live ruler ---------------------------------------------------------------
// The route and its running cost come from the engine's reachable area (the server sends the
// cheapest route to every cell it holds); the browser only looks them up. Out of the area, the
// ruler says so and a drop asks the engine anyway, so its refusal and reason are shown. A pause
// on a cell (or W) makes it a waypoint: from there the route is the engine's dry run of the
// waypoints joined by straight lines, as Shift+click makes them. A drop opens the same preview.

// How long the pointer must rest on a cell to make it a waypoint (a slow hand or a test may set it).
const pauseMs = () => window.TABLETRAIL_PAUSE_MS || 800;

async function startDrag(fid) {
  if (S.selected !== fid) {
    S.selected = fid;
    clearPreview();
    drawBoard();
    renderFighter();
    renderStrip();
  } else {
    clearPreview();
  }
  S.drag = { fid, cell: null, waypoints: [], timer: null, ask: 0, dry: null };
  $("board").classList.add("dragging");
  if (!S.reach || S.reach.fighter !== fid || S.reach.version !== S.version) await loadReach();
  if (S.drag && S.drag.cell) drawRuler();
}

function dragOver(px, py) {
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

function addWaypoint() {
  const d = S.drag;
  if (!d || !d.cell) return;
  const f = S.board.fighters.find((x) => x.id === d.fid);
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

// The cheapest route to a cell ("x,y") as [x, y, running cost] steps, read from the reach answer's
// tree of steps (each step's last number is the step before it, -1 from the start).
function routeTo(r, key) {
  if (!r || !r.tree || !(key in r.tree.ends)) return null;
  const out = [];
  for (let i = r.tree.ends[key]; i >= 0; i = r.tree.steps[i][3]) out.push(r.tree.steps[i].slice(0, 3));
  return out.reverse();
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
  const f = S.board.fighters.find((x) => x.id === d.fid);
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
      kind = band(route[route.length - 1][2], true, events.has(d.cell.join(",")));
      const cost = route[route.length - 1][2];
      words = kind === "further"
        ? `${fmt(cost)} ${unit}: past this move's ${fmt(S.reach.budget)}, needs ${S.reach.further.action}`
        : `${fmt(cost)} ${unit} of ${fmt(S.reach.budget)}` + (kind === "event" ? " · a check or stop there" : "");
      route.forEach(([x, y, total], i) => {
        if (i === route.length - 1) return;
        g.append(el("circle", { cx: x + 0.5, cy: y + 0.5, r: 0.07, class: `ruler-dot ${kind}` }));
        void total;
      });
    } else if (d.cell[0] === from[0] && d.cell[1] === from[1]) {
      pts = [from]; kind = "in"; words = "drop here to stay";
    } else {
      pts = [from, d.cell]; kind = "out"; words = "out of reach";
    }
  } else {
    const cells = dragCells();
    pts = [from, ...cells];
    const dry = d.dry;
    if (!dry) { kind = "pending"; words = "…"; }
    else if (dry.ok) {
      const moves = dry.moves || [];
      const m = moves[0];
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

function placeTip() {
  const d = S.drag, tip = $("ruler-tip");
  if (!d || d.px === undefined) return;
  const r = $("board-box").getBoundingClientRect();
  tip.style.left = `${d.px - r.left}px`;
  tip.style.top = `${d.py - r.top}px`;
  // Beside the pointer, on the side with room; above a fingertip, which would hide it.
  tip.classList.toggle("flip", d.px - r.left > r.width - Math.max(150, tip.offsetWidth + 30));
  tip.classList.toggle("touch", P.touch);
}

function endDrag() {
  const d = S.drag;
  if (d) { clearTimeout(d.timer); clearTimeout(d.dryTimer); }
  S.drag = null;
  $("ruler-tip").hidden = true;
  $("board").classList.remove("dragging");
}

function cancelDrag() {
  endDrag();
  drawRoute();
}

async function dropAt(px, py) {
  const d = S.drag;
  if (!d) return;
  dragOver(px, py);
  const cell = d.cell;
  const wps = d.waypoints;
  const cells = dragCells();
  endDrag();
  const f = S.board.fighters.find((x) => x.id === d.fid);
  if (!cell) { drawRoute(); say("refused", "Dropped off the board: nothing was moved."); return; }
  if (!wps.length && cell[0] === f.pos[0] && cell[1] === f.pos[1]) { drawRoute(); return; }
  if (wps.length) {
    S.waypoints = cells;
    await startPreview({ move: { fighter: d.fid, waypoints: S.waypoints } });
  } else {
    S.waypoints = [];
    await startPreview({ move: { fighter: d.fid, to: cell } });  // exactly what a click on the cell sends
  }
}

// --- acting ------------------------------------------------------------------------------------

function clearPreview() {
  S.pending = null; S.preview = null; S.rolls = []; S.waypoints = [];
  $("preview-panel").hidden = true;
  $("roll-panel").hidden = true;
  drawRoute();
}

function startPreview(body) {
  if (!S.live) { say("info", "This is a past point of the timeline: go back to live to act."); return; }
  S.pending = body;
  S.rolls = [];
  return runPreview();
}

async function runPreview() {
  const body = { ...S.pending, rolls: S.rolls, version: S.version, reveal: S.me.gm && $("reveal").checked };
  const { status, data } = await api("POST", "/api/preview", body);
  if (status === 409) { say("error", data.message); clearPreview(); await loadLive(); return; }
  if (status !== 200) { say("error", data.message); S.preview = null; drawRoute(); return; }
  S.preview = data;
  const panel = $("preview-panel"), box = $("preview");
  panel.hidden = false;
  if (NARROW.matches) {  // on a phone the preview is in the drawer: open it, the destination above it
    setDrawer(true);
    const end = data.path && data.path.length ? data.path[data.path.length - 1]
      : data.moves && data.moves.length ? data.moves[data.moves.length - 1].steps.slice(-1)[0]?.cell : null;
    if (end) {
      const covered = $("panel").getBoundingClientRect().height;
      const from = data.from || end;  // the whole route, between where it starts and ends
      V.cx = (from[0] + end[0]) / 2 + 0.5;
      V.cy = (from[1] + end[1]) / 2 + 0.5 + covered / 2 / V.z;
      V.auto = false;
      applyView();
    }
  }
  panel.scrollIntoView({ block: "nearest" });
  if (!data.ok && data.needs_roll) {
    askRoll(data);
    box.replaceChildren(h("div", {}, h("code", {}, data.text)), h("div", { class: "muted" }, "waiting for a table roll…"));
    $("confirm").disabled = true;
    drawRoute();
    return;
  }
  $("roll-panel").hidden = true;
  if (!data.ok) {
    box.replaceChildren(h("div", {}, h("code", {}, data.text)),
      h("div", { class: "refusal" }, "Refused by ", ruleChip(data.rule), ": ", data.reason),
      h("div", { class: "muted" }, data.rule + ": " + data.enforce));
    sayRefusal(data);
    $("confirm").disabled = true;
    drawRoute();
    return;
  }
  say("", "");
  $("confirm").disabled = false;
  box.replaceChildren(
    h("div", {}, h("code", { id: "preview-text" }, data.text)),
    ...data.moves.map(stepsTable),
    h("div", {}, h("b", {}, "What happens")),
    h("ul", { id: "consequences" }, ...data.events.map((e) => h("li", {}, e.text + " ", ...e.rules.map(ruleChip), ...why(e)))),
    data.checks.some((c) => c.hidden) ? h("div", { class: "muted", id: "hidden-note" },
      "A seeded check is drawn when you confirm: its number, its outcome and what follows stay hidden until then.") : "",
    data.checks.length ? checksBlock(data.checks) : "",
    fightersBlock(data.fighters),
    h("details", {}, h("summary", {}, "rules in play"), ...data.rules.map(ruleLine)),
  );
  drawRoute();
}

function askRoll(data) {
  $("roll-panel").hidden = false;
  $("roll-reason").replaceChildren(ruleChip(data.rule), " " + data.reason);
  const input = $("roll-input");
  input.value = "";
  input.focus();
}

// A key of this page's own for each command it sends: sent again after a dropped connection,
// the server answers with what the first one appended and appends nothing new.
function commandKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));  // works on plain http too, unlike randomUUID
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

async function send(path, body) {
  const keyed = { ...body, command_id: commandKey() };
  let answer = await api("POST", path, keyed);
  if (answer.status === 0) answer = await api("POST", path, keyed);  // once more, the same key
  return answer;
}

async function confirmPending() {
  if (!S.pending || !S.preview || !S.preview.ok) return;
  const body = { ...S.pending, rolls: S.rolls, version: S.version };
  const { status, data } = await send("/api/do", body);
  if (status === 200) {
    clearPreview();
    say("info", `Done: ${data.text} (${data.records.length} events)`);
    S.version = data.version;
    await loadLive();
    return;
  }
  if (status === 422 && data.needs_roll) { askRoll(data); return; }
  if (status === 422) { sayRefusal(data); return; }
  say("error", data.message || "the command failed");
  if (status === 409) { clearPreview(); await loadLive(); }
}

async function undoRedo(kind) {
  if (!S.live) return;
  const target = S.board && S.board[kind];
  const { status, data } = await send("/api/" + kind, { version: S.version });
  if (status === 200) say("info", `${kind === "undo" ? "Undone" : "Redone"}: ${target ? target.text : data.records.map((r) => r.text).join("; ")}`);
  else if (status === 422) sayRefusal(data);
  else say("error", data.message);
  clearPreview();
  await loadLive();
}

function onBoardClick(ev) {
  if (!S.board || P.suppress) return;
  const fighter = ev.target.closest("[data-fid]");
  if (fighter && !ev.shiftKey) {
    selectFighter(fighter.dataset.fid, false);
    return;
  }
  const cell = ev.target.closest("[data-x]");
  if (!cell || !S.live) return;
  if (!S.selected) { say("info", "Select a fighter first."); return; }
  const x = Number(cell.dataset.x), y = Number(cell.dataset.y);
  if (ev.shiftKey) {
    S.waypoints = [...S.waypoints, [x, y]];
    startPreview({ move: { fighter: S.selected, waypoints: S.waypoints } });
    S.waypoints = S.pending.move.waypoints;
  } else {
    S.waypoints = [];
    startPreview({ move: { fighter: S.selected, to: [x, y] } });
  }
}

let scrubTimer = null;
function onScrub() {
  const at = Number($("scrubber").value);
  clearTimeout(scrubTimer);
  scrubTimer = setTimeout(() => (at >= S.version ? loadLive() : loadAt(at)), 60);
}

function onKey(ev) {
  const typing = ["INPUT", "TEXTAREA", "SELECT"].includes(ev.target.tagName) && ev.target.type !== "range";
  if (ev.key === "Escape" && S.drag) { cancelDrag(); return; }
  if (!typing && S.drag && (ev.key === "w" || ev.key === "W")) { addWaypoint(); return; }
  if (!typing && !ev.ctrlKey && !ev.metaKey && S.board) {
    if (ev.key === "+" || ev.key === "=") { zoomCentre(1.25); return; }
    if (ev.key === "-" || ev.key === "_") { zoomCentre(0.8); return; }
    if (ev.key === "0") { fitMap(); return; }
    if (ev.key === "c" || ev.key === "C") { centreOnSelected(); return; }
  }
  if (ev.key === "Escape") { setDrawer(false); clearPreview(); if (!typing) { S.selected = null; S.reach = null; if (S.board) { drawBoard(); renderFighter(); } } return; }
  if (typing) return;
  const mod = ev.ctrlKey || ev.metaKey;
  if (!mod) return;
  const key = ev.key.toLowerCase();
  if (key === "z" && !ev.shiftKey) { ev.preventDefault(); undoRedo("undo"); }
  else if (key === "y" || (key === "z" && ev.shiftKey)) { ev.preventDefault(); undoRedo("redo"); }
}

function listen() {
  // Server-sent events: the server says the log's version whenever it changes.
  const source = new EventSource(BASE + "/api/stream?token=" + encodeURIComponent(TOKEN));
  S.source = source;
  source.addEventListener("denied", (msg) => { shutOut(JSON.parse(msg.data).message); });
  // The server ends each stream now and then and the browser reconnects at once: say "reconnecting"
  // only when that takes longer than a moment, so the badge doesn't blink.
  const badge = $("live");
  // "Open again since that error", not "open at this instant": with frequent renewals the instant
  // can fall inside the next renewal's reconnect, and the badge would blink.
  let opens = 0;
  source.addEventListener("open", () => { opens += 1; badge.className = "on"; badge.textContent = "following live"; });
  source.addEventListener("error", () => {
    const seen = opens;
    setTimeout(() => {
      if (opens === seen && !S.shut) { badge.className = "off"; badge.textContent = "reconnecting…"; }
    }, 2000);
  });
  source.addEventListener("version", async (msg) => {
    const { version } = JSON.parse(msg.data);
    if (version === S.version) return;
    if (S.live) await loadLive();
    else {
      S.version = version;
      $("scrubber").max = String(version);
      $("scrub-label").textContent = `viewing event ${S.board.at} of ${version}`;
      await loadEvents();
    }
  });
}

function start() {
  const board = $("board");
  board.addEventListener("click", onBoardClick);
  board.addEventListener("pointerdown", onPointerDown);
  board.addEventListener("pointermove", onPointerMove);
  board.addEventListener("pointerup", onPointerUp);
  board.addEventListener("pointercancel", onPointerUp);
  board.addEventListener("wheel", onWheel, { passive: false });
  new ResizeObserver(() => applyView()).observe(board);
  $("zoom-in").addEventListener("click", () => zoomCentre(1.25));
  $("zoom-out").addEventListener("click", () => zoomCentre(0.8));
  $("fit").addEventListener("click", fitMap);
  $("centre-on").addEventListener("click", centreOnSelected);
  $("drawer-toggle").addEventListener("click", () => setDrawer(!document.body.classList.contains("drawer-open")));
  $("confirm").addEventListener("click", confirmPending);
  $("cancel").addEventListener("click", () => { clearPreview(); say("", ""); });
  $("reveal").addEventListener("change", () => { if (S.pending) runPreview(); });
  $("undo").addEventListener("click", () => undoRedo("undo"));
  $("redo").addEventListener("click", () => undoRedo("redo"));
  $("scrubber").addEventListener("input", onScrub);
  $("to-live").addEventListener("click", loadLive);
  $("invite-form").addEventListener("submit", makeInvite);
  $("command-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = $("command").value.trim();
    if (text) startPreview({ text });
  });
  $("roll-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const n = Number($("roll-input").value);
    if (!Number.isInteger(n)) return;
    S.rolls = [...S.rolls, n];
    $("roll-panel").hidden = true;
    runPreview();
  });
  document.addEventListener("keydown", onKey);
  if (!TOKEN) { shutOut("this page opens from an invitation link (…/join/…); ask the GM for one"); return; }
  loadLive().then(() => { if (!S.shut) { listen(); loadInvites(); } });
}

start();
