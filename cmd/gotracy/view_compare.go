package main

import (
	"net/http"

	"github.com/gotracy/gotracy/viewer"
)

// compareHandler loads two traces and serves the compare view of
// `gotracy view A.tracy B.tracy`, with each trace's own viewer at a/ and b/.
func compareHandler(e *env, pathA, pathB string) (http.Handler, error) {
	var s [2]*viewer.Server
	for i, p := range []string{pathA, pathB} {
		read, use, abort := viewer.IndexWhileReading()
		t, rep, err := loadTrace(e, p, read)
		if err != nil {
			abort()
			return nil, err
		}
		if s[i], err = viewer.New(t, viewer.WithFileInfo(p, rep), use); err != nil {
			return nil, err
		}
	}
	c, err := viewer.NewCompare(s[0], s[1])
	if err != nil {
		return nil, err
	}
	return c.Handler(), nil
}
