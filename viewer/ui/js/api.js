// Talking to the server: JSON endpoints and the binary timeline, decoded
// into flat typed arrays (no object per item), because a timeline answer
// holds tens of thousands of items and is decoded on every zoom or pan.

export const base = "api/v1/";

export class APIError extends Error {}

export async function json(path, params, signal) {
  const res = await fetch(url(path, params), { signal });
  if (!res.ok) {
    let msg = res.status + " " + res.statusText;
    try {
      const body = await res.json();
      if (body && body.error) msg = body.error;
    } catch (_) {
      /* not JSON: keep the status line */
    }
    const e = new APIError(msg);
    e.status = res.status;
    throw e;
  }
  return res.json();
}

export function url(path, params) {
  let u = base + path;
  if (params) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null) q.set(k, String(v));
    const s = q.toString();
    if (s) u += "?" + s;
  }
  return u;
}

export async function timeline(t0, t1, width, signal) {
  const res = await fetch(url("timeline", { t0: Math.floor(t0), t1: Math.ceil(t1), width }), { signal });
  if (!res.ok) {
    let msg = res.status + " " + res.statusText;
    try {
      msg = (await res.json()).error || msg;
    } catch (_) {
      /* keep the status line */
    }
    throw new APIError(msg);
  }
  return decodeTimeline(await res.arrayBuffer());
}

export const FLAG_MERGED = 1;
export const FLAG_UNENDED = 2;
export const FLAG_NAME = 4;

const utf8 = new TextDecoder();

// decodeTimeline reads lod's binary answer (documented on AppendBinary in
// viewer/lod/encode.go). A lane's items come sorted by depth then start;
// depthOff[d]..depthOff[d+1] are the items of depth d, so the drawing and
// hit tests binary-search a depth instead of scanning it.
export function decodeTimeline(buf) {
  const dv = new DataView(buf);
  const u8 = new Uint8Array(buf);
  let p = 0;
  const bad = (what) => {
    throw new APIError("timeline answer is malformed: " + what + " at byte " + p + " of " + u8.length);
  };
  if (u8.length < 32 || u8[0] !== 0x47 || u8[1] !== 0x54 || u8[2] !== 0x4c || u8[3] !== 0x31) bad('expected magic "GTL1"');
  p = 4;
  const i64 = () => {
    const lo = dv.getUint32(p, true);
    const hi = dv.getInt32(p + 4, true);
    p += 8;
    return hi * 4294967296 + lo;
  };
  // Unsigned LEB128; values stay exact up to 2^53.
  const uv = () => {
    let r = 0;
    let mul = 1;
    for (;;) {
      if (p >= u8.length) bad("varint runs past the end");
      const c = u8[p++];
      r += (c & 0x7f) * mul;
      if (c < 0x80) return r;
      mul *= 128;
      if (mul > 2 ** 63) bad("varint too long");
    }
  };
  const sv = () => {
    const u = uv();
    // zig-zag: even → u/2, odd → -(u+1)/2; done with arithmetic (u may exceed 2^32).
    return u % 2 === 0 ? u / 2 : -(u + 1) / 2;
  };
  const t0 = i64();
  const t1 = i64();
  const width = dv.getUint32(p, true);
  p += 4;
  const minPx = dv.getFloat64(p, true);
  p += 8;
  const nLanes = uv();
  const lanes = [];
  let items = 0;
  for (let li = 0; li < nLanes; li++) {
    if (p >= u8.length) bad("lane header runs past the end");
    const kind = u8[p++];
    const a = uv();
    const b = uv();
    const zones = uv();
    const depth = uv();
    const n = uv();
    if (n > u8.length) bad("item count " + n + " exceeds the answer");
    const lane = {
      kind,
      thread: kind === 0 ? a : -1,
      context: kind === 1 ? a : -1,
      timeline: kind === 1 ? b : -1,
      zones,
      depth,
      n,
      start: new Float64Array(n),
      end: new Float64Array(n),
      index: new Uint32Array(n),
      count: new Uint32Array(n),
      srcloc: new Int32Array(n),
      color: new Uint32Array(n),
      dep: new Uint16Array(n),
      flags: new Uint8Array(n),
      names: null,
      depthOff: null,
    };
    let prevEnd = t0;
    let prevDepth = -1;
    let maxDep = 0;
    for (let i = 0; i < n; i++) {
      const d = uv();
      if (d !== prevDepth) {
        prevEnd = t0;
        prevDepth = d;
      }
      const flags = u8[p++];
      const s = prevEnd + sv();
      const e = s + uv();
      lane.dep[i] = d;
      lane.flags[i] = flags;
      lane.start[i] = s;
      lane.end[i] = e;
      lane.index[i] = uv();
      if (flags & FLAG_MERGED) {
        lane.count[i] = uv();
        lane.srcloc[i] = -1;
      } else {
        lane.count[i] = 1;
        lane.srcloc[i] = sv();
        lane.color[i] = uv();
        if (flags & FLAG_NAME) {
          const len = uv();
          if (p + len > u8.length) bad("zone name runs past the end");
          if (!lane.names) lane.names = new Map();
          lane.names.set(i, utf8.decode(u8.subarray(p, p + len)));
          p += len;
        }
      }
      prevEnd = e;
      if (d > maxDep) maxDep = d;
    }
    if (p > u8.length) bad("items run past the end");
    const off = new Uint32Array(Math.max(depth, maxDep + 1) + 1);
    let k = 0;
    for (let d = 0; d < off.length - 1; d++) {
      off[d] = k;
      while (k < n && lane.dep[k] === d) k++;
    }
    off[off.length - 1] = n;
    lane.depthOff = off;
    // Rows this answer uses: a lane is as tall as what is in view, as in Tracy.
    lane.usedDepth = n ? maxDep + 1 : 0;
    items += n;
    lanes.push(lane);
  }
  return { t0, t1, width, minPx, lanes, items, bytes: u8.length };
}

// firstEndingAfter returns the first item of [lo, hi) whose end is at or
// after t (ends grow with the position within one depth).
export function firstEndingAfter(end, lo, hi, t) {
  while (lo < hi) {
    const m = (lo + hi) >>> 1;
    if (end[m] < t) lo = m + 1;
    else hi = m;
  }
  return lo;
}
