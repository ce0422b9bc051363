// The page: loads what every view needs once (trace info, lanes, source
// locations), then routes the URL's hash to a view. Every view keeps its
// state in the hash, so a link reopens exactly what someone was looking at:
//   #timeline?t0=NS&t1=NS[&zone=T:I]   #zone=T:I (GPU: #zone=gC:K:I)
//   #statistics?sort=..&desc=1&filter=..&self=1   #find?srcloc=ID&log=1&sort=duration
//   #messages?filter=..   #frames?frame=N   #info
//   #memory?pool=&filter=&t=&view=&sort=   #flame?kind=&t0=&t1=&root=   #locks?lock=N   #source?file=

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
import { Memory } from "./memory.js";
import { Flame } from "./flame.js";
import { Locks } from "./locks.js";
import { Source } from "./source.js";
import * as live from "./live.js";

const $ = (s) => document.querySelector(s);
const VIEWS = ["timeline", "statistics", "find", "messages", "frames", "memory", "flame", "locks", "source", "info"];

function loadAll() {
  return Promise.all([api.json("trace"), api.json("lanes"), api.json("srclocs"), api.json("frameimages").catch(() => [])]);
}

async function boot() {
  // A live server (view -a) answers /api/v1/live; before its client
  // connects there is no trace to load yet.
  let liveState = await live.probe();
  if (liveState && !liveState.served) {
    liveState = await live.waitForTrace(liveState, (st) => ($("#boot").textContent = "Waiting for the client to connect… (" + (st.status || "connecting") + ")"));
  }
  let trace, lanes, srclocs, images;
  try {
    [trace, lanes, srclocs, images] = await loadAll();
  } catch (e) {
    $("#boot").textContent = "Could not load the trace: " + e.message;
    $("#boot").classList.add("error");
    return;
  }
  const imagesOf = (images) => (Array.isArray(images) ? images : images.images || []).map((x) => ({ frame: x.frame, image: x.image, w: x.w, h: x.h }));
  let imgList = imagesOf(images);
  let byFrame = new Map(imgList.map((x) => [x.frame, x.image]));
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

  function showFacts() {
    const trace = store.trace;
    const lanes = store.lanes;
    const name = (trace.file && trace.file.name) || (trace.summary && trace.summary.program) || "trace";
    document.title = name + (liveCtl && !liveCtl.final ? " (live)" : "") + " — gotracy";
    $("#trace-name").textContent = name;
    let s = trace.summary || {};
    if (liveCtl) {
      // Live: the lanes are newer than the summary (fetched less often).
      const base = (lanes.frame_sets || []).find((f) => f.index === 0);
      s = { time_span_ns: lanes.last_time - lanes.first_time, zones: (lanes.threads || []).reduce((n, th) => n + (th.zones || 0), 0), frames: base ? base.count : s.frames };
    }
    const count = (n, one, many) => fmt.int(n) + " " + (n === 1 ? one : many);
    $("#trace-facts").textContent = [fmt.time(s.time_span_ns ?? lanes.last_time - lanes.first_time), count(s.zones ?? 0, "zone", "zones"), count(s.frames ?? 0, "frame", "frames")].join(" · ");
  }
  let liveCtl = null;
  showFacts();
  $("#boot").remove();
  compareLink($("#trace-name").textContent);
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
      if (liveCtl) liveCtl.userView(t0, t1);
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
      selInfo.textContent = `Selection ${fmt.time(b - a)} · ${fmt.time(a - lanes.first_time)} → ${fmt.time(b - lanes.first_time)} · Z to zoom, F flame graph, M allocations, Esc to clear`;
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
    memory: new Memory($("#view-memory"), store, nav),
    flame: new Flame($("#view-flame"), store, nav),
    locks: new Locks($("#view-locks"), store, nav),
    source: new Source($("#view-source"), store, nav),
  };
  $("#tab-locks").hidden = !(lanes.locks && lanes.locks.length);
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
        if (Number.isFinite(t0) && Number.isFinite(t1) && t1 > t0) {
          tl.setView(t0, t1, true);
          if (liveCtl) liveCtl.userView(tl.t0, tl.t1);
        }
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
    // F / M: the flame graph / the allocations of the measured range.
    const k = e.key.toLowerCase();
    if ((k === "f" || k === "m") && tl.sel && tl.sel.t0 !== tl.sel.t1 && !e.ctrlKey && !e.metaKey && !e.altKey) {
      const a = Math.round(Math.min(tl.sel.t0, tl.sel.t1));
      const b = Math.round(Math.max(tl.sel.t0, tl.sel.t1));
      nav.go(k === "f" ? "flame" : "memory", new URLSearchParams(k === "f" ? { t0: a, t1: b } : { filter: "range", t0: a, t1: b }));
      return;
    }
    if (e.target !== tl.canvas) tl.onKey(e);
    if (e.key === "Escape" && !$("#zone-panel").hidden && !tl.sel) zoneInfo.close();
  });
  if (!location.hash) {
    tl.fit();
  }
  if (liveState) {
    // Live: reload the shared data whenever a newer trace is served; the
    // views other than the timeline refresh at most every 2 s.
    let lastViewRefresh = 0;
    let viewTimer = null;
    // refreshView re-shows a table view with the newer trace, at most every
    // 2 s; an update inside that time is shown when it is over, so the
    // last one (the final trace) is never skipped.
    function refreshView() {
      if (currentView() === "timeline" || currentView() === "frames") return;
      const wait = lastViewRefresh + 2000 - performance.now();
      if (wait > 0 || routing) {
        clearTimeout(viewTimer);
        viewTimer = setTimeout(refreshView, Math.max(wait, 100));
        return;
      }
      lastViewRefresh = performance.now();
      route();
    }
    // The trace's summary is a pass over every zone on the server: asked
    // for when the Info view shows it, else at most every 5 s.
    let lastTrace = performance.now();
    liveCtl = new live.Live(
      store,
      { badge: $("#live"), status: $("#live-status"), follow: $("#live-follow"), save: $("#live-save") },
      {
        timeline: tl,
        framegraph: fg,
        onError: showError,
        onSaved: (msg) => showError(msg, true),
        reload: async () => {
          const wantTrace = currentView() === "info" || performance.now() - lastTrace > 5000;
          const [t, l, s, im] = await Promise.all([
            wantTrace ? api.json("trace") : Promise.resolve(store.trace),
            api.json("lanes"),
            api.json("srclocs"),
            api.json("frameimages").catch(() => []),
          ]);
          if (wantTrace) lastTrace = performance.now();
          store.trace = t;
          store.lanes = l;
          store.srclocs = s;
          store.srclocById = new Map(s.map((x) => [x.id, x]));
          store.palette = new Palette(s);
          imgList = imagesOf(im);
          byFrame = new Map(imgList.map((x) => [x.frame, x.image]));
          $("#tab-frames").hidden = imgList.length === 0;
          $("#tab-messages").hidden = !l.messages;
          showFacts();
        },
        onUpdate: () => {
          for (const v of Object.values(views)) {
            if (v.cache) v.cache.clear();
            if ("stats" in v) v.stats = null;
          }
          refreshView();
        },
      },
    );
    window.__gotracy.live = liveCtl;
    liveCtl.start(liveState);
  }
  await route();
}

// Under `gotracy view A.tracy B.tracy` each trace's page lives at a/ or
// b/ beside the comparison (viewer/ui/js/compare.js): say which trace this
// is and link back.
async function compareLink(name) {
  const m = /\/([ab])\/$/.exec(location.pathname);
  if (!m) return;
  try {
    const res = await fetch("../api/v1/");
    const idx = res.ok ? await res.json() : null;
    if (!idx || !(idx.endpoints || []).includes("compare")) return;
  } catch (_) {
    return;
  }
  $("#trace-name").textContent = m[1].toUpperCase() + " · " + name;
  const a = document.createElement("a");
  a.id = "tab-compare";
  a.href = "../#compare";
  a.textContent = "⇄ Compare";
  a.title = "Back to the comparison of both traces";
  $(".tabs").prepend(a);
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
function showError(msg, note) {
  const e = $("#toast");
  e.textContent = msg;
  e.classList.toggle("note", !!note);
  e.hidden = false;
  clearTimeout(errTimer);
  errTimer = setTimeout(() => (e.hidden = true), 6000);
}

boot();
