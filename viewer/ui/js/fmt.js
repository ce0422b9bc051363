// Formatting shared by every view. Times follow Tracy's GUI: whole
// nanoseconds below a microsecond, then µs, ms and s with two decimals,
// then m:ss.ss and h:mm:ss for long spans.

export function time(ns) {
  if (ns === null || ns === undefined || Number.isNaN(ns)) return "—";
  const neg = ns < 0;
  const a = Math.abs(ns);
  let s;
  if (a < 1e3) s = Math.round(a) + " ns";
  else if (a < 1e6) s = (a / 1e3).toFixed(2) + " µs";
  else if (a < 1e9) s = (a / 1e6).toFixed(2) + " ms";
  else if (a < 60e9) s = (a / 1e9).toFixed(2) + " s";
  else if (a < 3600e9) {
    const m = Math.floor(a / 60e9);
    const sec = (a - m * 60e9) / 1e9;
    s = m + ":" + (sec < 10 ? "0" : "") + sec.toFixed(2);
  } else {
    const h = Math.floor(a / 3600e9);
    const m = Math.floor((a - h * 3600e9) / 60e9);
    const sec = Math.floor((a - h * 3600e9 - m * 60e9) / 1e9);
    s = h + ":" + String(m).padStart(2, "0") + ":" + String(sec).padStart(2, "0");
  }
  return neg ? "-" + s : s;
}

const intFmt = new Intl.NumberFormat("en-US");
export function int(n) {
  return intFmt.format(n);
}

export function percent(p, digits = 2) {
  if (p === null || p === undefined || Number.isNaN(p)) return "—";
  return p.toFixed(digits) + "%";
}

export function bytes(n) {
  const a = Math.abs(n);
  if (a < 1024) return Math.round(n) + " B";
  if (a < 1024 * 1024) return (n / 1024).toFixed(2) + " KB";
  if (a < 1024 * 1024 * 1024) return (n / (1024 * 1024)).toFixed(2) + " MB";
  return (n / (1024 * 1024 * 1024)).toFixed(2) + " GB";
}

// plotValue formats a plot's value by its format (Tracy's PlotFormatType:
// number, memory, percentage).
export function plotValue(v, format) {
  switch (format) {
    case "memory":
    case 1:
      return bytes(v);
    case "percentage":
    case 2:
      return v.toFixed(2) + "%";
    default:
      if (Number.isInteger(v)) return int(v);
      return Math.abs(v) >= 1e6 || (v !== 0 && Math.abs(v) < 1e-3) ? v.toExponential(3) : String(+v.toFixed(4));
  }
}

const esc = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export function html(s) {
  return String(s ?? "").replace(/[&<>"']/g, (c) => esc[c]);
}

// el builds a DOM element: el("td", {class: "num", dataset: {v: 1}}, "text", child).
export function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "class") e.className = v;
      else if (k === "dataset") Object.assign(e.dataset, v);
      else if (k === "style" && typeof v === "object") Object.assign(e.style, v);
      else if (k.startsWith("on") && typeof v === "function") e.addEventListener(k.slice(2), v);
      else if (k === "text") e.textContent = v;
      else e.setAttribute(k, v === true ? "" : v);
    }
  }
  for (const k of kids) {
    if (k === null || k === undefined || k === false) continue;
    e.append(k instanceof Node ? k : String(k));
  }
  return e;
}

export function location(file, line) {
  if (!file) return "";
  return line ? file + ":" + line : file;
}
