// Zone colours. Tracy colours a zone by its source location: the colour
// the source location (or the zone itself) names, else one picked from a
// hash of the location's function name, so the same function keeps its
// colour across runs and traces. Deeper zones are drawn a little darker.

export function hash32(s) {
  // FNV-1a, then a final mix so close strings land far apart in hue.
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return h >>> 0;
}

function hsv(h, s, v) {
  const i = Math.floor(h * 6);
  const f = h * 6 - i;
  const p = v * (1 - s);
  const q = v * (1 - f * s);
  const t = v * (1 - (1 - f) * s);
  let r, g, b;
  switch (i % 6) {
    case 0: r = v; g = t; b = p; break;
    case 1: r = q; g = v; b = p; break;
    case 2: r = p; g = v; b = t; break;
    case 3: r = p; g = q; b = v; break;
    case 4: r = t; g = p; b = v; break;
    default: r = v; g = p; b = q;
  }
  return ((Math.round(r * 255) << 16) | (Math.round(g * 255) << 8) | Math.round(b * 255)) >>> 0;
}

// hashColor is the 0xRRGGBB a source location without its own colour gets.
export function hashColor(key) {
  const h = hash32(key);
  return hsv((h & 0xffff) / 0x10000, 0.55 + ((h >>> 16) & 0xff) / 0xff * 0.2, 0.72 + ((h >>> 24) & 0xff) / 0xff * 0.16);
}

export function shade(rgb, f) {
  const r = Math.min(255, Math.round(((rgb >>> 16) & 0xff) * f));
  const g = Math.min(255, Math.round(((rgb >>> 8) & 0xff) * f));
  const b = Math.min(255, Math.round((rgb & 0xff) * f));
  return ((r << 16) | (g << 8) | b) >>> 0;
}

export function luminance(rgb) {
  return (0.2126 * ((rgb >>> 16) & 0xff) + 0.7152 * ((rgb >>> 8) & 0xff) + 0.0722 * (rgb & 0xff)) / 255;
}

const cssCache = new Map();
export function css(rgb) {
  let s = cssCache.get(rgb);
  if (s === undefined) {
    s = "#" + (rgb & 0xffffff).toString(16).padStart(6, "0");
    cssCache.set(rgb, s);
  }
  return s;
}

// Frame colours by time against the target frame time, as in Tracy's
// frame graph: blue well under target, green under it, yellow over it,
// red more than twice over.
export function frameColor(ns, targetNs) {
  if (ns > 2 * targetNs) return "#dd2222";
  if (ns > targetNs) return "#dddd22";
  if (ns > targetNs / 2) return "#22dd22";
  return "#0099dd";
}

// Zone palette for one trace: a colour per source location id, computed
// once (srclocs is the /api/v1/srclocs array).
export class Palette {
  constructor(srclocs) {
    this.base = new Map();
    this.styles = new Map();
    for (const s of srclocs || []) {
      const key = (s.function || "") + "\u0000" + (s.name || "") || String(s.id);
      this.base.set(s.id, s.color ? s.color >>> 0 : hashColor(key));
    }
  }
  // style is zone()'s colour as drawn: fill, outline and label ink as CSS
  // strings, cached per (colour, depth) so a draw computes none per item.
  style(id, own, d) {
    const c = own || this.base.get(id) || hashColor(String(id));
    const key = c * 64 + Math.min(d, 63);
    let s = this.styles.get(key);
    if (s === undefined) {
      const z = this.zone(id, own, d);
      s = { fill: css(z), edge: css(shade(z, 0.62)), ink: luminance(z) > 0.62 ? "#111317" : "#ffffff" };
      this.styles.set(key, s);
    }
    return s;
  }

  // zone returns the fill for a zone of source location id at depth d;
  // own is the colour the answer carried (0 = none).
  zone(id, own, d) {
    let c = own || this.base.get(id);
    if (c === undefined) c = hashColor(String(id));
    return d > 0 ? shade(c, 1 - Math.min(d, 6) * 0.035) : c;
  }
}
