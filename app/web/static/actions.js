// The player's actions: select a fighter, see what it can do, preview a command, confirm it,
// answer a table roll, undo and redo. The engine decides everything; this asks and shows.
import { api, send } from "./api.js";
import { drawReach, drawRoute, fmt } from "./board.js";
import { $, NARROW, S, fighterOf, h, hooks, ruleChip, say } from "./shared.js";
import { V, applyView, keepInView } from "./view.js";
import { checksBlock, fightersBlock, ruleLine, stepsTable, why } from "./explain.js";

const svg = () => $("board");

export function sayRefusal(data) {
  say("refused", "Refused by ", ruleChip(data.rule), ": ", h("span", { class: "reason" }, data.reason),
    data.enforce ? h("span", { class: "muted" }, ` (${data.rule}: ${data.enforce})`) : "");
}

export async function loadReach() {
  if (!S.selected || !S.live) { S.reach = null; drawReach(svg(), S.board, null); return; }
  const { status, data } = await api("GET", "/api/reach?fighter=" + encodeURIComponent(S.selected));
  S.reach = status === 200 ? data : null;
  if (status !== 200) say("error", data.message);
  drawReach(svg(), S.board, S.live ? S.reach : null);
  renderFighter();  // its summary speaks of this area: never leave it naming the last one
}

export function selectFighter(fid, centreIt) {
  S.selected = fid === S.selected && !centreIt ? null : fid;
  clearPreview();
  hooks.paint();
  if (centreIt && S.selected) keepInView(fighterOf(S.selected));
  loadReach().then(renderFighter);
}

export function setDrawer(open) {
  document.body.classList.toggle("drawer-open", open);
  $("drawer-toggle").setAttribute("aria-expanded", String(open));
}

export function renderFighter() {
  const box = $("fighter-info"), quick = $("quick");
  const f = fighterOf(S.selected);
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

export function clearPreview() {
  S.pending = null; S.preview = null; S.rolls = []; S.waypoints = [];
  $("preview-panel").hidden = true;
  $("roll-panel").hidden = true;
  if (S.board) drawRoute(svg(), S.board, null, []);
}

export function startPreview(body) {
  if (!S.live) { say("info", "This is a past point of the timeline: go back to live to act."); return; }
  S.pending = body;
  S.rolls = [];
  return runPreview();
}

export async function runPreview() {
  const body = { ...S.pending, rolls: S.rolls, version: S.version, reveal: S.me.gm && $("reveal").checked };
  const { status, data } = await api("POST", "/api/preview", body);
  if (status === 409) { say("error", data.message); clearPreview(); await hooks.loadLive(); return; }
  if (status !== 200) { say("error", data.message); S.preview = null; drawRoute(svg(), S.board, null, S.waypoints); return; }
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
  const route = () => drawRoute(svg(), S.board, S.preview, S.waypoints);
  if (!data.ok && data.needs_roll) {
    askRoll(data);
    box.replaceChildren(h("div", {}, h("code", {}, data.text)), h("div", { class: "muted" }, "waiting for a table roll…"));
    $("confirm").disabled = true;
    route();
    return;
  }
  $("roll-panel").hidden = true;
  if (!data.ok) {
    box.replaceChildren(h("div", {}, h("code", {}, data.text)),
      h("div", { class: "refusal" }, "Refused by ", ruleChip(data.rule), ": ", data.reason),
      h("div", { class: "muted" }, data.rule + ": " + data.enforce));
    sayRefusal(data);
    $("confirm").disabled = true;
    route();
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
  route();
}

function askRoll(data) {
  $("roll-panel").hidden = false;
  $("roll-reason").replaceChildren(ruleChip(data.rule), " " + data.reason);
  const input = $("roll-input");
  input.value = "";
  input.focus();
}

export function enterRoll(n) {
  S.rolls = [...S.rolls, n];
  $("roll-panel").hidden = true;
  runPreview();
}

export async function confirmPending() {
  if (!S.pending || !S.preview || !S.preview.ok) return;
  const body = { ...S.pending, rolls: S.rolls, version: S.version };
  const { status, data } = await send("/api/do", body);
  if (status === 200) {
    clearPreview();
    say("info", `Done: ${data.text} (${data.records.length} events)`);
    S.version = data.version;
    await hooks.loadLive();
    return;
  }
  if (status === 422 && data.needs_roll) { askRoll(data); return; }
  if (status === 422) { sayRefusal(data); return; }
  say("error", data.message || "the command failed");
  if (status === 409) { clearPreview(); await hooks.loadLive(); }
}

export async function undoRedo(kind) {
  if (!S.live) return;
  const target = S.board && S.board[kind];
  const { status, data } = await send("/api/" + kind, { version: S.version });
  if (status === 200) say("info", `${kind === "undo" ? "Undone" : "Redone"}: ${target ? target.text : data.records.map((r) => r.text).join("; ")}`);
  else if (status === 422) sayRefusal(data);
  else say("error", data.message);
  clearPreview();
  await hooks.loadLive();
}

/** A tap or click on the board: a fighter selects it; a cell moves the selected fighter there. */
export function onBoardClick(ev) {
  if (!S.board) return;
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

