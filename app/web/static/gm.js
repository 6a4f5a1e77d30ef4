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
