// Statistics: one row per source location with the numbers `gotracy csv`
// prints (and `-e` self times), sortable and filterable. State lives in
// the URL: #statistics?sort=total_ns&desc=1&filter=work&self=1.

import * as api from "./api.js";
import * as fmt from "./fmt.js";
import { table, sortRows } from "./table.js";

const el = fmt.el;
const ROWS = 2000;

export class Statistics {
  constructor(section, store, nav) {
    this.section = section;
    this.store = store;
    this.nav = nav;
    this.cache = new Map();
    this.filterInput = el("input", { type: "search", class: "filter", placeholder: "Filter by name or file…", "aria-label": "Filter source locations" });
    this.selfBox = el("input", { type: "checkbox", id: "stats-self" });
    this.summary = el("span", { class: "dim summary" });
    this.holder = el("div", { class: "table-wrap" });
    const bar = el(
      "div",
      { class: "toolbar" },
      el("h1", null, "Statistics"),
      this.filterInput,
      el("label", { class: "check", for: "stats-self", title: "Subtract the time of child zones (csv -e)" }, this.selfBox, " Self times"),
      this.summary,
    );
    section.append(bar, this.holder);
    this.filterInput.addEventListener("input", () => this.update({ filter: this.filterInput.value || null }, true));
    this.selfBox.addEventListener("change", () => this.update({ self: this.selfBox.checked ? 1 : null }));
  }

  update(change, replace) {
    const p = new URLSearchParams(this.params);
    for (const [k, v] of Object.entries(change)) {
      if (v === null || v === undefined) p.delete(k);
      else p.set(k, v);
    }
    this.nav.go("statistics", p, replace);
  }

  async show(params) {
    this.params = params;
    const self = params.get("self") === "1";
    const filter = params.get("filter") || "";
    const sort = params.get("sort") || "total_ns";
    const desc = params.has("desc") ? params.get("desc") === "1" : true;
    this.selfBox.checked = self;
    if (document.activeElement !== this.filterInput) this.filterInput.value = filter;
    let rows = this.cache.get(self);
    if (!rows) {
      this.holder.replaceChildren(el("div", { class: "loading" }, "Computing statistics…"));
      try {
        rows = await api.json("statistics", self ? { self: 1 } : null);
      } catch (e) {
        this.holder.replaceChildren(el("div", { class: "error" }, e.message));
        return;
      }
      for (const r of rows) r.location = fmt.location(r.src_file, r.src_line);
      this.cache.set(self, rows);
    }
    const f = filter.toLowerCase();
    let shown = f ? rows.filter((r) => r.name.toLowerCase().includes(f) || (r.src_file || "").toLowerCase().includes(f)) : rows;
    shown = sortRows(shown, sort, desc);
    const total = rows.reduce((a, r) => a + r.counts, 0);
    this.summary.textContent = `${fmt.int(shown.length)} of ${fmt.int(rows.length)} source locations · ${fmt.int(total)} zones` + (self ? " · every time is a self time (children's time taken out), as csv -e" : "");
    const t = fmt.time;
    const cols = [
      { key: "name", label: "Name", cls: "name" },
      { key: "location", label: "Location", cls: "mono dim" },
      { key: "counts", label: "Count", num: true, fmt: fmt.int },
      { key: "total_ns", label: self ? "Total (self)" : "Total", num: true, fmt: t },
      { key: "total_perc", label: "%", num: true, fmt: (v) => (v === undefined ? "" : v.toFixed(2) + "%"), title: "share of the trace's time" },
      { key: "self_ns", label: "Self", num: true, fmt: t, title: "total minus the time of child zones" },
      { key: "mean_ns", label: "Mean", num: true, fmt: t },
      { key: "median_ns", label: "Median", num: true, fmt: t },
      { key: "min_ns", label: "Min", num: true, fmt: t },
      { key: "max_ns", label: "Max", num: true, fmt: t },
      { key: "std_ns", label: "Std dev", num: true, fmt: t },
    ];
    if (!rows.length || rows[0].self_ns === undefined || self) cols.splice(5, 1);
    if (!rows.length || rows[0].median_ns === undefined) cols.splice(cols.findIndex((c) => c.key === "median_ns"), 1);
    // A DOM of tens of thousands of rows is slow to build and to scroll:
    // the first ROWS, and a button for the rest.
    const all = this.showAll || shown.length <= ROWS;
    const tbl = table(cols, shown, {
      limit: all ? 0 : ROWS,
      sort,
      desc,
      onSort: (key, d) => this.update({ sort: key, desc: d ? 1 : 0 }),
      rowData: (r) => ({ file: r.src_file ?? "", line: r.src_line ?? "" }),
      onRow: (r) => this.nav.go("find", new URLSearchParams({ srcloc: r.srcloc ?? r.id })),
    });
    tbl.id = "stats-table";
    tbl.dataset.self = self ? "1" : "0";
    this.holder.replaceChildren(tbl);
    if (!all) {
      this.holder.append(
        el("div", { class: "more" }, el("button", { class: "btn", onclick: () => ((this.showAll = true), this.show(this.params)) }, `Show all ${fmt.int(shown.length)} rows`), el("span", { class: "dim" }, ` (showing the first ${fmt.int(ROWS)})`)),
      );
    }
  }
}
