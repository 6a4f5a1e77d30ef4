// The GM's home page and builder talk to the server with the folder's own link: /home/TOKEN or
// /build/TOKEN. The token goes in a header with every request, never in an address but a picture's.

const AT = location.pathname.match(/^(.*)\/(home|build)\/([^/]+)$/);
export const BASE = AT ? AT[1] : "";
export const TOKEN = AT ? decodeURIComponent(AT[3]) : "";
export const homeHref = () => `${BASE}/home/${encodeURIComponent(TOKEN)}`;
export const buildHref = (draft) => `${BASE}/build/${encodeURIComponent(TOKEN)}#${encodeURIComponent(draft)}`;

/** One request: {status, data}; status 0 when the server can't be reached. */
export async function api(method, url, body, raw) {
  const init = { method, headers: { Authorization: "Bearer " + TOKEN } };
  if (raw !== undefined) {
    init.headers["Content-Type"] = "application/octet-stream";
    init.body = raw;
  } else if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  try {
    const res = await fetch(BASE + url, init);
    let data = {};
    try { data = await res.json(); } catch (_) { data = { message: res.statusText }; }
    return { status: res.status, data };
  } catch (err) {
    return { status: 0, data: { error: "network", message: "The server can't be reached: check the connection." } };
  }
}

/** A file the server answers as an attachment, saved by the browser under its own name. */
export async function download(url) {
  const res = await fetch(BASE + url, { headers: { Authorization: "Bearer " + TOKEN } });
  if (!res.ok) {
    let message = res.statusText;
    try { message = (await res.json()).message; } catch (_) { /* not JSON */ }
    return message;
  }
  const name = (res.headers.get("content-disposition") || "").match(/filename="([^"]+)"/);
  const a = document.createElement("a");
  a.href = URL.createObjectURL(await res.blob());
  a.download = name ? name[1] : "download";
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
  return "";
}

/** An element: h("button", {class: "x", onclick}, "text", child…). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "value") el.value = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}
export const $ = (id) => document.getElementById(id);
