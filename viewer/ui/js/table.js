// A sortable HTML table: real <table> rows in the DOM (find-in-page,
// copy and paste, and tests read them), built in one pass.

import { el } from "./fmt.js";

// cols: [{key, label, num, fmt(v, row), title, cls}]. Each cell carries
// its raw value in data-v, so what a cell shows (1.23 ms) never hides what
// it is (1234567).
export function table(cols, rows, { sort, desc, onSort, onRow, rowClass, rowData, limit } = {}) {
  const head = el("tr");
  for (const c of cols) {
    const th = el("th", { class: (c.num ? "num " : "") + (c.key === sort ? "sorted " + (desc ? "desc" : "asc") : ""), title: c.title || null, dataset: { key: c.key } }, c.label);
    if (onSort && c.sortable !== false) {
      th.classList.add("sortable");
      th.addEventListener("click", () => onSort(c.key, c.key === sort ? !desc : c.num ? true : false));
    }
    head.append(th);
  }
  const body = el("tbody");
  const n = limit ? Math.min(limit, rows.length) : rows.length;
  const frag = document.createDocumentFragment();
  for (let i = 0; i < n; i++) {
    const r = rows[i];
    const tr = document.createElement("tr");
    if (rowClass) tr.className = rowClass(r);
    if (rowData) Object.assign(tr.dataset, rowData(r));
    for (const c of cols) {
      const td = document.createElement("td");
      const v = typeof c.value === "function" ? c.value(r) : r[c.key];
      if (c.num) td.className = "num";
      if (c.cls) td.className += " " + c.cls;
      if (v !== undefined && v !== null) td.dataset.v = v;
      const shown = c.fmt ? c.fmt(v, r) : v;
      if (shown instanceof Node) td.append(shown);
      else td.textContent = shown ?? "";
      tr.append(td);
    }
    if (onRow) {
      tr.classList.add("link");
      tr.addEventListener("click", () => onRow(r));
    }
    frag.append(tr);
  }
  body.append(frag);
  return el("table", { class: "grid" }, el("thead", null, head), body);
}

export function sortRows(rows, key, desc) {
  const out = rows.slice();
  out.sort((a, b) => {
    const x = a[key];
    const y = b[key];
    let c;
    if (typeof x === "number" && typeof y === "number") c = x - y;
    else c = String(x ?? "").localeCompare(String(y ?? ""));
    return desc ? -c : c;
  });
  return out;
}
