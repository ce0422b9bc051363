// Frame images: the screenshots the program sent with its frames, scrubbed
// with a slider, the arrow keys or the filmstrip. #frames?frame=12.

import * as api from "./api.js";
import * as fmt from "./fmt.js";

const el = fmt.el;

export class FrameImages {
  constructor(section, store, nav) {
    this.store = store;
    this.nav = nav;
    this.section = section;
    this.img = el("img", { class: "frame-image", alt: "" });
    this.slider = el("input", { type: "range", min: 0, max: 0, value: 0, class: "scrub", "aria-label": "Frame image" });
    this.caption = el("div", { class: "frame-caption" });
    this.strip = el("div", { class: "filmstrip" });
    this.empty = el("div", { class: "empty", hidden: true }, "This trace holds no frame images.");
    section.append(
      el("div", { class: "toolbar" }, el("h1", null, "Frame images"), this.caption),
      this.empty,
      el("div", { class: "frame-stage" }, this.img),
      el("div", { class: "scrub-row" }, el("button", { class: "btn", onclick: () => this.step(-1) }, "‹"), this.slider, el("button", { class: "btn", onclick: () => this.step(1) }, "›")),
      this.strip,
    );
    this.slider.addEventListener("input", () => this.pick(Number(this.slider.value), true));
    section.addEventListener("keydown", (e) => {
      if (e.key === "ArrowLeft") this.step(-1);
      else if (e.key === "ArrowRight") this.step(1);
      else return;
      e.preventDefault();
    });
    section.tabIndex = 0;
  }

  step(d) {
    this.pick(Math.min(Math.max(0, this.pos + d), this.list.length - 1), true);
  }

  pick(pos, push) {
    if (!this.list.length) return;
    this.pos = pos;
    const it = this.list[pos];
    this.slider.value = pos;
    this.img.src = api.url("frameimage", { frame: it.frame });
    this.img.alt = "frame " + it.frame;
    this.img.dataset.frame = it.frame;
    this.caption.textContent = `Frame ${fmt.int(it.frame)} · image ${fmt.int(pos + 1)} of ${fmt.int(this.list.length)} · ${it.w}×${it.h}`;
    for (const t of this.strip.children) t.classList.toggle("on", Number(t.dataset.pos) === pos);
    const cur = this.strip.children[pos];
    if (cur) cur.scrollIntoView({ block: "nearest", inline: "nearest" });
    if (push) this.nav.go("frames", new URLSearchParams({ frame: it.frame }), true);
  }

  async show(params) {
    this.list = await this.store.frameImages();
    this.empty.hidden = this.list.length > 0;
    this.slider.max = Math.max(0, this.list.length - 1);
    if (!this.strip.children.length && this.list.length) {
      this.list.forEach((it, i) => {
        this.strip.append(el("button", { class: "thumb-btn", dataset: { pos: i }, title: "frame " + it.frame, onclick: () => this.pick(i, true) }, el("img", { loading: "lazy", alt: "", src: api.url("frameimage", { frame: it.frame }) }), el("span", null, String(it.frame))));
      });
    }
    const want = params.has("frame") ? Number(params.get("frame")) : this.list.length ? this.list[0].frame : 0;
    let pos = this.list.findIndex((x) => x.frame >= want);
    if (pos < 0) pos = this.list.length - 1;
    this.pick(Math.max(0, pos), false);
    this.section.focus({ preventScroll: true });
  }
}
