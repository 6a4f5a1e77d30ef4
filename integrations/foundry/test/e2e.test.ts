// End to end: a real `tabletrail serve` on 127.0.0.1, and the module's Foundry layer (install, its hooks, the
// wrapped _preUpdateMovement) driven through fakes of Foundry's globals over the crypt scene fixture.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Bridge, SceneLike, TokenLike } from "../src/foundry/bridge.js";
import { install, sceneDataOf, type Env } from "../src/foundry/hooks.js";
import { TabletrailClient } from "../src/logic/client.js";
import type { Link } from "../src/logic/types.js";
import { FakeChat, FakeHooks, FakeSettings, FakeTokenDocument, cryptSource, movement } from "./fakes.js";

const ROOT = resolve(import.meta.dirname, "../../..");
const TABLETRAIL = process.env.TABLETRAIL ?? join(ROOT, ".venv/bin/tabletrail");
const ORIGIN = "http://foundry.test";

let dir = "";
let server: ChildProcess | undefined;
let url = "";
let gmToken = "";

function tabletrail(...args: string[]): string {
  return execFileSync(TABLETRAIL, args, { encoding: "utf-8", cwd: dir });
}

async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => ok(port));
    });
  });
}

beforeAll(async () => {
  if (!existsSync(TABLETRAIL)) throw new Error(`no tabletrail at ${TABLETRAIL}: make the venv first, or set TABLETRAIL`);
  dir = mkdtempSync(join(tmpdir(), "tabletrail-foundry-"));
  tabletrail("new", join(ROOT, "scenarios/speed-meters-skirmish.toml"), "--log", join(dir, "table.jsonl"));
  gmToken = JSON.parse(tabletrail("invite", join(dir, "table.jsonl"), "--gm", "--json")).data.url.split("/join/")[1];
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  server = spawn(TABLETRAIL, ["serve", join(dir, "table.jsonl"), "--port", String(port), "--allow-origin", ORIGIN], {
    cwd: dir,
    stdio: "ignore",
  });
  for (let i = 0; i < 150; i++) {
    try {
      const r = await fetch(`${url}/api/me`, { headers: { Authorization: `Bearer ${gmToken}` } });
      if (r.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("tabletrail serve did not answer");
});

afterAll(() => {
  server?.kill("SIGINT");
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A Foundry client: the fakes, the module installed on them, the crypt's tokens as documents. */
const sceneFlags = new Map<string, Link>(); // a scene's flags: one document, seen by every client

function foundryClient(isGM: boolean, settings = new FakeSettings()) {
  const hooks = new FakeHooks();
  const chat = new FakeChat();
  const notes: string[] = [];
  class TokenDocumentClass extends FakeTokenDocument {}
  const source = cryptSource();
  const tokens = source.tokens.map((t) => new TokenDocumentClass(t._id!, t.name, t.x!, t.y!, t.width ?? 1, t.height ?? 1));
  const scene: SceneLike = { id: source._id, name: source.name, tokens };
  const links = sceneFlags;
  const displaced: { id: string; x: number; y: number }[] = [];
  const env: Env = {
    hooks: hooks.api,
    settings: settings.api,
    chat: chat.api,
    user: { id: isGM ? "gmUser" : "playerUser", isGM, name: isGM ? "GM" : "Maya" },
    tokenClass: TokenDocumentClass,
    notify: (_kind, text) => notes.push(text),
    saveFile: () => undefined,
    setCombatTurn: async () => undefined,
    systemId: "dnd5e",
    fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), Origin: ORIGIN } }),
  };
  const bridge: Bridge = install(
    env,
    (s) => links.get(s.id ?? ""),
    async (s, link) => links.set(s.id ?? "", link),
    async (token: TokenLike, x: number, y: number) => {
      const doc = tokens.find((t) => t.id === token.id)!;
      doc.x = x;
      doc.y = y;
      displaced.push({ id: doc.id, x, y });
    },
  );
  const byName = (name: string) => tokens.find((t) => t.name === name)!;
  /** The movement as Foundry's update workflow runs it: preMoveToken (synchronous), then _preUpdateMovement. */
  async function drag(token: FakeTokenDocument, id: string, cells: [number, number][], action = "walk") {
    const link = links.get(scene.id ?? "") ?? bridge.link!;
    const points = cells.map(([cx, cy]) => ({ x: link.origin[0] + cx * link.grid, y: link.origin[1] + cy * link.grid }));
    const m = movement(id, token, points, action);
    const quick = hooks.call("preMoveToken", token, m, {});
    if (quick.includes(false)) return { landed: false, synchronous: true };
    const decided = await (TokenDocumentClass.prototype._preUpdateMovement as (this: FakeTokenDocument, ...a: unknown[]) => Promise<boolean | void>).call(token, m, {});
    const landed = decided !== false;
    if (landed) {
      token.x = points[points.length - 1]!.x;
      token.y = points[points.length - 1]!.y;
    }
    return { landed, synchronous: false };
  }
  return { hooks, chat, notes, settings, scene, source, tokens, links, displaced, bridge, byName, drag };
}

describe("a Foundry table refereed by a real tabletrail server", () => {
  const settings = new FakeSettings();
  let gm: ReturnType<typeof foundryClient>;
  let table: TabletrailClient; // the tabletrail table itself (another screen, the GM's link)

  it("starts refereeing the scene: every token a fighter, the link kept on the scene", async () => {
    settings.values.set("tabletrail-bridge.serverUrl", url);
    settings.values.set("tabletrail-bridge.gmToken", `${url}/join/${gmToken}`);
    gm = foundryClient(true, settings);
    expect(settings.registered.get("tabletrail-bridge.gmToken")?.scope).toBe("client"); // never sent to players
    table = new TabletrailClient(url, gmToken);
    const facts = Object.fromEntries(
      gm.tokens.map((t) => [t.id, { actor: { system: { attributes: { movement: { walk: 20 } }, abilities: { str: { mod: 2 } } } }, playerOwned: t.name === "Ari" || t.name === "Bo" }]),
    );
    const link = await gm.bridge.referee(gm.scene, sceneDataOf(gm.source), facts, {
      speed: { paths: ["system.attributes.movement.walk"], perCell: true },
      brawn: { paths: ["system.abilities.str.mod"], perCell: false },
    });
    expect(link).toBeDefined();
    expect(Object.values(link!.fighters).sort()).toEqual(["ari", "bo", "ghoul", "ghoul-2", "ogre"]);
    expect(link!.sides.ari).toBe("friendly");
    expect(gm.chat.messages[0]!.content).toContain("tabletrail referees Crypt of the Lost");
    expect(gm.chat.messages[0]!.content).toContain("stat speed: system.attributes.movement.walk ÷ 5 ft a cell");
    expect(gm.chat.messages[0]!.content).toContain("1 token off the scene left out");
    expect(String(settings.values.get("tabletrail-bridge.playerToken"))).toMatch(/^tt1\./); // the players' side's link
    gm.bridge.open(gm.scene);
    gm.bridge.close(); // the test tells versions itself, as the stream would
    const board = await table.state();
    await gm.bridge.onVersion(board.body.version);
    expect((await gm.bridge.area("ari"))?.budget).toBe(400); // 20 ft on a 5 ft grid: 4 cells, 4 m
  });

  it("records a legal drag with its cost, and says what is left", async () => {
    const before = (await table.state()).body.version;
    const done = await gm.drag(gm.byName("Ari"), "moveAri000000001", [[1, 2], [1, 3]]);
    expect(done.landed).toBe(true);
    const cardHtml = gm.chat.messages.at(-1)!.content;
    expect(cardHtml).toContain("Ari moved");
    expect(cardHtml).toContain("to 1,3, 2 m");
    expect(cardHtml).toContain("2 m of movement left this turn");
    expect((await table.state()).body.version).toBeGreaterThan(before);
  });

  it("refuses an overrun at once, with no call to the server", async () => {
    await gm.bridge.onVersion((await table.state()).body.version); // the stream's push: the areas fetched
    const version = (await table.state()).body.version;
    const done = await gm.drag(gm.byName("Ari"), "overrunAri000001", [[11, 8]]);
    expect(done).toEqual({ landed: false, synchronous: true });
    expect(gm.notes.at(-1)).toContain("11,8 is out of reach");
    expect((await table.state()).body.version).toBe(version);
  });

  it("has the server refuse what the local check can't tell (a winding path to a cell in reach)", async () => {
    const version = (await table.state()).body.version;
    const done = await gm.drag(gm.byName("Ari"), "windingAri000001", [[2, 3], [3, 3], [3, 4], [1, 4]]);
    expect(done).toEqual({ landed: false, synchronous: false });
    const refused = gm.chat.messages.at(-1)!.content;
    expect(refused).toContain("Ari can&#39;t move there");
    expect(refused).toContain("speed-meters/movement");
    expect((await table.state()).body.version).toBe(version);
  });

  it("appends nothing for a movement sent again (a retry, a second GM's client)", async () => {
    const version = (await table.state()).body.version;
    const second = foundryClient(true, settings);
    second.bridge.open(second.scene);
    second.bridge.close();
    const ari = second.byName("Ari");
    ari.x = gm.bridge.link!.origin[0] + 1 * 140; // where Ari stood before that movement
    ari.y = gm.bridge.link!.origin[1] + 1 * 140;
    const done = await second.drag(ari, "moveAri000000001", [[1, 2], [1, 3]]);
    expect(done.landed).toBe(true);
    expect(second.chat.messages.at(-1)!.content).toContain("already recorded: nothing added");
    expect((await table.state()).body.version).toBe(version);
  });

  it("puts the token back when tabletrail undoes the move, its budget restored", async () => {
    const undone = await table.undo("the player changed their mind");
    expect(undone.status).toBe(200);
    await gm.bridge.onVersion(undone.body.version!);
    const ari = gm.byName("Ari");
    expect(gm.displaced.at(-1)).toEqual({ id: ari.id, x: 280 + 140, y: 140 + 140 }); // back on 1,1
    expect((await gm.bridge.area("ari"))?.budget).toBe(400);
    const board = await table.state();
    expect(board.body.fighters.find((f) => f.id === "ari")?.move_left).toBe(400);
  });

  it("moves a token tabletrail pushed", async () => {
    const pushed = await table.command("push ari bo roll=6 roll=1");
    expect(pushed.status).toBe(200);
    await gm.bridge.onVersion(pushed.body.version!);
    const bo = gm.byName("Bo");
    expect(gm.displaced).toContainEqual({ id: bo.id, x: 280 + 4 * 140, y: 140 + 4 * 140 }); // 2,2 pushed to 4,4
  });

  it("leaves a log that verifies", () => {
    const log = gm.bridge.link!.log;
    const said = JSON.parse(tabletrail("verify", log, "--json"));
    expect(said.kind).toBe("verify");
    expect(said.data.ok).toBe(true);
    expect(said.data.checked.command).toBeGreaterThanOrEqual(2); // the drag and the push, re-decided
    expect(said.data.checked.undo).toBe(1);
  });
});
