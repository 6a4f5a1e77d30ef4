// The GM's own panel: the rulings and settings verbs (the command box takes them), and the links.
import { api } from "./api.js";
import { $, S, h, say, sideColour } from "./shared.js";

export function renderRulings() {
  const gmVerbs = S.board.commands.filter((c) => c.gm);
  $("ruling-verbs").replaceChildren(...gmVerbs.map((c) => h("button", {
    type: "button", class: "small", "data-verb": c.verb, title: c.usage + (c.doc ? " — " + c.doc : ""),
    onclick: () => { $("command").value = c.verb + " "; $("command").focus(); },
  }, c.verb)));
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
  role.replaceChildren(...[...S.board.sides, "gm"].map((s) => h("option", { value: s, selected: s === chosen }, s)));
}

export async function makeInvite(ev) {
  ev.preventDefault();
  const { status, data } = await api("POST", "/api/invites", { role: $("invite-role").value, label: $("invite-label").value.trim() });
  if (status !== 200) { say("error", data.message); return; }
  $("invite-made").hidden = false;
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
