/**
 * A Foundry scene as POST /api/foundry/encounter takes it: the scene's grid, walls and tokens (defaults
 * left out, so a traced dungeon fits in a request), and for each token its side (from its owner, else its
 * disposition: the server's default) and its stats, read from its actor through the GM's mapping.
 */

/** Where a stat is read from an actor's data: the first path that holds a number; `perCell` divides it
 * by the scene's grid distance (a speed of 30 ft on a 5 ft grid is 6 cells: tabletrail counts a cell as
 * one of its ruleset's units). */
export interface StatSource {
  paths: string[];
  perCell: boolean;
}

/** stat name -> where it is read; a stat left out is asked of the GM (the server says it assumed one). */
export type Mapping = Record<string, StatSource>;

/** The GM's starting mappings by game system; any other system starts empty ("ask me"). */
export const DEFAULT_MAPPINGS: Record<string, Mapping> = {
  dnd5e: {
    speed: { paths: ["system.attributes.movement.walk"], perCell: true },
    movement: { paths: ["system.attributes.movement.walk"], perCell: true },
    initiative: { paths: ["system.attributes.init.total", "system.attributes.init.mod"], perCell: false },
  },
  pf2e: {
    speed: { paths: ["system.movement.speeds.land.value", "system.attributes.speed.total", "system.attributes.speed.value"], perCell: true },
    movement: { paths: ["system.movement.speeds.land.value", "system.attributes.speed.total", "system.attributes.speed.value"], perCell: true },
    initiative: { paths: ["system.initiative.totalModifier", "system.attributes.perception.value"], perCell: false },
  },
};

export function defaultMapping(systemId: string): Mapping {
  return structuredClone(DEFAULT_MAPPINGS[systemId] ?? {});
}

export interface SceneWall {
  c: number[];
  move?: number;
  sight?: number;
  sense?: number;
  door?: number;
  ds?: number;
  dir?: number;
}

export interface SceneToken {
  _id: string;
  name: string;
  x: number;
  y: number;
  width: number;
  height: number;
  disposition: number;
  hidden?: boolean;
}

export interface SceneData {
  name: string;
  width: number;
  height: number;
  padding: number;
  grid: { type: number; size: number; distance: number; units: string };
  walls: SceneWall[];
  tokens: SceneToken[];
}

/** What the GM's client knows of a token beyond the scene: its actor's data and whether a player owns it. */
export interface TokenFacts {
  actor: unknown;
  playerOwned: boolean;
}

export interface TokenBody {
  side?: string;
  stats: Record<string, number>;
  skip?: boolean;
}

export interface EncounterBody {
  scene: Record<string, unknown>;
  ruleset: string;
  name?: string;
  tokens: Record<string, TokenBody>;
}

/** The side of a token a player owns: every player's token fights on one side, the players'. */
export const PLAYERS_SIDE = "friendly";

/** A number at a dotted path of plain data, or undefined. */
export function readPath(data: unknown, path: string): number | undefined {
  let here: unknown = data;
  for (const key of path.split(".")) {
    if (here === null || typeof here !== "object") return undefined;
    here = (here as Record<string, unknown>)[key];
  }
  const value = typeof here === "string" && here.trim() !== "" ? Number(here) : here;
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** A token's stats through the mapping: what each stat's first readable path says (per cell if asked). */
export function statsOf(actor: unknown, mapping: Mapping, gridDistance: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [stat, source] of Object.entries(mapping)) {
    for (const path of source.paths) {
      const value = readPath(actor, path);
      if (value === undefined) continue;
      out[stat] = source.perCell && gridDistance > 0 ? Math.round((value / gridDistance) * 100) / 100 : value;
      break;
    }
  }
  return out;
}

/** A wall as the converter reads it, defaults (move and sight 20, no door) left out. */
function compactWall(w: SceneWall): Record<string, unknown> {
  const out: Record<string, unknown> = { c: w.c.map((n) => Math.round(n)) };
  if (w.move !== undefined && w.move !== 20) out.move = w.move;
  if (w.sight !== undefined && w.sight !== 20) out.sight = w.sight;
  if (w.sense !== undefined && w.sight === undefined) out.sense = w.sense;
  if (w.door) out.door = w.door;
  if (w.door && w.ds) out.ds = w.ds;
  if (w.dir) out.dir = w.dir;
  return out;
}

/** The request that starts refereeing a scene. */
export function encounterBody(
  scene: SceneData,
  ruleset: string,
  facts: Record<string, TokenFacts>,
  mapping: Mapping,
): EncounterBody {
  const tokens: Record<string, TokenBody> = {};
  for (const t of scene.tokens) {
    const known = facts[t._id];
    const body: TokenBody = { stats: known ? statsOf(known.actor, mapping, scene.grid.distance) : {} };
    if (known?.playerOwned) body.side = PLAYERS_SIDE;
    tokens[t._id] = body;
  }
  return {
    scene: {
      name: scene.name,
      width: scene.width,
      height: scene.height,
      padding: scene.padding,
      grid: { type: scene.grid.type, size: scene.grid.size, distance: scene.grid.distance, units: scene.grid.units },
      walls: scene.walls.map(compactWall),
      tokens: scene.tokens.map((t) => ({
        _id: t._id,
        name: t.name,
        x: Math.round(t.x),
        y: Math.round(t.y),
        width: t.width,
        height: t.height,
        disposition: t.disposition,
      })),
    },
    ruleset,
    name: scene.name,
    tokens,
  };
}
