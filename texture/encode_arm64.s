//go:build arm64 && !purego

#include "textflag.h"

// Instructions Go's arm64 assembler does not know, emitted as WORDs. The
// arguments are register numbers in Go's operand order (m, n, d: the
// result goes to Vd, computed from Vn and Vm), so each macro reads like
// the native Go instructions around it.

// UADDL Vd.8H, Vn.8B, Vm.8B: widening add of the low 8 bytes.
#define UADDL_8B(m, n, d) WORD $(0x2E200000 | (m)<<16 | (n)<<5 | (d))
// UADDL2 Vd.8H, Vn.16B, Vm.16B: widening add of the high 8 bytes.
#define UADDL2_16B(m, n, d) WORD $(0x6E200000 | (m)<<16 | (n)<<5 | (d))
// UMULL Vd.4S, Vn.4H, Vm.4H: widening multiply of the low 4 halfwords.
#define UMULL_4H(m, n, d) WORD $(0x2E60C000 | (m)<<16 | (n)<<5 | (d))
// UMULL2 Vd.4S, Vn.8H, Vm.8H: widening multiply of the high 4 halfwords.
#define UMULL2_8H(m, n, d) WORD $(0x6E60C000 | (m)<<16 | (n)<<5 | (d))
// UMINP Vd.16B, Vn.16B, Vm.16B: pairwise minimum (Vn's pairs, then Vm's).
#define UMINP_16B(m, n, d) WORD $(0x6E20AC00 | (m)<<16 | (n)<<5 | (d))
// UMAXP Vd.16B, Vn.16B, Vm.16B: pairwise maximum.
#define UMAXP_16B(m, n, d) WORD $(0x6E20A400 | (m)<<16 | (n)<<5 | (d))

// Constants, loaded once into V25..V27 and V29..V31 (in this order).
// V25: 0xE0 in every byte (green's low 3 bits in the low 565 byte).
DATA texNeonConst<>+0x00(SB)/8, $0xE0E0E0E0E0E0E0E0
DATA texNeonConst<>+0x08(SB)/8, $0xE0E0E0E0E0E0E0E0
// V26: 0xF8 in every byte (red's 5 bits in the high 565 byte).
DATA texNeonConst<>+0x10(SB)/8, $0xF8F8F8F8F8F8F8F8
DATA texNeonConst<>+0x18(SB)/8, $0xF8F8F8F8F8F8F8F8
// V27: TBL indices over {low bytes, high bytes} of the packed endpoints
// giving, per block j, [lo(color0_j), hi(color0_j), lo(color1_j), hi(color1_j)].
DATA texNeonConst<>+0x20(SB)/8, $0x1505110114041000
DATA texNeonConst<>+0x28(SB)/8, $0x1707130316061202
// V29: TBL indices broadcasting halfword 2 to lanes 0-3 and 3 to lanes 4-7.
DATA texNeonConst<>+0x30(SB)/8, $0x0504050405040504
DATA texNeonConst<>+0x38(SB)/8, $0x0706070607060706
// V30: TBL indices broadcasting halfword 0 to lanes 0-3 and 1 to lanes 4-7.
DATA texNeonConst<>+0x40(SB)/8, $0x0100010001000100
DATA texNeonConst<>+0x48(SB)/8, $0x0302030203020302
// V31: the bits that survive 565 truncation, in the [R R R R G G G G B B B B
// B B B B] layout of the per-block minimum and maximum vectors.
DATA texNeonConst<>+0x50(SB)/8, $0xFCFCFCFCF8F8F8F8
DATA texNeonConst<>+0x58(SB)/8, $0xF8F8F8F8F8F8F8F8
GLOBL texNeonConst<>(SB), RODATA|NOPTR, $0x60

// func dxt1RowNEON(dst, r0, r1, r2, r3 *byte, n int)
//
// Four blocks per step. VLD4 splits each 16-pixel row into R, G, B and A
// planes, so byte 4j+c of a plane is column c of block j. Per step:
//
//   - Channel minimum and maximum of each block: UMIN/UMAX down the four
//     rows, then three pairwise UMINP/UMAXP steps leave the compact layout
//     MN = [minR0..3 minG0..3 minB0..3 minB0..3] (MX likewise).
//   - A block is solid when its max and min agree in the 565 bits (max and
//     min bound every pixel and truncation is monotonic, so this is the
//     same test as comparing every pixel with the first). A solid block
//     gets color0 = 0 (its inset max is cleared) and all-zero indices (its
//     multiplier is cleared); its color1, the inset min, is then exactly
//     the shared 565 colour, as the Go encoder's early return produces.
//   - Endpoints: max - range>>4 and min + range>>4, packed to 565 in the
//     compact layout, then interleaved per block by one TBL.
//   - Indices: each pixel's r+g+b (16-bit) minus the block's min sum, times
//     divTable[sum of ranges] (looked up through general registers, since
//     NEON has no gather), >>16 by keeping the products' high halfwords;
//     USRA folds a row's four 2-bit indices into one byte and SLI merges
//     the four rows into the block's 32-bit index word.
TEXT ·dxt1RowNEON(SB), NOSPLIT, $0-48
	MOVD dst+0(FP), R0
	MOVD r0+8(FP), R1
	MOVD r1+16(FP), R2
	MOVD r2+24(FP), R3
	MOVD r3+32(FP), R4
	MOVD n+40(FP), R5
	MOVD $·divTable(SB), R6
	MOVD $texNeonConst<>(SB), R7
	VLD1.P 48(R7), [V25.B16, V26.B16, V27.B16]
	VLD1   (R7), [V29.B16, V30.B16, V31.B16]
	CBZ    R5, done

loop:
	// Row k lands in V(4k) = R, V(4k+1) = G, V(4k+2) = B, V(4k+3) = A.
	VLD4.P 64(R1), [V0.B16, V1.B16, V2.B16, V3.B16]
	VLD4.P 64(R2), [V4.B16, V5.B16, V6.B16, V7.B16]
	VLD4.P 64(R3), [V8.B16, V9.B16, V10.B16, V11.B16]
	VLD4.P 64(R4), [V12.B16, V13.B16, V14.B16, V15.B16]

	// Column-wise min/max over the four rows; alpha planes are scratch.
	VUMIN V4.B16, V0.B16, V16.B16
	VUMIN V12.B16, V8.B16, V3.B16
	VUMIN V3.B16, V16.B16, V16.B16 // min R
	VUMAX V4.B16, V0.B16, V17.B16
	VUMAX V12.B16, V8.B16, V3.B16
	VUMAX V3.B16, V17.B16, V17.B16 // max R
	VUMIN V5.B16, V1.B16, V18.B16
	VUMIN V13.B16, V9.B16, V3.B16
	VUMIN V3.B16, V18.B16, V18.B16 // min G
	VUMAX V5.B16, V1.B16, V19.B16
	VUMAX V13.B16, V9.B16, V3.B16
	VUMAX V3.B16, V19.B16, V19.B16 // max G
	VUMIN V6.B16, V2.B16, V20.B16
	VUMIN V14.B16, V10.B16, V3.B16
	VUMIN V3.B16, V20.B16, V20.B16 // min B
	VUMAX V6.B16, V2.B16, V21.B16
	VUMAX V14.B16, V10.B16, V3.B16
	VUMAX V3.B16, V21.B16, V21.B16 // max B

	// Across each block's four columns: MN (V16) and MX (V17) compact.
	UMINP_16B(18, 16, 16)
	UMINP_16B(20, 20, 20)
	UMINP_16B(20, 16, 16)
	UMAXP_16B(19, 17, 17)
	UMAXP_16B(21, 21, 21)
	UMAXP_16B(21, 17, 17)

	// Per-pixel r+g+b as halfwords: row k's blocks 0-1 go to V(4k+3),
	// blocks 2-3 to V(4k). The G and B planes are free afterwards.
	UADDL_8B(1, 0, 3)
	VUADDW V2.B8, V3.H8, V3.H8
	UADDL2_16B(1, 0, 0)
	VUADDW2 V2.B16, V0.H8, V0.H8
	UADDL_8B(5, 4, 7)
	VUADDW V6.B8, V7.H8, V7.H8
	UADDL2_16B(5, 4, 4)
	VUADDW2 V6.B16, V4.H8, V4.H8
	UADDL_8B(9, 8, 11)
	VUADDW V10.B8, V11.H8, V11.H8
	UADDL2_16B(9, 8, 8)
	VUADDW2 V10.B16, V8.H8, V8.H8
	UADDL_8B(13, 12, 15)
	VUADDW V14.B8, V15.H8, V15.H8
	UADDL2_16B(13, 12, 12)
	VUADDW2 V14.B16, V12.H8, V12.H8

	// Ranges (V18), insets (V19), endpoints: low (V20), high (V21).
	VSUB  V16.B16, V17.B16, V18.B16
	VUSHR $4, V18.B16, V19.B16
	VADD  V19.B16, V16.B16, V20.B16
	VSUB  V19.B16, V17.B16, V21.B16

	// Solid test: OR the 565 bits where max and min differ over the
	// channel groups (rotations by 8 and 4 bytes), so every group holds
	// the block's verdict. V23: 0xFF per byte for non-solid blocks, used
	// to clear the high endpoint of solid ones; V22: 0xFFFF per halfword
	// lane j for non-solid block j, used to clear the multiplier.
	VEOR   V16.B16, V17.B16, V22.B16
	VAND   V31.B16, V22.B16, V22.B16
	VEXT   $8, V22.B16, V22.B16, V23.B16
	VORR   V23.B16, V22.B16, V22.B16
	VEXT   $4, V22.B16, V22.B16, V23.B16
	VORR   V23.B16, V22.B16, V22.B16
	VCMTST V22.B16, V22.B16, V23.B16
	VAND   V23.B16, V21.B16, V21.B16
	VUXTL  V22.B8, V22.H8
	VCMTST V22.H8, V22.H8, V22.H8

	// Endpoints to 565. V23 = [hiR loR hiG loG] and V24 = [hiB loB hiB loB]
	// as 4-byte groups; V20 = V23 rotated to put G under R. High 565 bytes
	// (r&0xF8 | g>>5) go to V2, low ones ((g<<3)&0xE0 | b>>3) to V1, both
	// as [color0 of blocks 0-3, color1 of blocks 0-3]; V24 = per-block
	// color0 | color1<<16.
	VZIP1 V20.S4, V21.S4, V23.S4
	VZIP2 V20.S4, V21.S4, V24.S4
	VEXT  $8, V23.B16, V23.B16, V20.B16
	VAND  V26.B16, V23.B16, V2.B16
	VUSHR $5, V20.B16, V21.B16
	VORR  V21.B16, V2.B16, V2.B16
	VSHL  $3, V20.B16, V1.B16
	VAND  V25.B16, V1.B16, V1.B16
	VUSHR $3, V24.B16, V21.B16
	VORR  V21.B16, V1.B16, V1.B16
	VTBL  V27.B16, [V1.B16, V2.B16], V24.B16

	// Halfwords 0-3 of V18: sum of ranges; 4-7: sum of minimums.
	VZIP1  V16.S4, V18.S4, V20.S4
	VZIP2  V16.S4, V18.S4, V21.S4
	VUXTL  V20.B8, V18.H8
	VUXTL2 V20.B16, V20.H8
	VUXTL  V21.B8, V21.H8
	VADD   V20.H8, V18.H8, V18.H8
	VADD   V21.H8, V18.H8, V18.H8

	// Multipliers divTable[s] for the four blocks into V19 halfwords 0-3
	// (zero for solid blocks). Sums are at most 765, so 10 bits suffice.
	VMOV  V18.D[0], R8
	UBFX  $0, R8, $10, R9
	UBFX  $16, R8, $10, R10
	UBFX  $32, R8, $10, R11
	UBFX  $48, R8, $10, R12
	MOVHU (R6)(R9<<1), R9
	MOVHU (R6)(R10<<1), R10
	MOVHU (R6)(R11<<1), R11
	MOVHU (R6)(R12<<1), R12
	ORR   R10<<16, R9, R9
	ORR   R11<<32, R9, R9
	ORR   R12<<48, R9, R9
	VMOV  R9, V19.D[0]
	VAND  V22.B16, V19.B16, V19.B16

	// Broadcast per block: multipliers (V20: blocks 0-1, V21: blocks 2-3)
	// and min sums (V22, V23), matching the halfword layout of the sums.
	VTBL V30.B16, [V19.B16], V20.B16
	VTBL V29.B16, [V19.B16], V21.B16
	VEXT $8, V18.B16, V18.B16, V18.B16
	VTBL V30.B16, [V18.B16], V22.B16
	VTBL V29.B16, [V18.B16], V23.B16

	// Row 0: distances, products, the row's indices in V1 (byte 4j+c:
	// UZP2 keeps the high halfword of each 32-bit product, i.e. >>16,
	// UZP1 its low byte), then each 32-bit lane folded to one byte of
	// 2-bit fields.
	VSUB  V22.H8, V3.H8, V3.H8
	VSUB  V23.H8, V0.H8, V0.H8
	UMULL_4H(20, 3, 16)
	UMULL2_8H(20, 3, 17)
	UMULL_4H(21, 0, 18)
	UMULL2_8H(21, 0, 19)
	VUZP2 V17.H8, V16.H8, V16.H8
	VUZP2 V19.H8, V18.H8, V18.H8
	VUZP1 V18.B16, V16.B16, V1.B16
	VUSRA $6, V1.S4, V1.S4
	VUSRA $12, V1.S4, V1.S4

	// Row 1 into V5.
	VSUB  V22.H8, V7.H8, V7.H8
	VSUB  V23.H8, V4.H8, V4.H8
	UMULL_4H(20, 7, 16)
	UMULL2_8H(20, 7, 17)
	UMULL_4H(21, 4, 18)
	UMULL2_8H(21, 4, 19)
	VUZP2 V17.H8, V16.H8, V16.H8
	VUZP2 V19.H8, V18.H8, V18.H8
	VUZP1 V18.B16, V16.B16, V5.B16
	VUSRA $6, V5.S4, V5.S4
	VUSRA $12, V5.S4, V5.S4

	// Row 2 into V9.
	VSUB  V22.H8, V11.H8, V11.H8
	VSUB  V23.H8, V8.H8, V8.H8
	UMULL_4H(20, 11, 16)
	UMULL2_8H(20, 11, 17)
	UMULL_4H(21, 8, 18)
	UMULL2_8H(21, 8, 19)
	VUZP2 V17.H8, V16.H8, V16.H8
	VUZP2 V19.H8, V18.H8, V18.H8
	VUZP1 V18.B16, V16.B16, V9.B16
	VUSRA $6, V9.S4, V9.S4
	VUSRA $12, V9.S4, V9.S4

	// Row 3 into V13.
	VSUB  V22.H8, V15.H8, V15.H8
	VSUB  V23.H8, V12.H8, V12.H8
	UMULL_4H(20, 15, 16)
	UMULL2_8H(20, 15, 17)
	UMULL_4H(21, 12, 18)
	UMULL2_8H(21, 12, 19)
	VUZP2 V17.H8, V16.H8, V16.H8
	VUZP2 V19.H8, V18.H8, V18.H8
	VUZP1 V18.B16, V16.B16, V13.B16
	VUSRA $6, V13.S4, V13.S4
	VUSRA $12, V13.S4, V13.S4

	// Index words: row k's byte at bits 8k.
	VSLI $8, V5.S4, V1.S4
	VSLI $8, V13.S4, V9.S4
	VSLI $16, V9.S4, V1.S4

	// Blocks as [colors, indices] pairs.
	VZIP1  V1.S4, V24.S4, V2.S4
	VZIP2  V1.S4, V24.S4, V3.S4
	VST1.P [V2.B16, V3.B16], 32(R0)

	SUBS $4, R5, R5
	BGT  loop

done:
	RET
