// Package tracefile reads and writes Tracy .tracy trace files (payload
// version 0.14.0), so traces move losslessly between gotracy and the real
// Tracy 0.14 GUI and tools. A file is loaded into a *model.Trace and a
// *model.Trace is saved as a file.
//
//	tr, err := tracefile.ReadFile("capture.tracy")
//	if err != nil {
//		return err // *CorruptError, *VersionError or ErrNotTrace, with the offset
//	}
//	fmt.Println(tr.Metadata.CaptureProgram, tr.ZoneCount(), "zones")
//	...
//	err = tracefile.WriteFile("out.tracy", tr, tracefile.WithZstd(6))
//
// Read and Write do the same over an io.ReaderAt and an io.Writer. Files are
// written as tracy-capture writes them (Zstd level 3, 4 streams) unless
// WithLZ4, WithZstd or WithStreams say otherwise; WriteFile replaces its
// target atomically. WithReport fills a Report (sizes, compression, timing)
// and WithProgress reports progress on long loads and saves.
//
// # What a reader can rely on
//
// Every count and index in the file is checked, so a damaged or hostile file
// gives an error, never a panic or an absurd allocation: a *CorruptError
// (matching ErrCorrupt) names the payload offset and the section; a version
// the 0.14.0 tools reject gives a *VersionError matching
// ErrUnsupportedVersion or ErrLegacyVersion; a file that is not a trace
// gives ErrNotTrace. Files from the older versions Tracy 0.14.0 still loads
// (0.9.0 and later) load too.
//
// Writing a trace read from a file and reading it back gives an equal model,
// and writing it again gives identical bytes. ReadPayload and WritePayload
// work on the uncompressed payload; package container handles the
// compressed framing around it.
//
// How the reader validates and why the writer follows Tracy's conventions is
// in docs/DESIGN.md in the repository.
package tracefile
