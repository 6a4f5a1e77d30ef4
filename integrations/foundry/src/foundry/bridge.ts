/**
 * The bridge's state on one Foundry client and what it does at each hook. It reaches Foundry only through
 * `Ports` (typed against foundry-vtt-types, so the tests' fakes can't drift from the real API) and the
 * server only through TabletrailClient; every decision is the server's.
 */

import { TabletrailClient, mixedContent, type Fetch } from "../logic/client.js";
import { card, cardHtml, localCheck, moveBody, type MoveBody } from "../logic/moves.js";
import { PLAYERS_SIDE, encounterBody, type Mapping, type SceneData, type TokenFacts } from "../logic/scene.js";
import { actingToken, endTurnText, updatesFor, type TokenNow } from "../logic/sync.js";
import type { Link, Movement, ReachArea } from "../logic/types.js";

export const MODULE_ID = "tabletrail-bridge";
const PREFETCH = 24; // reachable areas fetched at each version, at most (a GM's table of many tokens)

/** What the bridge needs of Foundry: each member's type is the API's own. */
export interface Ports {
  user: { id: string | null; isGM: boolean; name: string };
  getSetting(key: "serverUrl" | "gmToken" | "playerToken" | "turns" | "ruleset"): string;
  setSetting(key: "playerToken" | "gmToken", value: string): Promise<unknown>;
  notify(kind: "info" | "warn" | "error", text: string): void;
  chat(html: string, whisperToGMs: boolean): Promise<unknown>;
  /** the refereed scene's link, kept in its flags */
  readLink(scene: SceneLike): Link | undefined;
  writeLink(scene: SceneLike, link: Link): Promise<unknown>;
  /** put a token down where tabletrail says (a `displace` movement the bridge does not referee) */
  displace(token: TokenLike, x: number, y: number): Promise<unknown>;
  setCombatTurn(tokenId: string): Promise<unknown>;
  saveFile(text: string, type: string, filename: string): void;
  fetch: Fetch;
}

/** The parts of a Scene the bridge reads. */
export interface SceneLike {
  id: string | null;
  name: string;
  tokens: Iterable<TokenLike>;
}

/** The parts of a TokenDocument the bridge reads. */
export interface TokenLike {
  id: string | null;
  name: string;
  x: number | null | undefined;
  y: number | null | undefined;
  width: number | null | undefined;
  height: number | null | undefined;
}

export class Bridge {
  link: Link | undefined;
  scene: SceneLike | undefined;
  version: number | undefined;
  private reach = new Map<string, ReachArea>();
  private stop: AbortController | undefined;

  constructor(private readonly ports: Ports) {}

  /** The client of whoever this user is: the GM's link on the GM's client, the players' side's elsewhere. */
  client(): TabletrailClient | undefined {
    const server = this.ports.getSetting("serverUrl");
    const token = this.ports.getSetting(this.ports.user.isGM ? "gmToken" : "playerToken");
    return server && token ? new TabletrailClient(server, token, this.ports.fetch) : undefined;
  }

  /** "Referee this combat with tabletrail": the scene sent, the encounter begun, the link kept on the scene. */
  async referee(scene: SceneLike, data: SceneData, facts: Record<string, TokenFacts>, mapping: Mapping): Promise<Link | undefined> {
    const client = this.client();
    if (!this.ports.user.isGM || !client) {
      this.ports.notify("warn", "tabletrail: the GM starts refereeing, once the server address and GM link are set");
      return undefined;
    }
    const ruleset = this.ports.getSetting("ruleset");
    const started = await client.encounter(encounterBody(data, ruleset, facts, mapping));
    if (started.status !== 200) {
      this.ports.notify("error", `tabletrail: ${String(started.body.message ?? `the server answered ${started.status}`)}`);
      return undefined;
    }
    const said = started.body as unknown as {
      log: string; ruleset: string; unit: string; grid: number; origin: [number, number]; width: number; height: number;
      fighters: { token: string; fighter: string; side: string }[]; verbs: Record<string, string | null>; report: string[];
    };  // prettier-ignore
    const link: Link = {
      log: said.log, ruleset: said.ruleset, unit: said.unit, grid: said.grid, origin: said.origin,
      width: said.width, height: said.height, verbs: said.verbs,
      fighters: Object.fromEntries(said.fighters.map((f) => [f.token, f.fighter])),
      sides: Object.fromEntries(said.fighters.map((f) => [f.fighter, f.side])),
    };  // prettier-ignore
    await this.ports.writeLink(scene, link);
    const players = await client.invite("friendly", "Foundry players");
    if (players.status === 200) await this.ports.setSetting("playerToken", players.body.token);
    this.link = link;
    this.scene = scene;
    const read = mappingLines(mapping, data.grid.distance, data.grid.units);
    const lines = [...said.report, ...read].map((l) => `<p>${escape(l)}</p>`).join("");
    await this.ports.chat(`<div class="tabletrail-card"><h4>tabletrail referees ${escape(scene.name)}</h4>${lines}</div>`, true);
    return link;
  }

  /** A refereed scene opened: its link read, the live stream followed. */
  open(scene: SceneLike): void {
    this.stop?.abort();
    this.warnMixedContent();
    this.scene = scene;
    this.link = this.ports.readLink(scene);
    this.reach.clear();
    const client = this.client();
    if (!this.link || !client) return;
    this.stop = new AbortController();
    void client.follow((v) => this.onVersion(v), this.stop.signal);
  }

  /** An HTTPS Foundry can't call a plain-HTTP server: said once, in words, with the fix. */
  private warnMixedContent(): void {
    const protocol = (globalThis as { location?: { protocol?: string } }).location?.protocol ?? "";
    const problem = mixedContent(protocol, this.ports.getSetting("serverUrl"));
    if (problem) this.ports.notify("error", `tabletrail: ${problem}`);
  }

  close(): void {
    this.stop?.abort();
  }

  /** The stream said the log moved on: the reachable areas refreshed, and (on the GM's client) Foundry's
   * tokens put where tabletrail's board has them (an undo, a push, a fall) and the tracker told the turn. */
  async onVersion(version: number): Promise<void> {
    this.version = version;
    this.reach.clear();
    const client = this.client();
    if (!client || !this.link || !this.scene) return;
    await this.prefetch();
    if (this.ports.user.isGM) {
      const board = await client.state();
      if (board.status !== 200) return;
      this.version = board.body.version;
      const tokens = [...this.scene.tokens];
      for (const m of updatesFor(this.link, board.body, tokens.map(plainToken))) {
        const token = tokens.find((t) => t.id === m.tokenId);
        if (token) await this.ports.displace(token, m.x, m.y);
      }
      if (this.ports.getSetting("turns") === "tabletrail") {
        const acting = actingToken(this.link, board.body);
        if (acting) await this.ports.setCombatTurn(acting);
      }
    }
  }

  /** The reachable areas this user's drags will be checked against, fetched as soon as the stream says the
   * version, so the synchronous `preMoveToken` has them: a player's side's fighters, or (the GM) every
   * fighter, at most PREFETCH of them. */
  async prefetch(): Promise<void> {
    if (!this.link) return;
    const sides = this.link.sides;
    const mine = Object.keys(sides).filter((f) => this.ports.user.isGM || sides[f] === PLAYERS_SIDE);
    await Promise.all(mine.slice(0, PREFETCH).map((f) => this.area(f)));
  }

  /** The reachable area of a fighter at the version the stream last said (fetched once a version). */
  async area(fighter: string): Promise<ReachArea | undefined> {
    const known = this.reach.get(fighter);
    if (known && known.version === this.version) return known;
    const client = this.client();
    if (!client) return undefined;
    const got = await client.reach(fighter);
    if (got.status !== 200) return undefined;
    this.reach.set(fighter, got.body);
    this.version ??= got.body.version;
    return got.body;
  }

  /** `preMoveToken`, on the moving client, synchronous: an obvious overrun is refused at once, in words. */
  quickCheck(movement: Movement): boolean {
    if (!this.link) return true;
    const body = moveBody(this.link, movement);
    if (!body || body.action === "displace") return true;
    const verdict = localCheck(this.link, body, this.reach.get(body.fighter), this.version);
    if (verdict.verdict === "refuse") {
      this.ports.notify("warn", `tabletrail: ${verdict.text}`);
      return false;
    }
    return true;
  }

  /** `_preUpdateMovement`, awaited on the moving client: the server decides and records the move under
   * Foundry's movement id; a refused move never lands, and the chat says why. */
  async decide(token: TokenLike, movement: Movement): Promise<boolean> {
    if (!this.link) return true;
    if (movement.method === "undo") return this.undoFromFoundry();
    let body: MoveBody | null;
    try {
      body = moveBody(this.link, movement);
    } catch (err) {
      this.ports.notify("error", `tabletrail: ${(err as Error).message}`);
      return false;
    }
    if (!body) return true;
    if (body.action === "displace") body.why = `${this.ports.user.name} put ${token.name} down in Foundry`;
    const client = this.client();
    if (!client) {
      this.ports.notify("error", "tabletrail: no server or link set; the move waits for the GM");
      return false;
    }
    let answer;
    try {
      answer = await client.move(body);
    } catch {
      this.ports.notify("error", "tabletrail: the server can't be reached; the move did not happen");
      return false;
    }
    if (answer.status === 409) {
      this.version = undefined;
      answer = await client.move({ ...body });
    }
    const said = card(token.name, answer.body, answer.status);
    await this.ports.chat(cardHtml(said), false);
    if (!said.ok) this.ports.notify("warn", `tabletrail: ${said.lines[0] ?? said.title}`);
    return said.ok;
  }

  /** Foundry's own undo of a recorded move: tabletrail's undo (budgets, postures, grabs restored with it). */
  async undoFromFoundry(): Promise<boolean> {
    const client = this.client();
    if (!client) return false;
    const done = await client.undo("undone in Foundry");
    if (done.status !== 200) {
      this.ports.notify("warn", `tabletrail: ${done.body.reason ?? done.body.message ?? "the undo was refused"}`);
      return false;
    }
    return true;
  }

  /** "Undo last move": tabletrail's undo; the stream then brings the token back. */
  async undoLast(): Promise<boolean> {
    return this.undoFromFoundry();
  }

  /** Foundry's combat tracker moved on (Foundry leads): the fighter whose turn it was ends it. */
  async trackerMoved(previousTokenId: string | null | undefined): Promise<void> {
    if (!this.link || !this.ports.user.isGM || this.ports.getSetting("turns") !== "foundry") return;
    const text = endTurnText(this.link, previousTokenId);
    const client = this.client();
    if (!text || !client) return;
    const done = await client.command(text);
    if (done.status !== 200) this.ports.notify("warn", `tabletrail: ${done.body.reason ?? done.body.message ?? "end-turn refused"}`);
  }

  /** "why?" on a chat card: tabletrail's own explanation of an event, in words. */
  async why(seq: number): Promise<string> {
    const client = this.client();
    if (!client) return "tabletrail: no server set";
    const said = await client.explain(seq);
    if (said.status !== 200) return String(said.body.message ?? `the server answered ${said.status}`);
    return explanationText(said.body);
  }

  /** The GM downloads the encounter's bundle: one HTML file that replays and checks itself. */
  async downloadBundle(): Promise<void> {
    const client = this.client();
    if (!client || !this.ports.user.isGM) return;
    const got = await client.bundle();
    if (got.status !== 200) {
      this.ports.notify("error", `tabletrail: the bundle was not made (${got.status})`);
      return;
    }
    this.ports.saveFile(got.body, "text/html", `${(this.scene?.name ?? "encounter").replace(/[^A-Za-z0-9_-]+/g, "-")}.html`);
  }
}

/** The mapping in words, for the GM to check on the start card: where each stat was read. */
export function mappingLines(mapping: Mapping, distance: number, units: string): string[] {
  const entries = Object.entries(mapping);
  if (entries.length === 0) return ["stats: no actor mapping for this system: every stat took an example value (set one in the module's settings)"];
  return entries.map(([stat, source]) => `stat ${stat}: ${source.paths.join(" or ")}${source.perCell ? ` ÷ ${distance} ${units} a cell` : ""}`);
}

function plainToken(t: TokenLike): TokenNow {
  return { id: t.id ?? "", x: t.x ?? 0, y: t.y ?? 0, width: t.width ?? 1, height: t.height ?? 1 };
}

function escape(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** An explanation (GET /api/events/N) as plain lines: what happened, and each rule with its words. */
export function explanationText(body: Record<string, unknown>): string {
  const lines: string[] = [];
  const text = body.text ?? body.summary;
  if (typeof text === "string") lines.push(text);
  const rules = body.rules;
  if (Array.isArray(rules)) {
    for (const r of rules) {
      if (r && typeof r === "object") {
        const rule = r as Record<string, unknown>;
        lines.push(`${String(rule.id ?? "")}: ${String(rule.enforce ?? rule.text ?? "")}`.trim());
      } else lines.push(String(r));
    }
  }
  return lines.length ? lines.join("\n") : JSON.stringify(body);
}
