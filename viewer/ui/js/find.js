// Find zone: pick a source location, see the histogram of its zones'
// durations (linear or log time axis) and its instances, sortable by time
// or duration; any instance jumps to the timeline. The URL holds it all:
// #find?srcloc=3&log=1&sort=duration&offset=100.

import * as api from "./api.js";
import * as fmt from "./fmt.js";
import { table } from "./table.js";

const el = fmt.el;
const PAGE = 100;
const BINS = 120;

export class Find {
  constructor(section, store, nav) {
    this.section = section;
    this.store = store;
    this.nav = nav;
    this.search = el("input", { type: "search", class: "filter", placeholder: "Search source locations…", "aria-label": "Search source locations" });
    this.list = el("ul", { class: "picker", role: "listbox" });
    this.main = el("div", { class: "find-main" });
    section.append(el("div", { class: "find-layout" }, el("aside", { class: "find-side" }, el("h1", null, "Find zone"), this.search, this.list), this.main));
    this.search.addEventListener("input", () => this.renderList());
  }

  go(change) {
    const p = new URLSearchParams(this.params);
    for (const [k, v] of Object.entries(change)) {
      if (v === null || v === undefined) p.delete(k);
      else p.set(k, v);
    }
    this.nav.go("find", p);
  }

  async show(params) {
    this.params = params;
    if (!this.stats) {
      try {
        this.stats = (await api.json("statistics")).slice().sort((a, b) => b.total_ns - a.total_ns);
      } catch (e) {
        this.main.replaceChildren(el("div", { class: "error" }, e.message));
        return;
      }
    }
    this.current = params.has("srcloc") ? Number(params.get("srcloc")) : null;
    this.renderList();
    if (this.current === null) {
      this.main.replaceChildren(el("div", { class: "empty" }, "Pick a source location to see its zones."));
      return;
    }
    const log = params.get("log") === "1";
    const sort = ["duration", "-duration"].includes(params.get("sort")) ? params.get("sort") : "time";
    const offset = Math.max(0, Number(params.get("offset")) || 0);
    this.ac && this.ac.abort();
    this.ac = new AbortController();
    let a;
    try {
      a = await api.json("find", { srcloc: this.current, bins: BINS, log: log ? 1 : null, sort, offset, limit: PAGE }, this.ac.signal);
    } catch (e) {
      if (e.name !== "AbortError") this.main.replaceChildren(el("div", { class: "error" }, e.message));
      return;
    }
    this.render(a, { log, sort, offset });
  }

  renderList() {
    const f = this.search.value.toLowerCase();
    const items = [];
    for (const r of this.stats || []) {
      if (f && !r.name.toLowerCase().includes(f) && !(r.src_file || "").toLowerCase().includes(f)) continue;
      const id = r.srcloc ?? r.id;
      items.push(
        el(
          "li",
          { class: id === this.current ? "active" : "", role: "option", onclick: () => this.nav.go("find", new URLSearchParams({ srcloc: id })) },
          el("span", { class: "pick-name" }, r.name),
          el("span", { class: "pick-count num" }, fmt.int(r.counts)),
          el("span", { class: "pick-loc mono dim" }, fmt.location(r.src_file, r.src_line)),
        ),
      );
    }
    this.list.replaceChildren(...items);
  }

  render(a, { log, sort, offset }) {
    const sl = this.store.srclocById.get(this.current) || {};
    const h = a.histogram || a;
    const total = a.total ?? a.count ?? 0;
    const inst = a.instances || [];
    const head = el(
      "div",
      { class: "find-head" },
      el("h2", null, sl.name || sl.function || "?"),
      el("div", { class: "mono dim" }, fmt.location(sl.file, sl.line)),
    );
    const st = this.stats.find((r) => (r.srcloc ?? r.id) === this.current);
    const facts = el("dl", { class: "facts" });
    const fact = (k, v, attrs) => facts.append(el("div", null, el("dt", null, k), el("dd", attrs || { class: "num" }, v)));
    fact("Instances", fmt.int(total), { class: "num", id: "find-count", dataset: { v: total } });
    if (st) {
      fact("Total", fmt.time(st.total_ns));
      fact("Mean", fmt.time(st.mean_ns));
      if (st.median_ns !== undefined) fact("Median", fmt.time(st.median_ns));
      fact("Min", fmt.time(st.min_ns));
      fact("Max", fmt.time(st.max_ns));
      fact("Std dev", fmt.time(st.std_ns));
    }
    const toggle = el(
      "div",
      { class: "seg" },
      el("button", { class: log ? "" : "on", onclick: () => this.go({ log: null }) }, "Linear"),
      el("button", { class: log ? "on" : "", onclick: () => this.go({ log: 1 }) }, "Log"),
    );
    const canvas = el("canvas", { class: "histogram" });
    const hist = el("div", { class: "hist-wrap" }, el("div", { class: "hist-bar" }, el("h3", null, "Durations"), toggle), canvas, el("div", { class: "hist-axis dim" }));
    const sortSeg = el(
      "div",
      { class: "seg" },
      el("button", { class: sort === "time" ? "on" : "", onclick: () => this.go({ sort: "time", offset: null }) }, "By time"),
      el("button", { class: sort === "-duration" ? "on" : "", onclick: () => this.go({ sort: "-duration", offset: null }) }, "Longest first"),
      el("button", { class: sort === "duration" ? "on" : "", onclick: () => this.go({ sort: "duration", offset: null }) }, "Shortest first"),
    );
    const threads = new Map((this.store.lanes.threads || []).map((t) => [t.index, t.name || "thread " + t.id]));
    const first = this.store.lanes.first_time;
    const tbl = table(
      [
        { key: "n", label: "#", num: true, sortable: false, value: (r) => r.n, fmt: fmt.int },
        { key: "start", label: "Start", num: true, fmt: (v) => fmt.time(v - first) },
        { key: "duration", label: "Duration", num: true, fmt: fmt.time },
        { key: "thread", label: "Thread", fmt: (v, r) => (r.gpu ? "GPU " + r.gpu : threads.get(v) ?? String(v)) },
      ],
      inst.map((r, i) => ({ ...r, n: offset + i + 1 })),
      {
        sort: sort === "time" ? "start" : "duration",
        desc: sort === "-duration",
        onSort: (key) => this.go({ sort: key === "duration" ? (sort === "-duration" ? "duration" : "-duration") : "time", offset: null }),
        onRow: (r) => this.nav.go("zone", null, false, r.gpu !== undefined ? "g" + r.gpu + ":" + r.index : r.thread + ":" + r.index),
      },
    );
    tbl.id = "find-table";
    const pager = el("div", { class: "pager" });
    if (total > PAGE) {
      pager.append(
        el("button", { class: "btn", disabled: offset === 0, onclick: () => this.go({ offset: Math.max(0, offset - PAGE) || null }) }, "‹ Previous"),
        el("span", { class: "dim" }, `${fmt.int(offset + 1)}–${fmt.int(Math.min(total, offset + PAGE))} of ${fmt.int(total)}`),
        el("button", { class: "btn", disabled: offset + PAGE >= total, onclick: () => this.go({ offset: offset + PAGE }) }, "Next ›"),
      );
    }
    this.main.replaceChildren(head, facts, hist, el("div", { class: "hist-bar" }, el("h3", null, "Instances"), sortSeg), el("div", { class: "table-wrap" }, tbl), pager);
    requestAnimationFrame(() => drawHistogram(canvas, hist.querySelector(".hist-axis"), h, log, st));
    const tip = el("div", { class: "hist-tip", hidden: true });
    hist.append(tip);
    canvas.addEventListener("mousemove", (e) => {
      const counts = h.counts || [];
      const edges = h.edges || [];
      const r = canvas.getBoundingClientRect();
      const i = Math.floor(((e.clientX - r.left) / r.width) * counts.length);
      if (i < 0 || i >= counts.length || edges.length < counts.length + 1) return;
      tip.hidden = false;
      tip.textContent = `${fmt.time(edges[i])} – ${fmt.time(edges[i + 1])}: ${fmt.int(counts[i])} zone${counts[i] === 1 ? "" : "s"}`;
    });
    canvas.addEventListener("mouseleave", () => (tip.hidden = true));
  }
}

function drawHistogram(canvas, axis, h, log, st) {
  const counts = h.counts || [];
  const dpr = window.devicePixelRatio || 1;
  const W = canvas.clientWidth || 600;
  const H = 140;
  canvas.width = Math.round(W * dpr);
  canvas.height = Math.round(H * dpr);
  canvas.style.height = H + "px";
  const ctx = canvas.getContext("2d");
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.fillStyle = "#17191d";
  ctx.fillRect(0, 0, W, H);
  if (!counts.length) return;
  let max = 0;
  for (const c of counts) if (c > max) max = c;
  const bw = W / counts.length;
  ctx.fillStyle = "#4e9be6";
  for (let i = 0; i < counts.length; i++) {
    if (!counts[i]) continue;
    // Counts on a log scale too, so one busy bin does not hide the rest.
    const v = Math.log1p(counts[i]) / Math.log1p(max);
    const bh = Math.max(1, v * (H - 8));
    ctx.fillRect(i * bw, H - bh, Math.max(1, bw - (bw > 3 ? 1 : 0)), bh);
  }
  const edges = h.edges || [];
  const lo = h.min ?? edges[0] ?? 0;
  const hi = h.max ?? edges[edges.length - 1] ?? 0;
  // Mean and median as lines, placed within their bin as the axis scales.
  const xOf = (v) => {
    if (edges.length < 2 || hi <= lo) return -1;
    if (log && lo > 0) return (Math.log(v / lo) / Math.log(hi / lo)) * W;
    return ((v - lo) / (hi - lo)) * W;
  };
  const mark = (v, color, label) => {
    const x = xOf(v);
    if (x < 0 || x > W) return;
    ctx.fillStyle = color;
    ctx.fillRect(Math.round(x), 0, 1, H);
    ctx.font = "11px system-ui, sans-serif";
    ctx.textBaseline = "top";
    ctx.textAlign = x > W - 80 ? "right" : "left";
    ctx.fillText(label, x + (x > W - 80 ? -4 : 4), label === "mean" ? 4 : 18);
  };
  if (st) {
    mark(st.mean_ns, "#e6c13c", "mean");
    if (st.median_ns !== undefined) mark(st.median_ns, "#e05c9b", "median");
  }
  ctx.fillStyle = "#6b717c";
  ctx.textAlign = "right";
  ctx.textBaseline = "bottom";
  ctx.fillText("counts on a log scale", W - 6, H - 4);
  const mid = log && lo > 0 ? Math.sqrt(lo * hi) : (lo + hi) / 2;
  axis.replaceChildren(el("span", null, fmt.time(lo)), el("span", null, fmt.time(mid)), el("span", null, fmt.time(hi)));
}
