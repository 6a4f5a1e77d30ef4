/**
 * The tabletrail server as the bridge calls it: bearer token in the Authorization header (never a cookie,
 * never in an address), JSON bodies, every answer with its status. `fetch` is passed in, so tests drive a
 * real server from node and the module uses the browser's.
 */

import { sseEvents } from "./sync.js";
import type { Board, MoveAnswer, ReachArea } from "./types.js";
import type { MoveBody } from "./moves.js";
import type { EncounterBody } from "./scene.js";

export type Fetch = typeof fetch;

export interface Answer<T> {
  status: number;
  body: T;
}

export class TabletrailClient {
  readonly base: string;

  constructor(
    server: string,
    private readonly token: string,
    private readonly fetcher: Fetch = fetch,
  ) {
    this.base = normalised(server);
  }

  private async call<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<Answer<T>> {
    const headers: Record<string, string> = { Authorization: `Bearer ${this.token}` };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const init: RequestInit = { method, headers, cache: "no-store", credentials: "omit" };
    if (body !== undefined) init.body = JSON.stringify(body);
    const response = await this.fetcher(`${this.base}${path}`, init);
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      parsed = { error: "not JSON", message: `${path}: the server answered ${response.status} with no JSON` };
    }
    return { status: response.status, body: parsed as T };
  }

  me() {
    return this.call<{ role: string }>("GET", "/api/me");
  }

  state() {
    return this.call<Board>("GET", "/api/state");
  }

  reach(fighter: string) {
    return this.call<ReachArea>("GET", `/api/reach?fighter=${encodeURIComponent(fighter)}`);
  }

  encounter(body: EncounterBody) {
    return this.call<Record<string, unknown>>("POST", "/api/foundry/encounter", body);
  }

  move(body: MoveBody) {
    return this.call<MoveAnswer>("POST", "/api/foundry/move", body);
  }

  /** A command in the one command syntax (the GM's end-turn when Foundry leads the tracker). */
  async command(text: string, commandId?: string) {
    const seen = await this.state();
    return this.call<MoveAnswer>("POST", "/api/do", { version: seen.body.version, text, ...(commandId ? { command_id: commandId } : {}) });
  }

  async undo(why = "", commandId?: string) {
    const seen = await this.state();
    return this.call<MoveAnswer>("POST", "/api/undo", { version: seen.body.version, why, ...(commandId ? { command_id: commandId } : {}) });
  }

  explain(seq: number) {
    return this.call<Record<string, unknown>>("GET", `/api/events/${seq}`);
  }

  invite(role: string, label: string) {
    return this.call<{ token: string; id: string }>("POST", "/api/invites", { role, label });
  }

  async bundle(): Promise<Answer<string>> {
    const response = await this.fetcher(`${this.base}/api/bundle`, {
      headers: { Authorization: `Bearer ${this.token}` },
      credentials: "omit",
    });
    return { status: response.status, body: await response.text() };
  }

  /**
   * Follow the live stream (server-sent events read from fetch, so the token rides in a header): `onVersion`
   * at every version; reconnects from the last version after the server ends a stream, until `signal` aborts.
   */
  async follow(onVersion: (version: number) => void | Promise<void>, signal: AbortSignal, seconds?: number): Promise<void> {
    let last = -1;
    while (!signal.aborted) {
      const query = `last=${last}${seconds !== undefined ? `&seconds=${seconds}` : ""}`;
      let response: Response;
      try {
        response = await this.fetcher(`${this.base}/api/stream?${query}`, {
          headers: { Authorization: `Bearer ${this.token}`, Accept: "text/event-stream" },
          credentials: "omit",
          signal,
        });
      } catch {
        if (signal.aborted) return;
        await pause(1000, signal);
        continue;
      }
      if (response.status === 401 || response.status === 403 || !response.body) return;
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += decoder.decode(value, { stream: true });
          const { events, rest } = sseEvents(buffer);
          buffer = rest;
          for (const e of events) {
            if (e.event === "denied") return;
            if (e.event !== "version") continue;
            const version = Number(JSON.parse(e.data).version);
            if (Number.isInteger(version) && version !== last) {
              last = version;
              await onVersion(version);
            }
          }
        }
      } catch {
        if (signal.aborted) return;
      }
      await pause(300, signal);
    }
  }
}

/** The server's address as the settings hold it: no trailing slash, no /join/TOKEN pasted with it. */
export function normalised(server: string): string {
  return server.trim().replace(/\/join\/[^/]*$/, "").replace(/\/+$/, "");
}

/** A GM or player link (http://host:port/join/TOKEN) split into the server and the token. */
export function splitLink(link: string): { server: string; token: string } | null {
  const m = /^(https?:\/\/[^/]+(?:\/e\/[^/]+)?)\/join\/([A-Za-z0-9._-]+)\/?$/.exec(link.trim());
  return m ? { server: m[1]!, token: m[2]! } : null;
}

/** The plain-HTTP server an HTTPS Foundry page can't call (the browser blocks mixed content), said in words. */
export function mixedContent(pageProtocol: string, server: string): string | null {
  if (pageProtocol === "https:" && /^http:\/\//i.test(server) && !/^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:|\/|$)/i.test(server)) {
    return (
      `Foundry is served over HTTPS and the tabletrail server ${server} over plain HTTP: the browser will block every ` +
      "call. Put the tabletrail server behind HTTPS (a reverse proxy such as Caddy), then use its https:// address."
    );
  }
  return null;
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
