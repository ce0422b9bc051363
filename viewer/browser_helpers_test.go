package viewer_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/viewer"
)

// chromiumPath finds a Chromium or Chrome to drive: $GOTRACY_CHROMIUM,
// then the usual names on $PATH. "" means none.
func chromiumPath() string {
	if p := os.Getenv("GOTRACY_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

const noChromium = "no Chromium found (set GOTRACY_CHROMIUM or install chromium); skipping the browser tests"

// shotDir is where every browser test of this run leaves its screenshots:
// $GOTRACY_SCREENSHOTS, else a fresh gotracy-browser-* folder in the temp
// directory (one per run, so parallel runs never mix or delete each
// other's). Each test logs it; run with -v to see it.
var shotDir = sync.OnceValues(func() (string, error) {
	if d := os.Getenv("GOTRACY_SCREENSHOTS"); d != "" {
		return d, os.MkdirAll(d, 0o755)
	}
	return os.MkdirTemp("", "gotracy-browser-")
})

// browser is one headless Chromium tab on a page of the viewer.
type browser struct {
	tb     testing.TB
	ctx    context.Context
	cancel func()
	base   string
	srv    *httptest.Server
	prefix string
}

// newBrowser serves t with package viewer on a loopback port and starts a
// fresh headless Chromium (own profile, no network beyond loopback).
func newBrowser(tb testing.TB, t *model.Trace, name string, w, h int, scale float64) *browser {
	tb.Helper()
	if chromiumPath() == "" {
		tb.Skip(noChromium)
	}
	s, err := viewer.New(t, viewer.WithName(name))
	if err != nil {
		tb.Fatalf("viewer.New: %v", err)
	}
	return newBrowserHandler(tb, s.Handler(), name, w, h, scale)
}

// newBrowserHandler is newBrowser for any handler (the compare view's, a viewer.Live).
func newBrowserHandler(tb testing.TB, handler http.Handler, name string, w, h int, scale float64) *browser {
	tb.Helper()
	path := chromiumPath()
	if path == "" {
		tb.Skip(noChromium)
	}
	srv := httptest.NewServer(handler)
	profile := tb.TempDir()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(w, h),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("force-device-scale-factor", fmt.Sprint(scale)),
	}
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, ccancel := chromedp.NewContext(actx)
	// Every wait below has its own deadline; this bounds the whole tab.
	ctx, tcancel := context.WithTimeout(ctx, 10*time.Minute)
	b := &browser{tb: tb, ctx: ctx, base: srv.URL + "/", srv: srv, prefix: name}
	b.cancel = func() {
		tcancel()
		ccancel()
		acancel()
		srv.Close()
	}
	tb.Cleanup(b.cancel)
	if err := chromedp.Do(ctx); err != nil {
		tb.Fatalf("starting %s: %v", path, err)
	}
	// Every page records its uncaught errors, unhandled rejections and
	// content-security-policy refusals, and
	// a test fails on any (checked before each navigation and at the end).
	if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: collectErrors})
		return err
	})); err != nil {
		tb.Fatalf("installing the error collector: %v", err)
	}
	tb.Cleanup(b.checkErrors)
	return b
}

const collectErrors = `window.__errors = [];
addEventListener("error", (e) => __errors.push(String(e.message || e)));
addEventListener("unhandledrejection", (e) => __errors.push("unhandled rejection: " + String((e.reason && e.reason.message) || e.reason)));
document.addEventListener("securitypolicyviolation", (e) => __errors.push("content security policy refused " + e.blockedURI + " (" + e.violatedDirective + ")"));`

// checkErrors fails the test for every error the page recorded.
func (b *browser) checkErrors() {
	b.tb.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	errs, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(window.__errors || []).splice(0)`))
	if err != nil {
		return // no page (yet): nothing recorded
	}
	for _, e := range errs {
		b.tb.Errorf("the page threw: %s", e)
	}
}

func (b *browser) run(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.tb.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.tb.Fatalf("%s: %v", what, err)
	}
}

// open loads the page at hash and waits until the timeline has drawn its
// first answer (every view boots the timeline) and the view is ready.
func (b *browser) open(hash string) {
	b.tb.Helper()
	b.checkErrors()
	// about:blank first, so a link that differs only in its hash is a
	// fresh page load, as when someone opens it, not a hash change.
	b.run("open "+hash, chromedp.Navigate("about:blank"), chromedp.Navigate(b.base+hash))
	b.waitFor("the page booted", `!!(window.__gotracy && window.__gotracy.store)`)
}

// nav changes the hash in the running page, as a click on a link does.
func (b *browser) nav(hash string) {
	b.tb.Helper()
	b.eval(fmt.Sprintf(`location.hash = %q`, hash), nil)
}

// waitFor polls a JavaScript expression until it is truthy.
func (b *browser) waitFor(what, expr string) {
	b.tb.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		b.shot("timeout-" + sanitize(what))
		b.tb.Fatalf("waiting for %s (%s): %v", what, expr, err)
	}
}

// waitDrawn waits until the timeline holds the answer for its current
// view and has drawn it.
func (b *browser) waitDrawn() {
	b.tb.Helper()
	b.waitFor("the timeline's data draw", `(() => { const t = window.__gotracy && window.__gotracy.timeline; return !!(t && t.data && !t.inflight && t.have && document.documentElement.dataset.timelineReady) })()`)
	// One more frame, so what the screenshot shows is the final draw.
	b.eval(`new Promise(r => requestAnimationFrame(() => r(true)))`, nil)
}

func (b *browser) eval(expr string, out any) {
	b.tb.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[json.RawMessage](expr, chromedp.EvalAwaitPromise))
	if err != nil && !(out == nil && errors.Is(err, chromedp.ErrJSUndefined)) {
		b.tb.Fatalf("evaluate %s: %v", short(expr), err)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			b.tb.Fatalf("evaluate %s: result %s: %v", short(expr), raw, err)
		}
	}
}

// shot saves a screenshot of the tab as NAME.png in the screenshot folder.
func (b *browser) shot(name string) string {
	b.tb.Helper()
	dir, err := shotDir()
	if err != nil {
		b.tb.Fatalf("screenshot folder: %v", err)
	}
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.tb.Errorf("screenshot %s: %v", name, err)
		return ""
	}
	p := filepath.Join(dir, b.prefix+"-"+name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		b.tb.Errorf("screenshot %s: %v", name, err)
	}
	b.tb.Logf("screenshot %s", p)
	return p
}

func (b *browser) click(x, y float64) {
	b.tb.Helper()
	b.run("click", chromedp.MouseClickXY(x, y))
}

func (b *browser) move(x, y float64) {
	b.tb.Helper()
	b.run("mouse move", chromedp.MouseEvent(chromedp.MouseMoved, x, y))
}

func (b *browser) wheel(x, y, dy float64) {
	b.tb.Helper()
	b.run("wheel", chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, wheelEvent, wheelParams{Type: "mouseWheel", X: x, Y: y, DeltaX: 0, DeltaY: dy})
		return err
	}))
}

func (b *browser) drag(x0, y0, x1, y1 float64, steps int) {
	b.tb.Helper()
	acts := []chromedp.Action[chromedp.Void]{mouseDown(x0, y0)}
	for i := 1; i <= steps; i++ {
		f := float64(i) / float64(steps)
		acts = append(acts, mouseDrag(x0+(x1-x0)*f, y0+(y1-y0)*f))
	}
	acts = append(acts, mouseUp(x1, y1))
	b.run("drag", acts...)
}

// wheelParams is Input.dispatchMouseEvent for a wheel: cdproto's own
// params leave a zero deltaX out, which Chromium refuses for mouseWheel.
type wheelParams struct {
	Type   string  `json:"type"`
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	DeltaX float64 `json:"deltaX"`
	DeltaY float64 `json:"deltaY"`
}

var wheelEvent = cdp.Command[wheelParams, cdp.Empty]{Method: input.CommandDispatchMouseEvent}

func mouseDown(x, y float64) chromedp.Action[chromedp.Void] {
	return chromedp.MouseEvent(chromedp.MousePressed, x, y, chromedp.ButtonLeft, chromedp.ClickCount(1))
}

func mouseDrag(x, y float64) chromedp.Action[chromedp.Void] {
	return chromedp.MouseEvent(chromedp.MouseMoved, x, y, chromedp.ButtonLeft, func(p *input.DispatchMouseEventParams) { p.Buttons = 1 })
}

func mouseUp(x, y float64) chromedp.Action[chromedp.Void] {
	return chromedp.MouseEvent(chromedp.MouseReleased, x, y, chromedp.ButtonLeft, chromedp.ClickCount(1))
}

func (b *browser) key(k string) {
	b.tb.Helper()
	b.run("key "+k, chromedp.KeyEvent(k))
}

// layout is the timeline's geometry (CSS px) as the page reports it.
type layout struct {
	Width, Height float64
	T0, T1        float64
	HeadH, RowH   float64
	Sel           *struct{ T0, T1 float64 }
	Left, Top     float64 // the canvas on the page
	Lanes         []struct {
		Key       string
		Y, H      float64
		Collapsed bool
	}
}

func (b *browser) layout() layout {
	b.tb.Helper()
	var l layout
	b.eval(`(() => { const t = __gotracy.timeline; const r = t.canvas.getBoundingClientRect(); return {...t.layoutInfo(), left: r.left, top: r.top} })()`, &l)
	return l
}

// zonePoint is the page position of the middle of a zone of lane key at
// depth d spanning [start, end] ns.
func (l *layout) zonePoint(tb testing.TB, key string, d int, start, end int64) (x, y float64) {
	tb.Helper()
	for _, ln := range l.Lanes {
		if ln.Key == key {
			mid := float64(start+end) / 2
			x = (mid - l.T0) / (l.T1 - l.T0) * l.Width
			y = ln.Y + l.HeadH + float64(d)*l.RowH + l.RowH/2
			return x, y
		}
	}
	tb.Fatalf("the timeline has no lane %q (lanes: %+v)", key, l.Lanes)
	return 0, 0
}

// pixel reads the canvas's RGB at CSS position (x, y) of the canvas.
func (b *browser) pixel(x, y float64) [3]int {
	b.tb.Helper()
	var px [3]int
	b.eval(fmt.Sprintf(`(() => { const t = __gotracy.timeline; const d = t.ctx.getImageData(Math.round(%f * t.dpr), Math.round(%f * t.dpr), 1, 1).data; return [d[0], d[1], d[2]] })()`, x, y), &px)
	return px
}

func rgbOf(c uint32) [3]int { return [3]int{int(c>>16) & 0xFF, int(c>>8) & 0xFF, int(c) & 0xFF} }

// backgrounds are the timeline's own fills (BG, BG_LANE and the lock row in
// timeline.js): a pixel of any of them holds no zone.
var backgrounds = [][3]int{{0x1b, 0x1d, 0x22}, {0x20, 0x23, 0x29}, {0x1d, 0x20, 0x25}}

func isBackground(p [3]int) bool {
	for _, b := range backgrounds {
		if p == b {
			return true
		}
	}
	return false
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '-'
	}, strings.ToLower(s))
}

func short(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// startBrowserSuite begins a parent browser test: it skips t, with one
// line, where no Chromium can be found, and logs the folder this run's
// screenshots go to.
func startBrowserSuite(t *testing.T) {
	t.Helper()
	if chromiumPath() == "" {
		t.Skip(noChromium)
	}
	dir, err := shotDir()
	if err != nil {
		t.Fatalf("screenshot folder: %v", err)
	}
	t.Logf("screenshots of this run: %s", dir)
}
