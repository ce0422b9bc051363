// Compare two traces (`gotracy view A.tracy B.tracy`): one row per source
// location with both traces' count, total, mean and median, the change of
// the mean and its ratio (B/A), the numbers `gotracy diff` prints; a row
// opens both traces' duration histograms overlaid, over the range both
// share, as Tracy's compare window draws them (A lemon, B red). Each trace
// is also browsable on its own, at a/ and b/. The URL holds the state:
//   #compare?sort=ratio&desc=1&filter=tick&match=file&sel=a:3&log=1&time=1&norm=1
// and #compare?mode=frames for frame sets (Tracy's Frames mode)
// (sort keys as gotracy diff --sort: ratio, diff, mean-b, ...; also location, change).

import * as api from "./api.js";
import * as fmt from "./fmt.js";
import { table } from "./table.js";

const el = fmt.el;
const $ = (s) => document.querySelector(s);
const MATCH = [
  ["line", "Name, file, line", "Pair by zone name, source file and line, then name and file, then name (Tracy's linked selection)"],
  ["file", "Ignore line", "Pair by name and file, then name: for builds whose lines moved"],
  ["name", "Name only", "Pair by zone name alone"],
];
const NUMERIC = ["total-diff", "count-a", "count-b", "total-a", "total-b", "mean-a", "mean-b", "median-a", "median-b", "diff", "ratio", "change"];

// flat turns an API row into the table's row: every figure a plain number
// (undefined where a trace lacks the location).
function flat(r, i) {
  const a = r.a || null;
  const b = r.b || null;
  const loc = (s) => (s ? fmt.location(s.src_file, s.src_line) : "");
  let location = loc(a || b);
  if (a && b && (a.src_file !== b.src_file || a.src_line !== b.src_line)) location = a.src_file === b.src_file ? loc(a) + " → " + b.src_line : loc(a) + " → " + loc(b);
  return {
    key: a ? "a:" + a.srcloc : "b:" + b.srcloc,
    order: i,
    name: r.name,
    location,
    matched_by: r.matched_by,
    a,
    b,
    "count-a": a?.counts,
    "count-b": b?.counts,
    "total-a": a?.total_ns,
    "total-b": b?.total_ns,
    "mean-a": a?.mean_ns,
    "mean-b": b?.mean_ns,
    "median-a": a?.median_ns,
    "median-b": b?.median_ns,
    "total-diff": r.total_diff_ns,
    diff: r.mean_diff_ns ?? undefined,
    ratio: r.mean_ratio ?? (a && b && a.mean_ns === 0 && b.mean_ns > 0 ? Infinity : undefined),
    change: r.mean_ratio != null ? (r.mean_ratio - 1) * 100 : undefined,
  };
}

// sortFlat orders rows by key; rows without the figure go last either way,
// as `gotracy diff --sort` does.
function sortFlat(rows, key, desc) {
  const out = rows.slice();
  out.sort((x, y) => {
    const a = x[key];
    const b = y[key];
    if (NUMERIC.includes(key)) {
      const ha = a !== undefined;
      const hb = b !== undefined;
      if (ha !== hb) return ha ? -1 : 1;
      if (ha && a !== b) return desc ? (b > a ? 1 : -1) : a > b ? 1 : -1;
      return x.name < y.name ? -1 : x.name > y.name ? 1 : x.order - y.order;
    }
    const c = String(a ?? "").localeCompare(String(b ?? ""));
    return (desc ? -c : c) || x.order - y.order;
  });
  return out;
}

function signedTime(ns) {
  if (ns === undefined) return "";
  return (ns > 0 ? "+" : "") + fmt.time(ns);
}

function tone(v) {
  if (v === undefined) return "only";
  return v > 1.0005 ? "slower" : v < 0.9995 ? "faster" : "";
}

class CompareView {
  constructor(section) {
    this.section = section;
    this.cache = new Map(); // match -> answer
    this.filter = el("input", { type: "search", class: "filter", id: "cmp-filter", placeholder: "Filter by zone name…", "aria-label": "Filter zones by name" });
    this.kindSeg = el(
      "div",
      { class: "seg", id: "cmp-kind", role: "radiogroup", "aria-label": "What to compare" },
      el("button", { dataset: { v: "zones" }, title: "Zones per source location", onclick: () => this.update({ mode: null, sel: null }) }, "Zones"),
      el("button", { dataset: { v: "frames" }, title: "Frame times per frame set (Tracy's Frames mode)", onclick: () => this.update({ mode: "frames", sel: null }) }, "Frames"),
    );
    this.matchSeg = el("div", { class: "seg", id: "cmp-match", role: "radiogroup", "aria-label": "How locations pair" });
    for (const [v, label, title] of MATCH) {
      this.matchSeg.append(el("button", { dataset: { v }, title, onclick: () => this.update({ match: v === "line" ? null : v, sel: null }) }, label));
    }
    this.onlyBox = el("input", { type: "checkbox", id: "cmp-paired" });
    this.summary = el("span", { class: "dim summary", id: "cmp-summary" });
    this.legend = el("div", { class: "cmp-legend" });
    this.holder = el("div", { class: "table-wrap", id: "cmp-table-wrap" });
    this.detail = el("div", { class: "cmp-detail", id: "cmp-detail" });
    section.append(
      el(
        "div",
        { class: "toolbar" },
        el("h1", null, "Compare traces"),
        this.kindSeg,
        this.filter,
        this.matchSeg,
        el("label", { class: "check", for: "cmp-paired", title: "Hide locations only one trace has" }, this.onlyBox, " Paired only"),
        this.summary,
      ),
      this.legend,
      el("div", { class: "cmp-split" }, this.holder, this.detail),
    );
    this.filter.addEventListener("input", () => this.update({ filter: this.filter.value || null }, true));
    this.onlyBox.addEventListener("change", () => this.update({ paired: this.onlyBox.checked ? 1 : null }));
    window.addEventListener("resize", () => this.hist && this.drawHist());
    window.__gotracyCompare = this;
  }

  update(change, replace) {
    const p = new URLSearchParams(this.params);
    for (const [k, v] of Object.entries(change)) {
      if (v === null || v === undefined) p.delete(k);
      else p.set(k, v);
    }
    const h = "#compare" + ([...p.keys()].length ? "?" + p.toString() : "");
    if (replace) history.replaceState(null, "", h);
    else history.pushState(null, "", h);
    this.show(p);
  }

  async load(kind, match) {
    const key = kind + " " + match;
    let a = this.cache.get(key);
    if (!a) {
      a = await api.json("compare", { kind: kind === "frames" ? kind : null, match: match === "line" || kind === "frames" ? null : match });
      this.cache.set(key, a);
    }
    return a;
  }

  async show(params) {
    this.params = params;
    const kind = params.get("mode") === "frames" ? "frames" : "zones";
    this.kind = kind;
    const match = MATCH.some((m) => m[0] === params.get("match")) ? params.get("match") : "line";
    const filter = params.get("filter") || "";
    const sort = params.get("sort") || "ratio";
    const desc = params.has("desc") ? params.get("desc") === "1" : sort !== "name" && sort !== "location";
    const paired = params.get("paired") === "1";
    if (document.activeElement !== this.filter) this.filter.value = filter;
    this.onlyBox.checked = paired;
    for (const b of this.matchSeg.children) b.classList.toggle("on", b.dataset.v === match);
    for (const b of this.kindSeg.children) b.classList.toggle("on", b.dataset.v === kind);
    this.matchSeg.hidden = kind === "frames"; // frame sets pair by name
    this.filter.placeholder = kind === "frames" ? "Filter by frame set name…" : "Filter by zone name…";
    let ans;
    try {
      ans = await this.load(kind, match);
    } catch (e) {
      this.holder.replaceChildren(el("div", { class: "error" }, e.message));
      return;
    }
    this.answer = ans;
    const all = ans.rows.map(flat);
    // Filter as csv -f and diff -f: the zone name contains it, case folded.
    const f = filter.toLowerCase();
    let rows = all.filter((r) => (!f || r.name.toLowerCase().includes(f)) && (!paired || (r.a && r.b)));
    rows = sortFlat(rows, sort, desc);
    this.rows = rows;
    const pairs = all.filter((r) => r.a && r.b).length;
    const onlyA = all.filter((r) => r.a && !r.b).length;
    const onlyB = all.filter((r) => !r.a && r.b).length;
    const slower = rows.filter((r) => r.ratio > 1.0005).length;
    const faster = rows.filter((r) => r.ratio < 0.9995).length;
    this.summary.textContent = `${fmt.int(rows.length)} of ${fmt.int(all.length)} ${kind === "frames" ? "frame sets" : "locations"} · ${fmt.int(pairs)} paired, ${fmt.int(onlyA)} only in A, ${fmt.int(onlyB)} only in B · ${fmt.int(slower)} slower, ${fmt.int(faster)} faster`;
    this.legend.replaceChildren(
      el("span", null, el("span", { class: "cmp-dot a" }), "A ", el("b", null, ans.a.name), " · ", fmt.int(ans.a.zones), " zones · ", fmt.int(ans.a.frames ?? 0), " frames · ", fmt.time(ans.a.time_span_ns)),
      el("span", null, el("span", { class: "cmp-dot b" }), "B ", el("b", null, ans.b.name), " · ", fmt.int(ans.b.zones), " zones · ", fmt.int(ans.b.frames ?? 0), " frames · ", fmt.time(ans.b.time_span_ns)),
      el("span", null, "ratio = mean B ÷ mean A: above 1, B is slower"),
    );
    const t = fmt.time;
    const ratioFmt = (v, r) => (v === undefined ? (r.a ? "only in A" : "only in B") : v === Infinity ? "∞" : v.toFixed(3) + "×");
    const cols = [
      { key: "name", label: kind === "frames" ? "Frame set" : "Zone", cls: "name" },
      { key: "location", label: "Location", cls: "mono dim loc" },
      { key: "count-a", label: "Count A", num: true, fmt: (v) => (v === undefined ? "—" : fmt.int(v)), cls: "a" },
      { key: "count-b", label: "Count B", num: true, fmt: (v) => (v === undefined ? "—" : fmt.int(v)), cls: "b" },
      { key: "total-a", label: "Total A", num: true, fmt: t, cls: "a" },
      { key: "total-b", label: "Total B", num: true, fmt: t, cls: "b" },
      { key: "total-diff", label: "Δ total", num: true, fmt: signedTime, cls: "dim", title: "total B − total A (a trace without the location counts 0)" },
      { key: "mean-a", label: "Mean A", num: true, fmt: t, cls: "a" },
      { key: "mean-b", label: "Mean B", num: true, fmt: t, cls: "b" },
      { key: "median-a", label: "Median A", num: true, fmt: t, cls: "a" },
      { key: "median-b", label: "Median B", num: true, fmt: t, cls: "b" },
      { key: "diff", label: "Δ mean", num: true, fmt: signedTime, cls: "diff", title: "mean B − mean A" },
      { key: "ratio", label: "Ratio", num: true, fmt: ratioFmt, cls: "ratio", title: "mean B ÷ mean A" },
      { key: "change", label: "Change", num: true, fmt: (v) => (v === undefined ? "" : (v > 0 ? "+" : "") + v.toFixed(1) + "%"), cls: "change" },
    ];
    if (kind === "frames") cols.splice(1, 1); // frame sets have no location
    const sel = params.get("sel");
    const tbl = table(cols, rows, {
      sort,
      desc,
      onSort: (key, d) => this.update({ sort: key, desc: d ? 1 : 0 }),
      rowData: (r) => ({ key: r.key, a: r.a ? r.a.srcloc : "", b: r.b ? r.b.srcloc : "", matched: r.matched_by || "" }),
      rowClass: (r) => (r.key === sel ? "sel" : ""),
      onRow: (r) => this.update({ sel: r.key }),
    });
    tbl.id = "cmp-table";
    // Colour the change by direction, per row.
    const body = tbl.tBodies[0];
    rows.forEach((r, i) => {
      const cls = tone(r.ratio);
      const tr = body.rows[i];
      for (const k of ["diff", "ratio", "change"]) {
        const td = tr.cells[cols.findIndex((c) => c.key === k)];
        if (cls) td.classList.add(cls);
      }
    });
    this.holder.replaceChildren(tbl);
    const cur = all.find((r) => r.key === sel);
    if (!cur) {
      this.hist = null;
      this.detail.replaceChildren(el("div", { class: "empty" }, rows.length ? "Click a row to overlay both traces' duration histograms." : "No location matches."));
      return;
    }
    const selRow = tbl.querySelector("tr.sel");
    if (selRow) selRow.scrollIntoView({ block: "nearest" });
    await this.showDetail(cur, params);
  }

  async showDetail(r, params) {
    const log = params.get("log") === "1";
    const time = params.get("time") === "1";
    const norm = params.get("norm") === "1";
    const logv = params.get("logv") === "1";
    const seg = (name, on, label, title) => el("button", { class: on ? "on" : "", title, onclick: () => this.update({ [name]: on ? null : 1 }) }, label);
    const canvas = el("canvas", { id: "cmp-hist", "aria-label": "Duration histograms of both traces" });
    const axis = el("div", { class: "hist-axis dim" });
    const tip = el("div", { class: "hist-tip", hidden: true });
    const facts = this.facts(r);
    const head = el(
      "div",
      { class: "cmp-head" },
      el("h2", null, r.name),
      el("span", { class: "mono" }, r.location),
      r.matched_by ? el("span", { class: "dim small" }, "paired by " + { line: "name, file and line", file: "name and file", name: "name" }[r.matched_by]) : el("span", { class: "dim small" }, r.a ? "only in A" : "only in B"),
      this.kind === "frames"
        ? el("span", { class: "dim small" }, "frame times; the frame running at the capture's end is left out, as in Tracy")
        : el("span", { class: "dim small" }, "open in ", r.a ? el("a", { href: "a/#find?srcloc=" + r.a.srcloc }, "A") : null, r.a && r.b ? " · " : null, r.b ? el("a", { href: "b/#find?srcloc=" + r.b.srcloc }, "B") : null),
    );
    const bar = el(
      "div",
      { class: "hist-bar" },
      el("h3", null, "Durations"),
      el("div", { class: "seg" }, el("button", { class: log ? "" : "on", onclick: () => this.update({ log: null }) }, "Linear time"), el("button", { class: log ? "on" : "", onclick: () => this.update({ log: 1 }) }, "Log time")),
      el("div", { class: "seg" }, seg("logv", logv, "Log values", "counts on a log scale"), seg("time", time, "Cumulate time", "total time of the zones in each bin instead of their count"), seg("norm", norm, "Normalize", "scale the trace with fewer zones to the other's count (Tracy's Normalize values)")),
    );
    this.detail.replaceChildren(head, el("div", { class: "cmp-body" }, facts, el("div", { class: "cmp-hist" }, bar, canvas, axis, tip)));
    const q = { bins: Math.max(20, Math.min(600, Math.floor((canvas.clientWidth || 600) / 4))), log: log ? 1 : null };
    if (this.kind === "frames") q.kind = "frames";
    if (r.a) q.a = r.a.srcloc;
    if (r.b) q.b = r.b.srcloc;
    this.ac && this.ac.abort();
    this.ac = new AbortController();
    let h;
    try {
      h = await api.json("comparehist", q, this.ac.signal);
    } catch (e) {
      if (e.name !== "AbortError") this.detail.append(el("div", { class: "error" }, e.message));
      return;
    }
    this.hist = { h, canvas, axis, tip, log, time, norm, logv, row: r };
    this.drawHist();
    canvas.addEventListener("mousemove", (e) => {
      const rect = canvas.getBoundingClientRect();
      const i = Math.floor(((e.clientX - rect.left) / rect.width) * h.bins);
      if (i < 0 || i >= h.bins) return;
      tip.hidden = false;
      tip.textContent = `${fmt.time(h.edges_ns[i])} – ${fmt.time(h.edges_ns[i + 1])} · A ${fmt.int(h.counts_a[i])} (${fmt.time(h.time_a_ns[i])}) · B ${fmt.int(h.counts_b[i])} (${fmt.time(h.time_b_ns[i])})`;
    });
    canvas.addEventListener("mouseleave", () => (tip.hidden = true));
  }

  facts(r) {
    const t = fmt.time;
    const row = (label, f) => el("tr", null, el("td", null, label), el("td", { class: "a" }, r.a ? f(r.a) : "—"), el("td", { class: "b" }, r.b ? f(r.b) : "—"));
    const tbl = el(
      "table",
      { class: "cmp-facts", id: "cmp-facts" },
      el("thead", null, el("tr", null, el("th", null, ""), el("th", null, el("span", { class: "cmp-dot a" }), "A"), el("th", null, el("span", { class: "cmp-dot b" }), "B"))),
      el(
        "tbody",
        null,
        row(this.kind === "frames" ? "Frames" : "Count", (s) => fmt.int(s.counts)),
        row("Total", (s) => t(s.total_ns)),
        row("Mean", (s) => t(s.mean_ns)),
        row("Median", (s) => t(s.median_ns)),
        row("Min", (s) => t(s.min_ns)),
        row("Max", (s) => t(s.max_ns)),
        row("σ", (s) => t(s.std_ns)),
      ),
    );
    const verdict = el("ul", { class: "cmp-verdict" });
    if (r.a && r.b) {
      // As Tracy's PrintSpeedupOrSlowdown: "x more/less than A".
      for (const [label, va, vb] of [
        ["Total time", r.a.total_ns, r.b.total_ns],
        ["Mean time", r.a.mean_ns, r.b.mean_ns],
        ["Median time", r.a.median_ns, r.b.median_ns],
      ]) {
        const more = vb > va;
        const pct = va ? ((vb - va) / va) * 100 : 0;
        verdict.append(el("li", null, label + ": B takes ", el("b", null, fmt.time(Math.abs(vb - va))), " ", el("span", { class: vb === va ? "" : more ? "slower" : "faster" }, more ? "more" : "less"), ` than A (${pct > 0 ? "+" : ""}${pct.toFixed(1)}%)`));
      }
    }
    return el("div", null, tbl, verdict);
  }

  drawHist() {
    const { h, canvas, axis, log, time, norm, logv } = this.hist;
    const dpr = window.devicePixelRatio || 1;
    const W = canvas.clientWidth || 600;
    const H = canvas.clientHeight || 170;
    canvas.width = Math.round(W * dpr);
    canvas.height = Math.round(H * dpr);
    const ctx = canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = "#17191d";
    ctx.fillRect(0, 0, W, H);
    let adjA = 1;
    let adjB = 1;
    if (norm && h.zones_a && h.zones_b) {
      if (h.zones_a > h.zones_b) adjB = h.zones_a / h.zones_b;
      else adjA = h.zones_b / h.zones_a;
    }
    const va = (time ? h.time_a_ns : h.counts_a).map((v) => v * adjA);
    const vb = (time ? h.time_b_ns : h.counts_b).map((v) => v * adjB);
    let max = 0;
    for (let i = 0; i < h.bins; i++) max = Math.max(max, va[i], vb[i]);
    const top = 8;
    const scale = (v) => (v <= 0 || max <= 0 ? 0 : logv ? Math.log1p(v) / Math.log1p(max) : v / max) * (H - top);
    const bw = W / h.bins;
    const gap = bw > 3 ? 1 : 0;
    const drawn = { a: 0, b: 0 };
    for (let i = 0; i < h.bins; i++) {
      const ha = scale(va[i]);
      const hb = scale(vb[i]);
      if (!ha && !hb) continue;
      const x = i * bw;
      const w = Math.max(1, bw - gap);
      // Where both have zones the overlap is drawn in the mix of the two
      // colours, the rest in the taller one's own (Tracy's overlay).
      const lo = Math.min(ha, hb);
      if (lo > 0) {
        ctx.fillStyle = "#dd8822";
        ctx.fillRect(x, H - Math.max(1, lo), w, Math.max(1, lo));
      }
      if (ha > hb) {
        ctx.fillStyle = "#dddd22";
        ctx.fillRect(x, H - Math.max(1, ha), w, Math.max(1, ha - lo));
      } else if (hb > ha) {
        ctx.fillStyle = "#dd2222";
        ctx.fillRect(x, H - Math.max(1, hb), w, Math.max(1, hb - lo));
      }
      if (ha) drawn.a++;
      if (hb) drawn.b++;
    }
    // Means and medians of both, placed by the axis's scale.
    const lo = h.edges_ns[0];
    const hi = h.edges_ns[h.bins];
    const xOf = (v) => {
      if (hi <= lo) return -1;
      if (log) return (Math.log(Math.max(v, lo) / lo) / Math.log(hi / lo)) * W;
      return ((v - lo) / (hi - lo)) * W;
    };
    const r = this.hist.row;
    ctx.font = "11px system-ui, sans-serif";
    ctx.textBaseline = "top";
    const marks = [];
    if (r.a) marks.push([r.a.mean_ns, "#dddd22", "mean A", 4], [r.a.median_ns, "#dddd22", "median A", 18]);
    if (r.b) marks.push([r.b.mean_ns, "#ff6666", "mean B", 32], [r.b.median_ns, "#ff6666", "median B", 46]);
    for (const [v, color, label, y] of marks) {
      const x = xOf(v);
      if (x < 0 || x > W) continue;
      ctx.fillStyle = color;
      ctx.globalAlpha = label.startsWith("median") ? 0.55 : 0.9;
      ctx.fillRect(Math.round(x), 0, 1, H);
      ctx.globalAlpha = 1;
      ctx.textAlign = x > W - 90 ? "right" : "left";
      ctx.fillText(label, x + (x > W - 90 ? -4 : 4), y);
    }
    ctx.fillStyle = "#6b717c";
    ctx.textAlign = "right";
    ctx.textBaseline = "bottom";
    ctx.fillText((time ? "time per bin" : (this.kind === "frames" ? "frames" : "zones") + " per bin") + (logv ? ", log scale" : "") + (norm ? ", normalized" : "") + " · max " + (time ? fmt.time(max) : fmt.int(Math.floor(max))), W - 6, H - 4);
    const mid = log && lo > 0 ? Math.sqrt(lo * hi) : (lo + hi) / 2;
    axis.replaceChildren(el("span", null, fmt.time(lo)), el("span", null, fmt.time(mid)), el("span", null, fmt.time(hi)));
    this.drawn = { ...drawn, bins: h.bins, max, width: W, height: H };
  }
}

async function boot() {
  let idx;
  try {
    idx = await api.json("");
  } catch (e) {
    $("#boot").textContent = "Could not load the comparison: " + e.message;
    $("#boot").classList.add("error");
    return;
  }
  $("#tab-a-name").textContent = "A · " + idx.a.name;
  $("#tab-b-name").textContent = "B · " + idx.b.name;
  $("#cmp-facts").textContent = idx.a.name + " → " + idx.b.name;
  document.title = idx.a.name + " vs " + idx.b.name + " — gotracy";
  $("#boot").remove();
  const section = $("#view-compare");
  section.hidden = false;
  const view = new CompareView(section);
  const route = () => {
    const h = location.hash.slice(1);
    view.show(new URLSearchParams(h.includes("?") ? h.slice(h.indexOf("?") + 1) : ""));
  };
  window.addEventListener("popstate", route);
  window.addEventListener("hashchange", route);
  if (!location.hash.startsWith("#compare")) history.replaceState(null, "", "#compare");
  route();
}

boot();
