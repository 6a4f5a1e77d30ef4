// The GM's home page: the folder's encounters (open, copy, export, archive), drafts, scenario files.
import { $, api, buildHref, download, h } from "./home-api.js";

const say = (text, kind = "info") => { const s = $("status"); s.textContent = text; s.className = kind; };

function when(seconds) {
  return new Date(seconds * 1000).toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
}

async function openTable(row) {
  const { status, data } = await api("POST", `/api/home/encounters/${encodeURIComponent(row.name)}/open`);
  if (status !== 200) return say(data.message, "error");
  location.href = data.url;
}

async function copyAsDraft(row) {
  const { status, data } = await api("POST", `/api/home/encounters/${encodeURIComponent(row.name)}/copy`);
  if (status !== 200) return say(data.message, "error");
  location.href = buildHref(data.name);
}

async function archive(row) {
  if (!confirm(`Archive “${row.title}”? Its log moves to the folder's archive/ and leaves this list.`)) return;
  const { status, data } = await api("POST", `/api/home/encounters/${encodeURIComponent(row.name)}/archive`);
  if (status !== 200) return say(data.message, "error");
  say(`“${row.title}” is archived (${data.to}).`);
  load();
}

async function exportAs(row, kind) {
  const problem = await download(`/api/home/encounters/${encodeURIComponent(row.name)}/export?as=${kind}`);
  if (problem) say(problem, "error");
}

function encounterRow(row) {
  const facts = row.problem ? [h("span", { class: "error" }, row.problem)] : [
    h("span", {}, row.ruleset),
    h("span", {}, `round ${row.round}`),
    h("span", {}, row.acting ? `${row.acting} (${row.acting_side}) to act` : "no one to act"),
    h("span", { class: "muted" }, `${row.fighters} fighters · ${row.events} events · ${when(row.modified)}`),
  ];
  const exportMenu = h("details", { class: "menu" }, h("summary", { class: "button" }, "Export"),
    h("div", { class: "menu-items" },
      h("button", { type: "button", onclick: () => exportAs(row, "toml") }, "Scenario (TOML)"),
      h("button", { type: "button", onclick: () => exportAs(row, "jsonl") }, "Log (JSON Lines)"),
      h("button", { type: "button", onclick: () => exportAs(row, "bundle") }, "Replay bundle (HTML)")));
  return h("li", { "data-encounter": row.name },
    h("div", { class: "what" }, h("b", {}, row.title), h("span", { class: "muted" }, " " + row.name),
      h("div", { class: "facts" }, ...facts)),
    h("div", { class: "acts" },
      h("button", { type: "button", class: "primary", disabled: !!row.problem, onclick: () => openTable(row) }, "Open"),
      h("button", { type: "button", disabled: !!row.problem, onclick: () => copyAsDraft(row),
        title: "A new draft with this encounter's map and fighters as they began" }, "Copy"),
      exportMenu,
      h("button", { type: "button", onclick: () => archive(row) }, "Archive")));
}

function draftRow(row) {
  return h("li", { "data-draft": row.name },
    h("div", { class: "what" }, h("b", {}, row.title),
      h("div", { class: "facts" }, h("span", {}, row.ruleset),
        h("span", { class: row.ready ? "ok" : "muted" }, row.ready ? "ready to start" : "not ready yet"),
        h("span", { class: "muted" }, when(row.updated)))),
    h("div", { class: "acts" },
      h("a", { class: "button primary", href: buildHref(row.name) }, "Continue"),
      h("button", { type: "button", onclick: async () => {
        if (!confirm(`Throw the draft “${row.title}” away?`)) return;
        const { status, data } = await api("DELETE", `/api/home/drafts/${encodeURIComponent(row.name)}`);
        if (status !== 200) say(data.message, "error");
        load();
      } }, "Delete")));
}

async function load() {
  const { status, data } = await api("GET", "/api/home");
  if (status !== 200) {
    say(data.message || "This link does not open the GM's page.", "error");
    return;
  }
  $("folder").textContent = data.folder;
  $("encounters").replaceChildren(...(data.encounters.length ? data.encounters.map(encounterRow)
    : [h("li", { class: "empty" }, "No encounter yet: press New encounter.")]));
  $("drafts").replaceChildren(...(data.drafts.length ? data.drafts.map(draftRow)
    : [h("li", { class: "empty" }, "No draft.")]));
  $("scenario").replaceChildren(...data.scenarios.map((s) => h("option", { value: s }, s)));
  $("from-scenario").disabled = !data.scenarios.length;
}

$("new").href = buildHref("new");
$("from-scenario").addEventListener("click", () => {
  location.href = buildHref("new") + "?scenario=" + encodeURIComponent($("scenario").value);
});
load();
