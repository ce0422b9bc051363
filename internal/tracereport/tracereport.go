// Package tracereport is the document `gotracy info --json` prints, kept
// apart from the command so the viewer's /api/v1/trace can serve the very
// same object: one type, so the two can never drift apart.
package tracereport

import (
	"path/filepath"

	"github.com/gotracy/gotracy/analysis"
	"github.com/gotracy/gotracy/tracefile"
)

// Report is the JSON document of `gotracy info --json`. Keys are stable;
// "load" is the only part that changes from run to run.
type Report struct {
	File    File              `json:"file"`
	Summary *analysis.Summary `json:"summary"`
	Load    Load              `json:"load"`
}

// File describes the .tracy file itself.
type File struct {
	Name         string `json:"name"`
	Version      string `json:"version"`
	Compression  string `json:"compression"`
	Streams      int    `json:"streams"`
	FileBytes    int64  `json:"file_bytes"`
	PayloadBytes int64  `json:"payload_bytes"`
}

// Load is how fast the file was read.
type Load struct {
	Seconds         float64 `json:"seconds"`
	PayloadMBPerSec float64 `json:"payload_mb_per_s"`
	ZonesPerSec     float64 `json:"zones_per_s"`
}

// New builds the report of the file at path, read with report rep, whose
// trace s summarises. Only the base name of path is kept: the report is
// shown to others (the viewer serves it), and a full path says more about
// the user's disk than about the trace.
func New(path string, rep *tracefile.Report, s *analysis.Summary) *Report {
	r := &Report{
		File: File{
			Name:         filepath.Base(path),
			Version:      tracefile.VersionString(rep.Version),
			Compression:  rep.Compression,
			Streams:      rep.Streams,
			FileBytes:    rep.FileBytes,
			PayloadBytes: rep.PayloadBytes,
		},
		Summary: s,
		Load: Load{
			Seconds:         rep.Duration.Seconds(),
			PayloadMBPerSec: rep.PayloadMBps(),
		},
	}
	if d := rep.Duration.Seconds(); d > 0 {
		r.Load.ZonesPerSec = float64(s.Zones) / d
	}
	return r
}
