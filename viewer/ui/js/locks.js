// Locks: per lock its acquisitions, time held and waited, the contended
// share of the held time (held while another thread waited), the threads
// involved and the worst waits, each a link to its moment on the
// timeline. #locks?lock=N

import * as api from "./api.js";
import * as fmt from "./fmt.js";
import { table, sortRows } from "./table.js";

const el = fmt.el;

export class Locks {
  constructor(section, store, nav) {
    this.store = store;
    this.nav = nav;
    this.summary = el("span", { class: "dim summary" });
    this.holder = el("div", { class: "table-wrap" });
    this.detail = el("div", { class: "lock-detail" });
    section.append(el("div", { class: "toolbar" }, el("h1", null, "Locks"), this.summary), this.holder, this.detail);
  }

  async show(params) {
    if (!this.rows) {
      try {
        this.rows = await api.json("lockstats");
      } catch (e) {
        this.holder.replaceChildren(el("div", { class: "error" }, e.message));
        return;
      }
    }
    const rows = this.rows;
    if (!rows.length) {
      this.holder.replaceChildren(el("div", { class: "empty" }, "This trace holds no locks (TracyLockable / TracySharedLockable)."));
      return;
    }
    const sel = params.has("lock") ? Number(params.get("lock")) : rows.length === 1 ? 0 : -1;
    const sort = params.get("sort") || "wait_ns";
    const desc = params.has("desc") ? params.get("desc") === "1" : true;
    this.summary.textContent = `${fmt.int(rows.length)} lock${rows.length === 1 ? "" : "s"} · ${fmt.int(rows.reduce((a, r) => a + r.acquisitions, 0))} acquisitions`;
    const tbl = table(
      [
        { key: "name", label: "Lock", cls: "name" },
        { key: "location", label: "Location", cls: "mono dim", value: (r) => fmt.location(r.file, r.line) },
        { key: "acquisitions", label: "Acquisitions", num: true, fmt: fmt.int },
        { key: "held_ns", label: "Held", num: true, fmt: fmt.time, title: "time threads held it, summed over threads" },
        { key: "wait_ns", label: "Waited", num: true, fmt: fmt.time, title: "time threads waited to get it" },
        { key: "contended", label: "Contended", num: true, fmt: (v) => (100 * v).toFixed(2) + "%", title: "share of the held time during which another thread waited" },
        { key: "max_wait_ns", label: "Longest wait", num: true, fmt: fmt.time },
        { key: "nthreads", label: "Threads", num: true, value: (r) => r.threads.length },
      ],
      sortRows(rows.map((r) => ({ ...r, nthreads: r.threads.length })), sort, desc),
      {
        sort,
        desc,
        onSort: (key, d) => this.nav.go("locks", new URLSearchParams({ ...(sel >= 0 ? { lock: sel } : {}), sort: key, desc: d ? 1 : 0 }), true),
        rowClass: (r) => (r.lock === sel ? "on" : ""),
        rowData: (r) => ({ lock: r.lock }),
        onRow: (r) => this.nav.go("locks", new URLSearchParams({ lock: r.lock, sort, desc: desc ? 1 : 0 })),
      },
    );
    tbl.id = "locks-table";
    this.holder.replaceChildren(tbl);
    this.detail.replaceChildren();
    const l = rows.find((r) => r.lock === sel);
    if (!l) return;
    const first = this.store.lanes.first_time;
    const th = table(
      [
        { key: "name", label: "Thread", fmt: (v, r) => v || "thread " + r.thread_id },
        { key: "acquisitions", label: "Acquisitions", num: true, fmt: fmt.int },
        { key: "held_ns", label: "Held", num: true, fmt: fmt.time },
        { key: "wait_ns", label: "Waited", num: true, fmt: fmt.time },
        { key: "contended_ns", label: "Held while others waited", num: true, fmt: fmt.time },
      ],
      l.threads,
    );
    th.id = "lock-threads";
    const names = new Map(l.threads.map((t) => [t.thread_id, t.name || "thread " + t.thread_id]));
    const wt = table(
      [
        { key: "duration", label: "Wait", num: true, fmt: fmt.time },
        { key: "thread_id", label: "Thread", fmt: (v) => names.get(v) || String(v) },
        { key: "start", label: "From", num: true, fmt: (v) => fmt.time(v - first) },
        { key: "end", label: "Got it at", num: true, fmt: (v) => fmt.time(v - first) },
      ],
      l.worst,
      {
        rowData: (r) => ({ start: r.start, end: r.end }),
        onRow: (r) => {
          const pad = Math.max((r.end - r.start) * 2, 20000);
          this.nav.go("timeline", new URLSearchParams({ t0: Math.round(r.start - pad), t1: Math.round(r.end + pad) }));
        },
      },
    );
    wt.id = "lock-worst";
    this.detail.append(el("h3", null, l.name, el("span", { class: "count" }, `${fmt.int(l.waits)} waits`)), th, el("h3", null, "Worst waits", el("span", { class: "count" }, "click one to see it on the timeline")), wt);
  }
}
