// Messages: the trace's log (time, thread, text), filtered on the server
// and paged; a row jumps to its moment on the timeline.
// #messages?filter=frame&offset=200.

import * as api from "./api.js";
import * as fmt from "./fmt.js";
import { table } from "./table.js";

const el = fmt.el;
const PAGE = 200;

export class Messages {
  constructor(section, store, nav) {
    this.store = store;
    this.nav = nav;
    this.filter = el("input", { type: "search", class: "filter", placeholder: "Filter messages…", "aria-label": "Filter messages" });
    this.summary = el("span", { class: "dim summary" });
    this.holder = el("div", { class: "table-wrap" });
    this.pager = el("div", { class: "pager" });
    section.append(el("div", { class: "toolbar" }, el("h1", null, "Messages"), this.filter, this.summary), this.holder, this.pager);
    let timer;
    this.filter.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        const p = new URLSearchParams();
        if (this.filter.value) p.set("filter", this.filter.value);
        this.nav.go("messages", p, true);
      }, 120);
    });
  }

  async show(params) {
    const filter = params.get("filter") || "";
    const offset = Math.max(0, Number(params.get("offset")) || 0);
    if (document.activeElement !== this.filter) this.filter.value = filter;
    this.ac && this.ac.abort();
    this.ac = new AbortController();
    let a;
    try {
      a = await api.json("messagelist", { filter: filter || null, offset, limit: PAGE }, this.ac.signal);
    } catch (e) {
      if (e.name !== "AbortError") this.holder.replaceChildren(el("div", { class: "error" }, e.message));
      return;
    }
    const rows = a.messages || a.items || (Array.isArray(a) ? a : []);
    const total = a.total ?? rows.length;
    const first = this.store.lanes.first_time;
    const threads = new Map((this.store.lanes.threads || []).map((t) => [t.index, t.name || "thread " + t.id]));
    this.summary.textContent = `${fmt.int(total)} message${total === 1 ? "" : "s"}${filter ? " match" : ""} · ${fmt.int(this.store.lanes.messages)} in the trace`;
    const tbl = table(
      [
        { key: "time", label: "Time", num: true, fmt: (v) => fmt.time(v - first) },
        { key: "thread", label: "Thread", fmt: (v, r) => r.thread_name ?? threads.get(v) ?? String(v ?? "") },
        {
          key: "text",
          label: "Message",
          cls: "msg",
          fmt: (v, r) => {
            const s = el("span", null, v);
            if (r.color) s.style.color = "#" + (r.color & 0xffffff).toString(16).padStart(6, "0");
            return s;
          },
        },
      ],
      rows,
      {
        onRow: (r) => {
          const span = Math.max(2e6, (this.store.lanes.last_time - first) / 200);
          this.nav.go("timeline", new URLSearchParams({ t0: Math.round(r.time - span / 2), t1: Math.round(r.time + span / 2) }));
        },
      },
    );
    tbl.id = "messages-table";
    this.holder.replaceChildren(tbl);
    this.pager.replaceChildren();
    if (total > PAGE) {
      const go = (o) => {
        const p = new URLSearchParams();
        if (filter) p.set("filter", filter);
        if (o) p.set("offset", o);
        this.nav.go("messages", p);
      };
      this.pager.append(
        el("button", { class: "btn", disabled: offset === 0, onclick: () => go(Math.max(0, offset - PAGE)) }, "‹ Previous"),
        el("span", { class: "dim" }, `${fmt.int(offset + 1)}–${fmt.int(Math.min(total, offset + PAGE))} of ${fmt.int(total)}`),
        el("button", { class: "btn", disabled: offset + PAGE >= total, onclick: () => go(offset + PAGE) }, "Next ›"),
      );
    }
  }
}
