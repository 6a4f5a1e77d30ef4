// The GM's own panel: the rulings and settings verbs (the command box takes them), the links, the
// fighters (add one mid-fight, remove one) and a token put on a cell by hand.
import { clearPreview } from "./actions.js";
import { api, send } from "./api.js";
import { $, S, h, hooks, isGM, say, sideColour } from "./shared.js";
import { cellAt } from "./view.js";

export function renderRulings() {
  const gmVerbs = S.board.commands.filter((c) => c.gm);
  $("ruling-verbs").replaceChildren(...gmVerbs.map((c) => h("button", {
    type: "button", class: "small", "data-verb": c.verb, title: c.usage + (c.doc ? " — " + c.doc : ""),
    onclick: () => { $("command").value = c.verb + " "; $("command").focus(); },
  }, c.verb)));
  renderRoster();
}

export async function loadInvites() {
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
  role.replaceChildren(...[...S.board.sides, "gm", "watcher"].map((s) => h("option", { value: s, selected: s === chosen },
    s === "watcher" ? "watcher (view only)" : s)));
}

export async function makeInvite(ev) {
  ev.preventDefault();
  const { status, data } = await api("POST", "/api/invites", { role: $("invite-role").value, label: $("invite-label").value.trim() });
  if (status !== 200) { say("error", data.message); return; }
  $("invite-made").hidden = false;
  $("invite-url").value = data.url;
  $("invite-url").select();
  // The link as a QR code for a phone's camera (the server draws it; an <img> runs nothing in it).
  // (An inline drawing may lack its namespace, which a picture of its own needs.)
  const svg = data.qr && !/xmlns=/.test(data.qr) ? data.qr.replace("<svg", '<svg xmlns="http://www.w3.org/2000/svg"') : data.qr;
  $("invite-qr").replaceChildren(svg ? h("img", { src: "data:image/svg+xml;charset=utf-8," + encodeURIComponent(svg),
    alt: "the new link as a QR code", class: "qr" }) : "");
  $("invite-label").value = "";
  await loadInvites();
}

async function revokeInvite(i) {
  const { status, data } = await api("POST", `/api/invites/${encodeURIComponent(i.id)}/revoke`, {});
  if (status === 200) say("info", `Revoked the ${i.role} link ${i.label || i.id}: it stopped working.`);
  else say("error", data.message);
  await loadInvites();
}

// --- the GM's hand at the table: add a fighter, remove one, put one on a cell by hand ----------
// Each is a GM ruling the engine decides (core/engine/rulings.py): `join`, `leave` and `place`, sent in
// the table's own words through /api/do, so the reader that checks a scenario's fighters checks the
// form, a refusal names the field it is about (shown beside that field), and undo takes it back.

/** A value as the command syntax takes it: bare when it is one plain word, else quoted. */
const word = (v) => (/^[\w.,:@+-]+$/.test(String(v)) ? String(v) : "'" + String(v).replace(/'/g, `'"'"'`) + "'");

let roster = null;  // the form's makings (/api/gm/roster), fetched once a version
let picking = null; // a cell asked for on the board: the function that takes it

/** Run a ruling; on a refusal, its words go beside the field it names (`join: stats.reach: …`). */
async function rule(text, form, done) {
  const { status, data } = await send("/api/do", { text, version: S.version });
  if (status === 200) {
    clearPreview();  // a move previewed before (a drop's) is no longer what the board shows
    say("info", `Done: ${done}.`);
    S.version = data.version;
    await hooks.loadLive(data.version);
    return true;
  }
  const reason = data.reason || data.message || "refused";
  if (form) showProblem(form, reason);
  say(status === 422 ? "refused" : "error", reason);
  if (status === 409) await hooks.loadLive();
  return false;
}

/** `join: stats.reach: must not be negative` beside the field marked data-field="stats.reach". */
function showProblem(form, reason) {
  for (const old of form.querySelectorAll(".field-error")) old.remove();
  for (const bad of form.querySelectorAll("[aria-invalid]")) bad.removeAttribute("aria-invalid");
  const m = /^\w+: ([\w.[\]]+): (.*)$/.exec(reason);
  const input = m && form.querySelector(`[data-field="${m[1]}"]`);
  const box = input ? input.closest("label") || input : form.querySelector(".form-end");
  const text = m && input ? m[2] : reason;
  if (input) input.setAttribute("aria-invalid", "true");
  box.after(h("p", { class: "field-error", role: "alert" }, text));
}

/** The GM's list of fighters, each with Remove, and the Add fighter form (made from the ruleset's stats). */
export async function renderRoster() {
  if (!isGM() || !S.board) return;
  listenPicking($("board"));
  $("roster").replaceChildren(...S.board.fighters.map((f) => h("li", { "data-roster": f.id },
    h("span", { class: "dot", style: `background:${sideColour(f.side)}` }), ` ${f.name} (${f.side}) at ${f.pos[0]},${f.pos[1]} `,
    h("button", { type: "button", class: "small", title: `Take ${f.name} out of the fight (a GM ruling; undo brings it back)`,
      onclick: () => askLeave(f) }, "Remove"))));
  if (!roster || roster.version !== S.version) {
    const { status, data } = await api("GET", "/api/gm/roster");
    if (status !== 200) return;
    roster = { ...data, version: S.version };
  }
  if (!$("join-form").dataset.built || $("join-form").dataset.built !== roster.ruleset) buildJoinForm();
  else refreshJoinChoices();
}

function askLeave(f) {
  const li = document.querySelector(`[data-roster="${CSS.escape(f.id)}"]`);
  if (!li || li.querySelector("form")) return;
  const why = h("input", { placeholder: "why (e.g. flees down the stairs)", required: true, "aria-label": `why ${f.name} leaves`, "data-field": "why" });
  const form = h("form", { class: "leave-form" }, why, h("button", { type: "submit" }, `Remove ${f.name}`),
    h("button", { type: "button", class: "small", onclick: () => form.remove() }, "Cancel"), h("span", { class: "form-end" }));
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (await rule(`leave ${f.id} why=${word(why.value.trim())}`, form, `${f.name} has left the fight`)) form.remove();
  });
  li.append(form);
  why.focus();
}

function field(label, input, hint) {
  return h("label", { class: "field" }, h("span", {}, label), input, hint ? h("small", { class: "muted" }, hint) : "");
}

function buildJoinForm() {
  const form = $("join-form");
  form.dataset.built = roster.ruleset;
  const stats = roster.stats.map((st) => field(
    st.name + (st.unit ? ` (${st.unit})` : ""),
    h("input", { type: "number", step: "any", min: st.min, max: st.max, inputmode: "decimal", "data-field": `stats.${st.name}`,
      "data-stat": st.name, placeholder: st.default === null ? "needed" : `default ${st.default}`, required: st.default === null }),
    st.doc));
  const cell = h("input", { "data-field": "at", placeholder: "x,y", pattern: "[0-9]+,[0-9]+", required: true, size: 6 });
  const pick = h("button", { type: "button", class: "small", onclick: () => pickCell(cell) }, "Pick on the board");
  const side = h("input", { "data-field": "side", required: true });
  side.setAttribute("list", "join-sides");  // a read-only property: only the attribute sets it
  form.replaceChildren(
    field("id", h("input", { "data-field": "fighter", required: true, pattern: "[A-Za-z0-9_-]+", placeholder: "e.g. gob2" }), "letters, digits, - and _"),
    field("name", h("input", { "data-field": "name", placeholder: "what players read" })),
    field("side", side, "a side at the table, or a new one"),
    h("datalist", { id: "join-sides" }),
    field("size", h("select", { "data-field": "size" }, ...roster.sizes.map((s) => h("option", { value: s, selected: s === "medium" }, s)))),
    h("label", { class: "field" }, h("span", {}, "cell"), cell, pick),
    ...stats,
    field("acts", h("select", { "data-field": "after" })),
    field("why", h("input", { "data-field": "why", required: true, placeholder: "e.g. reinforcements arrive" })),
    h("div", { class: "form-end" }, h("button", { type: "submit" }, "Add fighter")));
  form.noValidate = true;  // the engine's reader checks every field and says what is wrong beside it
  form.onsubmit = submitJoin;
  refreshJoinChoices();
}

function refreshJoinChoices() {
  const form = $("join-form");
  $("join-sides").replaceChildren(...roster.sides.map((s) => h("option", { value: s })));
  const after = form.querySelector('[data-field="after"]');
  const chosen = after.value;
  after.replaceChildren(h("option", { value: "" }, "last in the turn order"),
    ...roster.order.map((o) => h("option", { value: o.id, selected: o.id === chosen }, `right after ${o.name}`)));
}

function pickCell(input) {
  say("info", "Tap a cell on the board for the newcomer.");
  picking = (cell) => { input.value = cell.join(","); say("info", `The newcomer will stand on ${input.value}.`); };
}

/** While a cell is asked for, a tap on the board gives it (and is nothing else). */
function listenPicking(board) {
  if (board.dataset.picking) return;
  board.dataset.picking = "1";
  board.addEventListener("click", (ev) => {
    if (!picking) return;
    const cell = cellAt(ev.clientX, ev.clientY);
    if (!cell) return;
    ev.stopImmediatePropagation();
    ev.preventDefault();
    const take = picking;
    picking = null;
    take(cell);
  }, true);
}

async function submitJoin(ev) {
  ev.preventDefault();
  const form = $("join-form");
  const val = (f) => form.querySelector(`[data-field="${f}"]`).value.trim();
  const stats = [...form.querySelectorAll("[data-stat]")].filter((i) => i.value.trim() !== "")
    .map((i) => `${i.dataset.stat}:${i.value.trim()}`);
  const parts = ["join", word(val("fighter")), word(val("at")), `side=${word(val("side"))}`];
  if (val("name")) parts.push(`name=${word(val("name"))}`);
  if (val("size") !== "medium") parts.push(`size=${word(val("size"))}`);
  if (stats.length) parts.push(`stats=${stats.join(",")}`);
  if (val("after")) parts.push(`after=${word(val("after"))}`);
  parts.push(`why=${word(val("why"))}`);
  if (await rule(parts.join(" "), form, `${val("name") || val("fighter")} has joined the fight at ${val("at")}`)) {
    for (const old of form.querySelectorAll(".field-error")) old.remove();
    for (const f of ["fighter", "name", "at"]) form.querySelector(`[data-field="${f}"]`).value = "";
    roster = null;
    await renderRoster();
  }
}

/** A token the GM dropped on a cell: offer to put it there by hand (a `place` ruling, with its reason). */
export function offerPlace(fid, cell) {
  const f = S.board.fighters.find((x) => x.id === fid);
  if (!f || !isGM()) return;
  const panel = $("place-panel"), form = $("place-form"), why = $("place-why");
  $("place-words").textContent = `Put ${f.name} on ${cell[0]},${cell[1]} by hand: a GM ruling, no rule of movement runs and nothing is spent.`;
  for (const old of form.querySelectorAll(".field-error")) old.remove();
  panel.hidden = false;
  form.onsubmit = async (ev) => {
    ev.preventDefault();
    const done = `${f.name} put on ${cell[0]},${cell[1]} by hand`;
    if (await rule(`place ${f.id} ${cell[0]},${cell[1]} why=${word(why.value.trim())}`, form, done)) {
      panel.hidden = true;
      why.value = "";
    }
  };
  $("place-cancel").onclick = () => { panel.hidden = true; };
}
