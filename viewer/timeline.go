package viewer

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/gotracy/gotracy/viewer/lod"
)

// timelineBuf is one request's scratch: the lod answer and its encoding.
// Pooled per server, so after warm-up a timeline request allocates
// nothing that grows with the zones (or the items) it draws.
type timelineBuf struct {
	tl  lod.Timeline
	out []byte
}

// maxPooled keeps one giant answer (a 16384-pixel JSON dump) from pinning
// its buffers in the pool forever: bytes of the body, items of the answer.
const (
	maxPooled      = 4 << 20
	maxPooledItems = 1 << 17
	// maxItemsParam bounds maxitems: 200,000 items are about 2 MB binary.
	maxItemsParam = 200_000
)

func (s *Server) apiTimeline(w http.ResponseWriter, r *http.Request) error {
	if err := checkParams(r, "t0", "t1", "width", "minpx", "maxitems", "format"); err != nil {
		return err
	}
	p := params{r: r}
	q := s.window(&p, true)
	q.MaxItems = int(p.int("maxitems", 0, 0, maxItemsParam))
	format := p.oneOf("format", "binary", "json")
	if p.err != nil {
		return p.err
	}
	buf := s.tlPool.Get().(*timelineBuf)
	defer func() {
		if cap(buf.out) <= maxPooled && buf.tl.Items() <= maxPooledItems {
			s.tlPool.Put(buf)
		}
	}()
	if err := s.ix.Timeline(q, &buf.tl); err != nil {
		if errors.Is(err, lod.ErrBadQuery) {
			return badRequest("%s", trimLod(err))
		}
		return err
	}
	if format == "json" {
		if buf.tl.Lanes == nil {
			buf.tl.Lanes = []lod.Lane{}
		}
		for i := range buf.tl.Lanes {
			if buf.tl.Lanes[i].Items == nil {
				buf.tl.Lanes[i].Items = []lod.Item{} // [] rather than null for JSON readers
			}
		}
		jb := bytes.NewBuffer(buf.out[:0])
		if err := json.NewEncoder(jb).Encode(&buf.tl); err != nil {
			return err
		}
		buf.out = jb.Bytes()
		return writeBody(w, "application/json", buf.out)
	}
	buf.out = buf.tl.AppendBinary(buf.out[:0], s.t)
	return writeBody(w, "application/octet-stream", buf.out)
}

func writeBody(w http.ResponseWriter, ctype string, b []byte) error {
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("Content-Length", strconv.Itoa(len(b)))
	_, err := w.Write(b)
	return err
}

// trimLod drops lod's "lod: bad query: " prefix: the client asked the
// API, not the package.
func trimLod(err error) string {
	msg := err.Error()
	const pre = "lod: bad query: "
	if len(msg) > len(pre) && msg[:len(pre)] == pre {
		return msg[len(pre):]
	}
	return msg
}
