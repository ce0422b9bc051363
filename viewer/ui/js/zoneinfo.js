// Zone info: the side panel a click on a zone opens (Tracy's "Zone info"
// window): what the zone is, where it runs, how its time splits between
// itself and its children, its annotations, call stack and source.

import * as api from "./api.js";
import * as fmt from "./fmt.js";
import { css } from "./color.js";

const el = fmt.el;

export class ZoneInfo {
  constructor(panel, store, hooks) {
    this.panel = panel;
    this.store = store;
    this.hooks = hooks; // {onJump(ref, zone), onFind(srcloc), onClose()}
    this.body = panel.querySelector(".panel-body");
    panel.querySelector(".panel-close").addEventListener("click", () => this.close());
    this.ref = null;
  }

  close() {
    this.panel.hidden = true;
    this.ref = null;
    this.ac && this.ac.abort();
    this.hooks.onClose && this.hooks.onClose();
  }

  async open(ref) {
    this.ref = ref;
    this.panel.hidden = false;
    this.ac && this.ac.abort();
    this.ac = new AbortController();
    const params = ref.gpu !== undefined ? { gpu: ref.gpu, index: ref.index } : { thread: ref.thread, index: ref.index };
    this.body.replaceChildren(el("div", { class: "loading" }, "Loading zone…"));
    let z;
    try {
      z = await api.json("zone", params, this.ac.signal);
    } catch (e) {
      if (e.name === "AbortError") return null;
      this.body.replaceChildren(el("div", { class: "error" }, e.message));
      return null;
    }
    this.zone = z;
    this.render(z, ref);
    return z;
  }

  render(z, ref) {
    const first = this.store.lanes.first_time;
    const dur = z.duration ?? z.end - z.start;
    const self = z.self_ns ?? z.self;
    const thread = z.thread || {};
    const color = z.color ? css(z.color) : css(this.store.palette.zone(z.srcloc, 0, 0));
    const kids = [];
    kids.push(
      el(
        "div",
        { class: "zone-title" },
        el("span", { class: "swatch", style: { background: color } }),
        el("h2", { class: "zone-name", text: z.name || z.function || "?" }),
      ),
    );
    if (z.function && z.function !== z.name) kids.push(el("div", { class: "zone-fn mono", text: z.function }));
    const loc = fmt.location(z.file, z.line);
    if (loc) kids.push(el("div", { class: "zone-loc mono dim", text: loc }));
    const kv = el("dl", { class: "kv" });
    const add = (k, v, attrs) => {
      kv.append(el("dt", null, k), el("dd", attrs || null, v));
    };
    if (ref.gpu !== undefined) {
      const [c, k] = ref.gpu.split(":");
      const ctx = (this.store.lanes.gpu || []).find((g) => String(g.context) === c && String(g.timeline) === k);
      add("GPU", (ctx ? (ctx.name || ctx.type) + " · " + ctx.type : "context " + c) + ", timeline " + k);
      if (typeof z.thread === "number") add("Issued by", threadName(this.store, z.thread));
      if (z.cpu_start !== undefined) add("CPU time", fmt.time(z.cpu_start - first) + " → " + fmt.time(z.cpu_end - first) + " (" + fmt.time(z.cpu_end - z.cpu_start) + ")", { class: "num" });
    } else add("Thread", (thread.name || "thread") + (thread.id !== undefined ? " (" + thread.id + ")" : ""));
    add(ref.gpu !== undefined ? "GPU start" : "Start", fmt.time(z.start - first), { class: "num" });
    add("Duration", fmt.time(dur), { class: "num zone-duration", dataset: { ns: dur } });
    if (self !== undefined) add("Self time", fmt.time(self) + (dur > 0 ? "  (" + fmt.percent((100 * self) / dur) + ")" : ""), { class: "num", dataset: { ns: self } });
    const share = z.share_of_parent;
    if (share !== undefined && share !== null && z.parent) add("Share of parent", fmt.percent(share * 100), { class: "num" });
    if (z.depth !== undefined) add("Depth", String(z.depth));
    if (z.unended) add("State", "never ended", { class: "warn" });
    if (z.text) add("Text", el("pre", { class: "zone-text", text: z.text }));
    if (z.value !== undefined && z.value !== null) add("Value", fmt.int(z.value) + "  [0x" + BigInt.asUintN(64, BigInt(z.value)).toString(16) + "]", { class: "num" });
    kids.push(kv);

    const actions = el("div", { class: "actions" });
    actions.append(el("button", { class: "btn", onclick: () => this.hooks.onJump(ref, z) }, "Zoom to zone"));
    if (z.parent) actions.append(el("button", { class: "btn", onclick: () => this.hooks.onOpen({ ...ref, thread: z.parent.thread ?? ref.thread, index: z.parent.index }) }, "Parent"));
    if (z.srcloc !== undefined) actions.append(el("button", { class: "btn", onclick: () => this.hooks.onFind(z.srcloc) }, "Find zone"));
    kids.push(actions);

    const items = z.children || [];
    const total = z.child_count ?? items.length;
    if (total > 0 && !items.length) kids.push(el("h3", null, "Children ", el("span", { class: "count" }, fmt.int(total))));
    if (items.length > 0) {
      const tb = el("tbody");
      for (const c of items) {
        const cd = c.duration ?? c.end - c.start;
        tb.append(
          el(
            "tr",
            { class: "link", onclick: () => this.hooks.onOpen({ ...ref, thread: c.thread ?? ref.thread, index: c.index }) },
            el("td", null, c.name),
            el("td", { class: "num" }, fmt.time(cd)),
            el("td", { class: "num dim" }, dur > 0 ? fmt.percent((100 * cd) / dur) : ""),
          ),
        );
      }
      kids.push(
        el("h3", null, "Children ", el("span", { class: "count" }, fmt.int(total))),
        el("table", { class: "grid compact" }, el("thead", null, el("tr", null, el("th", null, "Zone"), el("th", { class: "num" }, "Time"), el("th", { class: "num" }, "% of zone"))), tb),
      );
      if (total > items.length) kids.push(el("div", { class: "dim small" }, "showing the first " + fmt.int(items.length) + " of " + fmt.int(total)));
    }

    const frames = z.frames || [];
    if (frames.length) {
      const tb = el("tbody");
      let n = 0;
      for (const f of frames) {
        const inl = f.inlines && f.inlines.length ? f.inlines : [{ name: "0x" + (f.addr || 0).toString(16) }];
        inl.forEach((x, j) => {
          tb.append(
            el(
              "tr",
              { class: j > 0 || (inl.length > 1 && j < inl.length - 1) ? "inline" : "" },
              el("td", { class: "num dim" }, j === 0 ? String(n) : ""),
              el("td", { class: "mono" }, (j < inl.length - 1 ? "[inline] " : "") + (x.name || "?")),
              el("td", { class: "mono dim" }, fmt.location(x.file, x.line)),
              el("td", { class: "dim" }, f.image || x.image || ""),
            ),
          );
        });
        n++;
      }
      kids.push(el("h3", null, "Call stack ", el("span", { class: "count" }, fmt.int(frames.length))), el("table", { class: "grid compact callstack" }, tb));
    }
    const src = el("div", { class: "source" });
    kids.push(src);
    this.body.replaceChildren(...kids);
    if (z.file) this.loadSource(z.file, z.line, src);
  }

  async loadSource(file, line, into) {
    let text;
    try {
      const res = await fetch(api.url("source", { file }), { signal: this.ac.signal });
      if (!res.ok) return; // the trace does not hold this file
      const ct = res.headers.get("content-type") || "";
      if (ct.includes("json")) {
        const j = await res.json();
        text = j.text ?? j.data ?? (Array.isArray(j.lines) ? j.lines.join("\n") : "");
      } else text = await res.text();
    } catch (_) {
      return;
    }
    const lines = text.split("\n");
    const lo = Math.max(1, line - 8);
    const hi = Math.min(lines.length, line + 8);
    const pre = el("div", { class: "code" });
    for (let i = lo; i <= hi; i++) {
      pre.append(el("div", { class: i === line ? "line hit" : "line" }, el("span", { class: "ln" }, String(i)), el("span", { class: "lc" }, lines[i - 1] || " ")));
    }
    into.replaceChildren(el("h3", null, "Source ", el("span", { class: "count mono" }, file)), pre);
  }
}

function threadName(store, id) {
  const t = (store.lanes.threads || []).find((x) => x.id === id);
  return t && t.name ? t.name + " (" + id + ")" : "thread " + id;
}
