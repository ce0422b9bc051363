// The frame-time graph above the timeline: like Tracy's, one bar per frame
// of the base frame set, side by side in frame order (not in time, so a
// long wait at the start does not squeeze every other frame into a
// corner), coloured against the target frame time, with the timeline's
// window marked on it. When there are more frames than pixels, a bar
// stands for a group of neighbours at the height of its slowest frame.

import * as api from "./api.js";
import * as fmt from "./fmt.js";
import { frameColor } from "./color.js";

const H = 56;

export class FrameGraph {
  constructor(root, store, hooks) {
    this.root = root;
    this.store = store;
    this.hooks = hooks; // {onPick(t0, t1)}
    this.canvas = root.querySelector("canvas");
    this.tip = root.querySelector(".tooltip");
    this.ctx = this.canvas.getContext("2d", { alpha: false });
    this.first = store.lanes.first_time;
    this.last = Math.max(store.lanes.last_time, this.first + 1);
    this.bars = [];
    this.view = [this.first, this.last];
    this.hasFrames = (store.lanes.frame_sets || []).length > 0 && store.lanes.frame_sets[0].count > 0;
    root.hidden = !this.hasFrames;
    if (this.hasFrames) this.bind();
  }

  bind() {
    this.bound = true;
    this.canvas.addEventListener("mousemove", (e) => this.onMove(e));
    this.canvas.addEventListener("mouseleave", () => (this.tip.hidden = true));
    this.canvas.addEventListener("click", (e) => this.onClick(e));
    new ResizeObserver(() => this.resize()).observe(this.root);
    this.resize();
  }

  // liveUpdate takes a grown trace (live viewing) from the store.
  liveUpdate(t0, t1) {
    const L = this.store.lanes;
    this.first = L.first_time;
    this.last = Math.max(L.last_time, this.first + 1);
    this.view = [t0, t1];
    this.hasFrames = (L.frame_sets || []).length > 0 && L.frame_sets[0].count > 0;
    this.root.hidden = !this.hasFrames;
    if (!this.hasFrames) return;
    if (!this.bound) this.bind();
    else this.fetch();
  }

  resize() {
    const dpr = window.devicePixelRatio || 1;
    this.w = Math.max(100, this.root.clientWidth);
    this.dpr = dpr;
    this.canvas.width = Math.round(this.w * dpr);
    this.canvas.height = Math.round(H * dpr);
    this.canvas.style.width = this.w + "px";
    this.canvas.style.height = H + "px";
    this.fetch();
  }

  fetch() {
    if (this.ac) this.ac.abort();
    this.ac = new AbortController();
    // Asked at many times the graph's width, so frames come back one by one
    // unless there are far more of them than pixels.
    api
      .json("frames", { set: 0, t0: this.first, t1: this.last, width: Math.min(16384, Math.round(this.w) * 8) }, this.ac.signal)
      .then((a) => {
        const list = Array.isArray(a) ? a : a.frames || [];
        this.bars = list;
        this.n = list.length ? list[list.length - 1].frame + list[list.length - 1].count : 0;
        // Scale: the target time at a third of the height, but never so
        // low that the typical frame is a sliver.
        const durs = list.map((f) => (f.count > 1 ? f.longest_ns : f.end - f.start)).sort((x, y) => x - y);
        const p90 = durs.length ? durs[Math.floor(durs.length * 0.9)] : 1;
        this.scale = Math.max(this.store.targetNs * 1.5, p90 * 1.15, 1);
        this.draw();
      })
      .catch((e) => {
        if (e.name !== "AbortError") console.warn("frame graph:", e.message);
      });
  }

  setView(t0, t1) {
    this.view = [t0, t1];
    this.draw();
  }

  // xFrame is the left edge of frame index i.
  xFrame(i) {
    return (i / Math.max(1, this.n)) * this.w;
  }

  // x maps a time to the graph: within the bar whose frames hold it.
  x(t) {
    const b = this.bars;
    if (!b.length) return 0;
    let lo = 0;
    let hi = b.length - 1;
    while (lo < hi) {
      const m = (lo + hi + 1) >> 1;
      if (b[m].start <= t) lo = m;
      else hi = m - 1;
    }
    const f = b[lo];
    const frac = f.end > f.start ? Math.min(1, Math.max(0, (t - f.start) / (f.end - f.start))) : 0;
    return this.xFrame(f.frame + frac * f.count);
  }

  draw() {
    if (!this.hasFrames) return;
    const ctx = this.ctx;
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    ctx.fillStyle = "#15171b";
    ctx.fillRect(0, 0, this.w, H);
    const target = this.store.targetNs;
    const top = 4;
    const h = H - top - 2;
    const yOf = (ns) => H - 2 - Math.min(1, ns / this.scale) * h;
    // Target lines: 60, 30 fps.
    ctx.fillStyle = "rgba(255,255,255,0.08)";
    for (const m of [1, 2]) {
      const y = Math.round(yOf(target * m));
      if (y > top) ctx.fillRect(0, y, this.w, 1);
    }
    for (const f of this.bars) {
      const x0 = this.xFrame(f.frame);
      const x1 = this.xFrame(f.frame + f.count);
      const dur = f.count > 1 ? f.longest_ns : f.end - f.start;
      const y = yOf(dur);
      ctx.fillStyle = frameColor(dur, target);
      const w = Math.max(1, x1 - x0 - (x1 - x0 > 3 ? 1 : 0));
      ctx.fillRect(x0, y, w, H - 2 - y);
      if (dur > this.scale) {
        ctx.fillStyle = "#fff";
        ctx.fillRect(x0, top - 2, w, 2);
      }
    }
    // The timeline's window.
    const v0 = this.x(this.view[0]);
    const v1 = Math.max(v0 + 2, this.x(this.view[1]));
    ctx.fillStyle = "rgba(120,170,255,0.16)";
    ctx.fillRect(v0, 0, v1 - v0, H);
    ctx.fillStyle = "rgba(140,185,255,0.9)";
    ctx.fillRect(Math.round(v0), 0, 1, H);
    ctx.fillRect(Math.round(v1), 0, 1, H);
    ctx.font = "11px system-ui, sans-serif";
    ctx.fillStyle = "#8b919b";
    ctx.textBaseline = "top";
    ctx.textAlign = "right";
    ctx.fillText(fmt.time(this.scale), this.w - 4, 3);
    ctx.textAlign = "left";
  }

  barAt(x) {
    for (const f of this.bars) {
      const x0 = this.xFrame(f.frame);
      const x1 = Math.max(x0 + 1, this.xFrame(f.frame + f.count));
      if (x >= x0 - 0.5 && x <= x1 + 0.5) return f;
    }
    return null;
  }

  onMove(e) {
    const r = this.canvas.getBoundingClientRect();
    const f = this.barAt(e.clientX - r.left);
    if (!f) {
      this.tip.hidden = true;
      return;
    }
    let s;
    if (f.count > 1) s = `<b>Frames ${fmt.int(f.frame)}–${fmt.int(f.frame + f.count - 1)}</b><br><span class=dim>slowest: frame ${fmt.int(f.longest)}, ${fmt.time(f.longest_ns)}</span>`;
    else s = `<b>Frame ${fmt.int(f.frame)}</b> <span class=num>${fmt.time(f.end - f.start)}</span><br><span class=dim>${(1e9 / (f.end - f.start)).toFixed(1)} FPS · starts ${fmt.time(f.start - this.first)}</span>`;
    const fr = f.count > 1 ? f.longest : f.frame;
    if (this.store.frameImageOf(fr) !== null) s += `<div class=thumb><img alt="frame ${fr}" src="${api.url("frameimage", { frame: fr })}"></div>`;
    const t = this.tip;
    t.innerHTML = s;
    t.hidden = false;
    const pr = this.root.getBoundingClientRect();
    let x = e.clientX - pr.left + 14;
    if (x + t.offsetWidth > pr.width - 4) x = e.clientX - pr.left - t.offsetWidth - 10;
    t.style.transform = `translate(${Math.max(4, x)}px, ${e.clientY - pr.top + 14}px)`;
  }

  onClick(e) {
    const r = this.canvas.getBoundingClientRect();
    const f = this.barAt(e.clientX - r.left);
    if (f) this.hooks.onPick(f.start, f.end);
  }
}
