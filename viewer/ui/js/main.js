// The page: loads what every view needs once (trace info, lanes, source
// locations), then routes the URL's hash to a view. Every view keeps its
// state in the hash, so a link reopens exactly what someone was looking at:
//   #timeline?t0=NS&t1=NS[&zone=T:I]   #zone=T:I (GPU: #zone=gC:K:I)
//   #statistics?sort=..&desc=1&filter=..&self=1   #find?srcloc=ID&log=1&sort=duration
//   #messages?filter=..   #frames?frame=N   #info

import * as api from "./api.js";
import { load as loadSched } from "./ctxswitch.js";
import * as fmt from "./fmt.js";
import { Palette } from "./color.js";
import { Timeline } from "./timeline.js";
import { FrameGraph } from "./framegraph.js";
import { ZoneInfo } from "./zoneinfo.js";
import { Statistics } from "./statistics.js";
import { Find } from "./find.js";
import { Messages } from "./messages.js";
import { FrameImages } from "./frames.js";
import { Info } from "./info.js";

const $ = (s) => document.querySelector(s);
const VIEWS = ["timeline", "statistics", "find", "messages", "frames", "info"];

async function boot() {
  let trace, lanes, srclocs, images;
  try {
    [trace, lanes, srclocs, images] = await Promise.all([
      api.json("trace"),
      api.json("lanes"),
      api.json("srclocs"),
      api.json("frameimages").catch(() => []),
    ]);
  } catch (e) {
    $("#boot").textContent = "Could not load the trace: " + e.message;
    $("#boot").classList.add("error");
    return;
  }
  const imgList = (Array.isArray(images) ? images : images.images || []).map((x) => ({ frame: x.frame, image: x.image, w: x.w, h: x.h }));
  const byFrame = new Map(imgList.map((x) => [x.frame, x.image]));
  const store = {
    trace,
    lanes,
    srclocs,
    srclocById: new Map(srclocs.map((s) => [s.id, s])),
    palette: new Palette(srclocs),
    targetNs: 1e9 / 60,
    frameImageOf: (f) => (byFrame.has(f) ? byFrame.get(f) : null),
    frameImages: async () => imgList,
  };
  store.sched = await loadSched(api); // ctxswitch.js: null without scheduling data
  window.__gotracy = { store };

  const name = (trace.file && trace.file.name) || (trace.summary && trace.summary.program) || "trace";
  document.title = name + " — gotracy";
  $("#trace-name").textContent = name;
  const s = trace.summary || {};
  const count = (n, one, many) => fmt.int(n) + " " + (n === 1 ? one : many);
  $("#trace-facts").textContent = [fmt.time(s.time_span_ns ?? lanes.last_time - lanes.first_time), count(s.zones ?? 0, "zone", "zones"), count(s.frames ?? 0, "frame", "frames")].join(" · ");
  $("#boot").remove();
  if (window.__gotracyPerf) window.__gotracyPerf.boot = performance.now();
  else window.__gotracyPerf = { steps: [], fromEvent: [], refined: [], fetches: [], firstDraw: null, draws: 0, dataDraws: 0, boot: performance.now() };

  let hashTimer = null;
  let routing = false;
  const nav = {
    // go moves to a view; replace keeps history clean for typing/filtering.
    go(view, params, replace, zone) {
      let h = "#" + view;
      if (view === "zone") h = "#zone=" + zone;
      else if (params && [...params.keys()].length) h += "?" + params.toString();
      if (replace) history.replaceState(null, "", h);
      else history.pushState(null, "", h);
      route();
    },
  };

  const zoneInfo = new ZoneInfo($("#zone-panel"), store, {
    onJump: (ref, z) => {
      tl.zoomTo(z.start, z.end, 0.15);
      tl.scrollToLane(ref.gpu !== undefined ? "g" + ref.gpu : "c" + ref.thread, z.depth);
    },
    onOpen: (ref) => nav.go("zone", null, false, refString(ref)),
    onFind: (srcloc) => nav.go("find", new URLSearchParams({ srcloc })),
    onClose: () => {
      tl.select(null);
      writeTimelineHash();
    },
  });

  const fg = new FrameGraph($("#framegraph"), store, { onPick: (t0, t1) => tl.zoomTo(t0, t1, 0.02) });
  const selInfo = $("#selection");
  const tl = new Timeline($("#timeline-wrap"), store, {
    onView: (t0, t1) => {
      fg.setView(t0, t1);
      clearTimeout(hashTimer);
      hashTimer = setTimeout(writeTimelineHash, 150);
    },
    onZone: (ref) => {
      // A click keeps the view: the link names both.
      history.pushState(null, "", timelineHash(refString(ref)));
      route();
    },
    onSelect: (sel) => {
      if (!sel) {
        selInfo.hidden = true;
        return;
      }
      selInfo.hidden = false;
      const a = Math.min(sel.t0, sel.t1);
      const b = Math.max(sel.t0, sel.t1);
      selInfo.textContent = `Selection ${fmt.time(b - a)} · ${fmt.time(a - lanes.first_time)} → ${fmt.time(b - lanes.first_time)} · Z to zoom, Esc to clear`;
    },
    onError: (e) => showError(e.message),
    onMessages: (first) => nav.go("messages", new URLSearchParams({ offset: first })),
  });
  fg.setView(tl.t0, tl.t1);
  window.__gotracy.timeline = tl;

  function timelineHash(zone) {
    return "#timeline?t0=" + Math.round(tl.t0) + "&t1=" + Math.round(tl.t1) + (zone ? "&zone=" + zone : "");
  }

  function writeTimelineHash() {
    if (currentView() !== "timeline") return;
    // While a link is being applied, the address is the link's: writing
    // the view's state now could overwrite a newer link that arrived
    // during the load (the newest link must win). Try again after.
    if (routing) {
      clearTimeout(hashTimer);
      hashTimer = setTimeout(writeTimelineHash, 150);
      return;
    }
    history.replaceState(null, "", timelineHash(zoneInfo.ref ? refString(zoneInfo.ref) : null));
  }

  const views = {
    statistics: new Statistics($("#view-statistics"), store, nav),
    find: new Find($("#view-find"), store, nav),
    messages: new Messages($("#view-messages"), store, nav),
    frames: new FrameImages($("#view-frames"), store, nav),
    info: new Info($("#view-info"), store),
  };
  $("#tab-frames").hidden = imgList.length === 0;
  $("#tab-messages").hidden = !lanes.messages;

  function currentView() {
    const h = location.hash.slice(1);
    if (h.startsWith("zone=")) return "timeline";
    const v = h.split("?")[0];
    return VIEWS.includes(v) ? v : "timeline";
  }

  // route applies the hash; a change that arrives while a route is still
  // loading (a zone's info) runs after it, so the newest hash always wins.
  let again = false;
  async function route() {
    // The new address wins over a pending write of the old view's state.
    clearTimeout(hashTimer);
    if (routing) {
      again = true;
      return;
    }
    routing = true;
    try {
      do {
        again = false;
        await routeNow();
      } while (again);
    } finally {
      routing = false;
    }
  }

  async function routeNow() {
    const h = location.hash.slice(1);
    const view = currentView();
    let params = new URLSearchParams(h.includes("?") ? h.slice(h.indexOf("?") + 1) : "");
    let zone = null;
    if (h.startsWith("zone=")) {
      params = new URLSearchParams(h);
      zone = params.get("zone");
    } else if (view === "timeline") zone = params.get("zone");
    for (const v of VIEWS) {
      $("#view-" + v).hidden = v !== view;
      $("#tab-" + v).classList.toggle("on", v === view);
      $("#tab-" + v).setAttribute("aria-selected", v === view ? "true" : "false");
    }
    document.body.dataset.view = view;
    if (view === "timeline") {
      tl.resize();
      if (params.has("t0") && params.has("t1")) {
        const t0 = Number(params.get("t0"));
        const t1 = Number(params.get("t1"));
        if (Number.isFinite(t0) && Number.isFinite(t1) && t1 > t0) tl.setView(t0, t1, true);
      }
      fg.setView(tl.t0, tl.t1);
      if (zone) {
        const ref = parseRef(zone);
        if (!ref) {
          showError("The link names zone " + JSON.stringify(zone) + "; expected THREAD:INDEX or gCONTEXT:TIMELINE:INDEX.");
          return;
        }
        if (!zoneInfo.ref || refString(zoneInfo.ref) !== refString(ref) || $("#zone-panel").hidden) {
          tl.select(ref);
          const z = await zoneInfo.open(ref);
          if (z && !params.has("t0")) {
            tl.zoomTo(z.start, z.end, 0.5);
            tl.scrollToLane(ref.gpu !== undefined ? "g" + ref.gpu : "c" + ref.thread, z.depth);
          }
        }
      } else if (zoneInfo.ref) {
        $("#zone-panel").hidden = true;
        zoneInfo.ref = null;
        tl.select(null);
      }
      tl.canvas.focus({ preventScroll: true });
      return;
    }
    await views[view].show(params);
  }

  window.addEventListener("popstate", route);
  window.addEventListener("hashchange", route);
  const help = $("#help");
  $("#timeline-wrap .hint").addEventListener("click", () => (help.hidden = !help.hidden));
  document.addEventListener("keydown", (e) => {
    if (currentView() !== "timeline" || e.target.closest("input, textarea, select, button")) return;
    if (e.key === "?") {
      help.hidden = !help.hidden;
      return;
    }
    if (e.key === "Escape" && !help.hidden) {
      help.hidden = true;
      return;
    }
    if (e.target !== tl.canvas) tl.onKey(e);
    if (e.key === "Escape" && !$("#zone-panel").hidden && !tl.sel) zoneInfo.close();
  });
  if (!location.hash) {
    tl.fit();
  }
  await route();
}

function refString(ref) {
  return ref.gpu !== undefined ? "g" + ref.gpu + ":" + ref.index : ref.thread + ":" + ref.index;
}

function parseRef(s) {
  let m = /^(\d+):(\d+)$/.exec(s);
  if (m) return { thread: Number(m[1]), index: Number(m[2]) };
  m = /^g(\d+):(\d+):(\d+)$/.exec(s);
  if (m) return { gpu: m[1] + ":" + m[2], index: Number(m[3]) };
  return null;
}

let errTimer;
function showError(msg) {
  const e = $("#toast");
  e.textContent = msg;
  e.hidden = false;
  clearTimeout(errTimer);
  errTimer = setTimeout(() => (e.hidden = true), 6000);
}

boot();
