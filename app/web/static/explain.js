// The event list, the timeline and the explain panel: what happened, and why, one tap away.
import { BASE, TOKEN, api } from "./api.js";
import { fmt } from "./board.js";
import { $, S, forPlayers, h, hooks, isGM, named, ruleChip, say, whyBox } from "./shared.js";

// Who entered a command is this screen's own business: a player reads the command without it.
const plain = (text) => named(String(text || "").replace(/\s+by=\S+/g, ""));  // every screen: names, no by=

// The list is held with the version it is of (S.eventsAt): after a move the page asks only for what
// changed since (?after=), its new lines and the batches an undo or redo changed the status of. Opened
// fresh, it reads the newest page, and older pages when asked ("older events": ?before=).
const PAGE = 200;
let queue = Promise.resolve();  // one request at a time: each asks after the version the last one left

export function loadEvents() {
  queue = queue.then(refreshEvents, refreshEvents);
  return queue;
}

async function refreshEvents() {
  const seen = Number.isInteger(S.version) ? "&seen=" + S.version : "";
  const held = Array.isArray(S.events) && Number.isInteger(S.eventsAt);
  const ask = held ? "?after=" + S.eventsAt : "?limit=" + PAGE;
  if (held && S.eventsAt === S.version) return;  // nothing new since the list was read
  const { status, data } = await api("GET", "/api/events" + ask + seen);
  if (status !== 200) return;
  if (data.after === undefined) {  // a page (or the whole list) in place of what was held
    S.events = data.events;
    S.eventsOlder = data.older ?? null;
  } else {
    const changed = new Map(data.statuses.map((c) => [c.batch, c.status]));
    S.events = S.events.filter((e) => e.seq <= data.after)
      .map((e) => (changed.has(e.batch) ? { ...e, status: changed.get(e.batch) } : e))
      .concat(data.events);
  }
  S.eventsAt = data.version;
  renderEvents();
}

// The page of lines before the oldest held, put in front of them.
export async function loadOlder() {
  if (S.eventsOlder === null || S.eventsOlder === undefined) return;
  const { status, data } = await api("GET", `/api/events?before=${S.eventsOlder}&limit=${PAGE}`);
  if (status !== 200) return;
  const first = S.events.length ? S.events[0].seq : Infinity;
  S.events = data.events.filter((e) => e.seq < first).concat(S.events);
  S.eventsOlder = data.older ?? null;
  renderEvents(false);
}

export function renderEvents(follow = true) {
  const list = $("events");
  const at = S.board ? S.board.at : Infinity;
  const older = S.eventsOlder === null || S.eventsOlder === undefined ? [] :
    [h("li", { class: "older" }, h("button", { type: "button", id: "events-older", onclick: loadOlder }, "older events"))];
  list.replaceChildren(...older, ...S.events.filter(forPlayers).map((e) => {
    const cls = [e.status, e.seq > at && !S.live ? "future" : "", e.seq === S.explainSeq ? "chosen" : ""].filter(Boolean).join(" ");
    // The GM sees each line's rules; a player taps the line for them (the explain panel's "why?").
    return h("li", { class: cls, "data-seq": e.seq, onclick: () => explain(e.seq) },
      `${e.seq} · ${plain(e.text)} `, ...why(e));  // the rules: tap the line, "why?"
  }));
  if (S.live) { if (follow) list.scrollTop = list.scrollHeight; return; }
  const now = list.querySelector(`li[data-seq="${at}"]`);  // the point the board shows, mid-list
  if (now) list.scrollTop = now.offsetTop - list.clientHeight / 2;
}

// Why an event happened, in the rule's own words: inline after the sentence, never only a tooltip.
export function why(e) {
  const note = String(e.note || "").trim();
  // never "ari's turn ends — ari's turn ends", nor a note the sentence already says word for word
  if (!note || String(e.text || "").includes(note)) return [];
  return [h("span", { class: "why" }, ` — ${named(note)}`)];
}

export function ruleLine(r) {
  return h("div", { class: "rule-line" }, ruleChip(r.id), " " + (r.enforce || "") + (r.default ? ` (default ruling: ${r.default})` : ""));
}

function cardText(c) {
  if (!c) return "—";
  return `${c.pos[0]},${c.pos[1]} height ${fmt(c.pos[2])}; spent ${c.spent_text.join(", ") || "nothing"}; ` +
    `damage ${c.damage}; may still move ${c.move_left_text}` +
    (Object.keys(c.states).length ? "; " + Object.entries(c.states).map(([k, v]) => `${k} ${v}`).join(", ") : "");
}

export function fightersBlock(fighters) {
  return h("div", {}, ...fighters.map((f) => h("div", { class: "fighter-change" },
    h("b", {}, named(f.id)), ": ", cardText(f.before), " → ", cardText(f.after))));
}

export function checksBlock(checks) {
  return h("ul", { class: "checks" }, ...checks.map((c) => h("li", {},
    `${named(c.fighter)}: ${c.check} check, ${c.source} `,
    c.hidden ? h("i", {}, "number hidden until the command is confirmed") : `rolled ${c.number}` +
      (c.modifier ? ` ${c.modifier > 0 ? "+" : ""}${c.modifier} = ${c.total}` : "") +
      (c.target !== null ? ` against ${c.target}: ${c.passed ? "passed" : "failed"}` : ""),
    " ", ...c.rules.map(ruleChip))));
}

// A move step by step; its line in words comes from the server (render.Words), as `explain` prints it.
export function stepsTable(m) {
  const n = (v) => (m.length ? fmt(v) : String(v));
  const rows = m.steps.map((s) => h("tr", {},
    h("td", {}, String(s.n)), h("td", {}, `${s.cell[0]},${s.cell[1]}`), h("td", {}, n(s.cost)),
    h("td", {}, n(s.total)), h("td", {}, n(s.left)),
    h("td", {}, [s.terrain, s.diagonal ? "diagonal" : "", s.mode].filter(Boolean).join(", "))));
  const line = h("div", { class: "move-line" }, named(m.text) + " ", ...m.rules.map(ruleChip));
  if (!rows.length) return h("div", {}, line);  // stopped before its first step: no table of none
  return h("div", {}, line,
    h("table", { class: "steps" },
      h("tr", {}, ...["#", "to", m.cost_unit, "total", "left", "why"].map((t) => h("th", {}, t))), ...rows));
}

export async function explain(seq) {
  S.explainSeq = seq;
  const { status, data } = await api("GET", "/api/events/" + seq);
  const box = $("explain");
  if (status !== 200) { box.textContent = data.message; return; }
  box.className = "";
  if (!isGM()) { box.replaceChildren(...playerExplain(data)); renderEvents(); return; }
  const c = data.command;
  const parts = [
    h("div", {}, h("b", {}, `${data.seq} · ${named(data.text)}`), data.status ? ` · ${data.status}` : ""),
    h("div", {}, "asked: ", c.words || plain(c.text), ` by ${c.by === "gm" ? "the GM" : c.by} (entered by ${c.actor === "gm" ? "the GM" : c.actor} at ${c.at})` + (c.why ? ` · why: ${c.why}` : "")),
  ];
  if (data.note) parts.push(h("div", {}, "note: " + named(data.note)));
  const more = data.batch_rules.filter((r) => !data.rules.some((x) => x.id === r.id));
  // the rules, the steps and the checks one tap away, on the GM's screen as on a player's
  parts.push(whyBox(...data.rules.map(ruleLine),
    more.length ? h("div", { class: "muted" }, "the rest of the batch cites:") : "", ...more.map(ruleLine),
    ...data.moves.map(stepsTable), data.checks.length ? checksBlock(data.checks) : ""));
  if (data.fighters.length) parts.push(h("div", {}, h("b", {}, "before → after")), fightersBlock(data.fighters));
  const bearing = data.settings.filter((x) => x.bears);
  if (bearing.length) parts.push(h("div", {}, "settings in force: " + bearing.map((x) => `${x.name} = ${JSON.stringify(x.value)}`).join(", ")));
  if (data.rulings.made_here.length) parts.push(h("div", {}, "GM ruling: " + data.rulings.made_here.map((r) => `${r.kind}: ${r.why}`).join("; ")));
  if (data.events.length > 1) {
    parts.push(h("div", {}, "same command: events " + data.events.map((e) => e.seq).join(", ")));
  }
  parts.push(h("details", {}, h("summary", {}, "the event as logged"), h("pre", {}, JSON.stringify(data.event))));
  box.replaceChildren(...parts);
  renderEvents();
}

// An event explained to a player: what happened and who asked, in words; the rules, the numbers
// and the command as typed one tap away.
function playerExplain(data) {
  const c = data.command;
  const note = data.note && data.note !== data.text;
  const more = data.batch_rules.filter((r) => !data.rules.some((x) => x.id === r.id));
  return [
    h("div", {}, h("b", {}, named(data.text))), note ? h("div", {}, named(data.note)) : "",
    h("div", { class: "muted" }, `asked by ${c.by === "gm" ? "the GM" : c.by}` + (c.why ? `: ${c.why}` : "")),
    h("details", { class: "why-more" }, h("summary", {}, "why?"), ...data.rules.map(ruleLine), ...more.map(ruleLine),
      ...data.moves.map(stepsTable), data.checks.length ? checksBlock(data.checks) : "", h("div", {}, c.words || plain(c.text))),
  ];
}

// The timeline: a past point is a read-only board.
export async function loadAt(at) {
  const { status, data } = await api("GET", "/api/state?at=" + at);
  if (status !== 200) { say("error", data.message); return; }
  say("", "");  // what was said was about the live game
  S.version = data.version;
  if (data.live) { await hooks.loadLive(); return; }
  S.live = false;
  S.board = data;
  S.reach = null;
  hooks.clearPreview();
  hooks.render();
  renderEvents();
}

let scrubTimer = null;
export function onScrub() {
  const at = Number($("scrubber").value);
  clearTimeout(scrubTimer);
  scrubTimer = setTimeout(() => (at >= S.version ? hooks.loadLive() : loadAt(at)), 60);
}

// The replay bundle (GET /api/bundle): the GM's holds everything, a side's what that side may see.
// Fetched with the token in its header (never in an address), then saved through a short-lived link.
export async function downloadBundle() {
  const at = S.live || !S.board ? "" : "?at=" + S.board.at;
  const resp = await fetch(BASE + "/api/bundle" + at, { headers: { Authorization: "Bearer " + TOKEN } });
  if (!resp.ok) {
    const said = await resp.json().catch(() => ({}));
    say("error", said.message || "The encounter could not be downloaded.");
    return;
  }
  const named = /filename="([^"]+)"/.exec(resp.headers.get("Content-Disposition") || "");
  const url = URL.createObjectURL(await resp.blob());
  const a = document.createElement("a");
  a.href = url;
  a.download = named ? named[1] : "encounter.html";
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
