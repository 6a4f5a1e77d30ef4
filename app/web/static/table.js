// The table view's glue: loads the board, draws the page around it, follows the live stream and
// wires the controls. It holds no rules: reachable cells, move costs, refusals and table rolls
// all come from the engine. The jobs live in their own modules: api.js (requests), board.js
// (drawing), view.js and gestures.js (zoom, pan, pinch), drag.js (the drag ruler), actions.js
// (the player's actions), explain.js (events, timeline), gm.js (the GM's panel).
import { TOKEN, api, imageHref, onDenied, pictureHref, stream } from "./api.js";
import { drawBoard, terrainKey } from "./board.js";
import { $, S, canCommand, forPlayers, h, hooks, isGM, named, say, sideColour } from "./shared.js";
import { applyView, cellAt, centreOnSelected, fitMap, focusFighter, observeLayout, sizeBox, zoomCentre } from "./view.js";
import { P, listenGestures } from "./gestures.js";
import { addWaypoint, cancelDrag } from "./drag.js";
import {
  clearPreview, confirmPending, deselect, enterRoll, loadReach, loadSheet, onBoardClick, runPreview, selectFighter,
  setDrawer, startPreview, undoRedo, undoState,
} from "./actions.js";
import { renderFighter, stopChoosing } from "./sheet.js";
import { downloadBundle, loadEvents, onScrub, renderEvents } from "./explain.js";
import { loadInvites, makeInvite, renderRulings } from "./gm.js";

// A link that stopped working (revoked, expired): the board goes, and the page says why.
function shutOut(message) {
  S.shut = true;
  $("shut").hidden = false;
  $("shut-reason").textContent = message || "this link no longer opens the table";
  if (S.source) S.source.close();
}

// `told`: the version the stream just told of; the server then answers a board at least that new.
async function loadLive(told) {
  const { status, data } = await api("GET", "/api/state" + (Number.isInteger(told) ? "?seen=" + told : ""));
  if (status !== 200) { say("error", data.message || "the board could not be loaded"); return; }
  const changed = S.board && data.version !== S.version;
  const before = S.board ? S.version : null;
  S.version = data.version;
  S.live = true;
  S.board = data;
  if (changed && S.pending) {
    clearPreview();
    say("info", "The board changed on another screen; the preview was cleared.");
  }
  if (S.selected && !data.fighters.some((f) => f.id === S.selected)) S.selected = null;
  autoSelect(data);
  render();
  await Promise.all([loadEvents(), S.selected ? loadReach() : Promise.resolve(), loadSheet()]);
  tellUndone();
  if (changed) tellNews(before);
}

// A "Done" message whose command was undone since (by this screen or the GM's) says so, never stale.
function tellUndone() {
  const told = S.told;
  if (!told) return;
  const lines = S.events.filter((e) => e.batch === told.batch);
  const gone = lines.find((e) => e.status === "undone" || e.status === "abandoned");
  if (!lines.length || gone) {
    S.told = null;
    say("info", `Undone: ${told.words || "that command"} — it no longer stands.`);
  }
}

// What another side's (or the GM's) command did to this side's fighters, in words: the outcome of a
// reaction (kept out, let in, parried with damage) reaches the mover's screen, not only the answerer's.
function tellNews(before) {
  const me = S.me;
  if (!me || me.gm || me.role === "watcher" || !Number.isInteger(before)) return;
  const mine = (fid) => { const f = S.board.fighters.find((x) => x.id === fid); return f && f.side === me.role; };
  const news = S.events.filter((e) => e.seq > before && e.actor !== me.role && e.type !== "command" && !e.status &&
    forPlayers(e) && (e.fighters || []).some(mine));
  if (!news.length) return;
  const command = S.events.find((e) => e.batch === news[0].batch && e.type === "command");
  const seen = new Set(), lines = [];
  // the outcome first ("… Ari is kept out"), then the rolls and costs behind it
  for (const e of [...news.filter((x) => x.explains), ...news.filter((x) => !x.explains)]) {
    const t = named(String(e.text || "").replace(/\s*\((seeded|table|rolled)\)$/, "")).trim();
    if (t && !seen.has(t)) { seen.add(t); lines.push(t); }
  }
  S.told = null;
  say("info", h("b", {}, (command ? named(command.text) : "Another side acted") + ": "), lines.join("; ") + ".");
}

// A player's own fighter, when its turn comes, is selected for it: its sheet and its reach show
// at once (a tap saved each turn). Never over a choice the player made since.
function autoSelect(b) {
  if (!b.me || b.me.gm || b.me.role === "watcher") return;
  const acting = b.fighters.find((f) => f.active);
  const turn = acting ? `${b.turn.round}.${b.turn.pass}.${acting.id}` : null;
  if (turn === S.turnSeen) return;
  S.turnSeen = turn;
  if (acting && acting.side === b.me.role && !S.pending) { S.selected = acting.id; S.reach = null; }
}

/** The board, drawn afresh with what is selected, shaded and previewed. */
function paint() {
  S.centres = drawBoard($("board"), S.board, {
    selected: S.selected, reach: S.live && S.reach && S.reach.fighter === S.selected ? S.reach : null,
    preview: S.preview, waypoints: S.waypoints,
    pictureHref, imageHref,
    onPictureError: (p) => say("error", `The map picture ${p.name} could not be loaded: the server has no file with the bytes this encounter began with.`),
  });
  sizeBox();
  applyView();
  $("terrain-key").replaceChildren(...terrainKey(S.board));
  renderFighter();
  renderStrip();
}

function render() {
  const b = S.board;
  document.title = b.name + " · tabletrail";
  $("title").textContent = b.name;
  const t = b.turn;
  const me = b.me;
  S.me = me;
  $("download-bundle").textContent = me.gm ? "Download this encounter" : "Download what my side may see";
  const acting = b.fighters.find((f) => f.id === t.active);
  $("turn").textContent = `${b.ruleset.title} · round ${t.round}${t.pass > 1 ? ", pass " + t.pass : ""}` +
    (acting ? ` · ${acting.name} to act` : "");
  for (const [kind, keys] of [["undo", "Ctrl+Z"], ["redo", "Ctrl+Y"]]) {
    const can = undoState(kind), button = $(kind);
    // Disabled, it still says why: a tap on it (or hovering) tells, in words.
    button.setAttribute("aria-disabled", String(!can.ok));
    button.classList.toggle("off", !can.ok);
    button.title = can.ok && isGM() ? `${can.why} (${keys})` : can.why;
  }
  document.body.classList.toggle("is-gm", me.gm);
  document.body.classList.toggle("is-player", !me.gm);
  document.body.classList.toggle("is-watcher", me.role === "watcher");  // a view-only link
  $("role").textContent = me.gm ? "GM" : me.role === "watcher" ? "watching" : me.role;
  $("role").title = me.gm ? "this screen speaks for the GM: any fighter, rulings, settings, links"
    : `this screen speaks for ${me.role}: its own fighters, and undo of its own commands`;
  $("role").style.background = me.gm ? "" : sideColour(me.role);
  $("exposed").hidden = !b.exposed || !me.gm;  // the GM's to act on, never a player's worry
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
  if (!S.live) $("confirm").disabled = true;
  paint();
}

// The turn strip: who acts, in order, with what is left.
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

function onKey(ev) {
  const typing = ["INPUT", "TEXTAREA", "SELECT"].includes(ev.target.tagName) && ev.target.type !== "range";
  if (ev.key === "Escape" && S.drag) { cancelDrag(); return; }
  if (!typing && S.drag && (ev.key === "w" || ev.key === "W")) { addWaypoint(); return; }
  if (ev.key === "Escape" && S.choosing) { stopChoosing(); say("", ""); return; }
  if (!typing && !ev.ctrlKey && !ev.metaKey && S.board) {
    if (ev.key === "+" || ev.key === "=") { zoomCentre(1.25); return; }
    if (ev.key === "-" || ev.key === "_") { zoomCentre(0.8); return; }
    if (ev.key === "0") { fitMap(); return; }
    if (ev.key === "c" || ev.key === "C") { centreOnSelected(); return; }
  }
  if (ev.key === "Escape") {
    setDrawer(false);
    clearPreview();
    if (!typing && S.board) deselect();
    return;
  }
  if (typing) return;
  const mod = ev.ctrlKey || ev.metaKey;
  if (!mod) return;
  const key = ev.key.toLowerCase();
  if (key === "z" && !ev.shiftKey) { ev.preventDefault(); undoRedo("undo"); }
  else if (key === "y" || (key === "z" && ev.shiftKey)) { ev.preventDefault(); undoRedo("redo"); }
}

function listen() {
  const source = stream();
  S.source = source;
  source.addEventListener("denied", (msg) => { shutOut(JSON.parse(msg.data).message); });
  // The server ends each stream now and then and the browser reconnects at once: say "reconnecting"
  // only when that takes longer than a moment, so the badge doesn't blink. "Open again since that
  // error", not "open at this instant": with frequent renewals the instant can fall inside the
  // next renewal's reconnect.
  const badge = $("live");
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
    if (S.live) await loadLive(version);
    else {
      S.version = version;
      $("scrubber").max = String(version);
      $("scrub-label").textContent = `viewing event ${S.board.at} of ${version}`;
      await loadEvents();
    }
  });
}

function start() {
  Object.assign(hooks, { loadLive, paint, render, clearPreview, renderEvents, startPreview, focus: focusFighter });
  onDenied(shutOut);
  const touch = navigator.maxTouchPoints > 0 || "ontouchstart" in window;
  document.body.classList.toggle("touch", touch);  // every control a fingertip's size
  const board = $("board");
  board.addEventListener("click", (ev) => { if (!P.suppress) onBoardClick(ev, cellAt); });
  listenGestures(board);
  observeLayout();
  $("zoom-in").addEventListener("click", () => zoomCentre(1.25));
  $("zoom-out").addEventListener("click", () => zoomCentre(0.8));
  $("fit").addEventListener("click", fitMap);
  $("centre-on").addEventListener("click", centreOnSelected);
  $("drawer-toggle").addEventListener("click", () => setDrawer(!document.body.classList.contains("drawer-open")));
  $("confirm").addEventListener("click", confirmPending);
  $("cancel").addEventListener("click", () => { clearPreview(); say("", ""); });
  $("choose-cancel").addEventListener("click", () => { stopChoosing(); say("", ""); });
  $("sheet-close").addEventListener("click", () => { deselect(); say("", ""); });
  $("reveal").addEventListener("change", () => { if (S.pending) runPreview(); });
  $("undo").addEventListener("click", () => undoRedo("undo"));
  $("redo").addEventListener("click", () => undoRedo("redo"));
  $("scrubber").addEventListener("input", onScrub);
  $("to-live").addEventListener("click", loadLive);
  $("download-bundle").addEventListener("click", downloadBundle);
  $("invite-form").addEventListener("submit", makeInvite);
  $("command-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = $("command").value.trim();
    if (text) startPreview({ text });
  });
  $("roll-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const n = Number($("roll-input").value);
    if (Number.isInteger(n)) enterRoll(n);
  });
  document.addEventListener("keydown", onKey);
  if (!TOKEN) { shutOut("this page opens from an invitation link (…/join/…); ask the GM for one"); return; }
  loadLive().then(() => { if (!S.shut) { listen(); loadInvites(); } });
}

window.__table = S;  // for a person (or a test) looking in from the console
start();
