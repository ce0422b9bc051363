package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/gotracy/gotracy/tracefile"
	"github.com/gotracy/gotracy/tracefile/container"
)

// verifyReport is what `gotracy info --verify [--json]` prints: every check
// made, in the order the loader makes them, and the verdict.
type verifyReport struct {
	File              string `json:"file"`
	Compression       string `json:"compression"`
	Streams           int    `json:"streams"`
	FileBytes         int64  `json:"file_bytes"`
	Chunks            int    `json:"chunks"`
	ChunksRead        int    `json:"chunks_read"`
	ChecksummedChunks int    `json:"checksummed_chunks"`
	PayloadBytes      int64  `json:"payload_bytes"`
	PayloadOK         bool   `json:"payload_ok"`
	OK                bool   `json:"ok"`
	BadChunk          *int   `json:"bad_chunk,omitempty"`
	Error             string `json:"error,omitempty"`
}

// verifyFile runs tracefile.Verify, prints the report and returns the
// failure, so the command exits non-zero on a damaged file.
func verifyFile(e *env, path string, asJSON bool) error {
	v, err := tracefile.Verify(path)
	r := verifyReport{
		File: filepath.Base(path), Compression: v.Compression, Streams: v.Streams, FileBytes: v.FileBytes,
		Chunks: v.Chunks, ChunksRead: v.ChunksRead, ChecksummedChunks: v.ChecksummedChunks,
		PayloadBytes: v.PayloadBytes, PayloadOK: v.PayloadOK, OK: err == nil,
	}
	var ce *container.CorruptError
	if errors.As(err, &ce) && ce.Chunk >= 0 {
		r.BadChunk = &ce.Chunk
	}
	if err != nil {
		r.Error = err.Error()
	}
	if v.Compression == "" && err != nil && !errors.Is(err, tracefile.ErrNotTrace) && !errors.Is(err, tracefile.ErrCorrupt) {
		return err // not a verdict on the file: it could not be opened
	}
	if asJSON {
		b, jerr := json.MarshalIndent(r, "", "  ")
		if jerr != nil {
			return jerr
		}
		if _, werr := e.stdout.Write(append(b, '\n')); werr != nil {
			return werr
		}
	} else if werr := r.writeText(e.stdout, err); werr != nil {
		return werr
	}
	if err != nil {
		return fmt.Errorf("integrity check failed: %w", err)
	}
	return nil
}

func (r *verifyReport) writeText(w io.Writer, err error) error {
	var b strings.Builder
	line := func(label, format string, args ...any) {
		fmt.Fprintf(&b, "%-11s %s\n", label+":", fmt.Sprintf(format, args...))
	}
	line("File", "%s, %s bytes", r.File, thousands(uint64(r.FileBytes)))
	r.writeChecks(line, err)
	switch {
	case errors.Is(err, tracefile.ErrNotTrace):
		line("Result", "NOT A TRACE: %v", err)
	case err != nil:
		line("Result", "CORRUPT: %v", err)
	case r.ChecksummedChunks < r.Chunks:
		line("Result", "OK (structure only where there is no checksum: a changed byte there can go unnoticed)")
	default:
		line("Result", "OK")
	}
	_, werr := io.WriteString(w, b.String())
	return werr
}

// writeChecks prints one line per check, up to the one that failed.
func (r *verifyReport) writeChecks(line func(label, format string, args ...any), err error) {
	if r.Compression == "" {
		line("Header", "FAILED")
		return
	}
	line("Header", "OK (%s, %d stream%s)", r.Compression, r.Streams, plural(r.Streams))
	if r.Chunks == 0 && err != nil {
		line("Framing", "FAILED")
		return
	}
	line("Framing", "%s chunk%s, every size field in range and inside the file", thousands(uint64(r.Chunks)), plural(r.Chunks))
	if r.ChunksRead < r.Chunks {
		line("Chunks", "%s of %s decompressed and checked before the failure", thousands(uint64(r.ChunksRead)), thousands(uint64(r.Chunks)))
	} else {
		line("Chunks", "all %s decompressed to whole 64 KiB blocks (the last may be shorter)", thousands(uint64(r.Chunks)))
	}
	un := r.ChunksRead - r.ChecksummedChunks
	switch {
	case errors.Is(err, container.ErrChecksum):
		line("Checksums", "%s chunk%s verified, then chunk %d FAILED its Zstd content checksum", thousands(uint64(r.ChecksummedChunks)), plural(r.ChecksummedChunks), *r.BadChunk)
	case r.ChecksummedChunks > 0 && un == 0:
		line("Checksums", "%s chunk%s verified by their Zstd content checksum", thousands(uint64(r.ChecksummedChunks)), plural(r.ChecksummedChunks))
	case r.ChecksummedChunks > 0:
		line("Checksums", "%s verified by their Zstd content checksum; %s without a checksum, checked for structure only",
			thousands(uint64(r.ChecksummedChunks)), thousands(uint64(un)))
	case r.Compression == "LZ4":
		line("Checksums", "none: LZ4 chunks carry no checksum; %s checked for structure only", thousands(uint64(un)))
	default:
		line("Checksums", "none: these Zstd chunks carry no checksum (Tracy writes none); %s checked for structure only", thousands(uint64(un)))
	}
	if r.PayloadOK {
		line("Payload", "%s bytes parsed; every count, index and reference in range", thousands(uint64(r.PayloadBytes)))
	} else {
		line("Payload", "not fully parsed")
	}
}
