//go:build !purego && !notracy

#include "textflag.h"

// func rdtsc() uint64: the virtual counter CNTVCT_EL0 (constant frequency).
TEXT ·rdtsc(SB),NOSPLIT,$0-8
	MRS	CNTVCT_EL0, R0
	MOVD	R0, ret+0(FP)
	RET

// func loadGoid(off uintptr) uint64
TEXT ·loadGoid(SB),NOSPLIT,$0-16
	MOVD	off+0(FP), R1
	MOVD	(g)(R1), R0
	MOVD	R0, ret+8(FP)
	RET

// func storeRel(addr *uint64, v uint64)
TEXT ·storeRel(SB),NOSPLIT,$0-16
	MOVD	addr+0(FP), R0
	MOVD	v+8(FP), R1
	STLR	R1, (R0)
	RET

// func stampBegin(dst *byte, key uint64, pub *uint64, n uint64)
// A whole zone-begin record (kind 2, counter, key), then STLR publishes it.
TEXT ·stampBegin(SB),NOSPLIT,$0-32
	MOVD	dst+0(FP), R0
	MOVD	key+8(FP), R1
	MOVD	$2, R4
	MOVB	R4, (R0)
	MOVD	R1, 9(R0)
	MRS	CNTVCT_EL0, R3
	MOVD	R3, 1(R0)
	MOVD	pub+16(FP), R1
	MOVD	n+24(FP), R2
	STLR	R2, (R1)
	RET

// func stampEnd(dst *byte, pub *uint64, n uint64)
// A zone-end record (kind 4, counter), then STLR publishes it.
TEXT ·stampEnd(SB),NOSPLIT,$0-24
	MOVD	dst+0(FP), R0
	MOVD	$4, R4
	MOVB	R4, (R0)
	MRS	CNTVCT_EL0, R3
	MOVD	R3, 1(R0)
	MOVD	pub+8(FP), R1
	MOVD	n+16(FP), R2
	STLR	R2, (R1)
	RET

// func stampEndPF(dst *byte, pub *uint64, n uint64)
// stampEnd plus a prefetch-for-store of the line 512 bytes ahead.
TEXT ·stampEndPF(SB),NOSPLIT,$0-24
	MOVD	dst+0(FP), R0
	PRFM	512(R0), PSTL1KEEP
	MOVD	$4, R4
	MOVB	R4, (R0)
	MRS	CNTVCT_EL0, R3
	MOVD	R3, 1(R0)
	MOVD	pub+8(FP), R1
	MOVD	n+16(FP), R2
	STLR	R2, (R1)
	RET
