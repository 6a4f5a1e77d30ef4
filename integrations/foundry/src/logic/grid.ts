/** Canvas pixels and tabletrail cells: one square grid, cell 0,0's corner at the link's origin. */

import type { Cell, Link } from "./types.js";

/** The cell a token stands on, given its top-left corner and size in cells: the cell under its middle
 * (for an even size, the top-left cell of its middle four), as the server placed it. */
export function cellOfToken(link: Pick<Link, "grid" | "origin">, x: number, y: number, w = 1, h = 1): Cell {
  const gx = (x + (w * link.grid) / 2 - link.origin[0]) / link.grid;
  const gy = (y + (h * link.grid) / 2 - link.origin[1]) / link.grid;
  return [w % 2 === 0 ? Math.ceil(gx - 1 - 1e-9) : Math.floor(gx), h % 2 === 0 ? Math.ceil(gy - 1 - 1e-9) : Math.floor(gy)];
}

/** The top-left canvas pixel a token of this size stands at on a cell (the inverse of cellOfToken). */
export function tokenPoint(link: Pick<Link, "grid" | "origin">, cell: Cell, w = 1, h = 1): { x: number; y: number } {
  const shift = (n: number) => Math.floor((n - 1) / 2);
  return {
    x: link.origin[0] + (cell[0] - shift(w)) * link.grid,
    y: link.origin[1] + (cell[1] - shift(h)) * link.grid,
  };
}

/** The cells a movement's waypoints fall in, each once in a row (a waypoint on the cell before adds nothing). */
export function cellsOf(link: Pick<Link, "grid" | "origin">, points: { x: number; y: number }[], w = 1, h = 1): Cell[] {
  const out: Cell[] = [];
  for (const p of points) {
    const cell = cellOfToken(link, p.x, p.y, w, h);
    const last = out[out.length - 1];
    if (!last || last[0] !== cell[0] || last[1] !== cell[1]) out.push(cell);
  }
  return out;
}

export function inside(link: Pick<Link, "width" | "height">, cell: Cell): boolean {
  return cell[0] >= 0 && cell[1] >= 0 && cell[0] < link.width && cell[1] < link.height;
}
