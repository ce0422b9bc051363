package viewer

import (
	"bytes"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/gotracy/gotracy/model"
	"github.com/gotracy/gotracy/texture"
	"github.com/gotracy/gotracy/viewer/lod"
)

var severityNames = [...]string{"trace", "debug", "info", "warning", "error", "fatal"}

type messageJSON struct {
	Index     int    `json:"index"` // position in the trace's messages (time order)
	Time      int64  `json:"time"`
	Thread    int    `json:"thread"` // index into the trace's threads, -1 when the thread has none
	ThreadID  uint64 `json:"thread_id"`
	Text      string `json:"text"`
	Color     uint32 `json:"color"` // 0xRRGGBB, 0 = none
	Severity  string `json:"severity"`
	Source    string `json:"source"` // user or tracy
	CallStack uint32 `json:"callstack"`
}

func (s *Server) apiMessageList(w http.ResponseWriter, r *http.Request) error {
	if err := checkParams(r, "filter", "thread", "t", "offset", "limit"); err != nil {
		return err
	}
	p := params{r: r}
	filter := strings.ToLower(p.str("filter", 1024))
	thread := int(p.int("thread", -1, -1, int64(len(s.t.Threads)-1)))
	offset := int(p.int("offset", 0, 0, math.MaxInt32))
	limit := int(p.int("limit", 100, 0, 10000))
	_, hasT := p.raw("t")
	at := p.int("t", 0, -maxTime, maxTime)
	if p.err != nil {
		return p.err
	}
	if hasT && offset != 0 {
		return badRequest("parameters t and offset both say where the page starts; give one")
	}
	t := s.t
	tidIdx := make(map[uint64]int, len(t.Threads))
	for i := range t.Threads {
		tidIdx[t.Threads[i].ID] = i
	}
	a := struct {
		Total    int           `json:"total"`  // messages that match
		Offset   int           `json:"offset"` // of the first one below among those
		Messages []messageJSON `json:"messages"`
	}{Messages: []messageJSON{}}
	var wantTID uint64
	if thread >= 0 {
		wantTID = t.Threads[thread].ID
	}
	started := !hasT
	for i := range t.Messages {
		m := &t.Messages[i]
		tid := t.LocalThread(m.Thread)
		if thread >= 0 && tid != wantTID {
			continue
		}
		text := t.RefString(m.Text)
		if filter != "" && !strings.Contains(strings.ToLower(text), filter) {
			continue
		}
		if !started && m.Time >= at {
			started, offset = true, a.Total
		}
		if started && a.Total >= offset && len(a.Messages) < limit {
			ti, ok := tidIdx[tid]
			if !ok {
				ti = -1
			}
			src := "user"
			if m.Source == model.MsgSourceTracy {
				src = "tracy"
			}
			a.Messages = append(a.Messages, messageJSON{Index: i, Time: m.Time, Thread: ti, ThreadID: tid, Text: text,
				Color: lod.BGRToRGB(m.Color & 0xFFFFFF), Severity: nameOf(severityNames[:], m.Severity), Source: src, CallStack: m.CallStack})
		}
		a.Total++
	}
	if !started {
		offset = a.Total
	}
	a.Offset = offset
	return writeJSON(w, &a)
}

type frameImageJSON struct {
	Frame int  `json:"frame"` // index in frame set 0
	Image int  `json:"image"`
	W     int  `json:"w"`
	H     int  `json:"h"`
	Flip  bool `json:"flip"`
}

func (s *Server) apiFrameImages(w http.ResponseWriter, r *http.Request) error {
	if err := checkParams(r); err != nil {
		return err
	}
	out := []frameImageJSON{}
	if len(s.t.FrameSets) > 0 {
		for i, f := range s.t.FrameSets[0].Frames {
			if f.Image >= 0 && int(f.Image) < len(s.t.FrameImages) {
				img := &s.t.FrameImages[f.Image]
				out = append(out, frameImageJSON{Frame: i, Image: int(f.Image), W: int(img.W), H: int(img.H), Flip: img.Flip})
			}
		}
	}
	return writeJSON(w, out)
}

// apiFrameImage answers the PNG of the image of frame F of set 0, or of
// image N of the trace.
func (s *Server) apiFrameImage(w http.ResponseWriter, r *http.Request) error {
	if err := checkParams(r, "frame", "image"); err != nil {
		return err
	}
	p := params{r: r}
	_, byFrame := p.raw("frame")
	_, byImage := p.raw("image")
	if byFrame == byImage {
		return badRequest("give exactly one of frame (a frame of set 0) or image (an image index)")
	}
	t := s.t
	var img int
	if byFrame {
		var frames []model.Frame
		if len(t.FrameSets) > 0 {
			frames = t.FrameSets[0].Frames
		}
		f := int(p.need("frame", 0, int64(max(len(frames)-1, 0))))
		if p.err != nil {
			return p.err
		}
		if len(frames) == 0 || frames[f].Image < 0 {
			return notFound("frame %d has no image", f)
		}
		img = int(frames[f].Image)
	} else {
		img = int(p.need("image", 0, int64(max(len(t.FrameImages)-1, 0))))
		if p.err != nil {
			return p.err
		}
	}
	if img >= len(t.FrameImages) {
		return notFound("the trace has no frame image %d", img)
	}
	fi := &t.FrameImages[img]
	data, err := texture.ImageData(nil, fi.Data, int(fi.W), int(fi.H), fi.Packed)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := texture.WritePNG(&b, data, int(fi.W), int(fi.H), fi.Flip); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Content-Length", strconv.Itoa(b.Len()))
	_, err = w.Write(b.Bytes())
	return err
}

func (s *Server) apiSources(w http.ResponseWriter, r *http.Request) error {
	if err := checkParams(r); err != nil {
		return err
	}
	type src struct {
		File  string `json:"file"`
		Bytes int    `json:"bytes"`
	}
	out := make([]src, 0, len(s.t.SourceCache))
	for _, f := range s.t.SourceCache {
		out = append(out, src{f.Name, len(f.Data)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].File < out[j].File })
	return writeJSON(w, out)
}

// apiSource answers a source file from the trace's own source cache (the
// files the client sent with the trace). The name is only ever compared
// with the cache's names, never opened: a request cannot make the server
// read its disk.
func (s *Server) apiSource(w http.ResponseWriter, r *http.Request) error {
	if err := checkParams(r, "file"); err != nil {
		return err
	}
	p := params{r: r}
	name := p.str("file", 4096)
	if p.err != nil {
		return p.err
	}
	if name == "" {
		return badRequest("parameter file is required (GET /api/v1/sources lists the files the trace holds)")
	}
	for _, f := range s.t.SourceCache {
		if f.Name == name {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Set("Content-Length", strconv.Itoa(len(f.Data)))
			_, err := w.Write(f.Data)
			return err
		}
	}
	return notFound("the trace holds no source file %q (the server never reads files from disk)", name)
}
