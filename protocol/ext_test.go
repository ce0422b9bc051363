package protocol

import (
	"errors"
	"testing"
)

func TestExtImagesRoundTrip(t *testing.T) {
	imgs := []ExtImage{
		{Base: 0x400001, Size: 0x2000000, ID: "go:abc/def", Logical: true, Path: "/usr/local/bin/my app"},
		{Base: 0x7f0000000000, Size: 0x1000, ID: "0123456789abcdef", Path: "/lib/x.so"},
	}
	b, err := AppendExtImages(nil, imgs)
	if err != nil {
		t.Fatal(err)
	}
	var d ItemDecoder
	d.Reset(b, 0)
	it, ok := d.Next()
	if !ok || it.Type != StringData || it.Ptr() != ExtImagesKey {
		t.Fatalf("item %v %v", it.Type, d.Err())
	}
	got, err := ParseExtImages(it.Payload())
	if err != nil || len(got) != 2 || got[0] != imgs[0] || got[1] != imgs[1] {
		t.Fatalf("%+v %v", got, err)
	}
	if _, err := AppendExtImages(nil, []ExtImage{{ID: "x y", Path: "/p"}}); !errors.Is(err, ErrBadImageList) {
		t.Errorf("id with a space: %v", err)
	}
	for _, bad := range []string{"1 2 go:x", "zz 1 go:x native /p", "1 1 go:x native ", "1 1 go:x both /p", "1 1 go:x /p"} {
		if _, err := ParseExtImages([]byte(bad)); !errors.Is(err, ErrBadImageList) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if !HasExtImages("OS: linux\n"+ExtImagesHostInfo+"\n") || HasExtImages("OS: linux\n") {
		t.Error("HasExtImages")
	}
	var p ServerQueryPacket
	raw := ServerQueryPacket{Type: ServerQueryGotracyImages, Ptr: ExtImagesKey}.Append(nil)
	if err := p.UnmarshalBinary(raw); !errors.Is(err, ErrUnknownItem) || p.Type != ServerQueryGotracyImages || p.Ptr != ExtImagesKey {
		t.Errorf("query decodes as %+v, %v", p, err)
	}
}

// FuzzParseExtImages: an image list comes from the client, so any text
// must parse or fail with ErrBadImageList, and what parses must survive a
// round trip.
func FuzzParseExtImages(f *testing.F) {
	f.Add([]byte("400001 2000000 go:abc/def logical /usr/bin/x\n"))
	f.Add([]byte("0 0 none native /a b c\n7f00 10 0123 native /lib/y.so\n"))
	f.Add([]byte("\n\n1 1"))
	f.Fuzz(func(t *testing.T, text []byte) {
		imgs, err := ParseExtImages(text)
		if err != nil {
			if !errors.Is(err, ErrBadImageList) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		b, err := AppendExtImages(nil, imgs)
		if err != nil {
			return // e.g. a path with NUL or an id with a tab: parseable, not writable
		}
		var d ItemDecoder
		d.Reset(b, 0)
		it, ok := d.Next()
		if !ok {
			t.Fatalf("re-encoded list does not decode: %v", d.Err())
		}
		again, err := ParseExtImages(it.Payload())
		if err != nil || len(again) != len(imgs) {
			t.Fatalf("round trip: %v %d/%d", err, len(again), len(imgs))
		}
		for i := range imgs {
			if again[i] != imgs[i] {
				t.Fatalf("round trip %+v -> %+v", imgs[i], again[i])
			}
		}
	})
}
