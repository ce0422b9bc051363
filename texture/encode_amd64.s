//go:build amd64 && !purego

#include "textflag.h"

// Constants, each a 32-bit pattern repeated over 32 bytes so both the SSE
// (16-byte) and AVX2 (32-byte) kernels can load them.
#define CONST32(name, v) \
	DATA name+0(SB)/4, $v; DATA name+4(SB)/4, $v; DATA name+8(SB)/4, $v; DATA name+12(SB)/4, $v; \
	DATA name+16(SB)/4, $v; DATA name+20(SB)/4, $v; DATA name+24(SB)/4, $v; DATA name+28(SB)/4, $v; \
	GLOBL name(SB), RODATA|NOPTR, $32

CONST32(texSolidMask<>, 0x00F8FCF8)  // the bits that survive 565 truncation
CONST32(texAlphaMask<>, 0x00FFFFFF)  // RGB without alpha
CONST32(texLowNibble<>, 0x0F0F0F0F)  // per-byte >>4 fix-up
CONST32(texOnes<>, 0x01010101)       // PMADDUBSW weights: r+g, b+a
CONST32(texPackW<>, 0x40100401)      // PMADDUBSW weights 1,4,16,64: 2-bit packing
CONST32(texR<>, 0x000000F8)
CONST32(texG<>, 0x0000FC00)
CONST32(texB<>, 0x00F80000)
DATA texClearSolidHi<>+0(SB)/8, $0xFFFFFFFF0000FFFF
DATA texClearSolidHi<>+8(SB)/8, $0xFFFFFFFF0000FFFF
DATA texClearSolidHi<>+16(SB)/8, $0xFFFFFFFF0000FFFF
DATA texClearSolidHi<>+24(SB)/8, $0xFFFFFFFF0000FFFF
GLOBL texClearSolidHi<>(SB), RODATA|NOPTR, $32

// func dxt1RowSSE41(dst, r0, r1, r2, r3 *byte, n int)
//
// Per block: X0..X3 hold the four pixel rows. A block whose pixels agree
// in their 565 bits becomes that colour with zero indices. Otherwise the
// channel bounding box gives the endpoints (inset by range/16) and the
// channel-sum distance from the minimum, times divTable[sum of ranges]
// >> 16, gives each index.
TEXT ·dxt1RowSSE41(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ r0+8(FP), SI
	MOVQ r1+16(FP), R8
	MOVQ r2+24(FP), R9
	MOVQ r3+32(FP), R10
	MOVQ n+40(FP), CX
	LEAQ ·divTable(SB), R11
	MOVOU texSolidMask<>(SB), X15
	MOVOU texAlphaMask<>(SB), X14
	MOVOU texLowNibble<>(SB), X13
	MOVOU texOnes<>(SB), X12
	MOVOU texPackW<>(SB), X11
	MOVOU texR<>(SB), X10
	TESTQ CX, CX
	JEQ   sse_done

sse_loop:
	MOVOU (SI), X0
	MOVOU (R8), X1
	MOVOU (R9), X2
	MOVOU (R10), X3

	// Solid test: OR of (pixel ^ pixel0) over the block, in the 565 bits.
	MOVOU  X0, X4
	PAND   X15, X4
	PSHUFD $0, X4, X4
	MOVOU  X0, X5
	PXOR   X4, X5
	MOVOU  X1, X6
	PXOR   X4, X6
	POR    X6, X5
	MOVOU  X2, X6
	PXOR   X4, X6
	POR    X6, X5
	MOVOU  X3, X6
	PXOR   X4, X6
	POR    X6, X5
	PTEST  X15, X5
	JEQ    sse_solid

	PAND X14, X0
	PAND X14, X1
	PAND X14, X2
	PAND X14, X3

	// Channel min (X4) and max (X6), reduced over the 4 pixels of a row
	// and then across the 4 dword lanes, so every lane holds the result.
	MOVOU  X0, X4
	PMINUB X1, X4
	MOVOU  X2, X5
	PMINUB X3, X5
	PMINUB X5, X4
	MOVOU  X0, X6
	PMAXUB X1, X6
	MOVOU  X2, X7
	PMAXUB X3, X7
	PMAXUB X7, X6
	PSHUFD $0xB1, X4, X5
	PMINUB X5, X4
	PSHUFD $0x4E, X4, X5
	PMINUB X5, X4
	PSHUFD $0xB1, X6, X7
	PMAXUB X7, X6
	PSHUFD $0x4E, X6, X7
	PMAXUB X7, X6

	// Sum of the channel ranges: the SAD of the low 8 bytes covers two
	// identical lanes, hence the halving.
	MOVOU   X6, X7
	PSADBW  X4, X7
	MOVQ    X7, AX
	SHRQ    $1, AX
	MOVWLZX (R11)(AX*2), AX
	MOVQ    AX, X8
	PSHUFLW $0, X8, X8
	PSHUFD  $0, X8, X8

	// Indices: per-pixel channel sums of (pixel - min), scaled.
	PSUBB     X4, X0
	PSUBB     X4, X1
	PSUBB     X4, X2
	PSUBB     X4, X3
	PMADDUBSW X12, X0
	PMADDUBSW X12, X1
	PMADDUBSW X12, X2
	PMADDUBSW X12, X3
	PHADDW    X1, X0
	PHADDW    X3, X2
	PMULHUW   X8, X0
	PMULHUW   X8, X2
	PACKUSWB  X2, X0
	PMADDUBSW X11, X0
	PHADDW    X0, X0
	PACKUSWB  X0, X0

	// Endpoints: inset the box by range>>4 per channel.
	MOVOU X6, X9
	PSUBB X4, X9
	PSRLW $4, X9
	PAND  X13, X9
	PADDB X9, X4
	PSUBB X9, X6

	// X6 = [max, min, ...] dwords, then both to RGB565 at once.
	PUNPCKLLQ X4, X6
	MOVOU     X6, X7
	PAND      X10, X7
	PSLLL     $8, X7
	MOVOU     texG<>(SB), X9
	PAND      X6, X9
	PSRLL     $5, X9
	POR       X9, X7
	MOVOU     texB<>(SB), X9
	PAND      X9, X6
	PSRLL     $19, X6
	POR       X7, X6
	PACKUSDW  X6, X6
	PUNPCKLLQ X0, X6
	MOVQ      X6, (DI)
	JMP       sse_next

sse_solid:
	MOVL (SI), AX
	MOVL AX, BX
	ANDL $0xF8, BX
	SHLL $8, BX
	MOVL AX, DX
	ANDL $0xFC00, DX
	SHRL $5, DX
	ORL  DX, BX
	SHRL $19, AX
	ANDL $0x1F, AX
	ORL  BX, AX
	SHLQ $16, AX
	MOVQ AX, (DI)

sse_next:
	ADDQ $16, SI
	ADDQ $16, R8
	ADDQ $16, R9
	ADDQ $16, R10
	ADDQ $8, DI
	DECQ CX
	JNE  sse_loop

sse_done:
	RET

// func dxt1RowAVX2(dst, r0, r1, r2, r3 *byte, n int)
//
// The SSE kernel's steps on two blocks at once, one per 128-bit lane. A
// lane whose block is solid keeps only its color1 field, which for a solid
// block equals the solid colour (the inset is 0 and all pixels share their
// 565 bits), so no branch is needed unless both blocks are solid.
TEXT ·dxt1RowAVX2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ r0+8(FP), SI
	MOVQ r1+16(FP), R8
	MOVQ r2+24(FP), R9
	MOVQ r3+32(FP), R10
	MOVQ n+40(FP), CX
	LEAQ ·divTable(SB), R11
	VMOVDQU texSolidMask<>(SB), Y15
	VMOVDQU texAlphaMask<>(SB), Y14
	VMOVDQU texLowNibble<>(SB), Y13
	VMOVDQU texOnes<>(SB), Y12
	VMOVDQU texPackW<>(SB), Y11
	VMOVDQU texR<>(SB), Y10
	CMPQ    CX, $2
	JLT     avx_tail

avx_loop:
	VMOVDQU (SI), Y0
	VMOVDQU (R8), Y1
	VMOVDQU (R9), Y2
	VMOVDQU (R10), Y3

	VPAND   Y15, Y0, Y4
	VPSHUFD $0, Y4, Y4
	VPXOR   Y4, Y0, Y5
	VPXOR   Y4, Y1, Y6
	VPOR    Y6, Y5, Y5
	VPXOR   Y4, Y2, Y6
	VPOR    Y6, Y5, Y5
	VPXOR   Y4, Y3, Y6
	VPOR    Y6, Y5, Y5
	VPAND   Y15, Y5, Y5
	VPTEST  Y5, Y5
	JEQ     avx_solid2

	VPAND Y14, Y0, Y0
	VPAND Y14, Y1, Y1
	VPAND Y14, Y2, Y2
	VPAND Y14, Y3, Y3

	VPMINUB Y1, Y0, Y4
	VPMINUB Y3, Y2, Y7
	VPMINUB Y7, Y4, Y4
	VPMAXUB Y1, Y0, Y6
	VPMAXUB Y3, Y2, Y7
	VPMAXUB Y7, Y6, Y6
	VPSHUFD $0xB1, Y4, Y7
	VPMINUB Y7, Y4, Y4
	VPSHUFD $0x4E, Y4, Y7
	VPMINUB Y7, Y4, Y4
	VPSHUFD $0xB1, Y6, Y7
	VPMAXUB Y7, Y6, Y6
	VPSHUFD $0x4E, Y6, Y7
	VPMAXUB Y7, Y6, Y6

	VPSADBW      Y4, Y6, Y7
	VMOVQ        X7, AX
	VEXTRACTI128 $1, Y7, X8
	VMOVQ        X8, BX
	SHRQ         $1, AX
	SHRQ         $1, BX
	MOVWLZX      (R11)(AX*2), AX
	MOVWLZX      (R11)(BX*2), BX
	VMOVQ        AX, X8
	VPBROADCASTW X8, X8
	VMOVQ        BX, X9
	VPBROADCASTW X9, X9
	VINSERTI128  $1, X9, Y8, Y8

	VPSUBB     Y4, Y0, Y0
	VPSUBB     Y4, Y1, Y1
	VPSUBB     Y4, Y2, Y2
	VPSUBB     Y4, Y3, Y3
	VPMADDUBSW Y12, Y0, Y0
	VPMADDUBSW Y12, Y1, Y1
	VPMADDUBSW Y12, Y2, Y2
	VPMADDUBSW Y12, Y3, Y3
	VPHADDW    Y1, Y0, Y0
	VPHADDW    Y3, Y2, Y2
	VPMULHUW   Y8, Y0, Y0
	VPMULHUW   Y8, Y2, Y2
	VPACKUSWB  Y2, Y0, Y0
	VPMADDUBSW Y11, Y0, Y0
	VPHADDW    Y0, Y0, Y0
	VPACKUSWB  Y0, Y0, Y0

	VPSUBB Y4, Y6, Y9
	VPSRLW $4, Y9, Y9
	VPAND  Y13, Y9, Y9
	VPADDB Y9, Y4, Y4
	VPSUBB Y9, Y6, Y6

	VPUNPCKLDQ Y4, Y6, Y6
	VPAND      Y10, Y6, Y7
	VPSLLD     $8, Y7, Y7
	VPAND      texG<>(SB), Y6, Y9
	VPSRLD     $5, Y9, Y9
	VPOR       Y9, Y7, Y7
	VPAND      texB<>(SB), Y6, Y6
	VPSRLD     $19, Y6, Y6
	VPOR       Y7, Y6, Y6
	VPACKUSDW  Y6, Y6, Y6
	VPUNPCKLDQ Y0, Y6, Y6

	// Lanes whose block is solid: clear color0 and the indices.
	VPXOR     Y7, Y7, Y7
	VPCMPEQQ  Y7, Y5, Y5
	VPSHUFD   $0x4E, Y5, Y7
	VPAND     Y7, Y5, Y5
	VPAND     texClearSolidHi<>(SB), Y5, Y5
	VPANDN    Y6, Y5, Y6
	VPERMQ    $0x08, Y6, Y6
	VMOVDQU   X6, (DI)
	JMP       avx_next

avx_solid2:
	MOVL (SI), AX
	MOVL AX, BX
	ANDL $0xF8, BX
	SHLL $8, BX
	MOVL AX, DX
	ANDL $0xFC00, DX
	SHRL $5, DX
	ORL  DX, BX
	SHRL $19, AX
	ANDL $0x1F, AX
	ORL  BX, AX
	SHLQ $16, AX
	MOVQ AX, (DI)
	MOVL 16(SI), AX
	MOVL AX, BX
	ANDL $0xF8, BX
	SHLL $8, BX
	MOVL AX, DX
	ANDL $0xFC00, DX
	SHRL $5, DX
	ORL  DX, BX
	SHRL $19, AX
	ANDL $0x1F, AX
	ORL  BX, AX
	SHLQ $16, AX
	MOVQ AX, 8(DI)

avx_next:
	ADDQ $32, SI
	ADDQ $32, R8
	ADDQ $32, R9
	ADDQ $32, R10
	ADDQ $16, DI
	SUBQ $2, CX
	CMPQ CX, $2
	JGE  avx_loop

avx_tail:
	VZEROUPPER
	TESTQ CX, CX
	JEQ   avx_done
	// One block left: hand it to the SSE kernel.
	MOVQ DI, dst+0(FP)
	MOVQ SI, r0+8(FP)
	MOVQ R8, r1+16(FP)
	MOVQ R9, r2+24(FP)
	MOVQ R10, r3+32(FP)
	MOVQ CX, n+40(FP)
	JMP  ·dxt1RowSSE41(SB)

avx_done:
	RET
