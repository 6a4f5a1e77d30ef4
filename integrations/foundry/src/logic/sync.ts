/**
 * The tabletrail board into Foundry: where each refereed token must stand after anything tabletrail
 * decided that Foundry did not drag (an undo, a push, a pull, a shove, a fall, a drift in zero gravity),
 * and whose turn it is when tabletrail leads the combat tracker.
 */

import { cellOfToken, tokenPoint } from "./grid.js";
import type { Board, Link } from "./types.js";

export interface TokenNow {
  id: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface TokenMove {
  tokenId: string;
  x: number;
  y: number;
}

/** The tokens to put down (with Foundry's `displace` action: a placement, not a walk) so Foundry shows
 * the board tabletrail keeps; a token already on its fighter's cell is left where it is. */
export function updatesFor(link: Link, board: Board, tokens: TokenNow[]): TokenMove[] {
  const at = new Map(board.fighters.map((f) => [f.id, f.pos]));
  const out: TokenMove[] = [];
  for (const t of tokens) {
    const fighter = link.fighters[t.id];
    const pos = fighter ? at.get(fighter) : undefined;
    if (!pos) continue;
    const [cx, cy] = cellOfToken(link, t.x, t.y, t.width, t.height);
    if (cx === pos[0] && cy === pos[1]) continue;
    out.push({ tokenId: t.id, ...tokenPoint(link, [pos[0], pos[1]], t.width, t.height) });
  }
  return out;
}

/** The token whose fighter acts now, for the combat tracker to follow (null: none of them). */
export function actingToken(link: Link, board: Board): string | null {
  const acting = board.turn?.active;
  if (!acting) return null;
  for (const [token, fighter] of Object.entries(link.fighters)) if (fighter === acting) return token;
  return null;
}

/** The command that ends a fighter's turn when Foundry's tracker moves on past its token (Foundry leads). */
export function endTurnText(link: Link, previousTokenId: string | null | undefined): string | null {
  const fighter = previousTokenId ? link.fighters[previousTokenId] : undefined;
  return fighter ? `end-turn ${fighter}` : null;
}

/** Server-sent events read from a fetch body: each complete event's name and data, the rest kept. */
export function sseEvents(buffer: string): { events: { event: string; data: string; id?: string }[]; rest: string } {
  const parts = buffer.replace(/\r\n/g, "\n").split("\n\n");
  const rest = parts.pop() ?? "";
  const events = [];
  for (const part of parts) {
    let event = "message";
    let data = "";
    let id: string | undefined;
    for (const line of part.split("\n")) {
      if (line.startsWith(":")) continue;
      const [field, ...value] = line.split(":");
      const text = value.join(":").replace(/^ /, "");
      if (field === "event") event = text;
      else if (field === "data") data += (data ? "\n" : "") + text;
      else if (field === "id") id = text;
    }
    if (data || event !== "message") events.push(id === undefined ? { event, data } : { event, data, id });
  }
  return { events, rest };
}
