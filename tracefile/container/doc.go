// Package container reads and writes the outer layer of a Tracy 0.14.0
// .tracy file: the header and the LZ4 or Zstd compressed chunks around the
// payload. A Reader turns a file into the uncompressed payload stream (an
// io.Reader); a Writer turns a payload stream into a file. The payload
// itself, the serialized trace, is package tracefile's business, and most
// programs want that package instead.
//
// Decompressing a file, for example to look at its payload bytes:
//
//	r, err := container.Open("capture.tracy")
//	if err != nil {
//		return err
//	}
//	defer r.Close()
//	fmt.Println(r.Header().Compression, r.Header().Streams, "streams")
//	_, err = io.Copy(payload, r)
//
// Recompressing a payload:
//
//	w, err := container.NewWriter(out, container.WithZstd(9), container.WithStreams(8))
//	...
//	io.Copy(w, payload)
//	err = w.Close() // flushes every stream; the file is incomplete without it
//
// Reading decompresses the streams in parallel with bounded memory, and
// checks the whole chunk layout before decompressing anything, so a cut,
// padded or hostile file gives an error (ErrTruncated, ErrCorrupt or a
// *CorruptError with the file offset) and never hangs. Read delivers every
// good block before the error. A file cut exactly between two chunks is a
// valid, shorter container; the payload reader then finds the payload ends
// early.
//
// Writing produces what Tracy 0.14.0 writes: the current header, 64 KiB
// blocks, Zstd (level 3 and 4 streams by default) or LZ4.
//
// Zstd chunks written by this package are each one frame with a content
// checksum, which Tracy 0.14 reads as usual; a damaged chunk fails with
// ErrChecksum naming the chunk, and Reader.ChecksummedChunks counts the
// chunks so verified (Tracy's own files and LZ4 files have none).
//
// The format, the reader's goroutines and the order of its checks are
// described in docs/DESIGN.md in the repository.
package container
