// Flame graph: zones aggregated by call path (their nesting), or
// call-stack samples by caller chain, over the whole trace or the range
// measured on the timeline. Click a node to zoom into it; the breadcrumb
// goes back. The server aggregates and prunes to what is wide enough.
// #flame?kind=zones|samples&t0=NS&t1=NS&thread=T&root=ID

import * as api from "./api.js";
import * as fmt from "./fmt.js";
import { table } from "./table.js";
import { css, hashColor, luminance } from "./color.js";

const el = fmt.el;
const ROW = 20;

export class Flame {
  constructor(section, store, nav) {
    this.store = store;
    this.nav = nav;
    this.kindSel = el("div", { class: "seg", role: "group", "aria-label": "What to aggregate" });
    this.threadSel = el("select", { class: "filter narrow", "aria-label": "Thread" });
    this.rangeBtn = el("button", { class: "btn", title: "Aggregate only the range measured on the timeline (Shift+drag there)" }, "Use timeline range");
    this.wholeBtn = el("button", { class: "btn" }, "Whole trace");
    this.summary = el("span", { class: "dim summary" });
    this.crumbs = el("nav", { class: "crumbs", "aria-label": "Zoom path" });
    this.rootInfo = el("div", { class: "flame-root dim small" });
    this.graph = el("div", { class: "flamegraph", role: "img", "aria-label": "Flame graph" });
    this.tip = el("div", { class: "tooltip", hidden: true });
    this.holder = el("div", { class: "table-wrap" });
    section.append(
      el("div", { class: "toolbar" }, el("h1", null, "Flame graph"), this.kindSel, this.threadSel, this.rangeBtn, this.wholeBtn, this.summary),
      this.crumbs,
      this.rootInfo,
      this.graph,
      this.tip,
      el("h3", null, "Hottest call paths by self time"),
      this.holder,
    );
    this.threadSel.addEventListener("change", () => this.update({ thread: this.threadSel.value === "-1" ? null : this.threadSel.value, root: null }));
    this.rangeBtn.addEventListener("click", () => {
      const tl = window.__gotracy && window.__gotracy.timeline;
      const s = tl && tl.sel;
      if (s && s.t0 !== s.t1) this.update({ t0: Math.round(Math.min(s.t0, s.t1)), t1: Math.round(Math.max(s.t0, s.t1)), root: null });
      else if (tl) this.update({ t0: Math.round(tl.t0), t1: Math.round(tl.t1), root: null });
    });
    this.wholeBtn.addEventListener("click", () => this.update({ t0: null, t1: null, root: null }));
    this.graph.addEventListener("mousemove", (e) => {
      const n = e.target.closest(".fnode");
      if (!n) {
        this.tip.hidden = true;
        return;
      }
      this.tip.textContent = n.dataset.tip;
      this.tip.hidden = false;
      const r = this.graph.getBoundingClientRect();
      this.tip.style.left = Math.min(e.clientX - r.left + 14, r.width - 260) + "px";
      this.tip.style.top = e.clientY - r.top + this.graph.offsetTop + 16 + "px";
    });
    this.graph.addEventListener("mouseleave", () => (this.tip.hidden = true));
    // Esc (or Backspace) zooms out one level, as the breadcrumb's last link.
    document.addEventListener("keydown", (e) => {
      if (document.body.dataset.view !== "flame" || e.target.closest("input, textarea, select") || !this.data) return;
      if (e.key !== "Escape" && e.key !== "Backspace") return;
      const root = this.params && this.params.has("root") ? Number(this.params.get("root")) : -1;
      if (root < 0) return;
      e.preventDefault();
      const up = this.data.path.length ? this.data.path[this.data.path.length - 1].id : null;
      this.update({ root: up });
    });
  }

  update(change) {
    const p = new URLSearchParams(this.params);
    for (const [k, v] of Object.entries(change)) {
      if (v === null || v === undefined) p.delete(k);
      else p.set(k, v);
    }
    this.nav.go("flame", p);
  }

  async show(params) {
    this.params = params;
    const kind = params.get("kind") || "zones";
    const thread = params.has("thread") ? Number(params.get("thread")) : -1;
    const root = params.has("root") ? Number(params.get("root")) : -1;
    const q = { kind, root, thread: thread >= 0 ? thread : null, minfrac: 0.0005 };
    if (params.has("t0") && params.has("t1")) {
      q.t0 = params.get("t0");
      q.t1 = params.get("t1");
    }
    if (this.hasSamples === undefined) {
      try {
        await api.json("flame", { kind: "samples", minfrac: 1 });
        this.hasSamples = true;
      } catch (_) {
        this.hasSamples = false;
      }
    }
    const kinds = [["zones", "Zones"]];
    if (this.hasSamples) kinds.push(["samples", "Samples"]);
    this.kindSel.replaceChildren(
      ...kinds.map(([v, l]) => el("button", { class: "btn" + (v === kind ? " on" : ""), "aria-pressed": v === kind ? "true" : "false", dataset: { v }, onclick: () => this.update({ kind: v, root: null }) }, l)),
    );
    const threads = this.store.lanes.threads || [];
    this.threadSel.replaceChildren(el("option", { value: -1 }, "All threads"), ...threads.map((t) => el("option", { value: t.index, selected: t.index === thread }, t.name || "thread " + t.id)));
    let a;
    try {
      a = await api.json("flame", q);
    } catch (e) {
      this.graph.replaceChildren(el("div", { class: "error" }, e.message));
      return;
    }
    this.data = a;
    const first = this.store.lanes.first_time;
    const range = a.t0 !== undefined ? `${fmt.time(a.t0 - first)} → ${fmt.time(a.t1 - first)} (${fmt.time(a.t1 - a.t0)})` : "whole trace";
    const unit = kind === "samples" ? "samples" : "zones";
    this.summary.textContent = `${range} · ${fmt.int(a.count)} ${unit} · ${fmt.time(a.all_total)} in all`;
    this.wholeBtn.disabled = a.t0 === undefined;
    // Breadcrumb: all, the root's ancestors, the root.
    const crumbs = [el("a", { href: "#", dataset: { root: -1 }, onclick: (e) => (e.preventDefault(), this.update({ root: null })) }, "All")];
    const byId = new Map(a.nodes.map((n) => [n.id, n]));
    const chain = a.path.slice();
    if (root >= 0 && byId.has(root)) chain.push({ id: root, name: byId.get(root).name });
    for (const c of chain) crumbs.push(el("span", { class: "dim" }, " › "), el("a", { href: "#", dataset: { root: c.id }, onclick: (e) => (e.preventDefault(), this.update({ root: c.id })) }, c.name));
    this.crumbs.replaceChildren(...crumbs);
    this.rootInfo.replaceChildren();
    const rn = root >= 0 ? byId.get(root) : null;
    if (rn) {
      const parts = [`${rn.name}: ${fmt.time(rn.total)} (${((100 * rn.total) / Math.max(a.all_total, 1)).toFixed(2)}% of all) · self ${fmt.time(rn.self)} · ${fmt.int(rn.count)} ${unit}`];
      this.rootInfo.append(parts[0]);
      if (kind === "zones") this.rootInfo.append(" · ", el("a", { href: "#find?srcloc=" + rn.srcloc }, "find these zones"));
      if (rn.file && (await this.sourceFiles()).some((f) => f.file === rn.file || f.file.endsWith("/" + rn.file))) {
        const f = (await this.sourceFiles()).find((f) => f.file === rn.file || f.file.endsWith("/" + rn.file));
        this.rootInfo.append(" · ", el("a", { href: "#source?" + new URLSearchParams({ file: f.file, line: rn.line }) }, "source"));
      }
    }
    this.draw(a, root);
    this.hotTable(a, kind);
  }

  async sourceFiles() {
    if (!this.sources) this.sources = await api.json("sources").catch(() => []);
    return this.sources;
  }

  draw(a, root) {
    const w = Math.max(300, this.graph.clientWidth || 1000);
    const total = Math.max(a.total, 1);
    const x = new Map();
    const base = a.nodes.length && root >= 0 ? a.nodes[0].depth : 0;
    const frag = document.createDocumentFragment();
    let maxDepth = 0;
    // Children are laid left to right in the server's order (widest first).
    const next = new Map();
    for (const n of a.nodes) {
      let left;
      if (n.id === root || (root < 0 && n.parent < 0) || !x.has(n.parent)) {
        left = next.get(-1) ?? 0;
        next.set(-1, left + n.total);
      } else {
        left = next.get(n.parent) ?? x.get(n.parent);
        next.set(n.parent, left + n.total);
      }
      x.set(n.id, left);
      const px = (left / total) * w;
      const pw = (n.total / total) * w;
      if (pw < 0.5) continue;
      const d = n.depth - base;
      maxDepth = Math.max(maxDepth, d);
      const c = a.kind === "zones" ? this.store.palette.zone(n.srcloc, 0, d) : hashColor(n.name);
      const share = ((100 * n.total) / total).toFixed(2);
      const div = el("div", {
        class: "fnode",
        dataset: { id: n.id, name: n.name, total: n.total, count: n.count, tip: `${n.name}\n${fmt.time(n.total)} (${share}%) · self ${fmt.time(n.self)} · ${fmt.int(n.count)} ${a.kind === "zones" ? "zones" : "samples"}${n.file ? "\n" + fmt.location(n.file, n.line) : ""}` },
        style: { left: px + "px", width: Math.max(pw - 1, 0.5) + "px", top: d * ROW + "px", background: css(c), color: luminance(c) > 0.62 ? "#111317" : "#ffffff" },
      });
      if (pw > 30) div.textContent = n.name;
      div.addEventListener("click", () => this.update({ root: n.id }));
      frag.append(div);
    }
    this.graph.style.height = (maxDepth + 1) * ROW + 4 + "px";
    this.graph.replaceChildren(frag);
    this.graph.dataset.nodes = String(this.graph.childElementCount);
  }

  hotTable(a, kind) {
    // Self time per name inside the shown subtree.
    const m = new Map();
    for (const n of a.nodes) {
      const e = m.get(n.name) || { name: n.name, self: 0, total: 0, count: 0, file: n.file, line: n.line };
      e.self += n.self;
      e.count += n.count;
      m.set(n.name, e);
    }
    const rows = [...m.values()].sort((p, q) => q.self - p.self).slice(0, 50);
    const total = Math.max(a.total, 1);
    const t = table(
      [
        { key: "name", label: "Name", cls: "name" },
        { key: "location", label: "Location", cls: "mono dim", value: (r) => fmt.location(r.file, r.line) },
        { key: "self", label: "Self time", num: true, fmt: fmt.time },
        { key: "pct", label: "%", num: true, value: (r) => (100 * r.self) / total, fmt: (v) => v.toFixed(2) + "%" },
        { key: "count", label: kind === "samples" ? "Samples" : "Zones", num: true, fmt: fmt.int },
      ],
      rows,
    );
    t.id = "flame-table";
    this.holder.replaceChildren(t);
  }
}
