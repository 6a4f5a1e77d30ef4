// The bridge's plain logic: grid arithmetic, scene -> request, drag -> move, decision -> card, board -> tokens.
import { describe, expect, it } from "vitest";
import { mixedContent, normalised, splitLink } from "../src/logic/client.js";
import { cellOfToken, cellsOf, tokenPoint } from "../src/logic/grid.js";
import { card, cardHtml, localCheck, moveBody } from "../src/logic/moves.js";
import { defaultMapping, encounterBody, readPath, statsOf, type SceneData } from "../src/logic/scene.js";
import { actingToken, endTurnText, sseEvents, updatesFor } from "../src/logic/sync.js";
import type { Link, ReachArea } from "../src/logic/types.js";

const link: Link = {
  log: "x.jsonl", ruleset: "speed-meters", unit: "m", grid: 140, origin: [280, 140], width: 12, height: 9,
  fighters: { tokA: "ari", tokO: "ogre" }, sides: { ari: "friendly", ogre: "hostile" },
  verbs: { walk: "move", crawl: "move", climb: "climb", swim: "swim", fly: "fly", jump: "special-jump", blink: "teleport", displace: "place" },
};  // prettier-ignore

const px = (cx: number, cy: number) => ({ x: 280 + cx * 140, y: 140 + cy * 140 });

describe("grid", () => {
  it("puts a token on the cell under its middle, and back", () => {
    expect(cellOfToken(link, px(3, 4).x, px(3, 4).y)).toEqual([3, 4]);
    expect(cellOfToken(link, px(3, 4).x + 60, px(3, 4).y + 60)).toEqual([3, 4]); // a little off its cell
    expect(cellOfToken(link, px(9, 7).x, px(9, 7).y, 2, 2)).toEqual([9, 7]); // 2x2: the top-left of its middle four
    for (const [w, cell] of [[1, [5, 5]], [2, [5, 5]], [3, [5, 5]]] as const) {
      const p = tokenPoint(link, [cell[0], cell[1]], w, w);
      expect(cellOfToken(link, p.x, p.y, w, w)).toEqual(cell);
    }
  });

  it("reads a drag's waypoints as the cells they pass, each once in a row", () => {
    expect(cellsOf(link, [px(1, 1), { x: px(1, 1).x + 10, y: px(1, 1).y }, px(1, 2), px(2, 2)])).toEqual([[1, 1], [1, 2], [2, 2]]);
  });
});

describe("moves", () => {
  const movement = { id: "aBcDeFgHiJkLmNoP", tokenId: "tokA", width: 1, height: 1, origin: px(1, 1),
    waypoints: [{ ...px(1, 2), action: "walk" }, { ...px(1, 3), action: "walk" }] };  // prettier-ignore

  it("sends a movement as a move under Foundry's movement id, without the cell it starts on", () => {
    expect(moveBody(link, movement)).toEqual({ fighter: "ari", cells: [[1, 2], [1, 3]], command_id: "aBcDeFgHiJkLmNoP", action: "walk" });
    expect(moveBody(link, { ...movement, tokenId: "stranger" })).toBeNull();
    expect(moveBody(link, { ...movement, waypoints: [{ ...px(1, 1), action: "walk" }] })).toBeNull(); // went nowhere
    expect(() => moveBody(link, { ...movement, id: "no" })).toThrow("can't be a command id");
  });

  const area: ReachArea = { version: 7, fighter: "ari", budget: 400, unit: "m", cells: [[1, 2, 100], [1, 3, 200]],
    further: { budget: 800, action: "a second Movement action", cells: [[1, 6, 500]] }, blocked: null };  // prettier-ignore
  const body = moveBody(link, movement)!;

  it("refuses an obvious overrun at once, from the area the stream pushed", () => {
    const far = { ...body, cells: [[1, 8]] as [number, number][] };
    expect(localCheck(link, far, area, 7)).toEqual({ verdict: "refuse", text: "1,8 is out of reach: this move may cost 4 m at most" });
    expect(localCheck(link, { ...body, cells: [[40, 2]] }, area, 7).verdict).toBe("refuse");
  });

  it("leaves to the server what the area can't tell", () => {
    expect(localCheck(link, body, area, 7)).toEqual({ verdict: "ask" }); // in reach: the path's cost is the server's
    expect(localCheck(link, { ...body, cells: [[1, 6]] }, area, 7)).toEqual({ verdict: "ask" }); // one more action
    expect(localCheck(link, { ...body, cells: [[1, 8]] }, area, 8)).toEqual({ verdict: "ask" }); // an older area
    expect(localCheck(link, { ...body, cells: [[1, 8]], action: "fly" }, area, 7)).toEqual({ verdict: "ask" });
    expect(localCheck(link, body, undefined, 7)).toEqual({ verdict: "ask" });
  });

  it("refuses a movement action the ruleset has none of", () => {
    const none = { ...link, verbs: { ...link.verbs, fly: null } };
    expect(localCheck(none, { ...body, action: "fly" }, area, 7)).toEqual({ verdict: "refuse", text: "this ruleset has no fly movement" });
  });

  it("writes the chat card: who moved, where, the cost, what is left; or the rule that stopped it", () => {
    const ok = card("Ari", { ok: true, at: [1, 3, 0], cost: 200, left: 200, resource: "movement", unit: "m", records: [{ seq: 12, text: "", rules: [], type: "command" }] }, 200);
    expect(ok).toEqual({ ok: true, title: "Ari moved", lines: ["to 1,3, 2 m", "2 m of movement left this turn"], seq: 12 });
    const no = card("Ari", { error: "refused", rule: "speed-meters/movement", reason: "the Movement costs 5 m by 1,6, but only 4 m are left", enforce: "a Movement action moves up to Speed" }, 422);
    expect(no.title).toBe("Ari can't move there");
    expect(no.lines).toEqual(["the Movement costs 5 m by 1,6, but only 4 m are left", "speed-meters/movement: a Movement action moves up to Speed"]);
    expect(card("Ari", { error: "stale", message: "the log moved on" }, 409).lines).toEqual(["the log moved on"]);
  });

  it("escapes every word of the card, and folds a refusal's rule under why?", () => {
    const html = cardHtml({ ok: false, title: "<b>Ari</b>", lines: ["a & b", "x/y: the rule's words"], rule: "x/y" });
    expect(html).toContain("&#60;b&#62;Ari&#60;/b&#62;");
    expect(html).toContain("<p>a &#38; b</p><details><summary>why?</summary><p>x/y: the rule&#39;s words</p></details>");
    expect(html).not.toContain("<b>");
  });
});

describe("scene", () => {
  const scene: SceneData = {
    name: "Crypt", width: 1680, height: 1260, padding: 0.1, grid: { type: 1, size: 140, distance: 5, units: "ft" },
    walls: [{ c: [280, 140, 1960.4, 140], move: 20, sight: 20, door: 0, ds: 0 }, { c: [1260, 560, 1260, 700], move: 20, sight: 20, door: 1, ds: 2 }, { c: [700, 560, 840, 560], move: 0, sight: 20, door: 0, ds: 0 }],
    tokens: [{ _id: "tokA", name: "Ari", x: 420, y: 280, width: 1, height: 1, disposition: 0 }, { _id: "tokO", name: "Ogre", x: 1540, y: 1120, width: 2, height: 2, disposition: -1 }],
  };  // prettier-ignore

  it("reads an actor's stats through the mapping, speeds per cell", () => {
    const actor = { system: { attributes: { movement: { walk: 30 }, init: { total: 3 } } } };
    expect(readPath(actor, "system.attributes.movement.walk")).toBe(30);
    expect(readPath(actor, "system.nothing.here")).toBeUndefined();
    expect(statsOf(actor, defaultMapping("dnd5e"), 5)).toEqual({ speed: 6, movement: 6, initiative: 3 });
    expect(statsOf(actor, defaultMapping("some-other-system"), 5)).toEqual({}); // "ask me": nothing assumed here
    const pf2 = { system: { attributes: { speed: { total: 25 } } } };
    expect(statsOf(pf2, defaultMapping("pf2e"), 5).speed).toBe(5);
  });

  it("sends the scene compact, each token's side from its owner and stats from its actor", () => {
    const body = encounterBody(scene, "speed-meters", {
      tokA: { actor: { system: { attributes: { movement: { walk: 30 } } } }, playerOwned: true },
      tokO: { actor: { system: { attributes: { movement: { walk: 40 } } } }, playerOwned: false },
    }, defaultMapping("dnd5e"));  // prettier-ignore
    expect(body.scene.walls).toEqual([{ c: [280, 140, 1960, 140] }, { c: [1260, 560, 1260, 700], door: 1, ds: 2 }, { c: [700, 560, 840, 560], move: 0 }]);
    expect(body.tokens.tokA).toEqual({ side: "friendly", stats: { speed: 6, movement: 6 } });
    expect(body.tokens.tokO).toEqual({ stats: { speed: 8, movement: 8 } }); // no side: its disposition decides
  });
});

describe("sync", () => {
  it("puts back a token tabletrail moved (an undo, a push), and leaves the others", () => {
    const board = { version: 9, fighters: [{ id: "ari", side: "friendly", pos: [1, 1, 0] as [number, number, number] }, { id: "ogre", side: "hostile", pos: [9, 7, 0] as [number, number, number] }] };
    const tokens = [{ id: "tokA", ...px(1, 3), width: 1, height: 1 }, { id: "tokO", ...px(9, 7), width: 2, height: 2 }];
    expect(updatesFor(link, board, tokens)).toEqual([{ tokenId: "tokA", ...px(1, 1) }]);
  });

  it("names the acting token and the end-turn Foundry's tracker asks for", () => {
    expect(actingToken(link, { version: 1, fighters: [], turn: { active: "ogre" } })).toBe("tokO");
    expect(actingToken(link, { version: 1, fighters: [], turn: null })).toBeNull();
    expect(endTurnText(link, "tokA")).toBe("end-turn ari");
    expect(endTurnText(link, "stranger")).toBeNull();
  });

  it("reads server-sent events from a stream cut anywhere", () => {
    const one = sseEvents("retry: 300\n\nevent: version\nid: 4\ndata: {\"version\": 4}\n\n: still here\n\nevent: vers");
    expect(one.events).toEqual([{ event: "version", data: '{"version": 4}', id: "4" }]);
    expect(one.rest).toBe("event: vers");
  });
});

describe("client", () => {
  it("splits a pasted link, and says when an HTTPS Foundry can't call a plain-HTTP server", () => {
    expect(splitLink("http://10.0.0.5:8000/join/tt1.abc.DEF-_x")).toEqual({ server: "http://10.0.0.5:8000", token: "tt1.abc.DEF-_x" });
    expect(normalised("https://t.example.com/join/tt1.a.b/")).toBe("https://t.example.com/join/tt1.a.b");
    expect(normalised("https://t.example.com///")).toBe("https://t.example.com");
    expect(mixedContent("https:", "http://10.0.0.5:8000")).toContain("the browser will block every call");
    expect(mixedContent("https:", "https://t.example.com")).toBeNull();
    expect(mixedContent("http:", "http://10.0.0.5:8000")).toBeNull();
    expect(mixedContent("https:", "http://localhost:8000")).toBeNull(); // a browser lets a page call localhost
  });
});
