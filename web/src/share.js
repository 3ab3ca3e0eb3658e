// Share URLs: the whole scenario in the URL fragment, compressed, with a format version.
//
//   #s=1.<base64url(deflate-raw(compact scenario JSON))>   the current form (version 1)
//   #j=<encodeURIComponent(scenario JSON)>                   uncompressed, for links written by hand
//   ?scenario=NAME or #scenario=NAME                         a gallery scenario by file name
//
// Other parameters (embed mode) go beside it: `#s=1.…&embed&panels=outputs,late&readonly`.
// Defaults are left out of the JSON (the engine's `normalize`). The number before the dot is
// the fragment format; DECODERS keeps every format that was ever written, so old links keep
// opening. The scenario document's own `version` field is migrated by the engine.

export const SHARE_VERSION = 1;
/** Longest fragment value we try to decode (characters). */
export const MAX_FRAGMENT_CHARS = 400_000;
/** Largest scenario JSON a fragment may expand to (bytes). */
export const MAX_SCENARIO_BYTES = 8 * 1024 * 1024;

export class ShareError extends Error {}

function bytesToB64url(bytes) {
  let s = '';
  const CH = 0x8000;
  for (let i = 0; i < bytes.length; i += CH) s += String.fromCharCode.apply(null, bytes.subarray(i, i + CH));
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function b64urlToBytes(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new ShareError('the link is damaged: it has characters that base64url does not use');
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((text.length + 3) % 4);
  let bin;
  try {
    bin = atob(b64);
  } catch {
    throw new ShareError('the link is damaged: it is not valid base64url');
  }
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

async function pump(stream, limit) {
  const reader = stream.getReader();
  const chunks = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      throw new ShareError(`the scenario in this link expands to more than ${Math.round(limit / 1048576)} MB; it was not opened`);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.length;
  }
  return out;
}

async function deflate(text) {
  const input = new Blob([new TextEncoder().encode(text)]).stream();
  return pump(input.pipeThrough(new CompressionStream('deflate-raw')), Infinity);
}

async function inflate(bytes, limit) {
  const input = new Blob([bytes]).stream();
  try {
    return await pump(input.pipeThrough(new DecompressionStream('deflate-raw')), limit);
  } catch (e) {
    if (e instanceof ShareError) throw e;
    throw new ShareError('the link is damaged: its data does not decompress');
  }
}

function utf8(bytes) {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ShareError('the link is damaged: its scenario is not UTF-8 text');
  }
}

/** Fragment formats, by version: each turns the text after "N." into scenario JSON text. */
export const DECODERS = {
  1: async (data) => utf8(await inflate(b64urlToBytes(data), MAX_SCENARIO_BYTES)),
};

/** Encodes compact scenario JSON as a fragment value ("1.…"). */
export async function encodeScenario(json) {
  return `${SHARE_VERSION}.${bytesToB64url(await deflate(json))}`;
}

/** Decodes an `s=` value to scenario JSON text (throws ShareError with a readable message). */
export async function decodeScenario(value) {
  if (value.length > MAX_FRAGMENT_CHARS) {
    throw new ShareError(`the link's scenario is ${Math.round(value.length / 1024)} KB long, more than the ${MAX_FRAGMENT_CHARS / 1000} KB this page opens`);
  }
  const m = /^(\d+)\.(.*)$/s.exec(value);
  if (!m) throw new ShareError(`the link has no format version (expected #s=${SHARE_VERSION}.…)`);
  if (m[1].length > 6) throw new ShareError(`the link uses share format ${m[1].slice(0, 6)}…, which this version of the page does not know (it reads ${Object.keys(DECODERS).join(', ')})`);
  const dec = DECODERS[Number(m[1])];
  if (!dec) throw new ShareError(`the link uses share format ${m[1]}, which this version of the page does not know (it reads ${Object.keys(DECODERS).join(', ')})`);
  return dec(m[2]);
}

/** Decodes a `j=` value (plain URI-encoded JSON). */
export function decodePlain(value) {
  if (value.length > MAX_FRAGMENT_CHARS) throw new ShareError('the link\'s scenario is too long to open');
  let text;
  try {
    text = decodeURIComponent(value);
  } catch {
    throw new ShareError('the link is damaged: bad %-escapes');
  }
  if (text.length > MAX_SCENARIO_BYTES) throw new ShareError('the link\'s scenario is too large to open');
  return text;
}

/** Parameters of a query string or fragment: "a=1&embed&panels=x,y" → Map. */
export function parseParams(text) {
  const out = new Map();
  const t = text.replace(/^[#?]/, '');
  if (!t) return out;
  for (const part of t.split('&')) {
    if (!part) continue;
    const i = part.indexOf('=');
    const k = i < 0 ? part : part.slice(0, i);
    const v = i < 0 ? '' : part.slice(i + 1);
    let key;
    try {
      key = decodeURIComponent(k);
    } catch {
      key = k;
    }
    if (!out.has(key)) out.set(key, v);
  }
  return out;
}

/** Both the query and the fragment; the fragment wins. Values stay raw (undecoded). */
export function locationParams(loc) {
  const q = parseParams(loc.search || '');
  const f = parseParams(loc.hash || '');
  for (const [k, v] of f) q.set(k, v);
  return q;
}
