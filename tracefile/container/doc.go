// Package container reads and writes the outer layer of a Tracy 0.14.0
// .tracy file: the header, the chunk framing and the LZ4 or Zstd
// compression of the payload. The payload itself (the serialized trace) is
// package tracefile's business; this package turns a file into the payload
// byte stream (Reader, an io.Reader) and a payload byte stream into a file
// (Writer, an io.WriteCloser).
//
// # Format
//
// A file is a header ('t' 'r' 0xFD 'P', a compression type byte, a stream
// count byte; or one of the legacy single-stream magics "tlZ\x04" and
// "tZst") followed by chunks: a u32 size and that many compressed bytes.
// The payload is cut into 64 KiB blocks; block i is compressed by stream
// i mod N and stored as chunk i. Each stream is one continuous compressor
// context: an LZ4 stream whose dictionary is the previous block of the same
// stream, or a Zstd frame that is flushed after every block and never ended.
//
// # Reading: one goroutine per stream, bounded read-ahead
//
// Streams are independent by construction, so decompression parallelises
// with no coordination beyond putting blocks back in order. Each stream has
// one goroutine that decodes its chunks in order and hands the blocks to the
// consumer through a channel of ReadAhead slots; Read takes block i from
// stream i mod N. The goroutine draws output buffers from a small per-stream
// pool (ReadAhead + 3: one decoding, the queued ones, one being consumed,
// one kept as the next LZ4 dictionary) that the consumer refills as it
// finishes each block, so memory is fixed at streams × (ReadAhead+3) ×
// 64 KiB whatever the file size, and a slow consumer throttles the
// decoders instead of letting them run ahead. Buffers are reference counted
// because an LZ4 block is both delivered and used as its stream's next
// dictionary. After warm-up nothing is allocated per block; Zstd decoders
// are pooled across Readers. Open memory-maps the file, so there is no read
// system call per chunk. Each chunk's compressed bytes are still copied out
// of the mapping before decoding (a small cost: they are a fraction of the
// output): if the file is truncated after Open, the page fault then happens
// in that copy, which debug.SetPanicOnFault turns into ErrTruncated, and
// never inside a codec's assembly, where the runtime cannot recover it.
//
// # Validation: why this reader cannot hang
//
// Tracy's own reader validates none of the framing: it spins forever
// waiting for a block of a truncated file, crashes on a stream count of 0
// or a header with no chunk, reads trailing bytes as a chunk of garbage
// size, and silently loads short blocks as corrupted data. This package
// checks all of it, and the order of the checks is what rules out hangs:
//
//   - NewReader walks every chunk size before any decompression: each must
//     be 1..MaxChunkSize (65 824, the largest chunk a Tracy writer can emit)
//     and lie inside the file. A cut file or trailing bytes fail here with
//     ErrTruncated or ErrCorrupt and the file offset, so the goroutines are
//     only started on a chunk list that is complete. Every stream therefore
//     produces exactly its chunks, or an error in place of one, and the
//     consumer never waits for a block that cannot come.
//   - Every chunk but the last must decompress to exactly 64 KiB, the last
//     to 1..64 KiB. For Zstd, the frame and block headers of each chunk are
//     walked before it is fed to the decoder: a chunk must hold whole
//     blocks, which makes the decoder's "unexpected EOF" at the end of a
//     never-terminated stream unambiguous, and windows above 2^27 (which
//     abort the real tools) are rejected before anything is allocated.
//   - A Zstd window larger than everything a stream can still produce is
//     lowered in the bytes handed to the decoder. A 3 KB file declaring 255
//     streams with 128 MiB windows would otherwise make the decoders
//     allocate 32 GiB; lowering is exact because no match can reach further
//     back than the stream's own output.
//   - Errors are reported in payload order: Read delivers every good block
//     before the bad one, then the *CorruptError.
//   - A Zstd frame with a content checksum is verified when the decoder
//     reaches its end; in the files this package writes that is inside the
//     chunk's own decode, so a changed byte is ErrChecksum for that chunk
//     before any of its bytes are delivered. ChecksummedChunks counts the
//     chunks so verified (none in Tracy's files, none with LZ4).
//
// A file cut exactly between two chunks is a valid, shorter container; the
// payload parser detects it (the payload ends early).
//
// # Writing
//
// The Writer writes what Tracy 0.14.0 reads: the current header, 64 KiB
// blocks, chunks in block order, each stream compressed by its own
// goroutine with a bounded queue (two blocks per stream). Each Zstd chunk is
// one complete frame with a content checksum, so every chunk is verified on
// its own when read (ErrChecksum names the chunk) and Tracy's reader, whose
// streaming decoder finishes one frame per chunk, loads it as usual. Tracy's
// own writer keeps one frame open per stream and never ends it, so its files
// carry no checksum; the Reader reads both. LZ4 blocks are compressed independently, without
// the previous block as dictionary: pierrec/lz4 has no dictionary
// compressor, and Tracy's reader (LZ4_decompress_safe_continue) accepts
// independent blocks; the cost is a slightly larger file. The fast mode
// uses the C-compatible compressor, so each chunk is byte for byte what
// LZ4_compress_fast would emit for that block alone.
package container
