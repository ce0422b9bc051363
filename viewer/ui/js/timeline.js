// The timeline: a ruler, a row per frame set, then a lane per GPU timeline
// and per thread (zones nested by depth, locks, message ticks) and a lane
// per plot, all drawn on one canvas.
//
// The server does the level of detail; this file only draws. Every answer
// carries absolute times, so zooming or panning redraws at once from the
// last answer, re-projected, and asks for the new window in the background
// (one request group in flight; a newer view aborts it).

import * as api from "./api.js";
import * as sched from "./ctxswitch.js";
import * as fmt from "./fmt.js";
import { css, shade, frameColor, hashColor } from "./color.js";

const RULER_H = 24;
const FRAMESET_H = 18;
const HEAD_H = 22;
const ROW_H = 18;
const LOCK_H = 14;
const PLOT_H = 60;
const LANE_GAP = 6;
const MIN_SPAN = 50; // ns: the deepest zoom
const FONT = "12px system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif";
const FONT_SMALL = "11px system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif";
const BG = "#1b1d22";
const BG_LANE = "#202329";
const TEXT = "#e6e6e6";
const DIM = "#9aa0aa";
const FAINT = "#5b616b";

export class Timeline {
  constructor(root, store, hooks) {
    this.store = store;
    this.hooks = hooks; // {onZone(ref), onView(t0,t1), onFrameHover}
    this.root = root;
    this.canvas = root.querySelector("canvas.timeline");
    this.ctx = this.canvas.getContext("2d", { alpha: false });
    this.tip = root.querySelector(".tooltip");
    this.first = store.lanes.first_time;
    this.last = Math.max(store.lanes.last_time, this.first + 1);
    this.t0 = this.first;
    this.t1 = this.last;
    this.scrollY = 0;
    this.data = null; // decoded timeline answer
    // Frame sets with frames, one row each under the ruler.
    this.sets = (store.lanes.frame_sets || []).filter((fs) => fs.count > 0);
    this.frameRows = []; // per row of this.sets: spans of the last answer
    this.plotData = new Map(); // plot index -> buckets
    this.lockData = null;
    this.msgData = null;
    this.collapsed = new Set();
    this.sel = null; // {t0, t1}
    this.selected = null; // {key, index}
    this.hover = null;
    this.rows = [];
    this.drag = null;
    this.inflight = null;
    this.want = null;
    this.textW = new Map();
    this.perf = (window.__gotracyPerf = window.__gotracyPerf || { steps: [], fromEvent: [], refined: [], fetches: [], firstDraw: null, draws: 0, dataDraws: 0 });
    this.pendingInputs = [];
    this.hatch = this.makeHatch();
    this.buildLanes();
    this.bind();
    new ResizeObserver(() => this.resize()).observe(this.canvas.parentElement);
    this.resize();
  }

  // ---- lanes and layout ----

  buildLanes() {
    const L = this.store.lanes;
    this.lanes = [];
    for (const g of L.gpu || []) {
      this.lanes.push({ key: "g" + g.context + ":" + g.timeline, kind: "gpu", title: (g.name || g.type || "GPU") + " · " + (g.type || "") + " timeline " + g.timeline, depth: Math.max(1, g.depth), meta: g, locks: [] });
    }
    const locksByThread = new Map();
    for (const lk of L.locks || []) {
      for (const th of lk.threads || []) {
        if (th < 0) continue;
        if (!locksByThread.has(th)) locksByThread.set(th, []);
        locksByThread.get(th).push(lk);
      }
    }
    for (const th of L.threads || []) {
      this.lanes.push({ key: "c" + th.index, kind: "cpu", title: th.name || "thread " + th.id, sub: th.id, depth: th.zones ? Math.max(1, th.depth) : 0, meta: th, locks: locksByThread.get(th.index) || [] });
    }
    for (const p of L.plots || []) {
      this.lanes.push({ key: "p" + p.index, kind: "plot", title: p.name, meta: p, locks: [] });
    }
    sched.addLanes(this, api); // context-switch bands, CPUs lane (ctxswitch.js)
  }

  // liveUpdate takes the lanes of a grown trace (live viewing) from the
  // store: the extent, frame rows and lanes change, the view stays (the
  // live module moves it while following) and the window is asked again.
  liveUpdate() {
    const L = this.store.lanes;
    this.first = L.first_time;
    this.last = Math.max(L.last_time, this.first + 1);
    this.sets = (L.frame_sets || []).filter((fs) => fs.count > 0);
    this.buildLanes();
    this.have = null;
    this.draw();
    this.requestData();
  }

  fixedH() {
    return RULER_H + FRAMESET_H * this.sets.length;
  }

  layout() {
    const rows = [];
    let y = this.fixedH() + 4 - this.scrollY;
    const byKey = this.dataByKey || new Map();
    for (const lane of this.lanes) {
      const collapsed = this.collapsed.has(lane.key);
      let h = HEAD_H;
      if (!collapsed) {
        if (lane.kind === "plot") h += PLOT_H;
        else {
          // As deep as the zones in view (at least a row when the lane has
          // zones): deep traces do not reserve empty rows.
          const d = byKey.get(lane.key);
          lane.rows = lane.depth === 0 ? 0 : Math.max(1, d ? d.usedDepth : 1);
          h += lane.rows * ROW_H + lane.locks.length * LOCK_H + (lane.schedH || 0);
        }
      } else if (lane.kind !== "plot") h += 6;
      rows.push({ lane, y, h, collapsed });
      y += h + LANE_GAP;
    }
    this.contentH = y + this.scrollY - this.fixedH();
    this.rows = rows;
    return rows;
  }

  // layoutInfo is what tests use to find a zone's pixels (CSS px, relative
  // to the canvas): for each lane its top, the header height and the row
  // height.
  layoutInfo() {
    return {
      width: this.w,
      height: this.h,
      sel: this.sel,
      t0: this.t0,
      t1: this.t1,
      headH: HEAD_H,
      rowH: ROW_H,
      lanes: this.layout().map((r) => ({ key: r.lane.key, y: r.y, h: r.h, collapsed: r.collapsed })),
    };
  }

  resize() {
    const parent = this.canvas.parentElement;
    const dpr = window.devicePixelRatio || 1;
    this.w = Math.max(100, parent.clientWidth);
    this.h = Math.max(100, parent.clientHeight);
    this.dpr = dpr;
    this.canvas.width = Math.round(this.w * dpr);
    this.canvas.height = Math.round(this.h * dpr);
    this.curFont = null; // resizing a canvas resets its state
    this.canvas.style.width = this.w + "px";
    this.canvas.style.height = this.h + "px";
    this.draw();
    this.requestData();
  }

  // ---- view ----

  setView(t0, t1, quiet) {
    let span = Math.max(MIN_SPAN, t1 - t0);
    const full = this.last - this.first;
    const maxSpan = full * 1.5 + MIN_SPAN;
    if (span > maxSpan) {
      const c = (t0 + t1) / 2;
      span = maxSpan;
      t0 = c - span / 2;
    }
    // Keep some of the trace in view.
    const lo = this.first - span * 0.9;
    const hi = this.last - span * 0.1;
    t0 = Math.min(Math.max(t0, lo), hi);
    this.t0 = t0;
    this.t1 = t0 + span;
    this.draw();
    this.requestData();
    if (!quiet && this.hooks.onView) this.hooks.onView(this.t0, this.t1);
  }

  fit() {
    const pad = (this.last - this.first) * 0.01;
    this.setView(this.first - pad, this.last + pad);
  }

  zoomAt(x, factor) {
    const t = this.t0 + (x / this.w) * (this.t1 - this.t0);
    const span = (this.t1 - this.t0) * factor;
    const f = x / this.w;
    this.setView(t - span * f, t - span * f + span);
  }

  pan(px) {
    const d = (px / this.w) * (this.t1 - this.t0);
    this.setView(this.t0 + d, this.t1 + d);
  }

  scrollBy(dy) {
    const max = Math.max(0, this.contentH - (this.h - this.fixedH()) + 20);
    this.scrollY = Math.min(Math.max(0, this.scrollY + dy), max);
    this.draw();
  }

  // ---- data ----

  requestData() {
    if (!this.w) return;
    // Ask for the window plus half a screen each side, at the screen's
    // density, so a pan shows detail at once.
    const span = this.t1 - this.t0;
    const qt0 = Math.max(this.first - 1, this.t0 - span / 2);
    const qt1 = Math.min(this.last + 1, this.t1 + span / 2);
    if (qt1 <= qt0) return;
    const width = Math.min(16384, Math.max(1, Math.round(((qt1 - qt0) / span) * this.w)));
    const want = { t0: Math.floor(qt0), t1: Math.ceil(qt1), width };
    if (this.have && this.have.t0 === want.t0 && this.have.t1 === want.t1 && this.have.width === want.width) return;
    if (this.inflight) this.inflight.abort();
    const ac = new AbortController();
    this.inflight = ac;
    const started = performance.now();
    const inputs = this.pendingInputs;
    this.pendingInputs = [];
    const s = ac.signal;
    const win = { t0: want.t0, t1: want.t1, width: want.width };
    const jobs = [api.timeline(want.t0, want.t1, want.width, s)];
    const sets = this.sets;
    for (const fs of sets) jobs.push(api.json("frames", { set: fs.index, ...win }, s).catch(soft));
    jobs.push((this.lanes.some((l) => l.locks.length) ? api.json("locks", win, s) : Promise.resolve(null)).catch(soft));
    jobs.push((this.store.lanes.messages ? api.json("messages", win, s) : Promise.resolve(null)).catch(soft));
    const plots = this.lanes.filter((l) => l.kind === "plot" && !this.collapsed.has(l.key));
    for (const p of plots) jobs.push(api.json("plot", { id: p.meta.index, ...win }, s).catch(soft));
    Promise.all(jobs).then(
      (res) => {
        if (this.inflight !== ac) return;
        this.inflight = null;
        this.have = want;
        this.data = res[0];
        this.dataByKey = new Map(this.data.lanes.map((l) => [l.kind === 0 ? "c" + l.thread : "g" + l.context + ":" + l.timeline, l]));
        this.frameRows = res.slice(1, 1 + sets.length).map(framesOf);
        this.lockData = res[1 + sets.length];
        this.msgData = res[2 + sets.length];
        plots.forEach((p, i) => this.plotData.set(p.meta.index, bucketsOf(res[3 + sets.length + i])));
        const t = performance.now();
        this.perf.fetches.push({ ms: t - started, bytes: this.data.bytes, items: this.data.items });
        this.draw(true);
        const done = performance.now();
        for (const t0 of inputs) this.perf.refined.push(done - t0);
        if (this.perf.firstDraw === null) {
          this.perf.firstDraw = done;
          document.documentElement.dataset.timelineReady = "1";
        }
        this.perf.dataDraws++;
      },
      (err) => {
        if (err && err.name === "AbortError") {
          // The newer request carries these inputs' answer.
          this.pendingInputs.push(...inputs);
          return;
        }
        if (this.inflight === ac) this.inflight = null;
        this.hooks.onError && this.hooks.onError(err);
      },
    );
  }

  // ---- drawing ----

  draw(fromData) {
    const ctx = this.ctx;
    const dpr = this.dpr || 1;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = BG;
    ctx.fillRect(0, 0, this.w, this.h);
    const rows = this.layout();
    const k = this.w / (this.t1 - this.t0);
    const fixed = this.fixedH();
    // Lanes scroll under the fixed ruler and frame rows.
    ctx.save();
    ctx.beginPath();
    ctx.rect(0, fixed, this.w, this.h - fixed);
    ctx.clip();
    this.drawFrameLines(k, fixed);
    const byKey = this.dataByKey || new Map();
    for (const r of rows) {
      if (r.y > this.h || r.y + r.h < fixed) continue;
      this.drawLane(r, byKey.get(r.lane.key), k);
    }
    this.drawScrollbar(fixed);
    ctx.restore();
    this.drawRuler(k);
    this.drawFrameRows(k);
    this.drawSelection(k, fixed);
    this.perf.draws++;
    if (fromData) this.lastDataDraw = performance.now();
  }

  x(t, k) {
    return (t - this.t0) * k;
  }

  // drawScrollbar shows where the lanes' view is when they are taller
  // than the canvas (drag vertically, Shift+wheel or PageUp/PageDown).
  drawScrollbar(top) {
    const view = this.h - top;
    const total = this.contentH + 20;
    if (total <= view) return;
    const ctx = this.ctx;
    const th = Math.max(24, (view * view) / total);
    const y = top + (this.scrollY / (total - view)) * (view - th);
    ctx.fillStyle = "rgba(255,255,255,0.05)";
    ctx.fillRect(this.w - 7, top, 6, view);
    ctx.fillStyle = "rgba(200,210,230,0.28)";
    roundRect(ctx, this.w - 7, y, 6, th, 3);
    ctx.fill();
  }

  drawRuler(k) {
    const ctx = this.ctx;
    ctx.fillStyle = "#16181c";
    ctx.fillRect(0, 0, this.w, RULER_H);
    ctx.fillStyle = "#2c3038";
    ctx.fillRect(0, RULER_H - 1, this.w, 1);
    const span = this.t1 - this.t0;
    const step = niceStep((span / this.w) * 110);
    const minor = step / 5;
    ctx.fillStyle = FAINT;
    const firstMinor = Math.ceil(this.t0 / minor) * minor;
    for (let t = firstMinor; t <= this.t1; t += minor) {
      const x = Math.round(this.x(t, k)) + 0.5;
      ctx.fillRect(x, RULER_H - 5, 1, 4);
    }
    this.setFont(FONT_SMALL);
    ctx.textBaseline = "middle";
    ctx.textAlign = "left";
    const firstMajor = Math.ceil(this.t0 / step) * step;
    // When the absolute time cannot show the step (deep zoom far into a
    // trace), label the first tick absolutely and the rest relative to it.
    const rel = step < 2 * resolution(this.t1 - this.first);
    let i = 0;
    for (let t = firstMajor; t <= this.t1; t += step, i++) {
      const x = Math.round(this.x(t, k)) + 0.5;
      ctx.fillStyle = DIM;
      ctx.fillRect(x, RULER_H - 10, 1, 9);
      const label = rel && i > 0 ? "+" + fmt.time(t - firstMajor) : fmt.time(t - this.first);
      ctx.fillStyle = rel && i === 0 ? TEXT : DIM;
      ctx.fillText(label, x + 4, 9);
    }
  }

  drawFrameRows(k) {
    const ctx = this.ctx;
    const sets = this.sets;
    const target = this.store.targetNs;
    for (let s = 0; s < sets.length; s++) {
      const y = RULER_H + s * FRAMESET_H;
      ctx.fillStyle = s % 2 ? "#1e2126" : "#1a1c21";
      ctx.fillRect(0, y, this.w, FRAMESET_H);
      const spans = this.frameRows[s] || [];
      this.setFont(FONT_SMALL);
      ctx.textBaseline = "middle";
      for (let i = 0; i < spans.length; i++) {
        const f = spans[i];
        const x0 = this.x(f.start, k);
        const x1 = this.x(f.end, k);
        if (x1 < 0 || x0 > this.w) continue;
        const w = Math.max(1, x1 - x0);
        const dur = f.count > 1 ? f.longest_ns : f.end - f.start;
        const hovered = this.hover && this.hover.frame && this.hover.frame.set === s && this.hover.frame.i === i;
        ctx.fillStyle = hovered ? "#3a4150" : f.count > 1 ? this.hatch : i % 2 ? "#262a31" : "#2c3139";
        ctx.fillRect(x0, y + 2, w, FRAMESET_H - 4);
        // A thin bar in the frame-time colour, as Tracy tints frames.
        ctx.fillStyle = frameColor(dur, target);
        ctx.fillRect(x0, y + FRAMESET_H - 3, w, 2);
        if (w > 40) {
          const name = sets[s].name || "Frame";
          const label = f.count > 1 ? fmt.int(f.count) + " frames" : name + " " + fmt.int(f.frame) + " (" + fmt.time(f.end - f.start) + ")";
          this.text(label, x0, w, y + FRAMESET_H / 2, TEXT, true);
        }
      }
      if (!spans.length) {
        ctx.fillStyle = FAINT;
        ctx.textAlign = "left";
        ctx.fillText(sets[s].name || "Frame", 6, y + FRAMESET_H / 2);
      }
    }
  }

  drawFrameLines(k, top) {
    const ctx = this.ctx;
    for (let s = 0; s < this.frameRows.length; s++) {
      const spans = this.frameRows[s] || [];
      ctx.fillStyle = this.sets[s].index === 0 ? "rgba(160,170,190,0.22)" : "rgba(200,160,90,0.18)";
      let lastX = -10;
      for (const f of spans) {
        const x = Math.round(this.x(f.start, k));
        if (x < 0 || x > this.w || x - lastX < 3) continue;
        ctx.fillRect(x, top, 1, this.h - top);
        lastX = x;
      }
    }
  }

  drawLane(r, lane, k) {
    const ctx = this.ctx;
    const L = r.lane;
    // Header: disclosure triangle, name, counts.
    ctx.fillStyle = BG_LANE;
    ctx.fillRect(0, r.y, this.w, HEAD_H);
    ctx.fillStyle = "#2a2e36";
    ctx.fillRect(0, r.y + HEAD_H - 1, this.w, 1);
    ctx.fillStyle = DIM;
    ctx.beginPath();
    const ty = r.y + HEAD_H / 2 - 1;
    if (r.collapsed) {
      ctx.moveTo(8, ty - 5);
      ctx.lineTo(14, ty);
      ctx.lineTo(8, ty + 5);
    } else {
      ctx.moveTo(6, ty - 3);
      ctx.lineTo(16, ty - 3);
      ctx.lineTo(11, ty + 3);
    }
    ctx.fill();
    this.setFont("600 " + FONT);
    ctx.textBaseline = "middle";
    ctx.textAlign = "left";
    ctx.fillStyle = L.kind === "gpu" ? "#f0b46a" : L.kind === "plot" ? "#8fd19e" : TEXT;
    ctx.fillText(L.title, 22, ty);
    const tw = this.measure(L.title, "600 " + FONT);
    this.setFont(FONT_SMALL);
    ctx.fillStyle = FAINT;
    let sub = "";
    const zones = (n) => fmt.int(n) + (n === 1 ? " zone" : " zones");
    if (L.kind === "cpu") sub = zones(L.meta.zones) + (L.meta.is_fiber ? " · fiber" : "");
    else if (L.kind === "gpu") sub = zones(L.meta.zones);
    else if (L.subText !== undefined) sub = L.subText;
    else sub = fmt.int(L.meta.count) + " points · " + L.meta.format;
    if (L.schedSub) sub += " · " + L.schedSub;
    if (lane && L.kind !== "plot") sub += " · " + fmt.int(lane.zones) + " in view";
    ctx.fillText(sub, 30 + tw, ty);
    if (L.kind === "cpu") this.drawMessages(r, k);
    if (L.kind === "plot") {
      if (!r.collapsed) this.drawPlot(r, k);
      return;
    }
    if (L.schedH && !r.collapsed) sched.draw(this, r, k);
    if (!lane) return;
    const top = r.y + HEAD_H + (r.collapsed ? 0 : L.schedH || 0);
    if (r.collapsed) {
      this.drawZones(lane, k, top, 0, 1, 5, L);
      return;
    }
    this.drawZones(lane, k, top, 0, Math.min(L.rows, lane.depthOff.length - 1), ROW_H, L);
    if (L.locks.length) this.drawLocks(r, k, top + L.rows * ROW_H);
  }

  drawZones(lane, k, top, d0, d1, rowH, L) {
    const ctx = this.ctx;
    const pal = this.store.palette;
    const srclocs = this.store.srclocById;
    const { start, end, flags, srcloc, color, count, depthOff } = lane;
    const vt0 = this.t0;
    const vt1 = this.t1;
    const W = this.w;
    const labels = [];
    const zz = new Path2D();
    const sel = this.selected;
    const laneKey = lane.kind === 0 ? "c" + lane.thread : "g" + lane.context + ":" + lane.timeline;
    for (let d = d0; d < d1; d++) {
      const y = top + (d - d0) * rowH;
      if (y > this.h) break;
      if (y + rowH < this.fixedH()) continue;
      const lo = depthOff[d];
      const hi = depthOff[d + 1];
      let i = api.firstEndingAfter(end, lo, hi, vt0);
      let lastFill = "";
      let prevX1 = -1e9;
      for (; i < hi; i++) {
        const s = start[i];
        if (s > vt1) break;
        let x0 = (s - vt0) * k;
        let x1 = (end[i] - vt0) * k;
        if (x0 < -2) x0 = -2;
        if (x1 > W + 2) x1 = W + 2;
        // Every zone shows at least a pixel, and neighbours never paint
        // over each other's first pixel.
        if (x1 - x0 < 1) x1 = x0 + 1;
        if (x0 < prevX1 && x1 - x0 <= 1) continue;
        prevX1 = x1;
        const w = x1 - x0;
        const h = rowH - 1;
        if (flags[i] & api.FLAG_MERGED) {
          // A merged run: a dark block crossed by a zig-zag, as Tracy draws
          // runs of zones too small to show (all zig-zags go into one path,
          // stroked once below: cheaper than a pattern fill).
          const ms = mergedStyle(L, d);
          ctx.fillStyle = ms.fill;
          lastFill = "";
          ctx.fillRect(x0, y, w, h);
          if (rowH > 8) {
            if (w > 4) {
              ctx.fillStyle = ms.edge;
              ctx.fillRect(x0, y, w, 1);
              ctx.fillRect(x0, y + h - 1, w, 1);
            }
            zig(zz, x0, w, y + 3, h - 6);
          }
          if (w > 34 && rowH > 8) labels.push(i, x0, w, y, 1);
          continue;
        }
        const st = pal.style(srcloc[i], color[i], d);
        if (st.fill !== lastFill) {
          ctx.fillStyle = st.fill;
          lastFill = st.fill;
        }
        ctx.fillRect(x0, y, w, h);
        if (w > 5 && rowH > 8) {
          // Tracy outlines zones in a darker shade of their colour.
          ctx.fillStyle = st.edge;
          ctx.fillRect(x0, y + h - 1, w, 1);
          ctx.fillRect(x0 + w - 1, y, 1, h);
          lastFill = "";
        }
        if (sel && sel.key === laneKey && sel.index === lane.index[i]) {
          ctx.strokeStyle = "#ffffff";
          ctx.lineWidth = 2;
          ctx.strokeRect(x0 + 1, y + 1, Math.max(1, w - 2), h - 2);
        }
        if (w > 18 && rowH > 8) labels.push(i, x0, w, y, 0);
      }
    }
    ctx.strokeStyle = mergedStyle(L, 0).zig;
    ctx.lineWidth = 1;
    ctx.stroke(zz);
    // Labels after the boxes: one font, clipped with an ellipsis.
    for (let j = 0; j < labels.length; j += 5) {
      const i = labels[j];
      const x0 = labels[j + 1];
      const w = labels[j + 2];
      const y = labels[j + 3];
      if (labels[j + 4]) {
        this.text(fmt.int(count[i]), x0, w, y + rowH / 2, "#e8ecf4", true, true);
        continue;
      }
      let name = lane.names && lane.names.get(i);
      if (!name) {
        const sl = srclocs.get(srcloc[i]);
        name = sl ? sl.name || sl.function : "?";
      }
      this.text(name, x0, w, y + rowH / 2, pal.style(srcloc[i], color[i], lane.dep[i]).ink, true);
    }
  }

  drawLocks(r, k, top) {
    const ctx = this.ctx;
    const L = r.lane;
    for (let j = 0; j < L.locks.length; j++) {
      const lk = L.locks[j];
      const y = top + j * LOCK_H;
      ctx.fillStyle = "#1d2025";
      ctx.fillRect(0, y, this.w, LOCK_H - 1);
      const spans = lockSpans(this.lockData, lk.index, L.meta.index);
      for (const s of spans) {
        const x0 = Math.max(-2, this.x(s.start, k));
        const x1 = Math.min(this.w + 2, this.x(s.end, k));
        if (x1 < 0 || x0 > this.w) continue;
        ctx.fillStyle = s.state === "wait" ? "#c0392b" : s.state === "hold_contended" || s.state === "contended" ? "#d68a1d" : "#3f8f4f";
        ctx.fillRect(x0, y + 2, Math.max(1, x1 - x0), LOCK_H - 5);
      }
      this.setFont(FONT_SMALL);
      ctx.textBaseline = "middle";
      ctx.textAlign = "left";
      ctx.fillStyle = "rgba(27,29,34,0.8)";
      const label = lk.name;
      const tw = this.measure(label, FONT_SMALL);
      ctx.fillRect(2, y, tw + 8, LOCK_H - 1);
      ctx.fillStyle = DIM;
      ctx.fillText(label, 6, y + LOCK_H / 2);
    }
  }

  drawMessages(r, k) {
    const ticks = messageTicks(this.msgData, r.lane.meta.index);
    if (!ticks.length) return;
    const ctx = this.ctx;
    const y = r.y + HEAD_H - 1;
    const one = new Path2D();
    const many = new Path2D();
    for (const m of ticks) {
      const x = this.x(m.time ?? m.start, k);
      if (x < -6 || x > this.w + 6) continue;
      const x1 = Math.max(x, this.x(m.end, k));
      const p = m.count > 1 ? many : one;
      p.moveTo(x - 4, y - 5);
      p.lineTo(x1 + 4, y - 5);
      p.lineTo((x + x1) / 2, y);
      p.closePath();
    }
    ctx.fillStyle = "#e6d3ff";
    ctx.fill(one);
    ctx.fillStyle = "#c8a2ff";
    ctx.fill(many);
  }

  drawPlot(r, k) {
    const ctx = this.ctx;
    const p = r.lane.meta;
    const all = this.plotData.get(p.index) || [];
    // Only the buckets on screen (the answer spans half a screen each side).
    let lo0 = 0;
    let hi0 = all.length;
    while (lo0 < hi0 - 1 && all[lo0 + 1].start < this.t0) lo0++;
    while (hi0 > lo0 + 1 && all[hi0 - 2].end > this.t1) hi0--;
    const b = lo0 === 0 && hi0 === all.length ? all : all.slice(lo0, hi0);
    const top = r.y + HEAD_H + 4;
    const h = PLOT_H - 10;
    ctx.fillStyle = "#1d2025";
    ctx.fillRect(0, top - 2, this.w, h + 4);
    if (!b.length) return;
    let lo = Infinity;
    let hi = -Infinity;
    for (const q of b) {
      if (q.min < lo) lo = q.min;
      if (q.max > hi) hi = q.max;
    }
    const flat = hi === lo;
    if (flat) {
      const pad = Math.abs(hi) * 0.1 || 1;
      hi += pad;
      lo -= pad;
    }
    const yv = (v) => top + h - ((v - lo) / (hi - lo)) * h;
    const col = p.color ? css(p.color) : "#5fb0e8";
    ctx.strokeStyle = col;
    ctx.fillStyle = col;
    ctx.lineWidth = 1;
    ctx.globalAlpha = 0.18;
    ctx.beginPath();
    ctx.moveTo(this.x(b[0].start, k), top + h);
    for (const q of b) {
      ctx.lineTo(this.x(q.start, k), yv(q.open));
      ctx.lineTo(this.x(q.end, k), yv(q.close));
    }
    ctx.lineTo(this.x(b[b.length - 1].end, k), top + h);
    ctx.fill();
    ctx.globalAlpha = 1;
    ctx.beginPath();
    let prevY = null;
    for (const q of b) {
      const xs = this.x(q.start, k);
      const xe = this.x(q.end, k);
      if (prevY === null) ctx.moveTo(xs, yv(q.open));
      else if (p.steps) ctx.lineTo(xs, prevY); // hold the last value until the next point
      ctx.lineTo(xs, yv(q.open));
      ctx.lineTo(xe, yv(q.close));
      prevY = yv(q.close);
    }
    ctx.stroke();
    // Bucket ranges (min..max in one pixel group) as vertical strokes.
    const ranges = new Path2D();
    for (const q of b) {
      if (q.count > 1 && q.max > q.min) {
        const x = Math.round(this.x(q.start, k));
        ranges.rect(x, yv(q.max), 1, Math.max(1, yv(q.min) - yv(q.max)));
      }
    }
    ctx.fill(ranges);
    this.setFont(FONT_SMALL);
    ctx.textAlign = "right";
    ctx.textBaseline = "top";
    ctx.fillStyle = DIM;
    const label = (v, y) => {
      const s = fmt.plotValue(v, p.format);
      const tw = this.measure(s, FONT_SMALL);
      ctx.fillStyle = "rgba(29,32,37,0.85)";
      ctx.fillRect(this.w - tw - 10, y - 1, tw + 8, 14);
      ctx.fillStyle = DIM;
      ctx.fillText(s, this.w - 6, y);
    };
    if (flat) label((hi + lo) / 2, top + h / 2 - 7);
    else {
      label(hi, top);
      label(lo, top + h - 13);
    }
    ctx.textAlign = "left";
  }

  drawSelection(k, top) {
    if (!this.sel) return;
    const ctx = this.ctx;
    const x0 = this.x(Math.min(this.sel.t0, this.sel.t1), k);
    const x1 = this.x(Math.max(this.sel.t0, this.sel.t1), k);
    ctx.fillStyle = "rgba(90,160,255,0.16)";
    ctx.fillRect(x0, 0, x1 - x0, this.h);
    ctx.fillStyle = "rgba(120,180,255,0.8)";
    ctx.fillRect(Math.round(x0), 0, 1, this.h);
    ctx.fillRect(Math.round(x1), 0, 1, this.h);
    const label = fmt.time(Math.abs(this.sel.t1 - this.sel.t0));
    this.setFont("600 " + FONT);
    const tw = this.measure(label, "600 " + FONT);
    const cx = Math.min(Math.max((x0 + x1) / 2, tw / 2 + 8), this.w - tw / 2 - 8);
    ctx.fillStyle = "#2d5fa8";
    roundRect(ctx, cx - tw / 2 - 6, top + 4, tw + 12, 20, 4);
    ctx.fill();
    ctx.fillStyle = "#fff";
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    ctx.fillText(label, cx, top + 14);
    ctx.textAlign = "left";
  }

  // setFont sets the canvas font only when it changes: parsing a font
  // string costs more than drawing a rectangle.
  setFont(f) {
    if (this.curFont !== f) {
      this.ctx.font = f;
      this.curFont = f;
    }
  }

  measure(s, font) {
    let m = this.textW.get(font);
    if (!m) this.textW.set(font, (m = new Map()));
    let w = m.get(s);
    if (w === undefined) {
      this.setFont(font);
      w = this.ctx.measureText(s).width;
      if (m.size > 20000) m.clear();
      m.set(s, w);
    }
    return w;
  }

  // text draws s centred in [x0, x0+w] (clipped to the screen), or
  // left-aligned with an ellipsis when it does not fit.
  text(s, x0, w, cy, color, center, whole) {
    const ctx = this.ctx;
    const vx0 = Math.max(x0, 0);
    const vx1 = Math.min(x0 + w, this.w);
    const room = vx1 - vx0 - 8;
    if (room < 10) return;
    this.setFont(FONT);
    ctx.fillStyle = color;
    ctx.textBaseline = "middle";
    const tw = this.measure(s, FONT);
    if (tw <= room) {
      ctx.textAlign = "center";
      ctx.fillText(s, center ? (vx0 + vx1) / 2 : vx0 + 4 + tw / 2, cy);
      ctx.textAlign = "left";
      return;
    }
    if (whole) return; // a number is shown whole or not at all
    // Longest prefix that fits with an ellipsis (binary search on length).
    let lo = 0;
    let hi = s.length;
    while (lo < hi) {
      const m = (lo + hi + 1) >> 1;
      if (this.measure(s.slice(0, m) + "…", FONT) <= room) lo = m;
      else hi = m - 1;
    }
    if (lo === 0) return;
    ctx.textAlign = "left";
    ctx.fillText(s.slice(0, lo) + "…", vx0 + 4, cy);
  }

  makeHatch() {
    const c = document.createElement("canvas");
    c.width = c.height = 8;
    const g = c.getContext("2d");
    g.fillStyle = "#3b4150";
    g.fillRect(0, 0, 8, 8);
    g.strokeStyle = "#626b80";
    g.lineWidth = 2;
    g.beginPath();
    g.moveTo(-2, 10);
    g.lineTo(10, -2);
    g.moveTo(6, 10);
    g.lineTo(10, 6);
    g.moveTo(-2, 2);
    g.lineTo(2, -2);
    g.stroke();
    return this.ctx.createPattern(c, "repeat");
  }

  // ---- hit testing ----

  hit(x, y) {
    const k = this.w / (this.t1 - this.t0);
    const t = this.t0 + x / k;
    if (y < RULER_H) return { kind: "ruler", t };
    const sets = this.sets;
    if (y < RULER_H + sets.length * FRAMESET_H) {
      const s = Math.floor((y - RULER_H) / FRAMESET_H);
      const spans = this.frameRows[s] || [];
      for (let i = 0; i < spans.length; i++) {
        const f = spans[i];
        const x0 = this.x(f.start, k);
        const x1 = Math.max(x0 + 2, this.x(f.end, k));
        if (x >= x0 && x <= x1) return { kind: "frame", set: s, i, f, t };
      }
      return { kind: "frames", t };
    }
    for (const r of this.rows) {
      if (y < r.y || y >= r.y + r.h) continue;
      if (y < r.y + HEAD_H) {
        if (r.lane.kind === "cpu" && y >= r.y + HEAD_H - 11) {
          for (const m of messageTicks(this.msgData, r.lane.meta.index)) {
            const mx0 = this.x(m.time, k) - 5;
            const mx1 = this.x(m.end, k) + 5;
            if (x >= mx0 && x <= mx1) return { kind: "msg", row: r, m, t };
          }
        }
        return { kind: "head", row: r, t };
      }
      if (r.collapsed || r.lane.kind === "plot") return { kind: "lane", row: r, t };
      const sh = r.lane.schedH || 0;
      if (sh && y < r.y + HEAD_H + sh) return sched.hit(this, r, x, y, t, k);
      const d = Math.floor((y - r.y - HEAD_H - sh) / ROW_H);
      const lockTop = r.y + HEAD_H + sh + (r.lane.rows || 0) * ROW_H;
      if (r.lane.locks.length && y >= lockTop) {
        const lk = r.lane.locks[Math.min(r.lane.locks.length - 1, Math.floor((y - lockTop) / LOCK_H))];
        const tol = 2 / k;
        const span = lockSpans(this.lockData, lk.index, r.lane.meta.index).find((s) => s.start - tol <= t && t <= s.end + tol);
        return { kind: "lock", row: r, lock: lk, span, t };
      }
      const lane = this.dataByKey && this.dataByKey.get(r.lane.key);
      if (!lane || d >= lane.depthOff.length - 1) return { kind: "lane", row: r, t, d };
      const lo = lane.depthOff[d];
      const hi = lane.depthOff[d + 1];
      // The item under the cursor, or the nearest within 2 px (thin zones).
      const tol = 2 / k;
      let i = api.firstEndingAfter(lane.end, lo, hi, t - tol);
      let best = -1;
      let bestDist = Infinity;
      for (; i < hi && lane.start[i] <= t + tol; i++) {
        const dist = t < lane.start[i] ? lane.start[i] - t : t > lane.end[i] ? t - lane.end[i] : 0;
        if (dist < bestDist) {
          best = i;
          bestDist = dist;
        }
      }
      if (best < 0) return { kind: "lane", row: r, t, d };
      return { kind: "zone", row: r, lane, i: best, t, d };
    }
    return { kind: "none", t };
  }

  zoneRef(h) {
    const l = h.lane;
    return l.kind === 0 ? { thread: l.thread, index: l.index[h.i] } : { gpu: l.context + ":" + l.timeline, index: l.index[h.i] };
  }

  // ---- input ----

  bind() {
    const c = this.canvas;
    const pos = (e) => {
      const r = c.getBoundingClientRect();
      return [e.clientX - r.left, e.clientY - r.top];
    };
    c.addEventListener(
      "wheel",
      (e) => {
        e.preventDefault();
        const tIn = performance.now();
        const tEv = inputTime(e, tIn);
        const [x] = pos(e);
        if (e.shiftKey && !e.ctrlKey) {
          this.scrollBy(e.deltaY || e.deltaX);
          return;
        }
        if (!e.ctrlKey && Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
          this.pan(e.deltaX);
        } else {
          const dy = e.deltaMode === 1 ? e.deltaY * 40 : e.deltaY;
          this.zoomAt(x, Math.pow(1.0018, Math.max(-400, Math.min(400, dy))));
        }
        this.stepDone(tIn, tEv);
      },
      { passive: false },
    );
    c.addEventListener("mousedown", (e) => {
      if (e.button !== 0 && e.button !== 2) return;
      const [x, y] = pos(e);
      const select = e.button === 2 || e.shiftKey || y < RULER_H;
      this.drag = { x0: x, y0: y, x, y, t0: this.t0, t1: this.t1, sy: this.scrollY, moved: false, select, tStart: this.t0 + (x / this.w) * (this.t1 - this.t0) };
      e.preventDefault();
    });
    c.addEventListener("contextmenu", (e) => e.preventDefault());
    window.addEventListener("mousemove", (e) => {
      const [x, y] = pos(e);
      const d = this.drag;
      if (!d) {
        if (e.target === c) this.onHover(x, y, e);
        return;
      }
      const tIn = performance.now();
      const tEv = inputTime(e, tIn);
      if (!d.moved && Math.abs(x - d.x0) + Math.abs(y - d.y0) < 4) return;
      d.moved = true;
      if (d.select) {
        this.sel = { t0: d.tStart, t1: this.t0 + (x / this.w) * (this.t1 - this.t0) };
        this.draw();
        this.hooks.onSelect && this.hooks.onSelect(this.sel);
        return;
      }
      const span = d.t1 - d.t0;
      const dt = ((x - d.x0) / this.w) * span;
      this.scrollY = Math.max(0, Math.min(d.sy - (y - d.y0), Math.max(0, this.contentH - (this.h - this.fixedH()) + 20)));
      this.setView(d.t0 - dt, d.t1 - dt);
      this.stepDone(tIn, tEv);
      this.hideTip();
    });
    window.addEventListener("mouseup", (e) => {
      const d = this.drag;
      if (!d) return;
      this.drag = null;
      const [x, y] = pos(e);
      if (!d.moved) this.onClick(x, y, e);
    });
    c.addEventListener("mouseleave", () => {
      this.hover = null;
      this.hideTip();
    });
    c.addEventListener("dblclick", (e) => {
      const [x, y] = pos(e);
      const h = this.hit(x, y);
      if (h.kind === "zone") this.zoomTo(h.lane.start[h.i], h.lane.end[h.i]);
    });
    c.tabIndex = 0;
    c.addEventListener("keydown", (e) => this.onKey(e));
  }

  onKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const tIn = performance.now();
    const tEv = inputTime(e, tIn);
    const cx = this.mouseX ?? this.w / 2;
    switch (e.key) {
      case "w":
      case "W":
      case "+":
      case "=":
        this.zoomAt(cx, 0.8);
        break;
      case "s":
      case "S":
      case "-":
        this.zoomAt(cx, 1.25);
        break;
      case "a":
      case "A":
      case "ArrowLeft":
        this.pan(-this.w * 0.1);
        break;
      case "d":
      case "D":
      case "ArrowRight":
        this.pan(this.w * 0.1);
        break;
      case "ArrowUp":
        this.scrollBy(-ROW_H * 3);
        break;
      case "ArrowDown":
        this.scrollBy(ROW_H * 3);
        break;
      case "PageUp":
        this.scrollBy(-(this.h - this.fixedH()) * 0.8);
        break;
      case "PageDown":
        this.scrollBy((this.h - this.fixedH()) * 0.8);
        break;
      case "Home":
      case "0":
        this.fit();
        break;
      case "z":
      case "Z":
        if (this.sel) this.zoomTo(Math.min(this.sel.t0, this.sel.t1), Math.max(this.sel.t0, this.sel.t1), 0);
        break;
      case "Escape":
        this.sel = null;
        this.hooks.onSelect && this.hooks.onSelect(null);
        this.draw();
        break;
      default:
        return;
    }
    e.preventDefault();
    this.stepDone(tIn, tEv);
  }

  // stepDone records one input's latency to its finished draw, and
  // remembers the input for the refined draw its data request brings.
  stepDone(tIn, tEv) {
    const now = performance.now();
    this.perf.steps.push(now - tIn);
    this.perf.fromEvent.push(now - tEv);
    this.pendingInputs.push(tIn);
  }

  zoomTo(s, e, padFrac = 0.08) {
    const pad = (e - s) * padFrac;
    this.setView(s - pad, e + pad);
  }

  onClick(x, y, e) {
    this.canvas.focus({ preventScroll: true });
    const h = this.hit(x, y);
    if (h.kind === "head") {
      const key = h.row.lane.key;
      if (this.collapsed.has(key)) this.collapsed.delete(key);
      else this.collapsed.add(key);
      this.draw();
      this.requestData();
      return;
    }
    if (h.kind === "frame") {
      this.zoomTo(h.f.start, h.f.end, 0.02);
      return;
    }
    if (h.kind === "msg") {
      this.hooks.onMessages && this.hooks.onMessages(h.m.first);
      return;
    }
    if (h.kind === "zone") {
      const l = h.lane;
      if (l.flags[h.i] & api.FLAG_MERGED) {
        // Zoom to the run; when it already fills the view, zoom in 4x at
        // the cursor, so repeated clicks always come apart into zones.
        if (l.end[h.i] - l.start[h.i] > 0.5 * (this.t1 - this.t0)) this.zoomAt(x, 0.25);
        else this.zoomTo(l.start[h.i], l.end[h.i], 0.05);
        return;
      }
      const ref = this.zoneRef(h);
      this.selected = { key: h.row.lane.key, index: ref.index };
      this.draw();
      this.hooks.onZone && this.hooks.onZone(ref);
      return;
    }
    if (this.sel && e.button === 0) {
      this.sel = null;
      this.hooks.onSelect && this.hooks.onSelect(null);
      this.draw();
    }
  }

  onHover(x, y, e) {
    this.mouseX = x;
    const h = this.hit(x, y);
    const prevFrame = this.hover && this.hover.frame;
    this.hover = h.kind === "frame" ? { frame: { set: h.set, i: h.i } } : null;
    if ((prevFrame && !this.hover) || (this.hover && (!prevFrame || prevFrame.i !== h.i || prevFrame.set !== h.set))) this.draw();
    if (h.kind === "zone") {
      const l = h.lane;
      const i = h.i;
      if (l.flags[i] & api.FLAG_MERGED) {
        this.showTip(e, `<b>${fmt.int(l.count[i])} zones</b> merged<br><span class=dim>${fmt.time(l.end[i] - l.start[i])} · click to zoom in</span>`);
      } else {
        const sl = this.store.srclocById.get(l.srcloc[i]);
        const name = (l.names && l.names.get(i)) || (sl ? sl.name || sl.function : "?");
        const loc = sl ? fmt.location(sl.file, sl.line) : "";
        this.showTip(e, `<b>${fmt.html(name)}</b> <span class=num>${fmt.time(l.end[i] - l.start[i])}</span>${l.flags[i] & api.FLAG_UNENDED ? " <span class=warn>(never ended)</span>" : ""}<br><span class=dim>${fmt.html(loc)}</span><br><span class=dim>${fmt.html(h.row.lane.title)} · starts ${fmt.time(l.start[i] - this.first)}</span>`);
      }
      this.canvas.style.cursor = "pointer";
      return;
    }
    this.canvas.style.cursor = h.kind === "head" || h.kind === "frame" || h.kind === "msg" ? "pointer" : "default";
    if (h.kind === "msg") {
      this.showMessageTip(e, h);
      return;
    }
    if (h.kind === "sched") {
      const tip = sched.tip(this, h);
      if (tip) {
        this.showTip(e, tip);
        return;
      }
    }
    if (h.kind === "frame") {
      const f = h.f;
      const set = this.sets[h.set];
      let s;
      if (f.count > 1) s = `<b>${fmt.int(f.count)} frames</b><br><span class=dim>longest ${fmt.time(f.longest_ns)} (frame ${fmt.int(f.longest)})</span>`;
      else s = `<b>${fmt.html(set ? set.name : "Frame")} ${fmt.int(f.frame)}</b> <span class=num>${fmt.time(f.end - f.start)}</span><br><span class=dim>starts ${fmt.time(f.start - this.first)}</span>`;
      const img = set && set.index === 0 && f.count === 1 ? this.store.frameImageOf(f.frame) : null;
      if (img !== null) s += `<div class=thumb><img alt="frame ${f.frame}" src="${api.url("frameimage", { frame: f.frame })}"></div>`;
      this.showTip(e, s);
      return;
    }
    if (h.kind === "lock") {
      const sp = h.span;
      const what = !sp ? "not using it" : sp.state === "wait" ? "waiting for it" : sp.state === "contended" || sp.state === "shared_contended" ? "holding it while others wait" : "holding it";
      let s = `<b>${fmt.html(h.lock.name)}</b><br>${fmt.html(h.row.lane.title)} is ${what}`;
      if (sp) s += `<br><span class=num>${fmt.time(sp.end - sp.start)}</span>${sp.count > 1 ? ` <span class=dim>(${fmt.int(sp.count)} spans merged)</span>` : ""} <span class=dim>from ${fmt.time(sp.start - this.first)}</span>`;
      this.showTip(e, s);
      return;
    }
    if (h.kind === "head") {
      const m = h.row.lane.meta;
      this.showTip(e, `<b>${fmt.html(h.row.lane.title)}</b>${m.id !== undefined && h.row.lane.kind === "cpu" ? `<br><span class=dim>thread id ${m.id}</span>` : ""}<br><span class=dim>click to ${h.row.collapsed ? "expand" : "collapse"}</span>`);
      return;
    }
    if (h.kind === "lane" && h.row.lane.kind === "plot") {
      const b = this.plotData.get(h.row.lane.meta.index) || [];
      let best = null;
      for (const q of b) if (q.start <= h.t) best = q;
      if (best) {
        this.showTip(e, `<b>${fmt.html(h.row.lane.title)}</b><br><span class=num>${fmt.plotValue(best.close, h.row.lane.meta.format)}</span> <span class=dim>at ${fmt.time(best.end - this.first)}</span>`);
        return;
      }
    }
    this.hideTip();
  }

  // showMessageTip shows a tick's messages: its count at once, the texts
  // when messagelist answers (the tick names its first message; the
  // thread's others follow it in the trace's order, among other threads').
  showMessageTip(e, h) {
    const m = h.m;
    const head = `<b>${m.count > 1 ? fmt.int(m.count) + " messages" : "Message"}</b> <span class=dim>at ${fmt.time(m.time - this.first)}${m.end > m.time ? " – " + fmt.time(m.end - this.first) : ""}</span>`;
    const key = h.row.lane.meta.index + ":" + m.first + ":" + m.count;
    const cached = this.msgTexts && this.msgTexts.get(key);
    this.showTip(e, head + (cached || "<br><span class=dim>…</span>"));
    if (cached) return;
    if (!this.msgTexts) this.msgTexts = new Map();
    const thread = h.row.lane.meta.index;
    api
      .json("messagelist", { offset: m.first, limit: Math.min(200, Math.max(8, m.count * 4)) })
      .then((a) => {
        const rows = (a.messages || []).filter((x) => x.thread === thread).slice(0, Math.min(6, m.count));
        let html = "";
        for (const r of rows) {
          const c = r.color ? ` style="color:#${(r.color & 0xffffff).toString(16).padStart(6, "0")}"` : "";
          html += `<br><span class=dim>${fmt.time(r.time - this.first)}</span> <span${c}>${fmt.html(r.text.length > 90 ? r.text.slice(0, 90) + "…" : r.text)}</span>`;
        }
        if (m.count > rows.length) html += `<br><span class=dim>… click to list them</span>`;
        this.msgTexts.set(key, html);
        if (!this.tip.hidden && this.hover === null) this.showTip(e, head + html);
      })
      .catch(() => {});
  }

  showTip(e, html) {
    const t = this.tip;
    t.innerHTML = html;
    t.hidden = false;
    const r = this.root.getBoundingClientRect();
    let x = e.clientX - r.left + 14;
    let y = e.clientY - r.top + 16;
    const tw = t.offsetWidth;
    const th = t.offsetHeight;
    if (x + tw > r.width - 4) x = e.clientX - r.left - tw - 10;
    if (y + th > r.height - 4) y = e.clientY - r.top - th - 10;
    t.style.transform = `translate(${Math.max(4, x)}px, ${Math.max(4, y)}px)`;
  }

  hideTip() {
    this.tip.hidden = true;
  }

  select(ref) {
    this.selected = ref ? { key: ref.gpu ? "g" + ref.gpu : "c" + ref.thread, index: ref.index } : null;
    this.draw();
  }

  // scrollToLane brings a lane's zones into view (a jump to a zone).
  scrollToLane(key, depth) {
    const rows = this.layout();
    const r = rows.find((x) => x.lane.key === key);
    if (!r) return;
    const y = r.y + this.scrollY + HEAD_H + (r.lane.schedH || 0) + Math.min(depth || 0, r.lane.rows || 0) * ROW_H;
    const top = this.fixedH();
    if (y - this.scrollY < top + 10 || y - this.scrollY > this.h - ROW_H * 2) this.scrollY = Math.max(0, y - top - 60);
    this.draw();
  }
}

// inputTime is when the browser created the input event (same clock as
// performance.now()), so a step's time includes any wait for the page's
// main thread, not just the handler.
function inputTime(e, now) {
  const t = e && e.timeStamp;
  return t > 0 && t <= now && now - t < 10000 ? t : now;
}

function soft(err) {
  if (err && err.name === "AbortError") throw err;
  return null; // an optional layer (locks, plots) the server cannot give
}

// framesOf normalises the frames answer: a list of spans with start, end,
// frame (its index), count, longest and longest_ns.
function framesOf(a) {
  if (!a) return [];
  const list = Array.isArray(a) ? a : a.frames || a.bars || [];
  return list.map((f) => ({
    start: f.start,
    end: f.end,
    frame: f.frame ?? f.first ?? 0,
    count: f.count ?? 1,
    longest: f.longest ?? f.frame ?? 0,
    longest_ns: f.longest_ns ?? f.end - f.start,
  }));
}

function bucketsOf(a) {
  if (!a) return [];
  return Array.isArray(a) ? a : a.buckets || [];
}

function lockSpans(data, lock, thread) {
  if (!data) return [];
  const locks = Array.isArray(data) ? data : data.locks || [];
  const l = locks.find((x) => (x.index ?? x.lock) === lock);
  if (!l) return [];
  const th = (l.threads || []).find((x) => x.thread === thread);
  return th ? th.spans || [] : [];
}

function messageTicks(data, thread) {
  if (!data) return [];
  const list = Array.isArray(data) ? data : data.threads || [];
  const t = list.find((x) => x.thread === thread);
  return t ? t.ticks || t.spans || [] : [];
}

// mergedStyle is how a lane draws its merged runs: as Tracy folds runs of
// tiny zones, in the thread's own colour (a hash of its id), dark and
// desaturated so real zones stand out, a little darker per depth, crossed
// by a lighter zig-zag.
function mergedStyle(L, d) {
  if (!L.mstyle) L.mstyle = [];
  let s = L.mstyle[d];
  if (!s) {
    const base = hashColor("thread\u0000" + (L.kind === "gpu" ? L.key : L.meta.id));
    const grey = 0x4a5060;
    const mix = (a, b, f) => {
      const ch = (sh) => Math.round(((a >>> sh) & 0xff) * f + ((b >>> sh) & 0xff) * (1 - f));
      return ((ch(16) << 16) | (ch(8) << 8) | ch(0)) >>> 0;
    };
    const c = shade(mix(base, grey, 0.35), 0.78 - Math.min(d, 6) * 0.03);
    s = { fill: css(c), edge: css(shade(c, 1.6)), zig: css(shade(c, 1.45)) };
    L.mstyle[d] = s;
  }
  return s;
}

// zig adds a zig-zag across [x0, x0+w] between y and y+h to path p.
function zig(p, x0, w, y, h) {
  const step = 3;
  let x = Math.max(x0, -4);
  const end = Math.min(x0 + w, 100000);
  if (end - x < 2) return;
  p.moveTo(x, y + h);
  let up = true;
  for (x += step; x < end; x += step) {
    p.lineTo(x, up ? y : y + h);
    up = !up;
  }
  p.lineTo(end, up ? y : y + h);
}

function niceStep(raw) {
  const p = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1e-3))));
  const m = raw / p;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

// resolution is the smallest difference fmt.time shows for a time near v.
function resolution(v) {
  const a = Math.abs(v);
  return a < 1e3 ? 1 : a < 1e6 ? 10 : a < 1e9 ? 1e4 : a < 60e9 ? 1e7 : 1e9;
}

function roundRect(ctx, x, y, w, h, r) {
  ctx.beginPath();
  ctx.moveTo(x + r, y);
  ctx.arcTo(x + w, y, x + w, y + h, r);
  ctx.arcTo(x + w, y + h, x, y + h, r);
  ctx.arcTo(x, y + h, x, y, r);
  ctx.arcTo(x, y, x + w, y, r);
  ctx.closePath();
}
