//go:build !purego && !notracy

#include "textflag.h"

// func rdtsc() uint64
// RDTSC without a fence: Tracy does the same; zones are far longer than the
// few cycles of reordering an unfenced read allows.
TEXT ·rdtsc(SB),NOSPLIT,$0-8
	RDTSC
	SHLQ	$32, DX
	ORQ	DX, AX
	MOVQ	AX, ret+0(FP)
	RET

// func loadGoid(off uintptr) uint64
// Reads the uint64 at byte offset off of the current goroutine's g.
TEXT ·loadGoid(SB),NOSPLIT,$0-16
	MOVQ	off+0(FP), BX
	MOVQ	(TLS), AX
	MOVQ	(AX)(BX*1), AX
	MOVQ	AX, ret+8(FP)
	RET

// func getgWord(off uintptr) uint64 is loadGoid under another name for the
// offset discovery; kept separate for clarity.

// func storeRel(addr *uint64, v uint64)
// A plain MOV is a release store under x86-TSO; the call is a compiler
// barrier, so the record bytes written before it are visible first.
TEXT ·storeRel(SB),NOSPLIT,$0-16
	MOVQ	addr+0(FP), AX
	MOVQ	v+8(FP), BX
	MOVQ	BX, (AX)
	RET

// func cpuid(leaf, sub uint32) (a, b, c, d uint32)
TEXT ·cpuid(SB),NOSPLIT,$0-24
	MOVL	leaf+0(FP), AX
	MOVL	sub+4(FP), CX
	CPUID
	MOVL	AX, a+8(FP)
	MOVL	BX, b+12(FP)
	MOVL	CX, c+16(FP)
	MOVL	DX, d+20(FP)
	RET

// func stampBegin(dst *byte, key uint64, pub *uint64, n uint64)
// Writes a whole zone-begin record at dst (kind rZoneBegin = 2, the counter,
// key) and then stores n to *pub, a release store under x86-TSO: the
// record and its publication in one call.
TEXT ·stampBegin(SB),NOSPLIT,$0-32
	MOVQ	dst+0(FP), BX
	MOVQ	key+8(FP), CX
	MOVB	$2, (BX)
	MOVQ	CX, 9(BX)
	RDTSC
	SHLQ	$32, DX
	ORQ	DX, AX
	MOVQ	AX, 1(BX)
	MOVQ	pub+16(FP), CX
	MOVQ	n+24(FP), DX
	MOVQ	DX, (CX)
	RET

// func stampEnd(dst *byte, pub *uint64, n uint64)
// Writes a zone-end record at dst (kind rZoneEnd = 4, the counter) and
// stores n to *pub.
TEXT ·stampEnd(SB),NOSPLIT,$0-24
	MOVQ	dst+0(FP), BX
	MOVB	$4, (BX)
	RDTSC
	SHLQ	$32, DX
	ORQ	DX, AX
	MOVQ	AX, 1(BX)
	MOVQ	pub+8(FP), CX
	MOVQ	n+16(FP), DX
	MOVQ	DX, (CX)
	RET

// func stampEndPF(dst *byte, pub *uint64, n uint64)
// stampEnd plus PREFETCHW 512(BX), spelt in bytes (0F 0D /1; Go's
// assembler lacks the mnemonic), used only when CPUID reports PRFCHW: the
// line the records reach a few zones later is requested in exclusive state
// now, so the producer does not stall on it when the sender's core read it
// last (recycled chunks). A prefetch never faults, even past the chunk.
TEXT ·stampEndPF(SB),NOSPLIT,$0-24
	MOVQ	dst+0(FP), BX
	BYTE	$0x0F; BYTE $0x0D; BYTE $0x8B; LONG $0x200
	MOVB	$4, (BX)
	RDTSC
	SHLQ	$32, DX
	ORQ	DX, AX
	MOVQ	AX, 1(BX)
	MOVQ	pub+8(FP), CX
	MOVQ	n+16(FP), DX
	MOVQ	DX, (CX)
	RET
