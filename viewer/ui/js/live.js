// Live viewing (gotracy view -a, capture --http, demo --view): the trace
// grows while the page is open. This module polls GET /api/v1/live; when a
// newer trace is served it reloads what every view needs (lanes, source
// locations, trace info, frame images) into the shared store and lets the
// views redraw. The timeline follows the newest data until the user moves
// away from its end (pan, zoom elsewhere, a link); F, End or the Follow
// button resume. Save writes the .tracy on the server (POST /api/v1/save).

import * as api from "./api.js";
import * as fmt from "./fmt.js";

const POLL_MS = 250;
// While following from the start of the trace, the view widens with it up
// to this span, then slides.
const FOLLOW_SPAN_NS = 10e9;

// probe says whether the server is live: /api/v1/live answers 404 for a
// file.
export async function probe() {
  try {
    return await api.json("live");
  } catch (e) {
    return null;
  }
}

// waitForTrace shows the waiting state until a trace is served.
export async function waitForTrace(state, show) {
  while (!state.served) {
    show(state);
    await new Promise((r) => setTimeout(r, POLL_MS));
    state = (await probe()) || state;
  }
  return state;
}

export class Live {
  constructor(store, ui, hooks) {
    this.store = store;
    this.ui = ui; // {badge, status, follow, save}
    this.hooks = hooks; // {reload(): Promise, timeline, framegraph, onError, onSaved}
    this.following = true;
    this.served = 0;
    this.final = false;
    this.busy = false;
    ui.badge.hidden = false;
    // The buttons give the keyboard back to the timeline at once (its keys
    // ignore events aimed at a button).
    const back = () => this.hooks.timeline.canvas.focus({ preventScroll: true });
    ui.follow.addEventListener("click", () => {
      this.setFollowing(!this.following);
      back();
    });
    ui.save.addEventListener("click", () => {
      this.save();
      back();
    });
    document.addEventListener("keydown", (e) => {
      if (e.ctrlKey || e.metaKey || e.altKey || e.target.closest("input, textarea, select")) return;
      if (e.key === "f" || e.key === "F" || e.key === "End") {
        if (document.body.dataset.view !== "timeline") return;
        this.setFollowing(true);
        e.preventDefault();
      }
    });
    this.render({});
  }

  start(state) {
    this.served = state.served;
    this.final = state.final;
    this.render(state);
    if (this.following) this.followNow();
    this.timer = setInterval(() => this.poll(), POLL_MS);
  }

  async poll() {
    if (this.busy) return;
    this.busy = true;
    try {
      const st = await api.json("live");
      this.render(st);
      if (st.served !== this.served) {
        this.served = st.served;
        await this.hooks.reload();
        this.hooks.timeline.liveUpdate();
        if (this.following) this.followNow();
        this.hooks.framegraph.liveUpdate(this.hooks.timeline.t0, this.hooks.timeline.t1);
        this.hooks.onUpdate && this.hooks.onUpdate(st);
      }
      if (st.final && st.served === st.gen) {
        this.final = true;
        clearInterval(this.timer);
        this.render(st);
      }
    } catch (e) {
      this.ui.status.textContent = "server unreachable: " + e.message;
      this.ui.badge.classList.add("lost");
    } finally {
      this.busy = false;
    }
  }

  // userView is called for every move the user makes: a view that does
  // not reach the end of the trace pauses following.
  userView(t0, t1) {
    if (this.moving) return;
    const tl = this.hooks.timeline;
    const span = t1 - t0;
    if (this.following && t1 < tl.last - span * 0.02) this.setFollowing(false);
  }

  setFollowing(on) {
    this.following = on;
    this.renderFollow();
    if (on) this.followNow();
  }

  // followNow shows the newest data: from the start while the trace is
  // short or the user asked for all of it, else the same span ending at
  // the newest time.
  followNow() {
    const tl = this.hooks.timeline;
    const span = tl.t1 - tl.t0;
    const whole = tl.last - tl.first;
    let t0;
    let t1;
    if (tl.t0 <= tl.first + span * 0.02 && whole * 1.02 <= Math.max(span, FOLLOW_SPAN_NS)) {
      t0 = tl.first - whole * 0.01;
      t1 = tl.last + whole * 0.01;
    } else {
      const s = Math.min(span, Math.max(FOLLOW_SPAN_NS, span));
      t1 = tl.last + s * 0.02;
      t0 = t1 - s;
    }
    this.moving = true;
    try {
      tl.setView(t0, t1, true);
    } finally {
      this.moving = false;
    }
    this.hooks.framegraph.setView(tl.t0, tl.t1);
  }

  async save() {
    this.ui.save.disabled = true;
    try {
      const res = await fetch(api.url("save"), { method: "POST", headers: { "X-Gotracy-Save": "1" } });
      const body = await res.json();
      if (!res.ok) throw new Error(body.error || res.statusText);
      this.hooks.onSaved("Saved " + body.path + " (" + fmt.int(body.zones) + " zones)");
    } catch (e) {
      this.hooks.onError("Save failed: " + e.message);
    } finally {
      this.ui.save.disabled = false;
    }
  }

  render(st) {
    const b = this.ui.badge;
    b.classList.toggle("ended", !!st.final);
    b.classList.remove("lost");
    const words = st.final ? st.status || "capture ended" : "live · " + fmt.int(st.zones || 0) + " zones";
    this.ui.status.textContent = words;
    this.ui.status.title = (st.status || "") + (st.age_ms !== undefined ? " · data " + st.age_ms + " ms old" : "");
    this.ui.save.hidden = !st.can_save;
    // A finished trace no longer grows: nothing to follow.
    this.ui.follow.hidden = !!st.final;
    this.renderFollow();
  }

  renderFollow() {
    const f = this.ui.follow;
    f.classList.toggle("on", this.following);
    f.setAttribute("aria-pressed", this.following ? "true" : "false");
    f.textContent = this.following ? "Following" : "Follow (F)";
    f.title = this.following ? "The timeline follows the newest data; scroll back to pause" : "Resume following the newest data (F or End)";
  }
}
