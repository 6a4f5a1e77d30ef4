// The replay bundle's board drawing, read-only: one board view (as /api/state sends it) into an SVG.
// A stand-in until the table view's own drawing module (board.js) ships; app/bundle.py inlines
// that one instead once it exists. It draws; it decides nothing.
"use strict";

const TabletrailBoard = (function () {
  const NS = "http://www.w3.org/2000/svg";
  const GLYPHS = { difficult: "∴", rough: "∴", hazard: "⚠", trap: "✶", slippery: "≈", unstable: "∿", gap: "▽",
    ladder: "H", stairs: "≡", ledge: "▭", obstacle: "■", deep: "≋", climbable: "↥" };
  const NAMED = { blue: "#2f6fd6", red: "#cf3a2e", green: "#2b8a4b", yellow: "#a8850f", gold: "#a8850f",
    purple: "#8345b8", orange: "#c8620f", teal: "#13837a", pink: "#c2185b", grey: "#5d6670", gray: "#5d6670",
    black: "#333", brown: "#8a5a2b" };
  const SPARE = ["#8345b8", "#c8620f", "#13837a", "#c2185b", "#5d6670", "#2f6fd6", "#cf3a2e", "#2b8a4b"];

  function node(tag, attrs, text) {
    const n = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) n.setAttribute(k, v);
    if (text !== undefined) n.textContent = text;
    return n;
  }

  function hundredths(cu) {
    const whole = Math.trunc(cu / 100), frac = Math.abs(cu % 100);
    return frac ? `${whole}.${String(frac).padStart(2, "0")}`.replace(/0$/, "") : String(whole);
  }

  function colour(b, side) {
    if (b.side_colours && b.side_colours[side]) return b.side_colours[side];
    if (NAMED[side]) return NAMED[side];
    const others = (b.sides || []).filter((s) => !NAMED[s]);
    return SPARE[Math.max(0, others.indexOf(side)) % SPARE.length];
  }

  function terrain(b) {
    const m = b.map, g = node("g", { id: "terrain" });
    for (let y = 0; y < m.height; y++) {
      for (let x = 0; x < m.width; x++) {
        const k = m.legend[m.rows[y][x]];
        const cell = node("rect", { x, y, width: 1, height: 1, class: `cell t-${k.terrain}`, "data-cell": `${x},${y}` });
        cell.append(node("title", {}, `${x},${y} ${k.terrain}`));
        g.append(cell);
        const top = k.ground + k.height - k.depth;
        if (top) g.append(node("text", { x: x + 0.06, y: y + 0.28, class: "height" }, hundredths(top)));
        const glyph = k.tags.map((t) => GLYPHS[t]).find(Boolean);
        if (glyph && k.terrain !== "wall") g.append(node("text", { x: x + 0.5, y: y + 0.68, class: "glyph", "text-anchor": "middle" }, glyph));
      }
    }
    return g;
  }

  function walls(b) {
    const g = node("g", { id: "walls" });
    for (const [x1, y1, x2, y2] of b.walls || []) g.append(node("line", { x1, y1, x2, y2, class: "wall" }));
    for (const d of b.doors || []) {
      const [[ax, ay], [bx, by]] = d.cells;
      const upright = ay === by, ex = Math.max(ax, bx), ey = Math.max(ay, by);
      const [x1, y1, x2, y2] = upright ? [ex, ay, ex, ay + 1] : [ax, ey, ax + 1, ey];
      const door = node("g", { class: `door ${d.state}`, "data-door": d.at, "data-state": d.state });
      door.append(node("title", {}, `door ${d.at}: ${d.state}`));
      door.append(node("line", { x1, y1, x2, y2, class: d.state === "open" ? "doorway" : "slab" }));
      g.append(door);
    }
    return g;
  }

  function places(fighters) {
    const byCell = {};
    for (const f of fighters) (byCell[`${f.pos[0]},${f.pos[1]}`] ||= []).push(f);
    const out = {};
    for (const group of Object.values(byCell)) {
      const n = group.length, r = n === 1 ? 0.36 : n === 2 ? 0.22 : 0.17;
      group.forEach((f, i) => {
        const a = (2 * Math.PI * i) / n - Math.PI / 2, off = n === 1 ? 0 : 0.25;
        out[f.id] = [f.pos[0] + 0.5 + off * Math.cos(a), f.pos[1] + 0.5 + off * Math.sin(a), r];
      });
    }
    return out;
  }

  function fighters(b, at) {
    const g = node("g", { id: "fighters" }), rest = b.machines || {};
    const links = node("g", { id: "links" });
    for (const [kind, a, c] of b.links || []) {
      if (!at[a] || !at[c]) continue;
      links.append(node("line", { x1: at[a][0], y1: at[a][1], x2: at[c][0], y2: at[c][1], class: `link ${kind}`, "data-link": `${kind}:${a}:${c}` }));
    }
    for (const f of b.fighters) {
      const [cx, cy, r] = at[f.id];
      const states = Object.entries(f.states).filter(([m, v]) => m !== "turn" && rest[m] !== v).map(([, v]) => v.replace(/_/g, " "));
      const prone = f.states.posture === "prone";
      const grp = node("g", { class: `fighter${f.active ? " active" : ""}${prone ? " prone" : ""}`, "data-fid": f.id,
        "data-x": f.pos[0], "data-y": f.pos[1], "data-z": f.pos[2], "data-states": states.join(" ") });
      grp.append(node("title", {}, `${f.name} (${f.id}, ${f.side}) at ${f.pos[0]},${f.pos[1]}` +
        (states.length ? " · " + states.join(", ") : "") + (f.damage ? ` · damage ${f.damage}` : "")));
      if (f.active) grp.append(node("circle", { cx, cy, r: r + 0.1, class: "ring" }));
      grp.append(prone ? node("ellipse", { cx, cy: cy + 0.1, rx: r * 1.15, ry: r * 0.6, class: "token", fill: colour(b, f.side) })
        : node("circle", { cx, cy, r, class: "token", fill: colour(b, f.side) }));
      const words = f.name.trim().split(/\s+/);
      const label = (words.length > 1 ? words[0][0] + words[1][0] : f.name.slice(0, 2)).toUpperCase();
      grp.append(node("text", { x: cx, y: cy + 0.1, class: "token-label", "text-anchor": "middle", style: `font-size: ${(0.83 * r).toFixed(3)}px` }, label));
      if (states.length) grp.append(node("text", { x: cx, y: f.pos[1] + 0.97, class: "badge", "text-anchor": "middle" }, states.join(" ")));
      g.append(grp);
    }
    return [links, g];
  }

  function rulings(b) {
    const g = node("g", { id: "rulings" });
    for (const [x, y] of (b.rulings && b.rulings.forbid) || []) {
      g.append(node("path", { d: `M${x + 0.2},${y + 0.2}L${x + 0.8},${y + 0.8}M${x + 0.8},${y + 0.2}L${x + 0.2},${y + 0.8}`, class: "forbid" }));
    }
    for (const [x, y] of (b.rulings && b.rulings.test) || []) g.append(node("text", { x: x + 0.78, y: y + 0.4, class: "test", "text-anchor": "middle" }, "?"));
    return g;
  }

  // Draw `b` into `svg`, replacing what was there; the whole map fits the box.
  function draw(svg, b) {
    const m = b.map;
    svg.setAttribute("viewBox", `-0.1 -0.1 ${m.width + 0.2} ${m.height + 0.2}`);
    svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
    const parts = [];
    const p = b.picture;
    if (p && p.href && p.width && p.height) {
      svg.classList.add("has-picture");
      parts.push(node("image", { id: "picture", href: p.href, x: p.origin[0], y: p.origin[1],
        width: p.width / p.pixels_per_grid, height: p.height / p.pixels_per_grid, preserveAspectRatio: "none" }));
    }
    const at = places(b.fighters);
    parts.push(terrain(b), walls(b), rulings(b), ...fighters(b, at));
    svg.replaceChildren(...parts);
  }

  return { draw };
})();
