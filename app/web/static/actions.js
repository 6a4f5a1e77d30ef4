// The player's actions: select a fighter, preview a command, confirm it, answer a table roll,
// undo and redo, and what a tap on the board means. The engine decides everything; this asks and
// shows, in words for a player, with the rule ids and numbers under "why?".
import { api, send } from "./api.js";
import { drawReach, drawRoute } from "./board.js";
import { $, S, asSaid, canCommand, fighterOf, forPlayers, h, hooks, isGM, named, ruleChip, say, whyBox } from "./shared.js";
import { follow, sizeBox } from "./view.js";
import { checksBlock, fightersBlock, ruleLine, stepsTable, why } from "./explain.js";
import {
  choiceAt, choose, doorAction, doorRefusal, loadActions, plainText, renderAwaiting, renderFighter, stopChoosing,
} from "./sheet.js";

const svg = () => $("board");

/** A refusal as a sentence, its rule one tap away (the GM sees the rule at once). */
export function sayRefusal(data) {
  const reason = data.why || data.reason || data.message;
  if (isGM()) {
    say("refused", "Refused by the rules: ", h("span", { class: "reason" }, named(reason)),
      whyBox(ruleChip(data.rule), data.enforce ? " " + data.enforce : ""));
    return;
  }
  say("refused", h("span", { class: "reason" }, sentence(reason)),
    whyBox(data.rule ? ruleChip(data.rule) : "", data.enforce ? " " + data.enforce : ""));
}

// "2,1 is occupied by bo" -> "Not allowed: 2,1 is occupied by bo."
function sentence(reason) {
  const r = named(String(reason || "not allowed now").trim());
  const body = r.charAt(0).toUpperCase() + r.slice(1);
  return /[.!?]$/.test(body) ? body : body + ".";
}

export async function loadReach() {
  if (!S.selected || !S.live) { S.reach = null; drawReach(svg(), S.board, null); return; }
  const { status, data } = await api("GET", "/api/reach?fighter=" + encodeURIComponent(S.selected));
  S.reach = status === 200 ? data : null;
  if (status !== 200) say("error", data.message);
  drawReach(svg(), S.board, S.live ? S.reach : null);
  renderFighter();  // its summary speaks of this area: never leave it naming the last one
}

/** The actions of the fighter this screen looks at (the selected one, else its own), and the reactions awaited. */
export async function loadSheet() {
  const fid = S.selected || (hooks.focus() || {}).id;
  if (!fid || !S.live) { renderAwaiting(null); return; }
  const data = await loadActions(fid);
  renderAwaiting(data);
  if (data && S.selected === fid) renderFighter();
}

export function selectFighter(fid, centreIt) {
  if (fid !== S.selected) S.reach = null;
  S.selected = fid;
  clearPreview();
  hooks.paint();
  if (centreIt && S.selected) follow(true);
  loadReach().then(() => { renderFighter(); follow(); });
  loadSheet();
}

export function deselect() {
  S.selected = null;
  S.reach = null;
  clearPreview();
  hooks.paint();
}

export function setDrawer(open) {
  document.body.classList.toggle("drawer-open", open);
  $("drawer-toggle").setAttribute("aria-expanded", String(open));
}

export function clearPreview() {
  S.pending = null; S.preview = null; S.rolls = []; S.waypoints = [];
  $("preview-panel").hidden = true;
  $("roll-panel").hidden = true;
  stopChoosing();
  if (S.board) drawRoute(svg(), S.board, null, []);
}

export function startPreview(body) {
  if (!S.live) { say("info", "This is a past point of the timeline: go back to live to act."); return; }
  stopChoosing();
  S.pending = body;
  S.rolls = [];
  return runPreview();
}

// The end of a dry run's route: where the fighter is going (kept in view above the sheet).
function destination(data) {
  if (data.path && data.path.length) return data.path[data.path.length - 1];
  const m = data.moves && data.moves.length ? data.moves[data.moves.length - 1] : null;
  return m && m.steps.length ? m.steps[m.steps.length - 1].cell : null;
}

export async function runPreview() {
  const body = { ...S.pending, rolls: S.rolls, version: S.version, reveal: isGM() && $("reveal").checked };
  const { status, data } = await api("POST", "/api/preview", body);
  if (status === 409) { say("error", data.message); clearPreview(); await hooks.loadLive(); return; }
  if (status !== 200) { say("error", data.message); S.preview = null; drawRoute(svg(), S.board, null, S.waypoints); return; }
  S.preview = data;
  const panel = $("preview-panel"), box = $("preview");
  panel.hidden = false;
  const route = () => {
    sizeBox();  // the sheet grew: the board gives it the room now, before anything is drawn over it
    drawRoute(svg(), S.board, S.preview, S.waypoints);
    follow(false, destination(data));  // the route stays in view above the sheet
  };
  const confirm = $("confirm");
  // the command in words (names, the buttons' words), never as typed: every screen, the GM's too
  const said = h("span", { id: "preview-text" }, data.words || named(plainText(data.text)));
  if (!data.ok && data.needs_roll) {
    askRoll(data);
    box.replaceChildren(isGM() ? h("div", {}, said) : "", h("div", { class: "muted" }, "Waiting for a number rolled at the table…"),
      isGM() ? "" : whyBox(h("div", {}, said)));
    confirm.disabled = true; confirm.hidden = true;
    route();
    panel.scrollIntoView({ block: "nearest" });
    return;
  }
  $("roll-panel").hidden = true;
  if (!data.ok) {
    // A refused preview offers no Confirm: only the reason, and Cancel.
    box.replaceChildren(isGM() ? h("div", {}, said) : "",
      isGM() ? h("div", { class: "refusal" }, "Refused by the rules: ", named(data.reason))
        : h("div", { class: "refusal" }, sentence(data.why || data.reason)),
      isGM() ? whyBox(h("div", {}, ruleChip(data.rule), " " + (data.enforce || "")))
        : whyBox(h("div", {}, ruleChip(data.rule), " " + (data.enforce || "")), h("div", {}, said)));
    if (isGM()) sayRefusal(data);
    else say("", "");  // said once, in the preview, not again in the message line
    confirm.disabled = true; confirm.hidden = true;
    route();
    panel.scrollIntoView({ block: "nearest" });
    return;
  }
  say("", "");
  confirm.disabled = false; confirm.hidden = false;
  // The GM reads each line's rule at once; a player, under "why?".
  const consequences = h("ul", { id: "consequences" }, ...data.events.filter(forPlayers).map(asSaid).map((e) => h("li", { class: e.explains ? "asks" : "" }, named(e.text) + " ",
    ...why(e))));
  const hidden = data.checks.some((c) => c.hidden) ? h("div", { class: "muted", id: "hidden-note" },
    "A seeded check is drawn when you confirm: its number, its outcome and what follows stay hidden until then.") : "";
  if (isGM()) {
    box.replaceChildren(h("div", {}, said), h("div", {}, h("b", {}, "What happens")),
      consequences, hidden, fightersBlock(data.fighters),
      whyBox(...data.moves.map(stepsTable), data.checks.length ? checksBlock(data.checks) : "", ...data.rules.map(ruleLine)));
  } else {
    box.replaceChildren(h("div", { class: "what" }, h("b", {}, "If you confirm:")), consequences, hidden,
      whyBox(h("div", {}, said), ...data.moves.map(stepsTable), data.checks.length ? checksBlock(data.checks) : "",
        ...data.rules.map(ruleLine)));
  }
  route();
  panel.scrollIntoView({ block: "nearest" });
}

function askRoll(data) {
  $("roll-panel").hidden = false;
  $("roll-reason").replaceChildren(sentence(data.reason), whyBox(ruleChip(data.rule)));
  const input = $("roll-input");
  input.value = "";
  if (!document.body.classList.contains("touch")) input.focus();  // a phone's keyboard would cover the board
}

export function enterRoll(n) {
  S.rolls = [...S.rolls, n];
  $("roll-panel").hidden = true;
  runPreview();
}

// What a command did, once: its events' sentences, each said once (a batch may say one thing twice).
function doneWords(records) {
  const seen = new Set(), out = [];
  for (const r of records) {
    // the command as typed, the engine's notes and a round's bookkeeping (each fighter waits): not the news
    if (r.type === "command" || r.routine || !forPlayers(r)) continue;
    const t = String(r.text || "").trim();
    if (t && !seen.has(t)) { seen.add(t); out.push(named(t)); }
  }
  return out;
}

export async function confirmPending() {
  if (!S.pending || !S.preview || !S.preview.ok) return;
  const body = { ...S.pending, rolls: S.rolls, version: S.version };
  const { status, data } = await send("/api/do", body);
  if (status === 200) {
    clearPreview();
    const rules = [...new Set(data.records.flatMap((r) => r.rules || []))];
    if (isGM()) say("info", `Done: ${data.words || named(plainText(data.text))} (${data.records.length} events)`);
    else say("info", "Done: " + doneWords(data.records).join("; ") + ".", whyBox(h("div", {}, ...rules.map(ruleChip)),
      h("div", {}, data.words || "")));
    // this message is about that batch: when it is undone, the message says so (table.js, tellUndone)
    S.told = data.records.length ? { batch: data.records[0].batch, words: data.words || "" } : null;
    S.version = data.version;
    await hooks.loadLive(data.version);
    return;
  }
  if (status === 422 && data.needs_roll) { askRoll(data); return; }
  if (status === 422) { sayRefusal(data); return; }
  say("error", data.message || "the command failed");
  if (status === 409) { clearPreview(); await hooks.loadLive(); }
}

/** Whose command the latest undo (or redo) would take back: its side, or "gm". */
export function enteredBy(target) {
  if (!target) return null;
  if (target.by) return target.by;
  const m = / by=(\S+)/.exec(target.text || "");
  return m ? m[1] : "gm";
}

/** May this screen undo (redo) now? A player only its own side's last command. */
export function undoState(kind) {
  const t = S.board && S.board[kind];
  if (!S.live) return { ok: false, why: "This is a past point of the timeline: go back to live first." };
  if (!t) return { ok: false, why: kind === "undo" ? "Nothing to undo." : "Nothing to redo." };
  const by = enteredBy(t);
  const words = t.words || named(plainText(t.text));
  if (!isGM() && by !== S.me.role) {
    const whose = by === "gm" ? "the GM's" : `${by}'s`;
    return { ok: false, why: `The last command (${words}) was ${whose}: only ${by === "gm" ? "the GM" : by + " or the GM"} can ${kind} it.` };
  }
  return { ok: true, why: `${kind === "undo" ? "Undo" : "Redo"} “${words}”` };
}

export async function undoRedo(kind) {
  const can = undoState(kind);
  if (!can.ok) { say("info", can.why); return; }
  const target = S.board[kind];
  const { status, data } = await send("/api/" + kind, { version: S.version });
  if (status === 200) {
    const words = target.words || named(plainText(target.text));
    say("info", `${kind === "undo" ? "Undone" : "Redone"}: ${words || doneWords(data.records).join("; ")}`);
    S.told = null;  // this message is about the undo itself
  } else if (status === 422) sayRefusal(data);
  else say("error", data.message);
  clearPreview();
  await hooks.loadLive(status === 200 ? data.version : undefined);
}

function flash(node) {
  if (!node) return;
  node.classList.remove("flash");
  void node.offsetWidth;  // restart the animation
  node.classList.add("flash");
  node.scrollIntoView({ block: "nearest" });
}

/** A tap or click on the board: a fighter selects it; a door opens or closes; a cell moves there. */
export function onBoardClick(ev, cellAt) {
  if (!S.board) return;
  const cell = cellAt(ev.clientX, ev.clientY);
  if (S.choosing) {
    const place = choiceAt(ev, cell);
    if (place === null) { say("info", "Tap one of the marked places, or Cancel."); return; }
    choose(S.choosing, place);
    return;
  }
  const fighter = ev.target.closest("[data-fid]");
  // Another fighter on a cell the selected one may move to now (some rules let it enter an
  // occupied square): the tap is a move there, as the shading says. Elsewhere it selects.
  const into = fighter && S.selected && fighter.dataset.fid !== S.selected && cell && S.reach && !S.reach.blocked &&
    S.reach.fighter === S.selected && S.live && canCommand(S.selected) && S.reach.cells.some(([x, y]) => x === cell[0] && y === cell[1]);
  if (fighter && !ev.shiftKey && !into) {
    selectFighter(fighter.dataset.fid, false);
    return;
  }
  if (!S.live) return;
  const door = ev.target.closest("[data-door]");
  if (door && S.selected) {
    const a = doorAction(door.dataset.door);
    if (a) { a.needs ? choose(a, door.dataset.door) : startPreview({ text: a.text }); return; }
    if (!cell || !S.reach || !S.reach.cells.some(([x, y]) => x === cell[0] && y === cell[1])) {
      say("info", doorRefusal(door.dataset.door));
      return;
    }
  }
  if (!cell) return;
  if (!S.selected) { say("info", "Tap a fighter first: its sheet shows what it can do."); return; }
  if (!isGM() && S.reach && S.reach.blocked && S.reach.fighter === S.selected && !ev.shiftKey) {
    flash($("reach-summary"));  // it can't move now, and its sheet says why: point at that, once
    return;
  }
  const [x, y] = cell;
  if (ev.shiftKey) {
    S.waypoints = [...S.waypoints, [x, y]];
    startPreview({ move: { fighter: S.selected, waypoints: S.waypoints } });
    S.waypoints = S.pending.move.waypoints;
  } else {
    S.waypoints = [];
    if (!canCommand(S.selected) && !isGM()) {
      const f = fighterOf(S.selected);
      say("info", `${f.name} is ${f.side}'s fighter: this screen moves ${S.me.role}'s.`);
      return;
    }
    startPreview({ move: { fighter: S.selected, to: [x, y] } });
  }
}
