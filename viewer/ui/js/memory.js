// Memory: per pool, usage over time (click the graph to pick a moment),
// the allocations live then, all allocations or the leaks as a paged,
// server-sorted table, and top-down / bottom-up call-stack trees by bytes
// and count. Everything heavy is answered by the server's memory index.
// #memory?pool=0&filter=all|active|leaks|range&t=NS&t0=NS&t1=NS&view=list|topdown|bottomup&sort=size&desc=1&offset=N
// (range: the allocations made in [t0, t1], taken from the timeline's
// measured range, else the part of the trace the timeline shows).

import * as api from "./api.js";
import * as fmt from "./fmt.js";
import { table } from "./table.js";

const el = fmt.el;
const PAGE = 100;

export class Memory {
  constructor(section, store, nav) {
    this.store = store;
    this.nav = nav;
    this.section = section;
    this.poolSel = el("select", { class: "filter narrow", "aria-label": "Memory pool" });
    this.filterSel = el("div", { class: "seg", role: "group", "aria-label": "Which allocations" });
    this.viewSel = el("div", { class: "seg", role: "group", "aria-label": "Show" });
    this.summary = el("span", { class: "dim summary" });
    this.cards = el("div", { class: "memcards" });
    this.canvas = el("canvas", { class: "memgraph", "aria-label": "Memory usage over time; click to list the allocations live at that moment" });
    this.graphNote = el("div", { class: "dim small" }, "Click the graph to pick a moment: the list and trees then show what was live.");
    this.holder = el("div", { class: "table-wrap" });
    this.pager = el("div", { class: "pager" });
    this.stack = el("div", { class: "memstack", hidden: true });
    section.append(
      el("div", { class: "toolbar" }, el("h1", null, "Memory"), this.poolSel, this.filterSel, this.viewSel, this.summary),
      this.cards,
      el("div", { class: "memgraph-box" }, this.canvas),
      this.graphNote,
      el("div", { class: "mem-main" }, el("div", { class: "mem-left" }, this.holder, this.pager), this.stack),
    );
    this.poolSel.addEventListener("change", () => this.update({ pool: this.poolSel.value, offset: null }));
    this.canvas.addEventListener("click", (e) => {
      if (!this.graph) return;
      const r = this.canvas.getBoundingClientRect();
      const t = Math.round(this.graph.t0 + ((e.clientX - r.left) / r.width) * (this.graph.t1 - this.graph.t0));
      this.update({ t, filter: "active", offset: null });
    });
  }

  update(change, replace) {
    const p = new URLSearchParams(this.params);
    for (const [k, v] of Object.entries(change)) {
      if (v === null || v === undefined) p.delete(k);
      else p.set(k, v);
    }
    this.nav.go("memory", p, replace);
  }

  seg(holder, items, cur, key) {
    holder.replaceChildren(
      ...items.map(([v, label, title]) =>
        el("button", { class: "btn" + (v === cur ? " on" : ""), title, "aria-pressed": v === cur ? "true" : "false", dataset: { v }, onclick: () => this.update(this.change(key, v)) }, label),
      ),
    );
  }

  // change is what a segment button changes; "range" takes the timeline's
  // measured range (or its view) as the range.
  change(key, v) {
    const c = { [key]: v, offset: null };
    if (key === "filter" && v === "range") {
      const tl = window.__gotracy && window.__gotracy.timeline;
      const s = tl && tl.sel && tl.sel.t0 !== tl.sel.t1 ? tl.sel : tl;
      if (s) {
        c.t0 = Math.round(Math.min(s.t0, s.t1));
        c.t1 = Math.round(Math.max(s.t0, s.t1));
      }
    }
    return c;
  }

  async show(params) {
    this.params = params;
    if (!this.pools) {
      // The first memory request builds the server's index (seconds for
      // tens of millions of allocations): say so rather than sit blank.
      this.holder.replaceChildren(el("div", { class: "loading" }, "Indexing memory events…"));
      try {
        this.pools = await api.json("memory");
      } catch (e) {
        this.holder.replaceChildren(el("div", { class: "error" }, e.message));
        return;
      }
    }
    if (!this.pools.length || this.pools.every((p) => p.allocations === 0)) {
      this.cards.replaceChildren(el("div", { class: "empty" }, "This trace holds no memory events (TracyAlloc / TracyFree)."));
      this.holder.replaceChildren();
      this.canvas.hidden = true;
      return;
    }
    const pool = Math.min(Number(params.get("pool")) || 0, this.pools.length - 1);
    const filter = params.get("filter") || "all";
    const view = params.get("view") || "list";
    const sort = params.get("sort") || "time";
    const desc = params.get("desc") === "1";
    const offset = Math.max(0, Number(params.get("offset")) || 0);
    const lanes = this.store.lanes;
    let t = params.has("t") ? Number(params.get("t")) : null;
    if (filter === "active" && t === null) t = Math.round((lanes.first_time + lanes.last_time) / 2);
    this.poolSel.replaceChildren(...this.pools.map((p) => el("option", { value: p.pool, selected: p.pool === pool }, `${p.name} (${fmt.int(p.allocations)})`)));
    this.seg(
      this.filterSel,
      [["all", "All allocations"], ["active", "Active at time", "live at the moment picked on the graph"], ["leaks", "Leaks", "never freed"], ["range", "In timeline range", "made in the range measured on the timeline (Shift+drag there), else the part it shows"]],
      filter,
      "filter",
    );
    const r0 = params.has("t0") ? Number(params.get("t0")) : lanes.first_time;
    const r1 = params.has("t1") ? Number(params.get("t1")) : lanes.last_time;
    this.seg(this.viewSel, [["list", "List"], ["topdown", "Call tree (top-down)"], ["bottomup", "Call tree (bottom-up)"]], view, "view");
    const pi = this.pools[pool];
    // The moment's totals, the graph and the table load at once: one
    // round trip of latency, not three.
    const atP = t !== null && filter === "active" ? api.json("memory", { t }) : Promise.resolve(null);
    this.drawGraph(pi, filter === "active" ? t : null, filter === "range" ? [r0, r1] : null).catch((e) => {
      this.graphNote.textContent = "The usage graph could not load: " + e.message;
    });
    this.stack.hidden = true;
    const sel = { filter, t: filter === "active" ? t : null, t0: filter === "range" ? r0 : null, t1: filter === "range" ? r1 : null };
    const tableP = view === "list" ? this.showList(pool, sel, sort, desc, offset) : this.showTree(pool, sel, view);
    const st = await atP;
    const at = st ? st[pool].at : null;
    const c = (label, v, title) => el("div", { class: "memcard", title }, el("div", { class: "dim small" }, label), el("div", { class: "big" }, v));
    this.cards.replaceChildren(
      ...[
      c("Allocations", fmt.int(pi.allocations)),
      c("Frees", fmt.int(pi.frees)),
      c("Allocated in all", fmt.bytes(pi.total_bytes)),
      c("Peak usage", fmt.bytes(pi.peak)),
      c("Leaks (never freed)", `${fmt.int(pi.leaks)} · ${fmt.bytes(pi.leak_bytes)}`),
      filter === "range" ? c("Range", `${fmt.time(r0 - lanes.first_time)} → ${fmt.time(r1 - lanes.first_time)}`) : null,
      at ? c("Live at " + fmt.time(t - lanes.first_time), `${fmt.int(at.live)} · ${fmt.bytes(at.live_bytes)}`, "allocations made at or before the moment and not yet freed") : null,
      ].filter(Boolean),
    );
    await tableP;
  }

  async showList(pool, sel, sort, desc, offset) {
    const filter = sel.filter;
    this.ac && this.ac.abort();
    this.ac = new AbortController();
    let a;
    try {
      a = await api.json("memlist", { pool, ...sel, sort, desc: desc ? 1 : 0, offset, limit: PAGE }, this.ac.signal);
    } catch (e) {
      if (e.name !== "AbortError") this.holder.replaceChildren(el("div", { class: "error" }, e.message));
      return;
    }
    const first = this.store.lanes.first_time;
    this.summary.textContent = `${fmt.int(a.total)} allocation${a.total === 1 ? "" : "s"}` + (filter === "active" ? " live" : filter === "leaks" ? " never freed" : filter === "range" ? " made in the range" : "");
    const cols = [
      { key: "time", label: "Allocated", num: true, value: (r) => r.alloc, fmt: (v) => fmt.time(v - first) },
      { key: "size", label: "Size", num: true, value: (r) => r.size, fmt: fmt.bytes },
      { key: "address", label: "Address", value: (r) => r.ptr, cls: "mono", fmt: (v) => "0x" + BigInt(v).toString(16) },
      { key: "lifetime", label: "Lifetime", num: true, value: (r) => r.lifetime, fmt: (v) => (v < 0 ? "never freed" : fmt.time(v)) },
      { key: "free", label: "Freed", num: true, value: (r) => r.free, fmt: (v) => (v < 0 ? "—" : fmt.time(v - first)) },
      { key: "thread", label: "Thread", sortable: false, fmt: (v, r) => r.thread_name || String(v) },
      {
        key: "zone",
        label: "Zone",
        sortable: false,
        value: (r) => (r.zone ? r.zone.name : null),
        fmt: (v, r) => (r.zone ? el("a", { href: `#zone=${r.zone.thread}:${r.zone.index}`, onclick: (e) => e.stopPropagation(), title: "the innermost zone of the allocating thread when it allocated" }, v) : ""),
      },
      { key: "top_function", label: "Allocated in", sortable: false, cls: "mono dim", fmt: (v, r) => v || (r.callstack ? "stack " + r.callstack : "no call stack") },
    ];
    const tbl = table(cols, a.rows, {
      sort,
      desc,
      onSort: (key, d) => this.update({ sort: key, desc: d ? 1 : 0, offset: null }),
      rowData: (r) => ({ index: r.index, size: r.size }),
      onRow: (r) => this.showStack(r),
    });
    tbl.id = "mem-table";
    this.holder.replaceChildren(tbl);
    this.pager.replaceChildren();
    if (a.total > PAGE) {
      const go = (o) => this.update({ offset: o || null });
      this.pager.append(
        el("button", { class: "btn", disabled: offset === 0, onclick: () => go(Math.max(0, offset - PAGE)) }, "‹ Previous"),
        el("span", { class: "dim", id: "mem-page" }, `${fmt.int(offset + 1)}–${fmt.int(Math.min(a.total, offset + PAGE))} of ${fmt.int(a.total)}`),
        el("button", { class: "btn", disabled: offset + PAGE >= a.total, onclick: () => go(offset + PAGE) }, "Next ›"),
        el("button", { class: "btn", disabled: offset + PAGE >= a.total, onclick: () => go(Math.floor((a.total - 1) / PAGE) * PAGE) }, "Last »"),
      );
    }
  }

  async showStack(r) {
    const first = this.store.lanes.first_time;
    const end = r.free >= 0 ? r.free : this.store.lanes.last_time;
    const pad = Math.max((end - r.alloc) * 0.2, 1000);
    const head = el(
      "div",
      { class: "memstack-head" },
      el("span", null, `${fmt.bytes(r.size)} at `, el("span", { class: "mono" }, "0x" + BigInt(r.ptr).toString(16))),
      el("a", { class: "btn", href: `#timeline?t0=${Math.round(r.alloc - pad)}&t1=${Math.round(end + pad)}` }, "Show on timeline"),
    );
    const body = el("div", { class: "memstack-body" });
    body.append(el("dl", { class: "kv" }, el("dt", null, "Allocated"), el("dd", null, fmt.time(r.alloc - first) + " by " + (r.thread_name || r.thread)), el("dt", null, "Freed"), el("dd", null, r.free >= 0 ? fmt.time(r.free - first) + " (after " + fmt.time(r.lifetime) + ")" : "never")));
    this.stack.replaceChildren(head, body);
    this.stack.hidden = false;
    if (!r.callstack) {
      body.append(el("p", { class: "dim" }, "No call stack was recorded for this allocation (TracyAllocS records one)."));
      return;
    }
    const [cs, files] = await Promise.all([api.json("callstack", { id: r.callstack }), this.sourceFiles()]);
    const held = new Set(files.map((f) => f.file));
    const rows = [];
    cs.frames.forEach((f, i) => {
      if (!f.inlines.length) rows.push({ n: i, name: "0x" + BigInt(f.addr).toString(16), loc: f.image });
      f.inlines.forEach((x, j) => rows.push({ n: j ? "" : i, name: x.name, loc: fmt.location(x.file, x.line), file: x.file, line: x.line, inline: j > 0 }));
    });
    // A frame whose file the trace holds links to the source view.
    const loc = (v, x) => (x.file && held.has(x.file) ? el("a", { href: "#source?" + new URLSearchParams({ file: x.file, line: x.line }) }, v) : v);
    const t = table([{ key: "n", label: "#", num: true }, { key: "name", label: "Function", cls: "mono" }, { key: "loc", label: "Location", cls: "mono dim", fmt: loc }], rows, { rowClass: (x) => (x.inline ? "inline" : "") });
    t.classList.add("compact", "callstack");
    t.id = "mem-callstack";
    body.append(el("h3", null, "Allocation call stack"), t);
  }

  async sourceFiles() {
    if (!this.sources) this.sources = await api.json("sources").catch(() => []);
    return this.sources;
  }

  async showTree(pool, sel, view) {
    let a;
    try {
      a = await api.json("memtree", { pool, ...sel, dir: view, max: 2000 });
    } catch (e) {
      this.holder.replaceChildren(el("div", { class: "error" }, e.message));
      return;
    }
    this.pager.replaceChildren();
    this.summary.textContent = `${fmt.int(a.count)} allocations · ${fmt.bytes(a.bytes)} · ${fmt.int(a.all_nodes)} call paths` + (a.nodes.length < a.all_nodes ? ` (the heaviest ${fmt.int(a.nodes.length)} shown)` : "");
    const open = new Set();
    a.nodes.forEach((n, i) => n.depth < 3 && open.add(i));
    const kids = a.nodes.map(() => 0);
    for (const n of a.nodes) if (n.parent >= 0) kids[n.parent]++;
    const render = () => {
      const rows = [];
      const shown = new Array(a.nodes.length).fill(false);
      a.nodes.forEach((n, i) => {
        if (n.parent >= 0 && !(shown[n.parent] && open.has(n.parent))) return;
        shown[i] = true;
        rows.push({ ...n, i });
      });
      const cols = [
        {
          key: "name",
          label: view === "topdown" ? "Function (callers first)" : "Function (allocating first)",
          cls: "mono tree",
          fmt: (v, r) => {
            const s = el("span", { style: { paddingLeft: r.depth * 14 + "px" } });
            s.append(el("span", { class: "twisty" }, kids[r.i] ? (open.has(r.i) ? "▾ " : "▸ ") : "  "), v);
            if (r.file) s.append(el("span", { class: "dim" }, "  " + fmt.location(r.file.split("/").pop(), r.line)));
            return s;
          },
        },
        { key: "bytes", label: "Bytes", num: true, fmt: fmt.bytes },
        { key: "pct", label: "%", num: true, value: (r) => (a.bytes ? (100 * r.bytes) / a.bytes : 0), fmt: (v) => v.toFixed(1) + "%" },
        { key: "count", label: "Count", num: true, fmt: fmt.int },
        { key: "self_bytes", label: "Self bytes", num: true, fmt: fmt.bytes },
        { key: "self_count", label: "Self count", num: true, fmt: fmt.int },
      ];
      const tbl = table(cols, rows, {
        rowData: (r) => ({ node: r.i, depth: r.depth }),
        onRow: (r) => {
          if (!kids[r.i]) return;
          if (open.has(r.i)) open.delete(r.i);
          else open.add(r.i);
          render();
        },
      });
      tbl.id = "mem-tree";
      this.holder.replaceChildren(tbl);
    };
    render();
  }

  async drawGraph(pool, t, range) {
    const lanes = this.store.lanes;
    const box = this.canvas.parentElement;
    const w = Math.max(200, box.clientWidth || 800);
    const h = 120;
    const dpr = window.devicePixelRatio || 1;
    this.canvas.width = w * dpr;
    this.canvas.height = h * dpr;
    this.canvas.style.width = w + "px";
    this.canvas.style.height = h + "px";
    // The pool's own span (a little padded): a pool used for a moment of a
    // long trace still fills the graph.
    let t0 = lanes.first_time;
    let t1 = Math.max(lanes.last_time, t0 + 1);
    if (pool.allocations > 0 && pool.last > pool.first) {
      const pad = (pool.last - pool.first) * 0.03;
      t0 = Math.max(t0, Math.floor(pool.first - pad));
      t1 = Math.min(t1, Math.ceil(pool.last + pad));
    }
    this.graph = { t0, t1 };
    const ctx = this.canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = "#16181c";
    ctx.fillRect(0, 0, w, h);
    if (pool.plot < 0) return;
    // The usage curve depends only on the pool and the width: fetched once.
    const pk = pool.plot + ":" + Math.round(w);
    this.plotCache = this.plotCache || new Map();
    let a = this.plotCache.get(pk);
    if (!a) {
      a = await api.json("plot", { id: pool.plot, t0, t1, width: Math.round(w) });
      this.plotCache.set(pk, a);
    }
    const max = Math.max(pool.peak, 1);
    const x = (tt) => ((tt - t0) / (t1 - t0)) * w;
    const y = (v) => h - 4 - (v / max) * (h - 14);
    // Usage is a step function: hold the last value until the next
    // bucket, rise to the bucket's peak, fall to its last value.
    ctx.beginPath();
    ctx.moveTo(0, h);
    let last = 0;
    ctx.lineTo(0, y(last));
    for (const b of a.buckets) {
      const xs = Math.max(0, x(b.start));
      const xe = Math.max(x(b.end), xs + 1);
      ctx.lineTo(xs, y(last));
      ctx.lineTo(xs, y(b.max));
      ctx.lineTo(xe, y(b.max));
      ctx.lineTo(xe, y(b.close));
      last = b.close;
    }
    ctx.lineTo(w, y(last));
    ctx.lineTo(w, h);
    ctx.closePath();
    ctx.fillStyle = "rgba(78,155,230,0.35)";
    ctx.fill();
    ctx.strokeStyle = "#4e9be6";
    ctx.stroke();
    ctx.fillStyle = "#9aa0aa";
    ctx.font = "11px system-ui, sans-serif";
    ctx.fillText("peak " + fmt.bytes(pool.peak), 6, 12);
    const span = fmt.time(t0 - lanes.first_time) + " → " + fmt.time(t1 - lanes.first_time);
    ctx.fillText(span, w - 6 - ctx.measureText(span).width, 12);
    if (range) {
      ctx.fillStyle = "rgba(230,162,60,0.18)";
      ctx.fillRect(x(range[0]), 0, Math.max(2, x(range[1]) - x(range[0])), h);
    }
    if (t !== null && !range) {
      ctx.fillStyle = "#e6a23c";
      ctx.fillRect(Math.round(x(t)), 0, 2, h);
    }
    this.canvas.dataset.drawn = "1";
  }
}
