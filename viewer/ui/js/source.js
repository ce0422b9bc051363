// Source: a file the trace holds (the client sent it), each line with the
// zones whose source location is there and their time, and the call-stack
// samples whose innermost frame is that line (and, inclusive, anywhere in
// the stack). #source?file=NAME&line=N

import * as api from "./api.js";
import * as fmt from "./fmt.js";
import { table } from "./table.js";

const el = fmt.el;

export class Source {
  constructor(section, store, nav) {
    this.store = store;
    this.nav = nav;
    this.fileSel = el("select", { class: "filter wide", "aria-label": "Source file" });
    this.summary = el("span", { class: "dim summary" });
    this.holder = el("div", { class: "table-wrap code-wrap" });
    section.append(el("div", { class: "toolbar" }, el("h1", null, "Source"), this.fileSel, this.summary), this.holder);
    this.fileSel.addEventListener("change", () => this.nav.go("source", new URLSearchParams({ file: this.fileSel.value })));
  }

  async show(params) {
    if (!this.files) {
      try {
        this.files = await api.json("sources");
      } catch (e) {
        this.holder.replaceChildren(el("div", { class: "error" }, e.message));
        return;
      }
    }
    if (!this.files.length) {
      this.holder.replaceChildren(el("div", { class: "empty" }, "This trace holds no source files (Tracy stores the files the client could read when the capture asked for them)."));
      return;
    }
    const file = params.get("file") || this.files[0].file;
    const hl = Number(params.get("line")) || 0;
    this.fileSel.replaceChildren(...this.files.map((f) => el("option", { value: f.file, selected: f.file === file }, f.file)));
    let st, text;
    try {
      [st, text] = await Promise.all([api.json("sourcestats", { file }), fetch(api.url("source", { file })).then((r) => (r.ok ? r.text() : Promise.reject(new Error(r.status + " " + r.statusText))))]);
    } catch (e) {
      this.holder.replaceChildren(el("div", { class: "error" }, e.message));
      return;
    }
    const per = new Map(st.per_line.map((l) => [l.line, l]));
    const lines = text.split("\n");
    if (lines.length && lines[lines.length - 1] === "") lines.pop();
    this.summary.textContent = `${fmt.int(lines.length)} lines · ${fmt.int(st.zones)} zones here (${fmt.time(st.zone_ns)})` + (st.samples ? ` · ${fmt.int(st.samples)} samples` : "");
    const hasSamples = st.per_line.some((l) => l.samples_incl);
    const rows = lines.map((s, i) => {
      const l = per.get(i + 1) || {};
      return { line: i + 1, zones: l.zones || 0, zone_ns: l.zone_ns || 0, samples: l.samples || 0, samples_incl: l.samples_incl || 0, code: s, srclocs: l.srclocs };
    });
    const blank = (f) => (v) => (v ? f(v) : "");
    const cols = [
      { key: "line", label: "Line", num: true, cls: "ln" },
      { key: "zones", label: "Zones", num: true, fmt: blank(fmt.int), title: "zones whose source location is this line" },
      { key: "zone_ns", label: "Zone time", num: true, fmt: blank(fmt.time) },
    ];
    if (hasSamples) cols.push({ key: "samples", label: "Samples", num: true, fmt: blank(fmt.int), title: "samples whose innermost frame is this line" }, { key: "samples_incl", label: "Incl.", num: true, fmt: blank(fmt.int), title: "samples with this line anywhere in the stack" });
    cols.push({ key: "code", label: "", cls: "src", fmt: (v, r) => el("span", { title: r.srclocs ? r.srclocs.map((s) => s.name + ": " + fmt.int(s.count)).join("\n") : null }, v) });
    const tbl = table(cols, rows, { rowClass: (r) => (r.line === hl ? "hit" : r.zones || r.samples ? "hot" : ""), rowData: (r) => ({ line: r.line }) });
    tbl.id = "source-table";
    tbl.classList.add("compact", "source");
    this.holder.replaceChildren(tbl);
    const target = hl ? tbl.querySelector(`tr[data-line="${hl}"]`) : tbl.querySelector("tr.hot");
    if (target) target.scrollIntoView({ block: "center" });
  }
}
