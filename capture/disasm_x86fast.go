package capture

import "encoding/binary"

// x86fast64 measures the common x86-64 instruction forms without x86asm,
// which builds a full instruction (operands, prefixes, a walk through its
// decoder tables) where the walk needs only the length and a direct
// branch's displacement: on the demo's symbol code it was a fifth of the
// consumer's time. It takes an optional 0x66 prefix and an optional REX
// prefix followed by an opcode from the tables below (ALU, MOV, LEA, PUSH
// and POP, shifts, TEST, the group opcodes with their valid ModRM.reg
// values, Jcc/JMP/CALL/LOOP/JRCXZ, NOP, CMOVcc, SETcc, MOVZX/MOVSX, bit
// tests, common SSE/SSE2 forms). Everything else (other prefixes, VEX,
// x87, system instructions, anything it does not list) returns n = 0 and
// goes to x86asm as before. For every form it accepts it must agree with
// x86asm exactly (TestX86FastMatchesX86asm checks random and real code);
// when in doubt a form is left out, never guessed.
//
// It returns the instruction's length (0: not a form it knows), and for a
// direct branch its displacement from the next instruction.
func x86fast64(code []byte) (n int, rel int64, branch bool) {
	i := 0
	opsz, rexW := false, false
	if len(code) > 0 && code[0] == 0x66 {
		opsz, i = true, 1
	}
	if i < len(code) && code[i]&0xF0 == 0x40 {
		rexW = code[i]&8 != 0
		i++
	}
	if i >= len(code) {
		return 0, 0, false
	}
	var e x86form
	if op := code[i]; op == 0x0F {
		if i+1 >= len(code) {
			return 0, 0, false
		}
		e = x86Forms0F[code[i+1]]
		i += 2
	} else {
		e = x86Forms1[op]
		i++
	}
	if e.flags&xOK == 0 || opsz && e.flags&xNo66 != 0 {
		return 0, 0, false
	}
	imm := e.imm
	if e.flags&xModRM != 0 {
		if i >= len(code) {
			return 0, 0, false
		}
		m := code[i]
		i++
		mod, reg, rm := m>>6, m>>3&7, m&7
		if e.regs>>reg&1 == 0 {
			return 0, 0, false
		}
		if e.flags&xTestImm != 0 && reg == 0 { // F6/F7 /0: TEST r/m, imm
			imm = e.imm2
		}
		if mod == 3 {
			if e.flags&xMem != 0 {
				return 0, 0, false
			}
		} else {
			if rm == 4 {
				if i >= len(code) {
					return 0, 0, false
				}
				if mod == 0 && code[i]&7 == 5 {
					i += 4
				}
				i++
			} else if mod == 0 && rm == 5 {
				i += 4
			}
			switch mod {
			case 1:
				i++
			case 2:
				i += 4
			}
		}
	}
	switch imm {
	case immB:
		i++
	case immW:
		i += 2
	case immZ:
		if opsz && !rexW {
			i += 2
		} else {
			i += 4
		}
	case immV:
		switch {
		case rexW:
			i += 8
		case opsz:
			i += 2
		default:
			i += 4
		}
	}
	if i > len(code) {
		return 0, 0, false
	}
	switch {
	case e.flags&xRel8 != 0:
		return i, int64(int8(code[i-1])), true
	case e.flags&xRel32 != 0:
		return i, int64(int32(binary.LittleEndian.Uint32(code[i-4:]))), true
	}
	return i, 0, false
}

// x86form describes how one opcode's instruction is laid out.
type x86form struct {
	flags uint8
	imm   uint8 // immediate kind
	imm2  uint8 // immediate kind for ModRM.reg 0 (xTestImm)
	regs  uint8 // ModRM.reg values that are valid (bit per value)
}

const (
	xOK      = 1 << iota
	xModRM   // a ModRM byte (and SIB, displacement) follows the opcode
	xMem     // ModRM must name memory (mod != 3)
	xNo66    // not with a 0x66 prefix
	xRel8    // direct branch, 8-bit displacement
	xRel32   // direct branch, 32-bit displacement
	xTestImm // F6/F7: only reg 0 (TEST) has an immediate
)

// Immediate kinds: none, 8-bit, 16-bit, 16/32 by operand size (z), and
// 16/32/64 by operand size (v, MOV r, imm).
const (
	immNone = iota
	immB
	immW
	immZ
	immV
)

var x86Forms1, x86Forms0F = buildX86Forms()

func buildX86Forms() (one, two [256]x86form) {
	set := func(t *[256]x86form, flags, imm uint8, ops ...int) {
		for _, op := range ops {
			t[op] = x86form{flags: xOK | flags, imm: imm, regs: 0xFF}
		}
	}
	rng := func(lo, hi int) []int {
		var r []int
		for op := lo; op <= hi; op++ {
			r = append(r, op)
		}
		return r
	}
	regs := func(t *[256]x86form, op int, allowed ...int) {
		t[op].regs = 0
		for _, r := range allowed {
			t[op].regs |= 1 << r
		}
	}
	// One-byte opcodes.
	for base := 0x00; base <= 0x38; base += 8 { // ADD OR ADC SBB AND SUB XOR CMP
		set(&one, xModRM, immNone, rng(base, base+3)...)
		set(&one, 0, immB, base+4)
		set(&one, 0, immZ, base+5)
	}
	set(&one, 0, immNone, rng(0x50, 0x5F)...) // PUSH, POP
	set(&one, xModRM, immNone, 0x63)          // MOVSXD
	set(&one, 0, immZ, 0x68)                  // PUSH imm
	set(&one, xModRM, immZ, 0x69)             // IMUL r, r/m, imm
	set(&one, 0, immB, 0x6A)
	set(&one, xModRM, immB, 0x6B)
	set(&one, xRel8|xNo66, immB, rng(0x70, 0x7F)...) // Jcc rel8
	set(&one, xModRM, immB, 0x80, 0x83)
	set(&one, xModRM, immZ, 0x81)
	set(&one, xModRM, immNone, rng(0x84, 0x8B)...) // TEST, XCHG, MOV
	set(&one, xModRM|xMem, immNone, 0x8D)          // LEA
	set(&one, xModRM, immNone, 0x8F)               // POP r/m
	regs(&one, 0x8F, 0)
	set(&one, 0, immNone, rng(0x90, 0x99)...) // NOP, XCHG, CWDE, CDQ
	set(&one, 0, immB, 0xA8)
	set(&one, 0, immZ, 0xA9)
	set(&one, 0, immB, rng(0xB0, 0xB7)...)
	set(&one, 0, immV, rng(0xB8, 0xBF)...)
	set(&one, xModRM, immB, 0xC0, 0xC1) // shifts by imm
	regs(&one, 0xC0, 0, 1, 2, 3, 4, 5, 7)
	regs(&one, 0xC1, 0, 1, 2, 3, 4, 5, 7)
	set(&one, xNo66, immW, 0xC2) // RET imm16
	set(&one, xNo66, immNone, 0xC3, 0xC9, 0xCC)
	set(&one, xModRM, immB, 0xC6) // MOV r/m8, imm8
	regs(&one, 0xC6, 0)
	set(&one, xModRM, immZ, 0xC7) // MOV r/m, imm
	regs(&one, 0xC7, 0)
	set(&one, xModRM, immNone, rng(0xD0, 0xD3)...) // shifts by 1, CL
	for op := 0xD0; op <= 0xD3; op++ {
		regs(&one, op, 0, 1, 2, 3, 4, 5, 7)
	}
	set(&one, xRel8|xNo66, immB, 0xE0, 0xE1, 0xE2, 0xE3, 0xEB) // LOOPcc, JRCXZ, JMP rel8
	set(&one, xRel32|xNo66, immZ, 0xE8, 0xE9)                  // CALL, JMP rel32
	for _, op := range []int{0xF6, 0xF7} {                     // TEST imm, NOT, NEG, MUL, IMUL, DIV, IDIV
		set(&one, xModRM|xTestImm, immNone, op)
		regs(&one, op, 0, 2, 3, 4, 5, 6, 7)
	}
	one[0xF6].imm2, one[0xF7].imm2 = immB, immZ
	set(&one, xModRM, immNone, 0xFE) // INC, DEC r/m8
	regs(&one, 0xFE, 0, 1)
	set(&one, xModRM, immNone, 0xFF) // INC, DEC, CALL, JMP, PUSH r/m
	regs(&one, 0xFF, 0, 1, 2, 4, 6)

	// Two-byte opcodes (0F xx).
	set(&two, xModRM, immNone, 0x10, 0x11, 0x14, 0x15, 0x28, 0x29, 0x2E, 0x2F) // SSE moves, unpack, compare
	set(&two, xModRM, immNone, 0x1F)                                           // NOP r/m
	regs(&two, 0x1F, 0)
	set(&two, xModRM, immNone, rng(0x40, 0x4F)...) // CMOVcc
	set(&two, xModRM, immNone, 0x51)
	set(&two, xModRM, immNone, rng(0x54, 0x5F)...)
	set(&two, xModRM, immNone, rng(0x60, 0x6B)...) // 6C, 6D: with 0x66 only
	set(&two, xModRM, immNone, 0x6E, 0x6F)
	set(&two, xModRM, immB, 0x70) // PSHUFD and kin
	set(&two, xModRM, immNone, 0x74, 0x75, 0x76, 0x7E, 0x7F)
	set(&two, xRel32|xNo66, immZ, rng(0x80, 0x8F)...) // Jcc rel32
	set(&two, xModRM, immNone, rng(0x90, 0x9F)...)    // SETcc
	set(&two, xModRM, immNone, 0xA3, 0xA5, 0xAB, 0xAD, 0xAF, 0xB0, 0xB1, 0xB3, 0xB6, 0xB7, 0xBB, 0xBC, 0xBD, 0xBE, 0xBF, 0xC0, 0xC1)
	set(&two, xModRM, immB, 0xA4, 0xAC, 0xC2, 0xC6)
	set(&two, xModRM, immB, 0xBA) // BT, BTS, BTR, BTC imm
	regs(&two, 0xBA, 4, 5, 6, 7)
	set(&two, 0, immNone, rng(0xC8, 0xCF)...) // BSWAP
	for _, op := range rng(0xD1, 0xFE) {
		if op != 0xD6 && op != 0xD7 && op != 0xE6 && op != 0xE7 && op != 0xF0 && op != 0xF7 {
			set(&two, xModRM, immNone, op)
		}
	}
	return one, two
}
