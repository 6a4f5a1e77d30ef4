// The fighter's sheet: who it is and what it has left, in words, and what it can do now as
// buttons (GET /api/actions; /api/options on a server without it). A button that needs a place
// or a target asks for it on the board; one that can't act now says why. Reactions the table
// waits for are asked for on the screens that may answer and announced on the others.
import { api } from "./api.js";
import { el, fmt } from "./board.js";
import { $, S, canCommand, fighterOf, h, hooks, isGM, nameOf, named, ruleChip, say, whyBox } from "./shared.js";

// Words for a verb when the server sends only verbs (/api/options): "drop-prone" -> "Drop prone".
const VERB_WORDS = { "end-turn": "End the turn", open: "Open the door", close: "Close the door", "stand-up": "Stand up",
  "drop-prone": "Drop prone", "special-jump": "Jump", "take-action": "Act", "pull-up": "Pull up onto the ledge" };
const verbWords = (verb) => VERB_WORDS[verb] || verb.charAt(0).toUpperCase() + verb.slice(1).replace(/-/g, " ");

/** A command's text as a player reads it: who entered it is this screen's own business. */
export const plainText = (text) => String(text || "").replace(/\s+by=\S+/g, "");

export { whyBox };  // "why?": rule ids one tap away on every screen (shared.js)

// /api/options, said as /api/actions says things: one button per command, its refusal as its why.
function fromOptions(fid, data) {
  return {
    fighter: fid, fallback: true, awaiting: [],
    actions: data.options.map((o) => ({
      key: o.verb, label: verbWords(o.verb), cost: null, needs: null, text: o.text, ok: o.ok,
      why: o.ok ? null : o.reason, rule: o.rule, doc: o.doc,
    })),
  };
}

/** The actions of a fighter now (cached per version): /api/actions, or /api/options without it. */
export async function loadActions(fid) {
  const want = `${fid}@${S.version}`;
  if (S.actions && S.actions.key === want) return S.actions.data;
  if (S.actionsAsked && S.actionsAsked.key === want) return S.actionsAsked.promise;
  const promise = (async () => {
    let { status, data } = await api("GET", "/api/actions?fighter=" + encodeURIComponent(fid));
    if (status === 404 && data.error !== "unknown fighter") {  // a server without /api/actions
      ({ status, data } = await api("GET", "/api/options?fighter=" + encodeURIComponent(fid)));
      if (status === 200) data = fromOptions(fid, data);
    }
    if (status !== 200) return null;
    if (`${fid}@${S.version}` === want) S.actions = { key: want, data };
    return data;
  })();
  S.actionsAsked = { key: want, promise };
  return promise;
}

/** The sheet of the selected fighter: its card, its reach in words, its buttons. */
export function renderFighter() {
  const box = $("fighter-info"), quick = $("quick");
  const f = fighterOf(S.selected);
  $("sheet-close").hidden = !f;
  if (!f) {
    quick.replaceChildren();
    box.className = "muted";
    box.textContent = "Tap a fighter on the board.";
    return;
  }
  box.className = "";
  const a = S.actions && S.actions.key === `${f.id}@${S.version}` ? S.actions.data : null;
  const left = a && a.card ? a.card.left : [`${f.move_left_text} to move`];
  const states = a && a.card ? a.card.states : stateWords(f);
  // The server's card already says what was spent; the page's own line is for a board without one.
  const spent = a && a.card ? "" : f.spent_text.length ? `spent: ${f.spent_text.join(", ")}` : "nothing spent yet";
  box.replaceChildren(
    h("div", { class: "sheet-head" }, h("b", {}, f.name), " ",
      h("span", { class: "muted" }, canCommand(f.id) && !isGM() ? "yours" : `${f.side}`), f.active ? h("span", { class: "acting" }, " · acting now") : ""),
    h("div", { class: "card" }, [...left, ...states].join(" · ")),
    spent || f.damage ? h("div", { class: "card muted" }, [spent, f.damage ? `damage ${f.damage}` : ""].filter(Boolean).join(" · ")) : "",
    reachSummary(f),
    isGM() ? gmNumbers(f) : "",
  );
  if (!S.live) { quick.replaceChildren(); return; }
  if (S.me && S.me.role === "watcher") {
    quick.replaceChildren(h("p", { class: "muted" }, "This link watches the table: it follows every move and can't act."));
    return;
  }
  if (a) { drawActions(a); drawDoorTargets(); }
  else loadActions(f.id).then((data) => { if (data && S.selected === f.id) renderFighter(); });
}

// A fighter's states as words, when the server sends no card: prone, engaged with Kel, flying.
function stateWords(f) {
  const rest = S.board.machines || {};
  const states = Object.entries(f.states).filter(([m, v]) => m !== "turn" && rest[m] !== v).map(([, v]) => v.replace(/_/g, " "));
  for (const [kind, a, b] of S.board.links) {
    if (a !== f.id && b !== f.id) continue;
    const other = nameOf(a === f.id ? b : a);
    states.push(kind === "engaged" ? `engaged with ${other}` : kind === "grab" ? (a === f.id ? `holding ${other}` : `held by ${other}`)
      : `${kind.replace(/_/g, " ")} with ${other}`);
  }
  if (f.turn_text) states.push(f.turn_text);
  return states;
}

// The GM's numbers, folded away: stats, marks and links as the engine holds them.
function gmNumbers(f) {
  const marks = Object.entries(f.marks).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(", ") || "none";
  const links = S.board.links.filter(([, a, b]) => a === f.id || b === f.id).map(([k, a, b]) => `${a} ${k} ${b}`).join(", ") || "none";
  const stats = Object.entries(f.stats).map(([k, v]) => `${k} ${v}`).join(", ");
  const states = Object.entries(f.states).map(([k, v]) => `${k} ${v}`).join(", ");
  return h("details", { class: "gm-numbers" }, h("summary", {}, "numbers (GM)"),
    h("div", {}, `${f.id} at ${f.pos[0]},${f.pos[1]}, height ${fmt(f.pos[2])} ${S.board.ruleset.unit}`),
    h("div", {}, "stats: " + stats), h("div", {}, "states: " + states), h("div", {}, "marks: " + marks), h("div", {}, "links: " + links));
}

function reachSummary(f) {
  const r = S.reach;
  const box = h("div", { id: "reach-summary" });
  if (!r || r.fighter !== f.id) return box;
  if (isGM()) box.append(`reach: ${r.cells.length} cells, ${fmt(r.budget)} ${r.unit} left to spend`);
  else if (r.cells.length && !r.blocked && canCommand(f.id)) box.append(`Tap a shaded cell to move there: ${fmt(r.budget)} ${r.unit} left to spend.`);
  else if (r.cells.length && !r.blocked) box.append(`${f.name} may move over the shaded cells: ${fmt(r.budget)} ${r.unit} left to spend.`);
  if (r.blocked) {
    box.className = "blocked-note";
    if (isGM()) box.append(h("br"), `but it can't move now: ${named(r.blocked.reason)}`, whyBox(ruleChip(r.blocked.rule)));
    else box.append(`${f.name} can't move now: ${named(r.blocked.reason)}.`, whyBox(ruleChip(r.blocked.rule)));
  } else if (!r.cells.length) {
    box.append(isGM() ? " (no cell is within reach)" : `${f.name} has no cell within reach.`);
  }
  return box;
}

function drawActions(data) {
  const quick = $("quick");
  const acts = data.actions.filter((a) => a.key !== "move");  // moving is a tap on a shaded cell
  const allowed = acts.filter((a) => a.ok), refused = acts.filter((a) => !a.ok);
  const verb = (a) => (a.text || a.key).split(" ")[0];
  // The command each button would preview, its place filled with the first offered (for the curious and the tests).
  const first = (a) => (a.needs && a.targets && a.targets.length ? { "data-target": [].concat(a.targets[0]).join(",") } : {});
  quick.replaceChildren(...allowed.map((a) => h("button", {
    type: "button", class: "act", "data-verb": verb(a), "data-key": a.key, "data-text": a.text || "", ...first(a),
    title: `Preview “${a.label}”` + (a.cost ? `: ${a.cost}` : "") + (a.needs ? `; then tap the ${a.needs} on the board` : ""),
    onclick: () => act(a),
  }, a.label)));
  if (!allowed.length && !isGM()) quick.append(h("p", { class: "muted" }, "Nothing else to do now."));
  else if (!allowed.length) quick.append(h("span", { class: "muted" }, "No quick command is allowed now. "));
  if (refused.length) {
    quick.append(h("details", { class: "more" }, h("summary", {}, `not now (${refused.length})`),
      h("ul", {}, ...refused.map((a) => h("li", { "data-verb": verb(a), "data-key": a.key, "data-text": a.text || "", ...first(a) },
        h("b", {}, a.label), " — ",
        named(a.why || "not allowed now"))))));
  }
}

/** A button tapped: a whole command previews now; one that needs a place asks for it on the board. */
export function act(a) {
  if (!a.needs) { hooks.startPreview({ text: a.text }); return; }
  const targets = a.targets || null;
  if (targets && targets.length === 1) { choose(a, targets[0]); return; }
  S.choosing = a;
  const what = { door: "the door", fighter: "the fighter", cell: "the cell" }[a.needs] || "the place";
  $("choose").hidden = false;
  $("choose-words").textContent = `${a.label}: tap ${what} on the board` + (targets ? " (marked)." : ".");
  drawChoices();
  say("info", `Tap ${what} on the board, or Cancel.`);
}

/** The place or target given: the command's text filled in, and previewed. */
export function choose(a, target) {
  stopChoosing();
  const filled = a.needs === "cell" ? (Array.isArray(target) ? target.join(",") : target) : String(target);
  hooks.startPreview({ text: a.text.replace("{" + a.needs + "}", filled) });
}

export function stopChoosing() {
  S.choosing = null;
  $("choose").hidden = true;
  const g = $("board").querySelector("#choices");
  if (g) g.remove();
}

const sameDoor = (a, b) => String(a).split("|").sort().join("|") === String(b).split("|").sort().join("|");

// The places a button may take, marked on the board over everything else (big enough to tap).
function drawChoices() {
  const svg = $("board"), a = S.choosing;
  let g = svg.querySelector("#choices");
  if (g) g.remove();
  if (!a) return;
  g = el("g", { id: "choices" });
  const targets = a.targets || null;
  if (a.needs === "cell") {
    for (const c of targets || []) g.append(el("rect", { x: c[0] + 0.08, y: c[1] + 0.08, width: 0.84, height: 0.84, class: "choice", "data-choice": c.join(",") }));
  } else if (a.needs === "fighter") {
    for (const f of S.board.fighters) {
      if (targets ? !targets.includes(f.id) : f.id === S.selected) continue;
      g.append(el("rect", { x: f.pos[0] + 0.04, y: f.pos[1] + 0.04, width: 0.92, height: 0.92, rx: 0.46, class: "choice", "data-choice": f.id, "aria-label": f.name, role: "button" }));
    }
  } else if (a.needs === "door") {
    for (const d of S.board.doors || []) {
      if (targets && !targets.some((t) => sameDoor(t, d.at))) continue;
      const [[ax, ay], [bx, by]] = d.cells;  // a cell-sized mark across the door's edge
      const x = ax === bx ? ax : Math.max(ax, bx) - 0.5, y = ay === by ? ay : Math.max(ay, by) - 0.5;
      g.append(el("rect", { x, y, width: 1, height: 1, rx: 0.2, class: "choice", "data-choice": d.at, role: "button", "aria-label": "this door" }));
    }
  }
  svg.append(g);
}

/** A tap on the board while a button waits for its place: the place it names, or null. */
export function choiceAt(ev, cell) {
  const a = S.choosing;
  const mark = ev.target.closest("[data-choice]");
  if (mark) return mark.dataset.choice;
  if (a.targets) return null;
  if (a.needs === "cell") return cell ? cell.join(",") : null;
  const tok = ev.target.closest("[data-fid]");
  if (a.needs === "fighter") return tok ? tok.dataset.fid : null;
  const door = ev.target.closest("[data-door]");
  return a.needs === "door" && door ? door.dataset.door : null;
}

/** A door tapped with a fighter selected: the button that opens or closes that door, if any. */
export function doorAction(doorAt) {
  const data = S.actions && S.actions.key === `${S.selected}@${S.version}` ? S.actions.data : null;
  if (!data) return null;
  return data.actions.find((a) => a.ok && (a.needs === "door" ? !a.targets || a.targets.some((t) => sameDoor(t, doorAt))
    : /^(open|close) /.test(a.text || "") && sameDoor(a.text.split(" ").pop(), doorAt))) || null;
}

// A closed door the selected fighter may open now gets a cell-sized target across its edge, over
// everything (a fingertip can't find a 3 px slab). An open door keeps its thin edge: the cell
// beyond it is for walking through.
function drawDoorTargets() {
  const svg = $("board");
  let g = svg.querySelector("#door-targets");
  if (g) g.remove();
  if (S.choosing || !S.selected) return;
  g = el("g", { id: "door-targets" });
  for (const d of S.board.doors || []) {
    const a = d.state === "closed" ? doorAction(d.at) : null;
    if (!a) continue;
    const [[ax, ay], [bx, by]] = d.cells;
    const x = ax === bx ? ax : Math.max(ax, bx) - 0.5, y = ay === by ? ay : Math.max(ay, by) - 0.5;
    g.append(el("rect", { x, y, width: 1, height: 1, rx: 0.2, class: "door-target", "data-door": d.at, role: "button",
      "aria-label": `${a.label}: the door between ${d.cells.map((c) => c.join(",")).join(" and ")}` }));
  }
  svg.append(g);
}

/** Why a door can't be used by the selected fighter now, in words. */
export function doorRefusal(doorAt) {
  const data = S.actions && S.actions.key === `${S.selected}@${S.version}` ? S.actions.data : null;
  const f = fighterOf(S.selected);
  const no = data && data.actions.find((a) => !a.ok && (a.needs === "door" || /^(open|close) /.test(a.text || "")));
  return no && no.why ? no.why : `${f ? f.name : "This fighter"} is not beside that door: walk next to it first.`;
}

// --- reactions the table waits for -------------------------------------------------------------

/** The reactions awaited (from the last /api/actions answer): buttons here, or who is awaited. */
export function renderAwaiting(data) {
  const box = $("awaiting");
  const waits = (data && data.awaiting) || [];
  box.hidden = !waits.length;
  box.replaceChildren(...waits.map((w) => {
    if (w.mine && w.choices && w.choices.length) {
      return h("div", { class: "await mine", "data-fighter": w.fighter }, h("p", {}, w.prompt + ": answer for " + nameOf(w.fighter) + "."),
        h("div", { class: "buttons" }, ...w.choices.map((c) => h("button", {
          type: "button", class: "act", disabled: c.ok === false, title: c.why || c.label,
          onclick: () => (c.needs ? act({ ...c, key: "answer", label: c.label }) : hooks.startPreview({ text: c.text })),
        }, c.label))));
    }
    return h("div", { class: "await", "data-fighter": w.fighter }, h("p", {}, `${w.prompt}: waiting for ${nameOf(w.fighter)}'s answer.`));
  }));
}
