// @vitest-environment happy-dom
// The thin Foundry layer on its own, with a fake server: what it vetoes, what it leaves to Foundry, what the
// chat card's buttons carry.
import { describe, expect, it } from "vitest";
import { install, movementOf, tokenOf, type Env } from "../src/foundry/hooks.js";
import { card, cardHtml } from "../src/logic/moves.js";
import type { Link } from "../src/logic/types.js";
import { FakeChat, FakeHooks, FakeSettings, FakeTokenDocument, movement } from "./fakes.js";

const link: Link = {
  log: "x.jsonl", ruleset: "speed-meters", unit: "m", grid: 100, origin: [0, 0], width: 10, height: 10,
  fighters: { tokA: "ari" }, sides: { ari: "friendly" }, verbs: { walk: "move", displace: "place", fly: null },
};  // prettier-ignore

function setUp(answers: Record<string, [number, unknown]>) {
  const calls: { path: string; body: unknown }[] = [];
  const settings = new FakeSettings();
  settings.values.set("tabletrail-bridge.serverUrl", "http://t.test");
  settings.values.set("tabletrail-bridge.playerToken", "tt1.abc.player");
  const hooks = new FakeHooks();
  const chat = new FakeChat();
  const notes: string[] = [];
  class Doc extends FakeTokenDocument {
    override async _preUpdateMovement() {
      return this.name === "Frozen" ? false : undefined; // another module's veto comes first
    }
  }
  const env: Env = {
    hooks: hooks.api, settings: settings.api, chat: chat.api, user: { id: "u", isGM: false, name: "Maya" },
    tokenClass: Doc, notify: (_k, t) => notes.push(t), saveFile: () => undefined, setCombatTurn: async () => undefined,
    systemId: "dnd5e",
    fetch: async (input, init) => {
      const path = new URL(String(input)).pathname;
      calls.push({ path, body: init?.body ? JSON.parse(String(init.body)) : undefined });
      const [status, body] = answers[path] ?? [404, { error: "not found", message: path }];
      return new Response(JSON.stringify(body), { status });
    },
  };  // prettier-ignore
  const bridge = install(env, () => link, async () => undefined, async () => undefined);
  bridge.link = link;
  const run = (doc: FakeTokenDocument, m: TokenDocument.PreMovementOptions, operation: object = {}) =>
    (Doc.prototype._preUpdateMovement as (this: FakeTokenDocument, ...a: unknown[]) => Promise<boolean | void>).call(doc, m, operation);
  return { calls, hooks, chat, notes, bridge, run, Doc };
}

describe("the Foundry layer", () => {
  it("asks the server with the players' token and lets the move land when it is recorded", async () => {
    const t = setUp({ "/api/foundry/move": [200, { ok: true, at: [1, 2, 0], cost: 200, left: 200, resource: "movement", unit: "m", records: [{ seq: 9 }] }] });
    const ari = new t.Doc("tokA", "Ari", 100, 100);
    expect(await t.run(ari, movement("mOvE000000000001", ari, [{ x: 100, y: 200 }]))).toBeUndefined();
    expect(t.calls).toEqual([{ path: "/api/foundry/move", body: { fighter: "ari", cells: [[1, 2]], command_id: "mOvE000000000001", action: "walk" } }]);
    // Later updates of the same movement are not asked again.
    expect(await t.run(ari, movement("mOvE000000000001", ari, [{ x: 100, y: 200 }]))).toBeUndefined();
    expect(t.calls).toHaveLength(1);
  });

  it("vetoes a refused move and says why in the chat", async () => {
    const t = setUp({ "/api/foundry/move": [422, { error: "refused", rule: "speed-meters/movement", reason: "only 4 m are left", enforce: "up to Speed" }] });
    const ari = new t.Doc("tokA", "Ari", 100, 100);
    expect(await t.run(ari, movement("mOvE000000000002", ari, [{ x: 100, y: 900 }]))).toBe(false);
    expect(t.chat.messages[0]!.content).toContain("only 4 m are left");
    expect(t.notes[0]).toContain("only 4 m are left");
  });

  it("vetoes a move the server did not decide: no move lands undecided", async () => {
    const t = setUp({});
    const ari = new t.Doc("tokA", "Ari", 100, 100);
    expect(await t.run(ari, movement("mOvE000000000003", ari, [{ x: 100, y: 200 }]))).toBe(false);
  });

  it("leaves alone its own placements, other modules' vetoes and tokens that are no fighters", async () => {
    const t = setUp({});
    const ari = new t.Doc("tokA", "Ari", 100, 100);
    expect(await t.run(ari, movement("sYnC000000000001", ari, [{ x: 100, y: 200 }]), { tabletrailSync: true })).toBeUndefined();
    const frozen = new t.Doc("tokA", "Frozen", 100, 100);
    expect(await t.run(frozen, movement("fRoZ000000000001", frozen, [{ x: 100, y: 200 }]))).toBe(false);
    const crate = new t.Doc("tokZ", "Crate", 100, 100);
    expect(await t.run(crate, movement("cRaT000000000001", crate, [{ x: 100, y: 200 }]))).toBeUndefined();
    expect(t.calls).toEqual([]);
  });

  it("turns Foundry's own undo of a move into tabletrail's undo", async () => {
    const t = setUp({ "/api/state": [200, { version: 12, fighters: [] }], "/api/undo": [200, { ok: true, version: 14 }] });
    const ari = new t.Doc("tokA", "Ari", 100, 200);
    expect(await t.run(ari, movement("uNdO000000000001", ari, [{ x: 100, y: 100 }], "walk", "undo"))).toBeUndefined();
    expect(t.calls.map((c) => c.path)).toEqual(["/api/state", "/api/undo"]);
    expect(t.calls[1]!.body).toEqual({ version: 12, why: "undone in Foundry" });
  });

  it("refuses a movement action the ruleset has none of, before any call", () => {
    const t = setUp({});
    const ari = new t.Doc("tokA", "Ari", 100, 100);
    const m = movement("fLy0000000000001", ari, [{ x: 100, y: 200 }], "fly");
    expect(t.hooks.call("preMoveToken", ari, m, {})).toEqual([false]);
    expect(t.notes[0]).toBe("tabletrail: this ruleset has no fly movement");
  });

  it("reads a v13 movement's waypoints, passed and pending", () => {
    const ari = new FakeTokenDocument("tokA", "Ari", 0, 0);
    const m = movement("mOvE000000000004", ari, [{ x: 0, y: 100 }, { x: 100, y: 100 }]);
    expect(movementOf(ari, m)).toEqual({
      id: "mOvE000000000004", tokenId: "tokA", width: 1, height: 1, origin: { x: 0, y: 0 },
      waypoints: [{ x: 0, y: 100, action: "walk" }, { x: 100, y: 100, action: "walk" }], method: "dragging",
    });  // prettier-ignore
  });

  it("takes a pasted link for its token", () => {
    expect(tokenOf("https://t.example.com/join/tt1.a.b")).toBe("tt1.a.b");
    expect(tokenOf(" tt1.a.b ")).toBe("tt1.a.b");
  });

  it("puts a why? button on the card that names the event, and nothing a player typed runs", () => {
    const html = cardHtml(card("<img src=x onerror=alert(1)>", { ok: true, at: [1, 2], cost: 100, unit: "m", records: [{ seq: 7, text: "", rules: [], type: "" }] }, 200));
    document.body.innerHTML = html;
    expect(document.querySelector<HTMLButtonElement>("[data-tabletrail-why]")?.dataset.tabletrailWhy).toBe("7");
    expect(document.querySelector("img")).toBeNull();
  });
});
