/**
 * A Foundry movement into a tabletrail move, the quick local check `preMoveToken` can make with no network
 * call, and the server's decision into what Foundry does (let it land or veto it) and what the chat says.
 */

import { cellsOf, inside } from "./grid.js";
import type { Cell, Link, MoveAnswer, Movement, ReachArea } from "./types.js";

export interface MoveBody {
  fighter: string;
  cells: Cell[];
  command_id: string;
  action: string;
  version?: number;
  why?: string;
}

/** Foundry's movement ids are 16 letters and digits; the server takes 8 to 64 of [A-Za-z0-9_-]. */
const COMMAND_ID = /^[A-Za-z0-9_-]{8,64}$/;

/** The move a movement asks for, or null when the token is no fighter of the refereed scene. */
export function moveBody(link: Link, movement: Movement): MoveBody | null {
  const fighter = link.fighters[movement.tokenId];
  if (!fighter || movement.waypoints.length === 0) return null;
  if (!COMMAND_ID.test(movement.id)) throw new Error(`movement id ${JSON.stringify(movement.id)} can't be a command id`);
  const last = movement.waypoints[movement.waypoints.length - 1]!;
  const cells = cellsOf(link, [movement.origin, ...movement.waypoints], movement.width, movement.height).slice(1);
  if (cells.length === 0) return null; // it ends on the cell it began on: nothing for the rules to decide
  return { fighter, cells, command_id: movement.id, action: last.action || "walk" };
}

export type LocalVerdict = { verdict: "refuse"; text: string } | { verdict: "ask" };

/**
 * What the bridge can tell before asking the server, from the reachable area the stream last pushed:
 * a walk whose destination is off the map, or outside both the area and the band one more action reaches,
 * is refused at once (the server would refuse it too); anything else the server decides.
 */
export function localCheck(link: Link, body: MoveBody, area: ReachArea | undefined, version: number | undefined): LocalVerdict {
  const end = body.cells[body.cells.length - 1];
  if (!end) return { verdict: "ask" };
  if (!inside(link, end)) return { verdict: "refuse", text: `${end[0]},${end[1]} is off the refereed map` };
  const verb = link.verbs[body.action];
  if (verb === null) return { verdict: "refuse", text: `this ruleset has no ${body.action} movement` };
  if (verb !== "move" || !area || area.fighter !== body.fighter || area.version !== version) return { verdict: "ask" };
  const known = (cells: [number, number, number][] | undefined) => (cells ?? []).some(([x, y]) => x === end[0] && y === end[1]);
  if (known(area.cells) || known(area.further?.cells)) return { verdict: "ask" };
  if (area.blocked) return { verdict: "refuse", text: area.blocked.reason };
  const budget = `${fmt(area.budget)} ${area.unit}`;
  return { verdict: "refuse", text: `${end[0]},${end[1]} is out of reach: this move may cost ${budget} at most` };
}

/** Centi-units in words: 250 is "2.5". */
export function fmt(centi: number): string {
  return String(Math.round(centi) / 100);
}

export interface Card {
  ok: boolean;
  title: string;
  lines: string[];
  rule?: string;
  /** the sequence number of the move's first event, for "why?" */
  seq?: number;
}

/** The chat card of a decided move: who moved, where, what it cost and what is left; or what stopped it. */
export function card(name: string, answer: MoveAnswer, status: number): Card {
  if (status === 200 && answer.ok) {
    const at = answer.at ? `${answer.at[0]},${answer.at[1]}` : "?";
    const unit = answer.unit ?? "";
    const lines = answer.placed && !answer.cost ? [`put on ${at}`] : [`to ${at}, ${fmt(answer.cost ?? 0)} ${unit}`];
    if (answer.left !== undefined && answer.resource) lines.push(`${fmt(answer.left)} ${unit} of ${answer.resource} left this turn`);
    if (answer.replayed) lines.push("(already recorded: nothing added)");
    const seq = answer.records?.[0]?.seq;
    return { ok: true, title: `${name} moved`, lines, ...(seq !== undefined ? { seq } : {}) };
  }
  if (status === 422 && answer.rule !== undefined) {
    const lines = [answer.reason ?? answer.message ?? "refused"];
    if (answer.enforce) lines.push(`${answer.rule}: ${answer.enforce}`);
    return { ok: false, title: `${name} can't move there`, lines, rule: answer.rule };
  }
  return { ok: false, title: `${name}'s move was not decided`, lines: [answer.message ?? `the server answered ${status}`] };
}

/** The card as chat HTML (every word escaped), with the "why?" button when there is an event to explain. */
export function cardHtml(c: Card): string {
  const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
  const why = c.seq !== undefined ? `<button type="button" data-tabletrail-why="${c.seq}">why?</button>` : "";
  // A refusal's why is the rule that refused it, in tabletrail's words (the card's second line): folded under
  // "why?", readable without a call.
  const [first, ...rest] = c.lines;
  const body = c.rule
    ? `<p>${esc(first ?? "")}</p><details><summary>why?</summary>${rest.map((l) => `<p>${esc(l)}</p>`).join("")}</details>`
    : c.lines.map((l) => `<p>${esc(l)}</p>`).join("");
  return `<div class="tabletrail-card ${c.ok ? "ok" : "refused"}"><h4>${esc(c.title)}</h4>${body}${why}</div>`;
}
