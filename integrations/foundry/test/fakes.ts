// Small fakes of Foundry's globals, each typed as foundry-vtt-types types the real one: a change in the API
// (a renamed method, a new required argument) fails the type check before it fails a table.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Env } from "../src/foundry/hooks.js";

type AnyFn = (...args: never[]) => unknown;

/** Hooks: `on` records each callback by name; `call` runs them as Foundry would. */
export class FakeHooks {
  readonly handlers = new Map<string, AnyFn[]>();
  readonly api: Env["hooks"] = {
    on: ((name: string, fn: AnyFn) => {
      this.handlers.set(name, [...(this.handlers.get(name) ?? []), fn]);
      return this.handlers.size;
    }) as (typeof Hooks)["on"],
  };

  call(name: string, ...args: unknown[]): unknown[] {
    return (this.handlers.get(name) ?? []).map((fn) => (fn as (...a: unknown[]) => unknown)(...args));
  }
}

/** game.settings: registered keys with their defaults; get and set by "module.key". */
export class FakeSettings {
  readonly values = new Map<string, unknown>();
  readonly registered = new Map<string, { scope?: string; config?: boolean }>();
  readonly api: Env["settings"] = {
    register: ((namespace: string, key: string, data: { default?: unknown; scope?: string; config?: boolean }) => {
      this.registered.set(`${namespace}.${key}`, { scope: data.scope, config: data.config });
      if (!this.values.has(`${namespace}.${key}`)) this.values.set(`${namespace}.${key}`, data.default);
    }) as (typeof game.settings)["register"],
    get: ((namespace: string, key: string) => this.values.get(`${namespace}.${key}`)) as (typeof game.settings)["get"],
    set: (async (namespace: string, key: string, value: unknown) => {
      this.values.set(`${namespace}.${key}`, value);
      return value;
    }) as (typeof game.settings)["set"],
  };
}

/** ChatMessage: `create` keeps the messages. */
export class FakeChat {
  readonly messages: { content: string; whisper?: unknown }[] = [];
  readonly api: Env["chat"] = {
    create: (async (data: { content: string; whisper?: unknown }) => {
      this.messages.push(data);
      return undefined;
    }) as (typeof ChatMessage)["create"],
  };
}

/** A TokenDocument of the scene: position and size as the document holds them; `_preUpdateMovement` is
 * the method the bridge wraps, called as Foundry's update workflow would. */
export class FakeTokenDocument {
  constructor(
    public id: string,
    public name: string,
    public x: number,
    public y: number,
    public width = 1,
    public height = 1,
  ) {}

  async _preUpdateMovement(
    _movement: TokenDocument.PreMovementOptions,
    _operation: TokenDocument.Database.UpdateOperation,
  ): Promise<boolean | void> {
    return undefined;
  }
}

/** The crypt scene fixture the Python tests use too (tests/fixtures/foundry/crypt-v13.json). */
export function cryptSource(): Scene.Source {
  const path = fileURLToPath(new URL("../../../tests/fixtures/foundry/crypt-v13.json", import.meta.url));
  return JSON.parse(readFileSync(path, "utf-8")) as Scene.Source;
}

/** A movement of a token from its cell through cells (canvas pixels), as v13 hands `_preUpdateMovement` one. */
export function movement(
  id: string,
  token: FakeTokenDocument,
  points: { x: number; y: number }[],
  action = "walk",
  method: TokenDocument.MovementMethod = "dragging",
): TokenDocument.PreMovementOptions {
  const at = (p: { x: number; y: number }) => ({
    x: p.x, y: p.y, elevation: 0, width: token.width, height: token.height, shape: 4, action,
    terrain: null, snapped: true, explicit: true, checkpoint: true, intermediate: false, userId: "user", movementId: id, cost: 1,
  });  // prettier-ignore
  const waypoints = points.map(at);
  const section = (w: typeof waypoints) => ({ waypoints: w, distance: 0, cost: 0, spaces: 0, diagonals: 0 });
  // The movement's own fields, checked against the API's; its waypoint sections are the shape above.
  const own = {
    id, chain: [], constrained: false, recorded: true, method, autoRotate: false, showRuler: false,
  } satisfies Pick<TokenDocument.PreMovementOptions, "id" | "chain" | "constrained" | "recorded" | "method" | "autoRotate" | "showRuler">;  // prettier-ignore
  return {
    ...own,
    origin: { x: token.x, y: token.y, elevation: 0, width: token.width, height: token.height, shape: 4 },
    destination: { ...waypoints[waypoints.length - 1]! },
    passed: section(waypoints),
    pending: section([]),
    history: { recorded: section([]), unrecorded: section([]), distance: 0, cost: 0, spaces: 0, diagonals: 0 },
    constrainOptions: {},
  } as unknown as TokenDocument.PreMovementOptions;
}
