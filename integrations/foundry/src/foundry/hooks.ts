/**
 * The thin layer on Foundry's globals: settings registered, hooks bound, `_preUpdateMovement` wrapped, chat
 * buttons answered. Everything it is handed is typed as foundry-vtt-types types it, so the tests' fakes of
 * Hooks, TokenDocument, Scene, ChatMessage and game.settings are checked against the real API.
 */

import "./declarations.js";
import { defaultMapping, type Mapping, type SceneData, type TokenFacts } from "../logic/scene.js";
import type { Link, Movement } from "../logic/types.js";
import { Bridge, MODULE_ID, type Ports, type SceneLike, type TokenLike } from "./bridge.js";

type Settings = Pick<typeof game.settings, "register" | "get" | "set">;
type Chat = Pick<typeof ChatMessage, "create">;

/** What `install` is handed: the globals it touches, by their API types. */
export interface Env {
  hooks: Pick<typeof Hooks, "on">;
  settings: Settings;
  chat: Chat;
  user: Pick<User.Implementation, "id" | "isGM" | "name">;
  /** the class whose `_preUpdateMovement` is wrapped (CONFIG.Token.documentClass) */
  tokenClass: { prototype: object };
  notify(kind: "info" | "warn" | "error", text: string): void;
  saveFile(text: string, type: string, filename: string): void;
  setCombatTurn(tokenId: string): Promise<unknown>;
  systemId: string;
  fetch: typeof fetch;
}

/** The settings: the server and the GM's link kept on the GM's browser only (client scope: a world
 * setting reaches every player's client); the players' side's token in the world (every player may read
 * it, and it commands only the players' side). */
export function registerSettings(settings: Settings, systemId: string): void {
  const text = (name: string, hint: string, scope: "world" | "client", config = true) =>
    ({ name, hint, scope, config, type: String, default: "", restricted: true }) as const;
  settings.register(MODULE_ID, "serverUrl", text("tabletrail server", "Where the tabletrail server listens, e.g. https://tabletrail.example.com (started with --allow-origin set to this Foundry's address).", "world"));
  settings.register(MODULE_ID, "gmToken", text("GM link", "The GM link tabletrail serve printed (http://…/join/TOKEN) or its token. Kept in this browser only.", "client"));
  settings.register(MODULE_ID, "playerToken", text("Players' link", "Made by the bridge when refereeing starts: the players' side's token.", "world", false));
  settings.register(MODULE_ID, "ruleset", { name: "Ruleset", hint: "The rules tabletrail referees with.", scope: "world", config: true, type: String, default: "speed-meters",
    choices: { "speed-meters": "speed-meters", "round-meters": "round-meters", "initiative-yards": "initiative-yards", "ap-squares": "ap-squares" } });  // prettier-ignore
  settings.register(MODULE_ID, "turns", { name: "Turns", hint: "Who leads: Foundry's combat tracker ends tabletrail turns, or tabletrail's turns move the tracker.", scope: "world", config: true, type: String, default: "foundry",
    choices: { foundry: "Foundry's tracker leads", tabletrail: "tabletrail leads" } });  // prettier-ignore
  settings.register(MODULE_ID, "mapping", text("Actor mapping (JSON)", "Which actor field is each stat: {\"speed\": {\"paths\": [\"system.attributes.movement.walk\"], \"perCell\": true}}. Empty: this system's defaults.", "world"));
  void systemId;
}

/** The GM's mapping: what the setting holds, else the system's defaults (dnd5e, pf2e; others: ask me). */
export function mappingOf(settings: Settings, systemId: string): Mapping {
  const raw = String(settings.get(MODULE_ID, "mapping") ?? "").trim();
  if (!raw) return defaultMapping(systemId);
  try {
    return JSON.parse(raw) as Mapping;
  } catch {
    return defaultMapping(systemId);
  }
}

/** A v13 movement as the logic reads it. */
export function movementOf(
  doc: Pick<TokenDocument.Implementation, "id" | "width" | "height">,
  movement: {
    readonly id: string;
    readonly origin: { readonly x: number; readonly y: number };
    readonly passed: { readonly waypoints: readonly { readonly x: number; readonly y: number; readonly action: string }[] };
    readonly pending: { readonly waypoints: readonly { readonly x: number; readonly y: number; readonly action: string }[] };
    readonly method: string;
  },
): Movement {
  const waypoints = [...movement.passed.waypoints, ...movement.pending.waypoints].map((w) => ({ x: w.x, y: w.y, action: w.action }));
  return {
    id: movement.id,
    tokenId: doc.id ?? "",
    width: doc.width ?? 1,
    height: doc.height ?? 1,
    origin: { x: movement.origin.x, y: movement.origin.y },
    waypoints,
    method: movement.method,
  };
}

/** A scene's data as the logic reads it. */
export function sceneDataOf(source: Scene.Source): SceneData {
  const n = (v: number | null | undefined, fallback: number) => (typeof v === "number" ? v : fallback);
  return {
    name: source.name,
    width: n(source.width, 0),
    height: n(source.height, 0),
    padding: n(source.padding, 0.25),
    grid: { type: n(source.grid.type, 1), size: n(source.grid.size, 100), distance: n(source.grid.distance, 1), units: source.grid.units ?? "" },
    walls: source.walls.map((w) => ({
      c: [...w.c].map((v) => n(v, 0)), move: n(w.move, 20), sight: n(w.sight, 20), door: n(w.door, 0), ds: n(w.ds, 0),
      ...(w.dir ? { dir: w.dir } : {}),
    })),  // prettier-ignore
    tokens: source.tokens.map((t) => ({
      _id: t._id ?? "", name: t.name, x: n(t.x, 0), y: n(t.y, 0), width: n(t.width, 1), height: n(t.height, 1),
      disposition: n(t.disposition, 0),
    })),  // prettier-ignore
  };
}

/** Bind the bridge to Foundry: returns it (the module's API, and the tests' handle). */
export function install(env: Env, readLink: (scene: SceneLike) => Link | undefined, writeLink: Ports["writeLink"], displace: Ports["displace"]): Bridge {
  registerSettings(env.settings, env.systemId);
  const ports: Ports = {
    user: { id: env.user.id, isGM: env.user.isGM, name: env.user.name },
    getSetting: (key) => tokenOf(String(env.settings.get(MODULE_ID, key) ?? "")),
    setSetting: (key, value) => env.settings.set(MODULE_ID, key, value),
    notify: env.notify,
    chat: (content, whisperToGMs) => env.chat.create({ content, speaker: { alias: "tabletrail" }, ...(whisperToGMs ? { whisper: [] } : {}) }),
    readLink,
    writeLink,
    displace,
    setCombatTurn: env.setCombatTurn,
    saveFile: env.saveFile,
    fetch: env.fetch,
  };
  const bridge = new Bridge(ports);
  const decided = new Set<string>(); // movement ids the server accepted: a movement's later updates aren't asked again

  env.hooks.on("preMoveToken", (doc, movement) => {
    if (decided.has(movement.id)) return true;
    return bridge.quickCheck(movementOf(doc, movement)) ? undefined : false;
  });

  // The awaited veto: Foundry waits for the server's decision before the movement lands.
  const proto = env.tokenClass.prototype as {
    _preUpdateMovement?: (this: TokenDocument.Implementation, movement: TokenDocument.PreMovementOptions, operation: TokenDocument.Database.UpdateOperation) => Promise<boolean | void>;
  };  // prettier-ignore
  const original = proto._preUpdateMovement;
  proto._preUpdateMovement = async function (this: TokenDocument.Implementation, movement, operation) {
    const before = await original?.call(this, movement, operation);
    if (before === false) return false;
    if ((operation as { tabletrailSync?: boolean }).tabletrailSync || decided.has(movement.id)) return before;
    const ok = await bridge.decide(this, movementOf(this, movement));
    if (ok) decided.add(movement.id);
    return ok ? before : false;
  };

  env.hooks.on("updateCombat", (combat, changes) => {
    if (!("turn" in changes) && !("round" in changes)) return;
    const previous = combat.previous?.tokenId ?? null;
    void bridge.trackerMoved(previous);
  });

  return bridge;
}

/** A pasted link (http://host/join/TOKEN) stands for its token. */
export function tokenOf(value: string): string {
  const m = /\/join\/([A-Za-z0-9._-]+)\/?$/.exec(value.trim());
  return m ? m[1]! : value.trim();
}

/** What the GM's client knows of each token: its actor's data, and whether a player owns it. */
export function factsOf(
  tokens: Iterable<Pick<TokenDocument.Implementation, "id" | "actor">>,
): Record<string, TokenFacts> {
  const out: Record<string, TokenFacts> = {};
  for (const t of tokens) {
    if (!t.id) continue;
    out[t.id] = { actor: t.actor?.toObject() ?? null, playerOwned: Boolean(t.actor?.hasPlayerOwner) };
  }
  return out;
}

export type { TokenLike };
