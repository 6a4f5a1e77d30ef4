// The API client: every request this page makes, with its link's token.
// The page is opened from an invitation link, …/join/TOKEN: the token says who this screen speaks
// for (the server writes who entered each command from it) and goes with every request. BASE
// keeps the page working under a path prefix (a reverse proxy, or one server holding many encounters).

const JOIN = location.pathname.match(/^(.*)\/join\/([^/]+)$/);
export const BASE = JOIN ? JOIN[1] : "";
export const TOKEN = JOIN ? decodeURIComponent(JOIN[2]) : "";

let denied = () => {};
/** What to do when the server says this link no longer opens the table (revoked, expired). */
export function onDenied(fn) { denied = fn; }

/** One request: {status, data}; status 0 when the server can't be reached. */
export async function api(method, url, body) {
  const init = { method, headers: { Authorization: "Bearer " + TOKEN } };
  url = BASE + url;
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  try {
    const res = await fetch(url, init);
    let data = {};
    try { data = await res.json(); } catch (_) { data = { message: res.statusText }; }
    if (data.error === "bad link") denied(data.message);  // 401/403 for the link itself
    return { status: res.status, data };
  } catch (err) {
    return { status: 0, data: { error: "network", message: "The server can't be reached: check the connection." } };
  }
}

// A key of this page's own for each command it sends: sent again after a dropped connection,
// the server answers with what the first one appended and appends nothing new.
function commandKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));  // works on plain http too, unlike randomUUID
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A write (do, undo, redo): sent once more with the same key if the connection dropped. */
export async function send(path, body) {
  const keyed = { ...body, command_id: commandKey() };
  let answer = await api("POST", path, keyed);
  if (answer.status === 0) answer = await api("POST", path, keyed);
  return answer;
}

/** The addresses of pictures, with the token (an <image> can't send a header). */
export const pictureHref = (p) => `${BASE}${p.url}&token=${encodeURIComponent(TOKEN)}`;
export const imageHref = (f) => `${BASE}/api/image/${encodeURIComponent(f.id)}?token=${encodeURIComponent(TOKEN)}`;

/** The live stream: the server says the log's version whenever it changes. */
export function stream() {
  return new EventSource(BASE + "/api/stream?token=" + encodeURIComponent(TOKEN));
}
