/**
 * The plain data the bridge passes around: what the tabletrail server answers, and the few facts of a
 * Foundry scene the logic needs. No Foundry global is read here; src/foundry/ turns documents into these.
 */

/** Where a refereed scene's grid sits on Foundry's canvas, and which fighter each token became. */
export interface Link {
  /** the tabletrail log the table plays (the answer of POST /api/foundry/encounter) */
  log: string;
  ruleset: string;
  unit: string;
  /** canvas pixels of a cell */
  grid: number;
  /** the canvas pixel of cell 0,0's top-left corner */
  origin: [number, number];
  width: number;
  height: number;
  /** token id -> fighter id */
  fighters: Record<string, string>;
  /** fighter id -> side */
  sides: Record<string, string>;
  /** Foundry movement action -> the ruleset's verb (null: none) */
  verbs: Record<string, string | null>;
}

export type Cell = [number, number];

/** A fighter on the tabletrail board (GET /api/state), as much as the bridge reads. */
export interface BoardFighter {
  id: string;
  side: string;
  pos: [number, number, number?];
  /** what its move budget holds, in centi-units, and in words */
  move_left?: number;
  move_left_text?: string;
}

export interface Board {
  version: number;
  fighters: BoardFighter[];
  turn?: { active?: string | null; round?: number } | null;
}

/** The reachable area of a fighter (GET /api/reach): cells [x, y, cost] its next move may end on. */
export interface ReachArea {
  version: number;
  fighter: string;
  budget: number;
  unit: string;
  cells: [number, number, number][];
  further?: { budget: number; action: string; cells: [number, number, number][] } | null;
  blocked?: { rule: string; reason: string } | null;
}

/** What POST /api/foundry/move answers: 200 recorded (or replayed), 422 refused, else an error. */
export interface MoveAnswer {
  ok?: boolean;
  replayed?: boolean;
  version?: number;
  text?: string;
  fighter?: string;
  at?: number[] | null;
  cost?: number;
  left?: number;
  resource?: string;
  unit?: string;
  placed?: boolean;
  records?: { seq: number; text: string; rules: string[]; type: string }[];
  error?: string;
  message?: string;
  rule?: string;
  enforce?: string;
  reason?: string;
}

/** A Foundry movement as the logic sees it: its id, the token, the waypoints in canvas pixels. */
export interface Movement {
  id: string;
  tokenId: string;
  /** the token's size in cells (its waypoints are its top-left corner) */
  width: number;
  height: number;
  /** where the token stood when the movement began (its top-left corner) */
  origin: { x: number; y: number };
  waypoints: { x: number; y: number; action: string }[];
  method?: string;
}
