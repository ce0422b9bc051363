// Trace info: what `gotracy info` prints, as tables.

import * as fmt from "./fmt.js";

const el = fmt.el;

export class Info {
  constructor(section, store) {
    this.section = section;
    this.store = store;
  }

  show() {
    if (this.done) return;
    this.done = true;
    const r = this.store.trace;
    const s = r.summary || {};
    const f = r.file || {};
    const t = fmt.time;
    const i = (v) => (v === undefined ? "—" : fmt.int(v));
    const group = (title, rows) => {
      const dl = el("dl", { class: "kv" });
      for (const [k, v] of rows) if (v !== undefined && v !== null && v !== "") dl.append(el("dt", null, k), el("dd", null, v));
      return el("section", { class: "card" }, el("h3", null, title), dl);
    };
    const cards = [
      group("Capture", [
        ["Program", s.program],
        ["Capture name", s.capture_name],
        ["Captured", s.capture_time_unix ? new Date(s.capture_time_unix * 1000).toISOString().replace("T", " ").replace(".000Z", " UTC") : undefined],
        ["PID", s.pid],
        ["On demand", s.on_demand ? "yes" : "no"],
        ["Time span", t(s.time_span_ns)],
        ["Timer resolution", t(s.timer_resolution_ns)],
        ["Crashed", s.crashed ? "yes" : undefined],
      ]),
      group("File", [
        ["Name", f.name],
        ["Format", f.version ? "Tracy " + f.version : undefined],
        ["Compression", f.compression ? f.compression + (f.streams ? ", " + f.streams + " streams" : "") : undefined],
        ["Size", f.file_bytes ? fmt.bytes(f.file_bytes) + " (" + fmt.bytes(f.payload_bytes) + " decompressed)" : undefined],
        ["Loaded in", r.load && r.load.seconds ? (r.load.seconds * 1000).toFixed(0) + " ms" : undefined],
      ]),
      group("Host", [
        ["CPU", s.cpu_manufacturer ? s.cpu_manufacturer + " · " + s.cpu_arch + (s.cpu_id ? " · id 0x" + s.cpu_id.toString(16) : "") : s.cpu_arch],
        ["Host info", s.host_info ? el("pre", { class: "pre" }, s.host_info.trim()) : undefined],
      ]),
      group("Contents", [
        ["Threads", i(s.threads) + (s.fibers ? " (" + i(s.fibers) + " fibers)" : "")],
        ["Zones", i(s.zones) + (s.zones_unended ? " · " + i(s.zones_unended) + " never ended" : "")],
        ["Deepest nesting", i(s.max_zone_depth)],
        ["Source locations", i(s.source_locations) + (s.dynamic_source_locations ? " (" + i(s.dynamic_source_locations) + " dynamic)" : "")],
        ["GPU", s.gpu_contexts ? i(s.gpu_contexts) + " contexts · " + i(s.gpu_zones) + " zones" : "none"],
        ["Frames", i(s.frames) + " · " + i(s.frame_images) + " images"],
        ["Messages", i(s.messages)],
        ["Plot points", i(s.plot_points)],
        ["Memory events", i(s.memory_events) + " · " + i(s.memory_frees) + " frees"],
        ["Locks", i(s.locks) + " · " + i(s.lock_events) + " events"],
        ["Call stacks", i(s.call_stacks) + " · " + i(s.call_stack_frames_resolved) + " frames resolved"],
        ["Symbols", i(s.symbols) + " · " + i(s.inline_symbols) + " inline"],
        ["Source files", i(s.source_files_cached)],
        ["Samples", i(s.samples)],
        ["Context switches", i(s.context_switches)],
      ]),
    ];
    const lists = [];
    if (s.frame_sets && s.frame_sets.length) {
      lists.push(listCard("Frame sets", ["Name", "Frames", "Kind"], s.frame_sets.map((x) => [x.name, i(x.frames), x.continuous ? "continuous" : "discontinuous"])));
    }
    if (s.plots && s.plots.length) lists.push(listCard("Plots", ["Name", "Type", "Points"], s.plots.map((x) => [x.name, x.type, i(x.points)])));
    if (s.memory_pools && s.memory_pools.length) lists.push(listCard("Memory pools", ["Name", "Events", "Frees", "Active"], s.memory_pools.map((x) => [x.name, i(x.events), i(x.frees), i(x.active)])));
    this.section.replaceChildren(el("div", { class: "toolbar" }, el("h1", null, "Trace info")), el("div", { class: "cards" }, ...cards, ...lists));
  }
}

function listCard(title, head, rows) {
  const tb = el("tbody");
  for (const r of rows) tb.append(el("tr", null, ...r.map((v, j) => el("td", { class: j > 0 && /^[\d,]+$/.test(String(v)) ? "num" : "" }, v))));
  return el("section", { class: "card" }, el("h3", null, title), el("table", { class: "grid compact" }, el("thead", null, el("tr", null, ...head.map((h, j) => el("th", { class: j > 0 && h !== "Type" && h !== "Kind" ? "num" : "" }, h)))), tb));
}
