// Scheduling on the timeline: a context-switch band on every thread (or
// goroutine) lane that has context switches (solid while the thread runs,
// a thin line coloured by why it waits while it does not), dots for its
// sampled call stacks, lanes for threads that only have scheduling data,
// and a "CPUs" lane with one row per CPU showing what ran there. The data
// comes from /api/v1/schedlanes (once) and /api/v1/sched, asked per window
// for the lanes that are drawn (a trace of hundreds of goroutines would
// otherwise cost megabytes per window); until a lane's answer arrives it
// shows the previous window's.

import * as fmt from "./fmt.js";
import { css, hashColor } from "./color.js";

const BAND_H = 7;
const DOTS_H = 7;
const CPU_ROW_H = 9;
const RUN = "#4fb06a";
const RUN_MERGED = "#3d8a53";
const WAIT = "#6b717c";
const WAIT_RUNNABLE = "#d6a33a"; // preempted, yielded: ready but not running
const WAIT_SYSCALL = "#c7604e";
const SAMPLE = "#e8e2a0";

// load fetches the static part; a trace without scheduling data gives null.
export async function load(api) {
  try {
    const s = await api.json("schedlanes");
    if (!s.threads.length && !s.cpus.length) return null;
    return s;
  } catch (_) {
    return null;
  }
}

function laneHeight(info) {
  return (info.runs ? BAND_H : 0) + (info.samples ? DOTS_H : 0) + 2;
}

// addLanes gives the timeline's thread lanes their band and adds the lanes
// of threads without zones and the CPUs lane (called by buildLanes).
export function addLanes(tl, api) {
  const S = tl.store.sched;
  if (!S) return;
  tl.schedApi = api;
  tl.schedIdle = () => idle(tl);
  const byThread = new Map(S.threads.map((t) => [t.thread, t]));
  const used = new Set();
  for (const lane of tl.lanes) {
    if (lane.kind !== "cpu") continue;
    const info = byThread.get(lane.meta.id);
    if (!info) continue;
    lane.sched = info;
    lane.schedH = laneHeight(info);
    used.add(info.thread);
  }
  const extra = [];
  for (const info of S.threads) {
    if (used.has(info.thread)) continue;
    extra.push({ key: "s" + info.thread, kind: "sched", title: info.name || "thread " + info.thread, depth: 0, meta: { id: info.thread, index: -1, zones: 0 }, locks: [], sched: info, schedH: laneHeight(info), subText: sub(info) });
  }
  for (const lane of tl.lanes) if (lane.sched && lane.kind === "cpu") lane.schedSub = sub(lane.sched);
  // The CPUs lane goes before the threads, the other new lanes after them.
  const firstThread = tl.lanes.findIndex((l) => l.kind === "cpu" || l.kind === "plot");
  const at = firstThread < 0 ? tl.lanes.length : firstThread;
  const cpus = S.cpus.length ? [{ key: "cpus", kind: "cpus", title: "CPUs", depth: 0, meta: { index: -1 }, locks: [], cpus: S.cpus, schedH: S.cpus.length * CPU_ROW_H + 2, subText: fmt.int(S.cpus.length) + (S.cpus.length === 1 ? " CPU" : " CPUs") + (S.go ? " (Go Ps)" : "") }] : [];
  tl.lanes.splice(at, 0, ...cpus);
  const plots = tl.lanes.findIndex((l) => l.kind === "plot");
  tl.lanes.splice(plots < 0 ? tl.lanes.length : plots, 0, ...extra);
}

function sub(info) {
  const parts = [];
  if (info.runs) parts.push(fmt.int(info.runs) + " runs · ran " + fmt.time(info.running_ns));
  if (info.samples) parts.push(fmt.int(info.samples) + " samples");
  return parts.join(" · ");
}

function reasonName(S, code) {
  if (code < 0) return "";
  return (S.reasons && S.reasons[code]) || "reason " + code;
}

function stateName(S, code) {
  if (code < 0) return "";
  return (S.states && S.states[code]) || "state " + code;
}

function waitColor(S, run) {
  if (!S.go) return WAIT;
  const st = stateName(S, run.state);
  if (st === "runnable") return WAIT_RUNNABLE;
  if (st === "syscall") return WAIT_SYSCALL;
  return WAIT;
}

// cache is the window's answers so far (tl.have is the window the
// timeline's data was fetched for).
function cache(tl) {
  const h = tl.have;
  if (!h) return null;
  const key = h.t0 + ":" + h.t1 + ":" + h.width;
  if (!tl.sc || tl.sc.key !== key) {
    const prev = tl.sc;
    tl.sc = { key, win: { t0: h.t0, t1: h.t1, width: h.width }, threads: new Map(), cpus: null, asked: new Set(), pending: new Set(), cpuWanted: false, inflight: 0, timer: 0, prev: prev ? { threads: prev.threads, cpus: prev.cpus } : null };
  }
  return tl.sc;
}

function request(tl, c) {
  if (c.timer) return;
  c.timer = setTimeout(() => {
    c.timer = 0;
    const ids = [...c.pending];
    c.pending.clear();
    const cpus = c.cpuWanted && c.cpus === null;
    if (!ids.length && !cpus) return;
    c.cpuWanted = false;
    for (const id of ids) c.asked.add(id);
    if (cpus) c.cpus = [];
    c.inflight++;
    tl.schedApi
      .json("sched", { ...c.win, threads: ids.join(","), cpus: cpus ? 1 : 0 })
      .then((a) => {
        for (const th of a.threads) c.threads.set(th.thread, th);
        for (const id of ids) if (!c.threads.has(id)) c.threads.set(id, { thread: id, runs: [], samples: [] });
        if (cpus) c.cpus = a.cpus;
      })
      .catch(() => {})
      .finally(() => {
        c.inflight--;
        if (tl.sc === c) tl.draw();
      });
  }, 0);
}

function threadData(tl, tid) {
  const c = cache(tl);
  if (!c) return null;
  const d = c.threads.get(tid);
  if (d) return d;
  if (!c.asked.has(tid)) {
    c.pending.add(tid);
    request(tl, c);
  }
  return (c.prev && c.prev.threads.get(tid)) || null;
}

function cpuData(tl) {
  const c = cache(tl);
  if (!c) return [];
  if (c.cpus === null) {
    c.cpuWanted = true;
    request(tl, c);
    return (c.prev && c.prev.cpus) || [];
  }
  return c.cpus;
}

// idle reports that no scheduling answer is pending (tests wait for it).
export function idle(tl) {
  const c = tl.sc;
  if (!tl.have) return false;
  return !!c && c.inflight === 0 && c.pending.size === 0 && !c.timer && tl.sc.key === tl.have.t0 + ":" + tl.have.t1 + ":" + tl.have.width;
}

// draw paints the band, the dots or the CPU rows of a lane at top.
export function draw(tl, r, k) {
  const L = r.lane;
  const ctx = tl.ctx;
  const top = r.y + 22;
  const S = tl.store.sched;
  if (L.kind === "cpus") {
    drawCPUs(tl, r, k, top);
    return;
  }
  const d = threadData(tl, L.sched.thread);
  ctx.fillStyle = "#1d2025";
  ctx.fillRect(0, top, tl.w, L.schedH - 1);
  if (!d) return;
  if (L.sched.runs) {
    const y = top + 1;
    for (let i = 0; i < d.runs.length; i++) {
      const run = d.runs[i];
      const x0 = Math.max(-2, tl.x(run.start, k));
      const x1 = Math.min(tl.w + 2, tl.x(run.end, k));
      const next = d.runs[i + 1];
      // The wait after this run, up to the next one (or the window's end).
      if (run.reason >= 0 || run.state >= 0) {
        const wx1 = next ? Math.min(tl.w + 2, tl.x(next.start, k)) : tl.w + 2;
        if (wx1 > x1) {
          ctx.fillStyle = waitColor(S, run);
          ctx.fillRect(x1, y + BAND_H / 2 - 1, wx1 - x1, 1);
        }
      }
      if (x1 < 0 || x0 > tl.w) continue;
      ctx.fillStyle = run.count > 1 ? RUN_MERGED : RUN;
      ctx.fillRect(x0, y, Math.max(1, x1 - x0), BAND_H - 2);
    }
  }
  if (L.sched.samples) {
    const y = top + (L.sched.runs ? BAND_H : 0) + DOTS_H / 2;
    ctx.fillStyle = SAMPLE;
    const p = new Path2D();
    for (const s of d.samples) {
      const x = tl.x((s.start + s.end) / 2, k);
      if (x < -3 || x > tl.w + 3) continue;
      const rad = s.count > 1 ? 2.5 : 1.8;
      p.moveTo(x + rad, y);
      p.arc(x, y, rad, 0, 2 * Math.PI);
    }
    ctx.fill(p);
  }
}

function cpuThreadName(tl, tid) {
  const S = tl.store.sched;
  if (!tl.schedNames) tl.schedNames = new Map(S.threads.map((t) => [t.thread, t.name]));
  return tl.schedNames.get(tid) || "thread " + tid;
}

function drawCPUs(tl, r, k, top) {
  const ctx = tl.ctx;
  const L = r.lane;
  const byCPU = new Map(cpuData(tl).map((c) => [c.cpu, c]));
  for (let j = 0; j < L.cpus.length; j++) {
    const y = top + j * CPU_ROW_H;
    ctx.fillStyle = j % 2 ? "#1d2025" : "#1a1c21";
    ctx.fillRect(0, y, tl.w, CPU_ROW_H);
    const c = byCPU.get(L.cpus[j].cpu);
    if (!c) continue;
    for (const s of c.spans) {
      const x0 = Math.max(-2, tl.x(s.start, k));
      const x1 = Math.min(tl.w + 2, tl.x(s.end, k));
      if (x1 < 0 || x0 > tl.w) continue;
      ctx.fillStyle = css(hashColor("thread " + s.thread));
      ctx.fillRect(x0, y + 1, Math.max(1, x1 - x0), CPU_ROW_H - 2);
    }
  }
  tl.setFont("10px system-ui, sans-serif");
  ctx.textBaseline = "middle";
  ctx.textAlign = "left";
  for (let j = 0; j < L.cpus.length; j++) {
    const y = top + j * CPU_ROW_H;
    const label = String(L.cpus[j].cpu);
    ctx.fillStyle = "rgba(27,29,34,0.85)";
    ctx.fillRect(0, y, 22, CPU_ROW_H);
    ctx.fillStyle = "#9aa0aa";
    ctx.fillText(label, 4, y + CPU_ROW_H / 2);
  }
}

// hit finds what is under (x, y) in a lane's band: a run, the wait after
// one, a sample group or a CPU span.
export function hit(tl, r, x, y, t, k) {
  const L = r.lane;
  const top = r.y + 22;
  const tol = 3 / k;
  if (L.kind === "cpus") {
    const j = Math.floor((y - top) / CPU_ROW_H);
    if (j < 0 || j >= L.cpus.length) return { kind: "sched", row: r, t };
    const c = cpuData(tl).find((c) => c.cpu === L.cpus[j].cpu);
    const span = c && c.spans.find((s) => s.start - tol <= t && t <= s.end + tol);
    return { kind: "sched", row: r, t, cpu: L.cpus[j].cpu, span };
  }
  const d = threadData(tl, L.sched.thread);
  if (!d) return { kind: "sched", row: r, t };
  if (L.sched.samples && (!L.sched.runs || y >= top + BAND_H)) {
    const s = d.samples.find((s) => s.start - tol <= t && t <= s.end + tol);
    if (s) return { kind: "sched", row: r, t, sample: s };
  }
  for (let i = 0; i < d.runs.length; i++) {
    const run = d.runs[i];
    if (run.start - tol <= t && t <= run.end + tol) return { kind: "sched", row: r, t, run };
    const next = d.runs[i + 1];
    if (t > run.end && (!next || t < next.start)) return { kind: "sched", row: r, t, wait: run, next };
  }
  return { kind: "sched", row: r, t };
}

// stackCache holds the tooltip lines of call stacks already fetched.
const stackCache = new Map();

// tip is the tooltip of a hit, or "" for none.
export function tip(tl, h) {
  const S = tl.store.sched;
  const title = fmt.html(h.row.lane.title);
  if (h.span) {
    return `<b>${fmt.html(cpuThreadName(tl, h.span.thread))}</b> on CPU ${h.cpu}<br><span class=num>${fmt.time(h.span.end - h.span.start)}</span>${h.span.count > 1 ? ` <span class=dim>(${fmt.int(h.span.count)} spans merged)</span>` : ""}<br><span class=dim>from ${fmt.time(h.span.start - tl.first)}</span>`;
  }
  if (h.sample) {
    const head = `<b>${h.sample.count > 1 ? fmt.int(h.sample.count) + " samples" : "CPU sample"}</b><br><span class=dim>${title} · at ${fmt.time(h.sample.start - tl.first)}</span>`;
    const cs = h.sample.callstack;
    if (!cs) return head + (h.sample.count > 1 ? "<br><span class=dim>zoom in for their call stacks</span>" : "");
    const known = stackCache.get(cs);
    tl.lastSchedTip = h.sample;
    if (known !== undefined) return head + known;
    stackCache.set(cs, "<br><span class=dim>loading the call stack…</span>");
    tl.schedApi
      .json("callstack", { id: cs })
      .then((a) => {
        const lines = [];
        for (const f of (a.frames || []).slice(0, 12)) {
          for (const inl of f.inlines || []) lines.push(`${fmt.html(inl.name)} <span class=dim>${fmt.html(fmt.location(inl.file, inl.line))}</span>`);
        }
        stackCache.set(cs, "<br>" + (lines.join("<br>") || "<span class=dim>no frames</span>"));
      })
      .catch(() => stackCache.set(cs, "<br><span class=dim>the call stack could not be loaded</span>"))
      .finally(() => {
        if (tl.lastSchedTip === h.sample && !tl.tip.hidden) tl.tip.innerHTML = head + stackCache.get(cs);
      });
    return head + stackCache.get(cs);
  }
  if (h.run) {
    const run = h.run;
    let s = `<b>${title}</b> running <span class=num>${fmt.time(run.end - run.start)}</span>`;
    if (run.count > 1) s += ` <span class=dim>(${fmt.int(run.count)} runs merged)</span>`;
    else s += `<br>on CPU ${run.cpu}`;
    if (run.count === 1 && run.wakeup > 0 && run.wakeup < run.start) s += `<br><span class=dim>woken ${fmt.time(run.start - run.wakeup)} before it ran</span>`;
    if (run.reason >= 0 || run.state >= 0) {
      const why = [reasonName(S, run.reason), stateName(S, run.state)].filter(Boolean).join(", ");
      if (why) s += `<br><span class=dim>then stopped: ${fmt.html(why)}</span>`;
    }
    return s;
  }
  if (h.wait) {
    const why = [reasonName(S, h.wait.reason), stateName(S, h.wait.state)].filter(Boolean).join(", ");
    const len = h.next ? fmt.time(h.next.start - h.wait.end) : "";
    return `<b>${title}</b> not running${len ? ` <span class=num>${len}</span>` : ""}${why ? `<br>${fmt.html(why)}` : ""}`;
  }
  return "";
}
