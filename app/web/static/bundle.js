// A replay bundle's page: checks the hash chain of the lines it carries, then replays the encounter.
// It holds no rules: the boards are the engine's fold recorded in the file (app/bundle/data.py), the
// words are `tabletrail log` and `explain`'s; it recomputes the chain (BLAKE2b, the vendored blakejs)
// and checks that each recorded board agrees with the facts of the event before it. Nothing it does
// makes a request (the page's Content-Security-Policy forbids every one).
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const HEAD = JSON.parse($("tt-head").textContent);
  const TIP_PERSON = Uint8Array.from([..."tabletrail tip"].map((c) => c.charCodeAt(0)).concat([0, 0]));  // 16 bytes, as Python pads it
  const HEX = Array.from({ length: 256 }, (_, i) => (i < 16 ? "0" : "") + i.toString(16));
  const S = { lines: [], texts: [], records: [], key: null, keyed: "", words: null, views: [], at: null, explained: null };
  const FIRST = HEAD.first, LAST = HEAD.last;
  const WITHHELD = new Map(HEAD.withheld.map((w) => [w[0], w]));
  const count = (n) => Number(n).toLocaleString("en");
  const short = (h) => (h ? h.slice(0, 4) + "…" : "none");

  function h(tag, attrs, ...children) {
    const n = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") n.className = v;
      else if (k.startsWith("data-")) n.setAttribute(k, v);
      else n[k] = v;
    }
    for (const c of children) n.append(c instanceof Node ? c : document.createTextNode(String(c)));
    return n;
  }

  function hex(bytes) {
    let s = "";
    for (let i = 0; i < bytes.length; i++) s += HEX[bytes[i]];
    return s;
  }

  // BLAKE2b (RFC 7693) with a 16-byte digest, optionally keyed: the chain's per-line hash, written
  // for speed (64-bit words as 32-bit halves in local variables, nothing allocated a line); the vendored
  // blakejs stays the reference: the page checks this against it before trusting it.
  const B2 = (function () {
    const IV = Int32Array.from([
      0xf3bcc908, 0x6a09e667, 0x84caa73b, 0xbb67ae85, 0xfe94f82b, 0x3c6ef372, 0x5f1d36f1, 0xa54ff53a,
      0xade682d1, 0x510e527f, 0x2b3e6c1f, 0x9b05688c, 0xfb41bd6b, 0x1f83d9ab, 0x137e2179, 0x5be0cd19]);
    const SIGMA = [
      0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3,
      11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4, 7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8,
      9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13, 2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9,
      12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11, 13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10,
      6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5, 10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0];
    const S2 = Uint8Array.from(SIGMA.concat(SIGMA.slice(0, 32)), (i) => 2 * i);  // 12 rounds, word pairs
    const h = new Int32Array(16), m = new Int32Array(32), block = new Uint8Array(128);

    // One block of 128 bytes at `at` in `bytes`; `t0` the bytes hashed so far with it; `last` flags the
    // end. The sixteen 64-bit words of the state are 32 local halves (l, h), each G written out in
    // full: a += b + m[x]; d = (d ^ a) rotated 32; c += d; b = (b ^ c) rotated 24; then again with m[y] and
    // rotations 16 and 63. A half's sum carries into the high half when it wraps.
    function compress(bytes, at, t0, last) {
      for (let i = 0; i < 32; i++) {
        const j = at + 4 * i;
        m[i] = bytes[j] | (bytes[j + 1] << 8) | (bytes[j + 2] << 16) | (bytes[j + 3] << 24);
      }
      let v0l = h[0], v0h = h[1], v1l = h[2], v1h = h[3], v2l = h[4], v2h = h[5], v3l = h[6], v3h = h[7], v4l = h[8], v4h = h[9], v5l = h[10], v5h = h[11], v6l = h[12], v6h = h[13], v7l = h[14], v7h = h[15];
      let v8l = IV[0], v8h = IV[1], v9l = IV[2], v9h = IV[3], v10l = IV[4], v10h = IV[5], v11l = IV[6], v11h = IV[7], v12l = IV[8], v12h = IV[9], v13l = IV[10], v13h = IV[11], v14l = IV[12], v14h = IV[13], v15l = IV[14], v15h = IV[15];
      v12l ^= t0; v12h ^= (t0 / 0x100000000) | 0;
      if (last) { v14l = ~v14l; v14h = ~v14h; }
      let t = 0, x = 0, y = 0, xl = 0, xh = 0;
      for (let s = 0; s < 192; s += 16) {
        x = S2[s + 0]; y = S2[s + 1];
        t = (v0l + v4l) | 0; v0h = (v0h + v4h + ((t >>> 0) < (v0l >>> 0) ? 1 : 0)) | 0;
        v0l = (t + m[x]) | 0; v0h = (v0h + m[x + 1] + ((v0l >>> 0) < (t >>> 0) ? 1 : 0)) | 0;
        t = v12l ^ v0l; v12l = v12h ^ v0h; v12h = t;
        t = (v8l + v12l) | 0; v8h = (v8h + v12h + ((t >>> 0) < (v8l >>> 0) ? 1 : 0)) | 0; v8l = t;
        xl = v4l ^ v8l; xh = v4h ^ v8h; v4l = (xl >>> 24) | (xh << 8); v4h = (xh >>> 24) | (xl << 8);
        t = (v0l + v4l) | 0; v0h = (v0h + v4h + ((t >>> 0) < (v0l >>> 0) ? 1 : 0)) | 0;
        v0l = (t + m[y]) | 0; v0h = (v0h + m[y + 1] + ((v0l >>> 0) < (t >>> 0) ? 1 : 0)) | 0;
        xl = v12l ^ v0l; xh = v12h ^ v0h; v12l = (xl >>> 16) | (xh << 16); v12h = (xh >>> 16) | (xl << 16);
        t = (v8l + v12l) | 0; v8h = (v8h + v12h + ((t >>> 0) < (v8l >>> 0) ? 1 : 0)) | 0; v8l = t;
        xl = v4l ^ v8l; xh = v4h ^ v8h; v4l = (xl << 1) | (xh >>> 31); v4h = (xh << 1) | (xl >>> 31);
        x = S2[s + 2]; y = S2[s + 3];
        t = (v1l + v5l) | 0; v1h = (v1h + v5h + ((t >>> 0) < (v1l >>> 0) ? 1 : 0)) | 0;
        v1l = (t + m[x]) | 0; v1h = (v1h + m[x + 1] + ((v1l >>> 0) < (t >>> 0) ? 1 : 0)) | 0;
        t = v13l ^ v1l; v13l = v13h ^ v1h; v13h = t;
        t = (v9l + v13l) | 0; v9h = (v9h + v13h + ((t >>> 0) < (v9l >>> 0) ? 1 : 0)) | 0; v9l = t;
        xl = v5l ^ v9l; xh = v5h ^ v9h; v5l = (xl >>> 24) | (xh << 8); v5h = (xh >>> 24) | (xl << 8);
        t = (v1l + v5l) | 0; v1h = (v1h + v5h + ((t >>> 0) < (v1l >>> 0) ? 1 : 0)) | 0;
        v1l = (t + m[y]) | 0; v1h = (v1h + m[y + 1] + ((v1l >>> 0) < (t >>> 0) ? 1 : 0)) | 0;
        xl = v13l ^ v1l; xh = v13h ^ v1h; v13l = (xl >>> 16) | (xh << 16); v13h = (xh >>> 16) | (xl << 16);
        t = (v9l + v13l) | 0; v9h = (v9h + v13h + ((t >>> 0) < (v9l >>> 0) ? 1 : 0)) | 0; v9l = t;
        xl = v5l ^ v9l; xh = v5h ^ v9h; v5l = (xl << 1) | (xh >>> 31); v5h = (xh << 1) | (xl >>> 31);
        x = S2[s + 4]; y = S2[s + 5];
        t = (v2l + v6l) | 0; v2h = (v2h + v6h + ((t >>> 0) < (v2l >>> 0) ? 1 : 0)) | 0;
        v2l = (t + m[x]) | 0; v2h = (v2h + m[x + 1] + ((v2l >>> 0) < (t >>> 0) ? 1 : 0)) | 0;
        t = v14l ^ v2l; v14l = v14h ^ v2h; v14h = t;
        t = (v10l + v14l) | 0; v10h = (v10h + v14h + ((t >>> 0) < (v10l >>> 0) ? 1 : 0)) | 0; v10l = t;
        xl = v6l ^ v10l; xh = v6h ^ v10h; v6l = (xl >>> 24) | (xh << 8); v6h = (xh >>> 24) | (xl << 8);
        t = (v2l + v6l) | 0; v2h = (v2h + v6h + ((t >>> 0) < (v2l >>> 0) ? 1 : 0)) | 0;
        v2l = (t + m[y]) | 0; v2h = (v2h + m[y + 1] + ((v2l >>> 0) < (t >>> 0) ? 1 : 0)) | 0;
        xl = v14l ^ v2l; xh = v14h ^ v2h; v14l = (xl >>> 16) | (xh << 16); v14h = (xh >>> 16) | (xl << 16);
        t = (v10l + v14l) | 0; v10h = (v10h + v14h + ((t >>> 0) < (v10l >>> 0) ? 1 : 0)) | 0; v10l = t;
        xl = v6l ^ v10l; xh = v6h ^ v10h; v6l = (xl << 1) | (xh >>> 31); v6h = (xh << 1) | (xl >>> 31);
        x = S2[s + 6]; y = S2[s + 7];
        t = (v3l + v7l) | 0; v3h = (v3h + v7h + ((t >>> 0) < (v3l >>> 0) ? 1 : 0)) | 0;
        v3l = (t + m[x]) | 0; v3h = (v3h + m[x + 1] + ((v3l >>> 0) < (t >>> 0) ? 1 : 0)) | 0;
        t = v15l ^ v3l; v15l = v15h ^ v3h; v15h = t;
        t = (v11l + v15l) | 0; v11h = (v11h + v15h + ((t >>> 0) < (v11l >>> 0) ? 1 : 0)) | 0; v11l = t;
        xl = v7l ^ v11l; xh = v7h ^ v11h; v7l = (xl >>> 24) | (xh << 8); v7h = (xh >>> 24) | (xl << 8);
        t = (v3l + v7l) | 0; v3h = (v3h + v7h + ((t >>> 0) < (v3l >>> 0) ? 1 : 0)) | 0;
        v3l = (t + m[y]) | 0; v3h = (v3h + m[y + 1] + ((v3l >>> 0) < (t >>> 0) ? 1 : 0)) | 0;
        xl = v15l ^ v3l; xh = v15h ^ v3h; v15l = (xl >>> 16) | (xh << 16); v15h = (xh >>> 16) | (xl << 16);
        t = (v11l + v15l) | 0; v11h = (v11h + v15h + ((t >>> 0) < (v11l >>> 0) ? 1 : 0)) | 0; v11l = t;
        xl = v7l ^ v11l; xh = v7h ^ v11h; v7l = (xl << 1) | (xh >>> 31); v7h = (xh << 1) | (xl >>> 31);
        x = S2[s + 8]; y = S2[s + 9];
        t = (v0l + v5l) | 0; v0h = (v0h + v5h + ((t >>> 0) < (v0l >>> 0) ? 1 : 0)) | 0;
        v0l = (t + m[x]) | 0; v0h = (v0h + m[x + 1] + ((v0l >>> 0) < (t >>> 0) ? 1 : 0)) | 0;
        t = v15l ^ v0l; v15l = v15h ^ v0h; v15h = t;
        t = (v10l + v15l) | 0; v10h = (v10h + v15h + ((t >>> 0) < (v10l >>> 0) ? 1 : 0)) | 0; v10l = t;
        xl = v5l ^ v10l; xh = v5h ^ v10h; v5l = (xl >>> 24) | (xh << 8); v5h = (xh >>> 24) | (xl << 8);
        t = (v0l + v5l) | 0; v0h = (v0h + v5h + ((t >>> 0) < (v0l >>> 0) ? 1 : 0)) | 0;
        v0l = (t + m[y]) | 0; v0h = (v0h + m[y + 1] + ((v0l >>> 0) < (t >>> 0) ? 1 : 0)) | 0;
        xl = v15l ^ v0l; xh = v15h ^ v0h; v15l = (xl >>> 16) | (xh << 16); v15h = (xh >>> 16) | (xl << 16);
        t = (v10l + v15l) | 0; v10h = (v10h + v15h + ((t >>> 0) < (v10l >>> 0) ? 1 : 0)) | 0; v10l = t;
        xl = v5l ^ v10l; xh = v5h ^ v10h; v5l = (xl << 1) | (xh >>> 31); v5h = (xh << 1) | (xl >>> 31);
        x = S2[s + 10]; y = S2[s + 11];
        t = (v1l + v6l) | 0; v1h = (v1h + v6h + ((t >>> 0) < (v1l >>> 0) ? 1 : 0)) | 0;
        v1l = (t + m[x]) | 0; v1h = (v1h + m[x + 1] + ((v1l >>> 0) < (t >>> 0) ? 1 : 0)) | 0;
        t = v12l ^ v1l; v12l = v12h ^ v1h; v12h = t;
        t = (v11l + v12l) | 0; v11h = (v11h + v12h + ((t >>> 0) < (v11l >>> 0) ? 1 : 0)) | 0; v11l = t;
        xl = v6l ^ v11l; xh = v6h ^ v11h; v6l = (xl >>> 24) | (xh << 8); v6h = (xh >>> 24) | (xl << 8);
        t = (v1l + v6l) | 0; v1h = (v1h + v6h + ((t >>> 0) < (v1l >>> 0) ? 1 : 0)) | 0;
        v1l = (t + m[y]) | 0; v1h = (v1h + m[y + 1] + ((v1l >>> 0) < (t >>> 0) ? 1 : 0)) | 0;
        xl = v12l ^ v1l; xh = v12h ^ v1h; v12l = (xl >>> 16) | (xh << 16); v12h = (xh >>> 16) | (xl << 16);
        t = (v11l + v12l) | 0; v11h = (v11h + v12h + ((t >>> 0) < (v11l >>> 0) ? 1 : 0)) | 0; v11l = t;
        xl = v6l ^ v11l; xh = v6h ^ v11h; v6l = (xl << 1) | (xh >>> 31); v6h = (xh << 1) | (xl >>> 31);
        x = S2[s + 12]; y = S2[s + 13];
        t = (v2l + v7l) | 0; v2h = (v2h + v7h + ((t >>> 0) < (v2l >>> 0) ? 1 : 0)) | 0;
        v2l = (t + m[x]) | 0; v2h = (v2h + m[x + 1] + ((v2l >>> 0) < (t >>> 0) ? 1 : 0)) | 0;
        t = v13l ^ v2l; v13l = v13h ^ v2h; v13h = t;
        t = (v8l + v13l) | 0; v8h = (v8h + v13h + ((t >>> 0) < (v8l >>> 0) ? 1 : 0)) | 0; v8l = t;
        xl = v7l ^ v8l; xh = v7h ^ v8h; v7l = (xl >>> 24) | (xh << 8); v7h = (xh >>> 24) | (xl << 8);
        t = (v2l + v7l) | 0; v2h = (v2h + v7h + ((t >>> 0) < (v2l >>> 0) ? 1 : 0)) | 0;
        v2l = (t + m[y]) | 0; v2h = (v2h + m[y + 1] + ((v2l >>> 0) < (t >>> 0) ? 1 : 0)) | 0;
        xl = v13l ^ v2l; xh = v13h ^ v2h; v13l = (xl >>> 16) | (xh << 16); v13h = (xh >>> 16) | (xl << 16);
        t = (v8l + v13l) | 0; v8h = (v8h + v13h + ((t >>> 0) < (v8l >>> 0) ? 1 : 0)) | 0; v8l = t;
        xl = v7l ^ v8l; xh = v7h ^ v8h; v7l = (xl << 1) | (xh >>> 31); v7h = (xh << 1) | (xl >>> 31);
        x = S2[s + 14]; y = S2[s + 15];
        t = (v3l + v4l) | 0; v3h = (v3h + v4h + ((t >>> 0) < (v3l >>> 0) ? 1 : 0)) | 0;
        v3l = (t + m[x]) | 0; v3h = (v3h + m[x + 1] + ((v3l >>> 0) < (t >>> 0) ? 1 : 0)) | 0;
        t = v14l ^ v3l; v14l = v14h ^ v3h; v14h = t;
        t = (v9l + v14l) | 0; v9h = (v9h + v14h + ((t >>> 0) < (v9l >>> 0) ? 1 : 0)) | 0; v9l = t;
        xl = v4l ^ v9l; xh = v4h ^ v9h; v4l = (xl >>> 24) | (xh << 8); v4h = (xh >>> 24) | (xl << 8);
        t = (v3l + v4l) | 0; v3h = (v3h + v4h + ((t >>> 0) < (v3l >>> 0) ? 1 : 0)) | 0;
        v3l = (t + m[y]) | 0; v3h = (v3h + m[y + 1] + ((v3l >>> 0) < (t >>> 0) ? 1 : 0)) | 0;
        xl = v14l ^ v3l; xh = v14h ^ v3h; v14l = (xl >>> 16) | (xh << 16); v14h = (xh >>> 16) | (xl << 16);
        t = (v9l + v14l) | 0; v9h = (v9h + v14h + ((t >>> 0) < (v9l >>> 0) ? 1 : 0)) | 0; v9l = t;
        xl = v4l ^ v9l; xh = v4h ^ v9h; v4l = (xl << 1) | (xh >>> 31); v4h = (xh << 1) | (xl >>> 31);
      }
      h[0] ^= v0l ^ v8l; h[1] ^= v0h ^ v8h;
      h[2] ^= v1l ^ v9l; h[3] ^= v1h ^ v9h;
      h[4] ^= v2l ^ v10l; h[5] ^= v2h ^ v10h;
      h[6] ^= v3l ^ v11l; h[7] ^= v3h ^ v11h;
      h[8] ^= v4l ^ v12l; h[9] ^= v4h ^ v12h;
      h[10] ^= v5l ^ v13l; h[11] ^= v5h ^ v13h;
      h[12] ^= v6l ^ v14l; h[13] ^= v6h ^ v14h;
      h[14] ^= v7l ^ v15l; h[15] ^= v7h ^ v15h;
    }

    // The 16-byte BLAKE2b of `bytes` (keyed with `key`, up to 64 bytes, when given), as hexOf gives it.
    return function blake2b16(bytes, key, hexOf) {
      const keylen = key ? key.length : 0;
      h.set(IV);
      h[0] ^= 0x01010000 ^ (keylen << 8) ^ 16;
      let t = 0;
      if (keylen) {
        block.fill(0); block.set(key);
        t = 128;
        if (!bytes.length) { compress(block, 0, t, true); return hexOf(h); }
        compress(block, 0, t, false);
      }
      const n = bytes.length;
      let at = 0;
      while (n - at > 128) { t += 128; compress(bytes, at, t, false); at += 128; }
      block.fill(0); block.set(bytes.subarray(at, n));
      t += n - at;
      compress(block, 0, t, true);
      return hexOf(h);
    };
  })();

  // The 16-byte digest's words (little-endian halves of h's first two words) as hex.
  function hex16(words) {
    let s = "";
    for (let i = 0; i < 4; i++) {
      const w = words[i];
      s += HEX[w & 255] + HEX[(w >>> 8) & 255] + HEX[(w >>> 16) & 255] + HEX[w >>> 24];
    }
    return s;
  }

  // The fast hash is trusted only where it gives blakejs's answers (lengths around the block edges,
  // keyed and not); otherwise every line goes through blakejs, slower but the same verdict.
  const FAST = (function () {
    const key = Uint8Array.from({ length: 32 }, (_, i) => (i * 7 + 1) & 255);
    for (const n of [0, 1, 127, 128, 129, 255, 256, 300, 1000]) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 31 + n) & 255);
      for (const k of [undefined, key]) {
        if (B2(bytes, k, hex16) !== hex(blakejs.blake2b(bytes, k, 16))) return false;
      }
    }
    return true;
  })();

  function lineHash(bytes, key) {
    return FAST ? B2(bytes, key || undefined, hex16) : hex(blakejs.blake2b(bytes, key || undefined, 16));
  }

  function unbase64(text) {
    const bin = atob(text.trim());
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }

  async function unpack(id) {
    if (typeof DecompressionStream === "undefined") {
      throw new Error("this browser can't unpack the file (it lacks DecompressionStream): open it in a current browser");
    }
    const stream = new Blob([unbase64($(id).textContent)]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  }

  function split(bytes) {
    const out = [];
    let start = 0;
    for (let i = 0; i < bytes.length; i++) {
      if (bytes[i] === 10) { out.push(bytes.subarray(start, i)); start = i + 1; }
    }
    if (start < bytes.length) out.push(bytes.subarray(start));
    return out;
  }

  // --- the chain: the same checks in the same order as `tabletrail verify` -------------------------

  // Whether the chain is keyed (the key's check value, "" when not): line 1 says so (events/stores/chain.py
  // writes `keyed` there), as `tabletrail verify fight.html` reads it. The header's claim is taken
  // only when the file does not carry line 1 (a range, or a side's share without the seed's line):
  // a header edited to hide the key can't turn a keyed log's checks off.
  function keyedCheck() {
    if (FIRST !== 1 || WITHHELD.has(1) || !S.texts.length) return HEAD.keyed || "";
    let rec = null;
    try { rec = JSON.parse(S.texts[0]); } catch (e) { rec = null; }
    return rec && typeof rec === "object" && typeof rec.keyed === "string" ? rec.keyed : "";
  }

  // The first fault of the carried lines, or null. Without the key of a keyed chain, only the order
  // and the tip can be checked (`chain: false`).
  function check(key, chain) {
    const lines = S.lines, n0 = FIRST;
    let prev = n0 > 1 ? (key ? HEAD.anchor_chain : HEAD.anchor) : "";
    S.records = [];
    for (let i = 0; i < lines.length; i++) {
      const n = n0 + i;
      const held = WITHHELD.get(n);
      if (held) { prev = held[1]; S.records.push(null); continue; }
      let rec = null;
      try { rec = JSON.parse(S.texts[i]); } catch (e) { rec = null; }
      if (!rec || typeof rec !== "object" || Array.isArray(rec)) {
        return { line: n, kind: "line", text: `line ${n} is not a log record (it is not a JSON object): it was changed after it was written` };
      }
      if (chain && rec.prev !== prev) {
        const text = n === 1 ? "line 1 must carry no previous hash: it was changed after it was written"
          : n === n0 ? `line ${n} does not carry the hash of line ${n - 1} recorded with this range: it was changed, or the range does not follow that line`
            : `line ${n - 1} was changed after it was written, or a line was removed, added or moved there: line ${n} no longer carries its hash`;
        return { line: n, kind: "chain", changed: n - 1, text };
      }
      if (rec.seq !== n) {
        return { line: n, kind: "order", text: `line ${n} says it is event ${rec.seq}: lines were moved, removed or added` };
      }
      S.records.push(rec);
      if (chain) prev = lineHash(lines[i], key);
    }
    const tip = HEAD.tip, have = lines.length, lastN = n0 + have - 1;
    const lastPlain = WITHHELD.has(lastN) ? WITHHELD.get(lastN)[2] : have ? lineHash(lines[have - 1]) : "";
    S.tip = lastPlain;
    if (lastN !== tip.seq) {
      const line = Math.min(tip.seq, lastN);
      const gone = tip.seq > lastN + 1 ? `lines ${lastN + 1} to ${tip.seq} were` : `line ${tip.seq} was`;
      const text = lastN < tip.seq
        ? `the file ends at line ${lastN}, but the tip recorded says the log ends at line ${tip.seq}: ${gone} removed`
        : `the file runs on to line ${lastN}, but the tip recorded says the log ends at line ${tip.seq}: lines were added after it`;
      return { line, kind: "tip", text };
    }
    if (lastPlain !== tip.hash) {
      return { line: lastN, kind: "tip", changed: lastN, text: `line ${lastN} was changed after it was written: it hashes to ${short(lastPlain)}, the tip recorded is ${short(tip.hash)}` };
    }
    // A keyed log's tip is also a MAC only the table's secret can write (events/stores/chain.py tip_hash).
    if (key && tip.mac && !WITHHELD.has(lastN) && hex(blakejs.blake2b(lines[have - 1], key, 16, undefined, TIP_PERSON)) !== tip.mac) {
      return { line: lastN, kind: "tip", changed: lastN, text: `line ${lastN} does not match the keyed tip recorded: it was changed after it was written, or the tip was not written with the table's secret` };
    }
    return null;
  }

  function say(state, text, line) {
    const box = $("integrity");
    box.dataset.state = state;
    if (line) box.dataset.line = String(line); else delete box.dataset.line;
    box.textContent = text;
  }

  function verdict(finding, chained) {
    const n = S.lines.length;
    if (finding) {
      say("broken", finding.text, finding.line);
      S.finding = finding;
      return;
    }
    const anchor = FIRST > 1 ? `, from the hash of line ${FIRST - 1} recorded with it (${short(HEAD.anchor)})` : "";
    if (!chained) {
      say("keyed", `this log's chain is keyed with the table's secret, so it can only be checked with it: enter it below ` +
        `(it never leaves this page). Without it this page checked that the ${count(n)} lines are in order and that the last ` +
        `hashes to the tip recorded (tip ${short(S.tip)}).`);
      return;
    }
    const held = WITHHELD.size ? `, ${count(WITHHELD.size)} of them withheld from this side (their hashes carried)` : "";
    say("intact", `chain intact: ${count(n)} lines${held}${anchor}, tip ${short(S.tip)}, matches the tip recorded`);
    window.TT_INTACT_MS = performance.now();
  }

  async function runKey(secret) {
    const enc = new TextEncoder();
    const key = blakejs.blake2b(enc.encode(secret), undefined, 32);
    const checkValue = hex(blakejs.blake2b(enc.encode("tabletrail chain key"), key, 8));
    if (checkValue !== S.keyed) {
      say("keyed", "That is not the secret this log's chain was started with: the chain can't be checked with it.");
      return;
    }
    S.key = key;
    $("key-form").hidden = true;
    verdict(check(key, true), true);
    explainChecked();
  }

  // --- the boards: recorded, rebuilt from one full view and what changed after each event ----------

  // The words as written, one step an event (the board after it or what changed, the event, its
  // explanation's codes), read as the page uses them: the first board, each change, each event.
  function unstep(w) {
    return {
      board: w.board, strings: w.strings, base: w.steps[0][0],
      deltas: w.steps.slice(1).map((s) => s[0]), events: w.steps.map((s) => eventOf(w.fields, s[1])),
      explain: w.steps.map((s) => s[2]),
    };
  }

  // An event as carried, read back: its `fields` by name (a withheld one is its seq and batch alone).
  function eventOf(fields, written) {
    if (written.length === 2) return { seq: written[0], batch: written[1], withheld: true };
    const e = {};
    for (let i = 0; i < fields.length; i++) e[fields[i]] = written[i];
    return e;
  }

  // An explanation is written as codes: a number into the table of strings (a line, or a run of
  // lines' numbers), or a line made here from the events carried, which the bundle checked to say
  // word for word what `explain` says (app/bundle/data.py: HEAD_LINE, LISTING, head_line, listed_line).
  const HEAD_LINE = -1, LISTING = -2;
  const headLine = (e) => `event ${e.seq} (batch ${e.batch}, ${e.status || "in force"}): ${e.text}`;
  const listedLine = (e, marked) => (marked ? " >" : "  ") + String(e.seq).padStart(4) + " " + e.text +
    (e.rules.length ? `  [${e.rules.join(", ")}]` : "") + (e.note ? `  — ${e.note}` : "");

  // The text of the k-th carried event's explanation (app/bundle/data.py `explanation`).
  function explanation(k) {
    const w = S.words, events = w.events, e = events[k], out = [];
    for (const code of w.explain[k]) {
      if (code === HEAD_LINE) out.push(headLine(e));
      else if (code === LISTING) {  // the events carried of its batch, its neighbours
        let lo = k, hi = k;
        while (lo > 0 && events[lo - 1].batch === e.batch) lo--;
        while (hi + 1 < events.length && events[hi + 1].batch === e.batch) hi++;
        for (let j = lo; j <= hi; j++) out.push(listedLine(events[j], j === k));
      } else {
        const said = w.strings[code];
        if (typeof said === "string") out.push(said);
        else for (const i of said) out.push(w.strings[i]);
      }
    }
    return out.join("\n");
  }

  function rebuild() {
    const w = S.words;
    let cur = w.base;
    S.views = [cur];
    for (const d of w.deltas) {
      const next = Object.assign({}, cur, d);
      if (d.fighters) {
        next.fighters = Object.assign({}, cur.fighters);
        for (const [fid, change] of Object.entries(d.fighters)) next.fighters[fid] = Object.assign({}, cur.fighters[fid], change);
      }
      S.views.push(next);
      cur = next;
    }
  }

  function boardAt(seq) {
    const v = S.views[seq - FIRST];
    return Object.assign({}, S.words.board, v, { fighters: Object.values(v.fighters) });
  }

  // Does each recorded board agree with the facts of the event just before it? (where a move or a
  // placement left the fighter, which state a machine entered). The page's check of the recorded fold.
  function agree() {
    let checked = 0;
    for (let i = 0; i < S.records.length; i++) {
      const rec = S.records[i], e = rec && rec.event;
      if (!e) continue;
      const f = S.views[i].fighters[e.fighter];
      let ok = true;
      if (e.type === "moved" && e.steps && e.steps.length) ok = f && same(f.pos, e.steps[e.steps.length - 1][0]);
      else if (e.type === "placed") ok = f && same(f.pos, e.to);
      else if (e.type === "state") ok = f && f.states[e.machine] === e.dest;
      else continue;
      checked++;
      if (!ok) return { checked, line: FIRST + i, type: e.type };
    }
    return { checked, line: null };
  }

  function same(a, b) { return a.length === b.length && a.every((x, i) => x === b[i]); }

  // --- the page ------------------------------------------------------------------------------------

  const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
  const esc = (t) => String(t).replace(/[&<>"']/g, (c) => ESCAPES[c]);

  // The event list: the events around the one shown, in words, each with its rules and a "why?"
  // (a long encounter has ten thousand: a window of them is written at a time, moved as the board
  // moves); events after the one shown are faded. One listener serves them all.
  const WINDOW = 150;

  function item(e, at) {
    const after = e.seq > at ? " future" : "", chosen = e.seq === at ? " chosen" : "";
    if (e.withheld) {
      const why = (WITHHELD.get(e.seq) || [])[3] || "not for this side";
      return `<li class="withheld${after}${chosen}" data-seq="${e.seq}">${e.seq} · withheld from this side's bundle: ${esc(why)}</li>`;
    }
    const rules = e.rules.map((r) => `<span class="rule">${esc(r)}</span>`).join(" ");
    return `<li class="${esc(e.status || "")}${after}${chosen}" data-seq="${e.seq}"><b>${e.seq}</b> ${esc(e.text)}` +
      (e.note ? `<span class="why"> — ${esc(e.note)}</span>` : "") + (e.status ? ` (${esc(e.status)})` : "") +
      ` ${rules} <a class="why-button" role="button" tabindex="0" data-why="${e.seq}" title="What tabletrail explain says of event ${e.seq}">why?</a></li>`;
  }

  function listAround(at) {
    const lo = Math.max(FIRST, at - WINDOW), hi = Math.min(LAST, at + WINDOW);
    S.window = [lo, hi];
    const events = S.words.events.slice(lo - FIRST, hi - FIRST + 1);
    const more = (n, where) => `<li class="more">… ${count(n)} ${where} (move the scrubber to see them)</li>`;
    $("events").innerHTML = (lo > FIRST ? more(lo - FIRST, "earlier events") : "") + events.map((e) => item(e, at)).join("") +
      (hi < LAST ? more(LAST - hi, "later events") : "");
  }

  function onList(ev) {
    const why = ev.target.closest("[data-why]");
    if (why) { show(Number(why.dataset.why), true); return; }
    const li = ev.target.closest("li[data-seq]");
    if (li) show(Number(li.dataset.seq), false);
  }

  // The list at `seq`: written anew when `seq` nears its window's edge, else only the items between
  // the event shown before and this one change.
  function mark(seq) {
    const [lo, hi] = S.window || [0, -1];
    if (S.at === null || seq < lo + 20 && lo > FIRST || seq > hi - 20 && hi < LAST || seq < lo || seq > hi) {
      listAround(seq);
      return;
    }
    const a = Math.min(S.at, seq), b = Math.max(S.at, seq);
    for (const li of $("events").querySelectorAll("li[data-seq]")) {
      const n = Number(li.dataset.seq);
      if (n < a || n > b) continue;
      li.classList.toggle("future", n > seq);
      li.classList.toggle("chosen", n === seq);
    }
  }

  function show(seq, withExplain) {
    seq = Math.max(FIRST, Math.min(LAST, seq | 0));
    mark(seq);
    S.at = seq;
    const e = S.words.events[seq - FIRST];
    const b = boardAt(seq);
    const svg = $("board");
    TabletrailBoard.drawBoard(svg, b, { pictureHref: (p) => p.href });
    TabletrailBoard.fitViewBox(svg, b);
    const t = b.turn;
    $("turn").textContent = `${HEAD.ruleset} · round ${t.round}${t.pass > 1 ? ", pass " + t.pass : ""} · ${t.active} to act`;
    $("scrubber").value = String(seq);
    $("scrub-label").textContent = `after event ${seq} of ${LAST}: ` + (e.withheld ? "(withheld from this side)" : e.text);
    $("scrub-label").dataset.seq = String(seq);
    const chosen = $("events").querySelector(`li[data-seq="${seq}"]`);
    if (chosen) {  // scroll the list alone (scrollIntoView would scroll the page too, off the board on a phone)
      const list = $("events"), top = chosen.offsetTop;
      if (top < list.scrollTop || top + chosen.offsetHeight > list.scrollTop + list.clientHeight) {
        list.scrollTop = Math.max(0, top - list.clientHeight / 2);
      }
    }
    if (withExplain) explain(seq);
    try { history.replaceState(null, "", "#" + seq); } catch (err) { /* a file:// page may refuse: the board is shown anyway */ }
  }

  function explain(seq) {
    const e = S.words.events[seq - FIRST];
    const out = $("explain");
    out.classList.remove("muted");
    out.dataset.seq = String(seq);
    if (e.withheld) {
      out.replaceChildren(h("p", {}, `Event ${seq} is withheld from this side's bundle.`));
      return;
    }
    const text = explanation(seq - FIRST);
    out.replaceChildren(h("p", { class: "explain-head" }, h("b", {}, `event ${seq}`), " ", e.text), h("pre", { class: "explain-text" }, text));
  }

  function explainChecked() {
    const n = S.lines.length, a = S.agreement;
    const items = [];
    const state = $("integrity").dataset.state;
    const chain = state === "intact" ? "intact" : state === "broken" ? "broken (see above)" : "not checked without the table's secret";
    items.push(`The hash chain of the ${count(n)} lines this file carries (lines ${FIRST} to ${LAST}), recomputed in this page with BLAKE2b: ${chain}.` +
      (FIRST > 1 ? ` The range starts from the hash of line ${FIRST - 1} recorded with it; the lines before it are not in this file.` : ""));
    if (a) {
      items.push(a.line === null
        ? `That the board recorded after each of the ${count(a.checked)} moves, placements and state changes agrees with the event's own facts (where it left the fighter, which state it entered): it does.`
        : `The board recorded after line ${a.line} (a ${a.type} event) does not agree with the event's own facts: the boards in this file were not made from these lines.`);
    }
    items.push("The boards shown are the engine's fold of the log, recorded in this file when `tabletrail bundle` made it: this page draws them and decides nothing.");
    if (WITHHELD.size) {
      items.push(`${count(WITHHELD.size)} lines are withheld from this side (the GM's rulings and settings, and the first line, which holds the seed of the dice): their hashes are carried, so the chain still checks through them.`);
    }
    items.push(FIRST === 1 && !WITHHELD.size
      ? "Re-deciding every command under the rules is `tabletrail verify` 's job: an arbiter with tabletrail runs `tabletrail verify` on this very file."
      : "Re-deciding every command under the rules needs every line from the first: `tabletrail verify` on this file checks its chain, and on the GM's bundle or the log re-decides it.");
    items.push("The tip recorded is only as trustworthy as the way this file reached you: whoever can change its lines can change the tip it records too. Compare it with the tip `tabletrail verify` printed at the table: " + (HEAD.tip.hash || "none") + ".");
    $("checked").replaceChildren(...items.map((t) => h("p", {}, t)));
  }

  function fromHash() {
    const m = /^#(\d+)$/.exec(location.hash);
    return m ? Number(m[1]) : null;
  }

  async function start() {
    $("title").textContent = HEAD.name;
    document.title = `${HEAD.name} · tabletrail replay`;
    $("role").textContent = HEAD.role === "gm" ? "GM's bundle" : `${HEAD.role}'s bundle`;
    let body;
    performance.mark("tt-start");
    try {
      body = await unpack("tt-lines");
      performance.mark("tt-unpacked");
    } catch (err) {
      say("error", `The lines of this file can't be read: ${err.message}.`);
      return;
    }
    S.lines = split(body);
    const texts = new TextDecoder().decode(body).split("\n");
    if (texts.length && texts[texts.length - 1] === "") texts.pop();
    S.texts = texts;
    performance.mark("tt-split");
    S.keyed = keyedCheck();
    const keyed = Boolean(S.keyed);
    verdict(check(null, !keyed), !keyed);
    if (keyed) {
      $("key-form").hidden = false;
      $("key-form").addEventListener("submit", (ev) => { ev.preventDefault(); runKey($("key-input").value); });
    }
    performance.mark("tt-checked");
    try {
      // tt-words follows the scripts: read it once the whole document is (a long one may be half read)
      if (document.readyState === "loading") await new Promise((done) => document.addEventListener("DOMContentLoaded", done, { once: true }));
      S.words = unstep(JSON.parse(new TextDecoder().decode(await unpack("tt-words"))));
      performance.mark("tt-words");
    } catch (err) {
      $("explain").textContent = `The boards and words of this file can't be read: ${err.message}.`;
      return;
    }
    rebuild();
    if (S.records.length === S.lines.length) S.agreement = agree();
    explainChecked();
    performance.mark("tt-boards");
    const linked = fromHash();
    const first = linked !== null ? Math.max(FIRST, Math.min(LAST, linked)) : S.finding ? (S.finding.changed || S.finding.line) : HEAD.at;
    $("events").addEventListener("click", onList);
    performance.mark("tt-list");
    const scrub = $("scrubber");
    scrub.min = String(FIRST);
    scrub.max = String(LAST);
    scrub.addEventListener("input", () => show(Number(scrub.value), false));
    $("back").addEventListener("click", () => show(S.at - 1, false));
    $("forward").addEventListener("click", () => show(S.at + 1, false));
    document.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" && ev.target.dataset && ev.target.dataset.why) { show(Number(ev.target.dataset.why), true); return; }
      if (ev.target instanceof HTMLInputElement && ev.target.type !== "range") return;
      if (ev.key === "ArrowLeft") show(S.at - 1, false);
      if (ev.key === "ArrowRight") show(S.at + 1, false);
    });
    window.addEventListener("hashchange", () => { const n = fromHash(); if (n !== null && n !== S.at) show(n, true); });
    show(first, linked !== null || Boolean(S.finding) || HEAD.at !== LAST);
    performance.mark("tt-shown");
    document.body.dataset.ready = "1";
  }

  start();
})();
