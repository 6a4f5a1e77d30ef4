// The board drawing: a board view (the JSON /api/state sends) drawn into an SVG element.
// Standalone on purpose: it knows nothing of the server, the page or its state, so an offline
// replay file can inline it and draw the same board. Everything it needs comes in its arguments;
// where it would fetch a picture it asks `opts` for the address.

export const SVG = "http://www.w3.org/2000/svg";
const DARK_TERRAIN = new Set(["wall", "gap", "deep-water"]);  // light labels on these
const GLYPHS = {
  difficult: "∴", rough: "∴", hazard: "⚠", trap: "✶", slippery: "≈", unstable: "∿", gap: "▽", ladder: "H", stairs: "≡",
  ledge: "▭", obstacle: "■", deep: "≋", soft: "·", climbable: "↥",
};

/** A number in centi-units (what the engine sends) as the table writes it: 250 -> "2.5". */
export function fmt(cu) {
  const sign = cu < 0 ? "-" : "";
  const a = Math.abs(cu);
  const whole = Math.floor(a / 100), frac = a % 100;
  if (frac === 0) return sign + whole;
  return (sign + whole + "." + String(frac).padStart(2, "0")).replace(/0+$/, "");
}

export function el(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

const layer = (svg, id) => svg.querySelector("#" + id);

/**
 * Draw the whole board into `svg` (its children are replaced). `opts`:
 *   selected      the selected fighter's id (drawn ringed in gold)
 *   reach         the reachable area (/api/reach) to shade, or null
 *   preview       a dry run (/api/preview) whose route to draw, or null
 *   waypoints     [[x, y], ...] asked for so far
 *   pictureHref   (picture) -> the address of the battle-map picture; omitted: no picture
 *   imageHref     (fighter) -> the address of a token picture; omitted: initials instead
 *   onPictureError (picture) -> called when the battle-map picture fails to load
 * Returns where each token is drawn: fighter id -> [x, y, r, sharing].
 */
export function drawBoard(svg, board, opts = {}) {
  const m = board.map;
  svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
  svg.replaceChildren(el("defs", { id: "defs" }));
  const terrain = el("g", { id: "terrain" });
  const heights = el("g", { id: "heights" });
  const tops = Object.values(m.legend).map((k) => k.ground + k.height - k.depth);
  const highest = Math.max(1, ...tops);
  const unit = board.ruleset.unit;
  for (let y = 0; y < m.height; y++) {
    for (let x = 0; x < m.width; x++) {
      const k = m.legend[m.rows[y][x]];
      const rect = el("rect", {
        x, y, width: 1, height: 1, class: `cell t-${k.terrain}`, "data-x": x, "data-y": y,
        "data-cell": `${x},${y}`, "data-terrain": k.terrain,
      });
      rect.append(el("title", {}, `${x},${y} ${k.terrain}` + (k.tags.length ? ` (${k.tags.join(", ")})` : "") +
        (k.ground ? `, ground ${fmt(k.ground)} ${unit}` : "") +
        (k.height ? `, an obstacle ${fmt(k.height)} ${unit} high` : "") +
        (k.depth ? `, ${fmt(k.depth)} ${unit} deep` : "")));
      terrain.append(rect);
      const top = k.ground + k.height - k.depth;
      if (top > 0 && k.terrain !== "wall") {  // the higher, the darker: a tower reads as one at a glance
        terrain.append(el("rect", { x, y, width: 1, height: 1, class: "raised", "fill-opacity": (0.05 + 0.22 * top / highest).toFixed(3) }));
      }
      if (top) {
        const dark = DARK_TERRAIN.has(k.terrain) ? " on-dark" : "";
        heights.append(el("text", { x: x + HEIGHT.left, y: y + HEIGHT.base, class: "height" + dark, "data-height": `${x},${y}` }, fmt(top)));
      }
      const glyph = k.tags.map((t) => GLYPHS[t]).find(Boolean);
      if (glyph && k.terrain !== "wall") {
        terrain.append(el("text", { x: x + 0.5, y: y + 0.68, class: "glyph", "text-anchor": "middle" }, glyph));
      }
    }
  }
  const picture = drawPicture(svg, board, opts);
  // The heights go over the fighters: a token's edge or its turn's ring never hides the number a
  // fall or a climb is read from, and the name plates and state chips make way for it (drawFighters).
  svg.append(terrain, el("g", { id: "reach" }), drawWalls(board), el("g", { id: "rulings" }), el("g", { id: "links" }),
    el("g", { id: "route" }), el("g", { id: "fighters" }), heights);
  if (picture) terrain.before(picture);
  const centres = tokenPlaces(board.fighters);
  const rulings = layer(svg, "rulings");
  for (const [x, y] of board.rulings.forbid) {
    rulings.append(el("path", { d: `M${x + 0.2},${y + 0.2}L${x + 0.8},${y + 0.8}M${x + 0.8},${y + 0.2}L${x + 0.2},${y + 0.8}`, class: "forbid" }));
  }
  for (const [x, y, , why, target] of board.rulings.test) {
    const t = el("text", { x: x + 0.78, y: y + 0.4, class: "test", "text-anchor": "middle" }, "?");
    t.append(el("title", {}, `a test of ${target} to cross: ${why}`));
    rulings.append(t);
  }
  drawLinks(svg, board, centres);
  drawFighters(svg, board, centres, opts, heightSpans(heights, PLATE));
  svg.dataset.plates = "";
  layPlates(svg);
  drawReach(svg, board, opts.reach);
  drawRoute(svg, board, opts.preview, opts.waypoints || []);
  return centres;
}

// A cell's height: a number in the top-left corner of a raised cell, high in it so that the initials
// of a token standing there (raised over a state chip) start below it. Its size is 0.8 of a name
// plate's (table.css), 0.24 of a cell at most: the chips make room for it at that largest size.
const HEIGHT = { left: 0.05, base: 0.19, size: 0.24, ascent: 0.95, descent: 0.27 };

/** The height numbers row by row, their names at `size`: y -> [[left, right], ...] in board units,
 * each with a margin. */
function heightSpans(heights, size) {
  const rows = {};
  for (const t of heights.children) {
    const [x, y] = t.dataset.height.split(",").map(Number);
    // a digit is about 0.7 of the letters' size wide, a point or a minus less
    const em = [...t.textContent].reduce((n, c) => n + (c === "." ? 0.3 : c === "-" ? 0.5 : 0.7), 0);
    (rows[y] ||= []).push([x + HEIGHT.left - 0.03, x + HEIGHT.left + em * 0.8 * size + 0.04]);
  }
  return rows;
}

/** Show the whole map (what a replay without the page's zoom wants). */
export function fitViewBox(svg, board) {
  svg.setAttribute("viewBox", `0 0 ${board.map.width} ${board.map.height}`);
}

// The battle-map picture ([picture] of the scenario) under the grid: in board units, a cell being 1,
// it is width / pixels_per_grid cells wide with its top-left corner at `origin`, so it zooms and pans
// with the board. The floor cells go clear over it; a picture that fails to load gives the floor back.
function drawPicture(svg, board, opts) {
  const p = board.picture;
  const href = p && opts.pictureHref ? opts.pictureHref(p) : null;
  svg.classList.toggle("has-picture", Boolean(href));
  if (!href || !p.width || !p.height) return null;
  const img = el("image", {
    id: "picture", href,
    x: p.origin[0], y: p.origin[1], width: p.width / p.pixels_per_grid, height: p.height / p.pixels_per_grid,
    preserveAspectRatio: "none", "data-name": p.name,
  });
  img.addEventListener("error", () => {
    svg.classList.remove("has-picture");
    img.remove();
    if (opts.onPictureError) opts.onPictureError(p);
  });
  return img;
}

// Walls on cell edges and doors between two cells (the board's `walls` and `doors`): a wall is a
// thick line along a grid line; a door a bar across its edge, brown when closed, with a lock when
// locked, and swung open (a thin leaf on its hinge) when open.
export function wallList(b) {
  const raw = b.walls || (b.map && b.map.walls) || [];
  return raw.map((w) => (Array.isArray(w) ? w : String(w).split(/[-,]/).map(Number))).filter((w) => w.length === 4 && w.every(Number.isFinite));
}

export function doorList(b) {
  const raw = b.doors || (b.map && b.map.doors) || [];
  return raw.map((d) => {
    const cells = d.cells || String(d.at).split("|").map((c) => c.split(",").map(Number));
    const state = d.state || (d.locked ? "locked" : d.closed === false ? "open" : "closed");
    return { at: d.at || cells.map((c) => c.join(",")).join("|"), cells, state };
  }).filter((d) => d.cells.length === 2 && d.cells.flat().every(Number.isFinite));
}

/** The grid edge a door stands on: [x1, y1, x2, y2], and whether it is upright. */
export function doorEdge(d) {
  const [[ax, ay], [bx, by]] = d.cells;
  const upright = ay === by;  // side by side: an upright edge; one above the other: a level one
  const ex = Math.max(ax, bx), ey = Math.max(ay, by);
  return { line: upright ? [ex, ay, ex, ay + 1] : [ax, ey, ax + 1, ey], upright };
}

function drawWalls(board) {
  const g = el("g", { id: "walls" });
  for (const [x1, y1, x2, y2] of wallList(board)) {
    g.append(el("line", { x1, y1, x2, y2, class: "wall", "data-wall": `${x1},${y1}-${x2},${y2}` }));
  }
  for (const d of doorList(board)) {
    const { line: [x1, y1, x2, y2], upright } = doorEdge(d);
    const words = d.state === "locked" ? "a locked door" : d.state === "open" ? "an open door" : "a closed door";
    const grp = el("g", { class: `door ${d.state}`, "data-door": d.at, "data-state": d.state, role: "img",
      "aria-label": `${words} between ${d.cells.map((c) => c.join(",")).join(" and ")}` });
    grp.append(el("title", {}, `${words} between ${d.cells.map((c) => c.join(",")).join(" and ")}`));
    // A wide clear band along the edge: what a fingertip hits (the slab alone is a few pixels).
    grp.append(el("rect", { x: upright ? x1 - 0.22 : x1, y: upright ? y1 : y1 - 0.22, width: upright ? 0.44 : 1,
      height: upright ? 1 : 0.44, class: "door-hit" }));
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

/** The terrains of this map, each as the board draws it, with its name (HTML nodes for a key). */
export function terrainKey(board) {
  const m = board.map, seen = new Map();
  for (const k of Object.values(m.legend)) if (!seen.has(k.terrain)) seen.set(k.terrain, k);
  return [...seen.values()].map((k) => {
    const swatch = document.createElementNS(SVG, "svg");
    swatch.setAttribute("viewBox", "0 0 1 1");
    swatch.setAttribute("class", "swatch");
    swatch.append(el("rect", { x: 0, y: 0, width: 1, height: 1, class: `cell t-${k.terrain}` }));
    const glyph = k.tags.map((t) => GLYPHS[t]).find(Boolean);
    if (glyph && k.terrain !== "wall") swatch.append(el("text", { x: 0.5, y: 0.72, class: "glyph", "text-anchor": "middle" }, glyph));
    const entry = document.createElement("span");
    entry.className = "terrain-entry";
    entry.dataset.terrain = k.terrain;
    entry.append(swatch, " " + k.terrain);
    return entry;
  });
}

// Where each token goes: the middle of its cell, or side by side when a cell holds several
// (some rules let fighters share a square).
export function tokenPlaces(fighters) {
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

// The words that tell fighters apart: a leading article says nothing ("The Ogre" is "Ogre", not "The").
function telling(name) {
  const words = name.trim().split(/\s+/);
  return words.length > 1 && /^(the|a|an)$/i.test(words[0]) ? words.slice(1) : words;
}

function initials(name) {
  const words = telling(name);
  return (words.length > 1 ? words[0][0] + words[1][0] : words[0].slice(0, 2)).toUpperCase();
}

/** The middle of a fighter's token, in board units. */
export function centreOf(centres, f) {
  const c = centres[f.id];
  return c ? [c[0], c[1]] : [f.pos[0] + 0.5, f.pos[1] + 0.5];
}

// A side's colour: the scenario's ([sides.NAME] colour = …), else its name's colour when it is one,
// else the next of a palette chosen so white names stay readable on every one of them.
const NAMED = { blue: "#2f6fd6", red: "#cf3a2e", green: "#2b8a4b", yellow: "#a8850f", gold: "#a8850f",
  purple: "#8345b8", orange: "#c8620f", teal: "#13837a", pink: "#c2185b", grey: "#5d6670", gray: "#5d6670",
  black: "#333", brown: "#8a5a2b" };
const PALETTE = ["#2f6fd6", "#cf3a2e", "#2b8a4b", "#8345b8", "#c8620f", "#13837a", "#c2185b", "#5d6670"];
export function sideColour(board, side) {
  if (board && board.side_colours && board.side_colours[side]) return board.side_colours[side];
  if (NAMED[side]) return NAMED[side];
  const sides = board ? board.sides.filter((x) => !NAMED[x]) : [];
  const i = Math.max(0, sides.indexOf(side));
  return PALETTE[(i + 2) % PALETTE.length];
}

function drawLinks(svg, board, centres) {
  const g = layer(svg, "links");
  const byId = Object.fromEntries(board.fighters.map((f) => [f.id, f]));
  const name = (id) => byId[id].name;
  for (const [kind, a, b] of board.links) {
    if (!byId[a] || !byId[b]) continue;
    const [x1, y1] = centreOf(centres, byId[a]), [x2, y2] = centreOf(centres, byId[b]);
    const cls = kind === "engaged" || kind === "grab" ? kind : "other";
    const words = kind === "engaged" ? `${name(a)} and ${name(b)} are engaged` : kind === "grab" ? `${name(a)} holds ${name(b)}`
      : `${name(a)} and ${name(b)}: ${kind.replace(/_/g, " ")}`;
    const line = el("line", { x1, y1, x2, y2, class: `link ${cls}`, "data-link": `${kind}:${a}:${b}` });
    line.append(el("title", {}, words));
    g.append(line);
    // Adjacent tokens hide most of the line: a marker halfway says which link it is.
    const mark = el("g", { class: `link-mark ${cls}` });
    mark.append(el("circle", { cx: (x1 + x2) / 2, cy: (y1 + y2) / 2, r: 0.13 }));
    mark.append(el("text", { x: (x1 + x2) / 2, y: (y1 + y2) / 2 + 0.07, "text-anchor": "middle" },
      kind === "engaged" ? "⚔" : kind === "grab" ? "∞" : "·"));
    mark.append(el("title", {}, words));
    g.append(mark);
  }
  for (const f of board.fighters) {
    const d = f.heading;  // where a drift, a push-off or a glide carries it (the server reads the marks)
    if (!d || (!d.dx && !d.dy)) continue;
    const [cx, cy] = centreOf(centres, f);
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

/** A state worth writing on the board: not the turn (the ring shows it) and not a machine at rest. */
export function shownStates(board, f) {
  const rest = board.machines || {};
  return Object.entries(f.states).filter(([m, v]) => m !== "turn" && rest[m] !== v).map(([, v]) => v.replace(/_/g, " "));
}

// Fit a label of letters `size` high into `width` board units: long ones are squeezed rather than
// spilling onto the next cell (a short one is left as it is: a textLength would stretch it).
function fitted(node, text, width, size) {
  if (text.length * size * 0.56 > width) {
    node.setAttribute("textLength", width.toFixed(3));
    node.setAttribute("lengthAdjust", "spacingAndGlyphs");
  }
  return node;
}

// A fighter's states ("prone", "flying ↑1.5") on a chip over the foot of its token, `bottom` its
// lower edge, never below 0.78 of its cell: the strip along the cell's bottom edge is where the name
// of a fighter standing in the cell below sits, and a label there would cover it.
const CHIP = 0.2;  // its letters' size, a cell being 1
function badge(text, cx, bottom, most) {
  const width = Math.min(most, text.length * CHIP * 0.6 + 0.14), height = CHIP + 0.04;
  const chip = el("g", { class: "badge" });
  chip.append(el("rect", { x: cx - width / 2, y: bottom - height, width, height, rx: height / 3 }));
  chip.append(fitted(el("text", { x: cx, y: bottom - 0.065, "text-anchor": "middle" }, text), text, width - 0.1, CHIP));
  return chip;
}

// A name plate's letters at their largest (table.css --plate), and a bold letter's width: a little
// over what fitted() reckons, and a capital's more (its halo too), so a plate said to clear a height
// number does.
const PLATE = 0.3, PLATE_EM = 0.65;
const plateWidth = (text, size) => (text.length * PLATE_EM + 0.25) * size;

/** The size the page draws names at, in board units: its --plate (view.js: 13–16 px whatever the
 * zoom), PLATE where it sets none (a replay bundle, the builder). */
function plateSize(svg) {
  const v = parseFloat(svg.style.getPropertyValue("--plate"));
  return v > 0 ? Math.min(v, PLATE) : PLATE;
}

// The stretches of [lo, hi] that no span of `taken` covers.
function gaps(lo, hi, taken) {
  const out = [];
  let at = lo;
  for (const [a, b] of [...taken].sort((p, q) => p[0] - q[0])) {
    if (b <= at || a >= hi) continue;
    if (a > at) out.push([at, a]);
    at = Math.max(at, b);
  }
  if (hi > at) out.push([at, hi]);
  return out;
}

// Where a name plate goes along its row's top strip, which it shares with the height numbers of
// that row: [centre, text, room, asEver]. Over its token when nothing is in the way (`asEver`: `room`
// is how wide it may be, a longer name squeezed, as before); else in the stretch beside the numbers
// nearest its token and still over it, moved aside as little as it must, the first word when the
// whole name has no room there, `room` how wide it may be (keptTo()).
function placePlate(text, cx, r, lo, hi, taken, size) {
  const free = gaps(lo, hi, taken);
  if (free.length === 1 && free[0][0] === lo && free[0][1] === hi) {  // nothing in the way
    const half = Math.min(plateWidth(text, size), hi - lo) / 2;
    return [Math.min(Math.max(cx, lo + half), hi - half), text, hi - lo, true];
  }
  const off = ([a, b]) => (cx < a ? a - cx : cx > b ? cx - b : 0);
  const over = free.filter(([a, b]) => Math.min(b, cx + r) - Math.max(a, cx - r) >= 0.1).sort((p, q) => off(p) - off(q));
  for (const t of [text, telling(text)[0]]) {  // a little squeezed at most (the reckoning is generous)
    const w = plateWidth(t, size), g = over.find(([a, b]) => b - a >= 0.8 * w);
    const half = Math.min(w, g ? g[1] - g[0] : 0) / 2;
    if (g) return [Math.min(Math.max(cx, g[0] + half), g[1] - half), t, 2 * half];
  }
  const [a, b] = (over.length ? over : free).reduce((p, q) => (q[1] - q[0] > p[1] - p[0] ? q : p), [cx, cx]);
  return [(a + b) / 2, telling(text)[0], Math.max(0, b - a)];
}

// A plate moved aside for a height number keeps to its room at any zoom: short of room, its letters
// narrowed (to 3/4 at most: still read at a glance), then smaller. Never a textLength: the plate's
// size is the page's (--plate), and on big cells a textLength would stretch the name instead.
const NARROWEST = 0.75;
function keptTo(node, text, room, size) {
  const q = room / plateWidth(text, size), x = node.getAttribute("x");
  if (q >= 1) return node;
  const s = Math.max(q, NARROWEST);
  node.setAttribute("transform", `translate(${x} 0) scale(${s.toFixed(3)} 1) translate(${-x} 0)`);
  if (q < NARROWEST) node.style.fontSize = `min(var(--plate, ${PLATE}px), ${(size * q / NARROWEST).toFixed(3)}px)`;
  return node;
}

// Each name plate's place, as drawFighters saw it: what layPlate() needs to lay it out again at
// another size of letters.
const PLATES = new WeakMap();

// A plate laid out for names `size` high: over its token, off the height numbers of its row (the top
// strip it pokes up from holds them); in a cell shared on a raised cell, the names take turns in
// what the cell's number leaves.
function layPlate(node, p, spans, size) {
  const { cx, r, x0, sharing, crowded, turn } = p;
  const row = spans[p.y] || [];
  const raised = row.some(([a, b]) => a < x0 + 1 && b > x0);
  let [lo, hi] = sharing > 1 ? [cx - 0.5 / sharing, cx + 0.5 / sharing] : crowded ? [cx - 0.48, cx + 0.48] : [cx - 1.1, cx + 1.1];
  if (sharing > 1 && raised) {
    const left = Math.max(x0 + 0.02, ...row.filter(([a]) => a < x0 + 0.5 && a > x0 - 0.5).map(([, b]) => b));
    const share = (x0 + 0.98 - left) / sharing;
    [lo, hi] = [left + turn * share + 0.03, left + (turn + 1) * share - 0.03];  // a space between two names
  }
  const [px, text, room, asEver] = placePlate(p.plate, cx, sharing > 1 && raised ? 1 : r, lo, hi, row, size);
  for (const a of ["textLength", "lengthAdjust", "transform"]) node.removeAttribute(a);
  node.style.fontSize = "";
  node.textContent = text;
  node.setAttribute("x", px);
  delete node.dataset.home;  // where view.js's keepPlates slides it from
  // and how far it may slide: between the height numbers either side of it, never onto one
  const [free] = gaps(-1e6, 1e6, row).filter(([a, b]) => a <= px && px <= b);
  [node.dataset.lo, node.dataset.hi] = free && row.length ? free : ["", ""];
  if (asEver && !(sharing > 1 && raised)) fitted(node, text, room, size);
  else keptTo(node, text, room, size);
}

/** Lay the name plates out again when the page's size of names changed (view.js, on a zoom): a long
 * name shows whole where its letters, smaller on big cells, leave room beside the height numbers. */
export function layPlates(svg) {
  const size = plateSize(svg);
  if (svg.dataset.plates === String(size)) return;
  svg.dataset.plates = String(size);
  const heights = svg.querySelector("#heights");
  const spans = heights ? heightSpans(heights, size) : {};
  for (const node of svg.querySelectorAll("#fighters .name-plate")) {
    const p = PLATES.get(node);
    if (p) layPlate(node, p, spans, size);
  }
}

function drawFighters(svg, board, centres, opts, spans = {}) {
  const g = layer(svg, "fighters"), defs = layer(svg, "defs");
  // Row by row, top to bottom: a name plate pokes up into the cell above its token, so each is
  // drawn after (over) the token and ring of a fighter standing there, never under them.
  const rows = [...board.fighters].sort((a, b) => a.pos[1] - b.pos[1] || a.pos[0] - b.pos[0]);
  for (const f of rows) {
    const [cx, cy] = centreOf(centres, f);
    const [, , r, sharing] = centres[f.id] || [0, 0, 0.36, 1];
    const states = shownStates(board, f);
    const prone = f.states.posture === "prone";
    const airborne = f.pos[2] > f.ground;
    const under = f.pos[2] < f.ground;  // below the cell's surface: swimming under water, down in a gap
    const classes = ["fighter"];
    if (f.id === opts.selected) classes.push("selected");
    if (f.active) classes.push("active");
    if (prone) classes.push("prone");
    if (airborne) classes.push("airborne");
    if (under) classes.push("under");
    const grp = el("g", {
      class: classes.join(" "), "data-fid": f.id, "data-x": f.pos[0], "data-y": f.pos[1],
      "data-states": states.join(" "), role: "button", "aria-label": f.name,
    });
    grp.append(el("title", {}, `${f.name} (${f.side})${f.active ? ", acting now" : ""}` +
      (states.length ? ": " + states.join(", ") : "") + (f.damage ? ` · damage ${f.damage}` : "")));
    // What a fingertip hits: the whole cell (a shared cell: the token's own square), not the disc alone.
    const hs = sharing > 1 ? r + 0.04 : 0.5;
    grp.append(el("rect", { x: cx - hs, y: cy - hs, width: 2 * hs, height: 2 * hs, class: "token-hit" }));
    const k = r / 0.36;  // tokens sharing a cell are drawn smaller
    if (f.active) grp.append(el("circle", { cx, cy, r: r + 0.11 * k, class: "ring" }));
    const colour = sideColour(board, f.side);
    const badges = [...states];
    if (airborne) badges.push("↑" + fmt(f.pos[2] - f.ground));
    if (under) badges.push("↓" + fmt(f.ground - f.pos[2]));
    // lying flat, in the middle of its cell: its state's chip goes under it (badge(), below)
    const token = prone
      ? el("ellipse", { cx, cy, rx: 0.42 * k, ry: 0.22 * k, class: "token", fill: colour })
      : el("circle", { cx, cy, r, class: "token", fill: colour });
    grp.append(token);
    const href = f.image && !prone && opts.imageHref ? opts.imageHref(f) : null;
    if (href) {  // the scenario's picture, clipped round, the side's colour as its rim
      const clip = el("clipPath", { id: `clip-${f.id}` });
      clip.append(el("circle", { cx, cy, r: r * 0.86 }));
      defs.append(clip);
      grp.append(el("image", { href, x: cx - r, y: cy - r, width: 2 * r, height: 2 * r, "clip-path": `url(#clip-${f.id})`,
        preserveAspectRatio: "xMidYMid slice", class: "token-image" }));
    } else {  // the initials, a little higher over a chip, smaller on a body lying flat
      const size = (prone ? 0.25 : 0.3) * k;
      grp.append(el("text", { x: cx, y: cy + (badges.length ? 0.04 : 0.1) * k, class: "token-label", "text-anchor": "middle",
        style: `font-size: ${size.toFixed(3)}px` }, initials(f.name)));
    }
    // The name on a plate under the token: what a player looks for on a crowded map. Beside
    // another fighter the plate keeps to its own cell, the first word only ("Ari the Quick" next
    // to "Bo" read "Ari the QuickBo").
    const crowded = board.fighters.some((o) => o.id !== f.id && o.pos[1] === f.pos[1] && Math.abs(o.pos[0] - f.pos[0]) === 1);
    let plate = f.name.length > 18 ? f.name.slice(0, 17) + "…" : f.name;
    if (crowded && sharing === 1) plate = telling(plate)[0];
    // It keeps off the height numbers of its row: laid out by layPlate(), at the page's size of names.
    const [x0] = f.pos, row = spans[f.pos[1]] || [];
    const raised = row.some(([a, b]) => a < x0 + 1 && b > x0);
    const turn = board.fighters.filter((o) => o.pos[0] === x0 && o.pos[1] === f.pos[1]).indexOf(f);
    const name = el("text", { x: cx, y: cy - r - 0.06, class: "name-plate", "text-anchor": "middle" }, plate);
    PLATES.set(name, { plate, cx, r, x0, y: f.pos[1], sharing, crowded, turn });
    grp.append(name);
    // A state's chip starts below the number of a raised cell (tokens three to a cell sit high in it).
    const foot = raised ? Math.max(cy + r + 0.06, f.pos[1] + HEIGHT.base + HEIGHT.descent * HEIGHT.size + CHIP + 0.06) : cy + r + 0.06;
    if (badges.length) grp.append(badge(badges.join(" "), cx, Math.min(f.pos[1] + 0.78, foot), 0.92 / sharing));
    if (f.damage) {
      const dx = cx + 0.7 * r, dy = cy - 0.7 * r;
      grp.append(el("circle", { cx: dx, cy: dy, r: 0.15 * Math.max(k, 0.7), class: "damage" }));
      grp.append(el("text", { x: dx, y: dy + 0.08, class: "damage-label", "text-anchor": "middle" }, f.damage));
    }
    g.append(grp);
  }
}

/** Shade a fighter's reachable area (/api/reach) on a drawn board; null clears it. */
export function drawReach(svg, board, r) {
  const g = layer(svg, "reach");
  if (!g) return;
  g.replaceChildren();
  if (!r) return;
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
      (r.blocked ? ` (but it can't move now: ${r.blocked.reason})` : "")));
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

const points = (pts) => pts.map(([x, y]) => `${x + 0.5},${y + 0.5}`).join(" ");

/** Draw a dry run's route (and the waypoints asked for) on a drawn board. */
export function drawRoute(svg, board, p, waypoints = []) {
  const g = layer(svg, "route");
  if (!g) return;
  g.replaceChildren();
  svg.classList.toggle("previewing", Boolean(p));  // the route's costs, not the area's
  for (const [x, y] of waypoints) g.append(el("circle", { cx: x + 0.5, cy: y + 0.5, r: 0.12, class: "waypoint" }));
  if (p && p.path && p.from && (!p.ok || !p.moves || !p.moves.length)) {
    // Refused, or waiting for a table roll: the route that was asked for, dashed, so the table sees
    // what was meant (red when refused).
    const kind = p.needs_roll ? "pending" : "refused";
    g.append(el("polyline", { points: points([[p.from[0], p.from[1]], ...p.path]), class: `path ${kind}`, id: "path" }));
    const [ex, ey] = p.path[p.path.length - 1];
    g.append(el("circle", { cx: ex + 0.5, cy: ey + 0.5, r: 0.16, class: `destination ${kind}` }));
    return;
  }
  if (!p || !p.moves || !p.moves.length) return;
  for (const m of p.moves) {
    const f = board.fighters.find((x) => x.id === m.fighter);
    const start = m === p.moves[0] && p.from ? p.from : f ? f.pos : m.steps[0].cell;
    const pts = [[start[0], start[1]], ...m.steps.map((s) => s.cell)];
    g.append(el("polyline", { points: points(pts), class: "path", id: "path" }));
    for (const s of m.steps) {
      g.append(el("text", { x: s.cell[0] + 0.5, y: s.cell[1] + 0.34, class: "stepcost", "text-anchor": "middle" }, fmt(s.cost)));
    }
    const last = pts[pts.length - 1];
    g.append(el("circle", { cx: last[0] + 0.5, cy: last[1] + 0.5, r: 0.16, class: "destination" }));
  }
}
