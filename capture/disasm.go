package capture

import (
	"golang.org/x/arch/arm/armasm"
	"golang.org/x/arch/arm64/arm64asm"
	"golang.org/x/arch/x86/x86asm"

	"github.com/gotracy/gotracy/protocol"
)

// Tracy's server disassembles every piece of symbol code it receives and
// asks for the call-stack frame of each instruction address and of each
// direct branch target, so that the GUI's assembly view can show the
// source line, inline function and symbol of every instruction, and can
// name call targets. The queries below reproduce what Tracy 0.14's server
// (Capstone, full detail) asks for, using golang.org/x/arch's decoders:
//
//   - decoding starts at the symbol address and stops at the end of the code
//     or at the first invalid instruction, as cs_disasm with a count of 0
//     does. x86 instructions have variable length, so an x86 walk stops
//     where neither x86asm nor the fallback length decoder (x86FallbackLen)
//     knows the instruction. Arm instructions are 4 bytes: a word the x/arch
//     decoder does not know is still counted as an instruction with no
//     branch target, because x/arch lacks encodings Capstone decodes and
//     compilers emit (Arm64 LSE atomics, pointer authentication returns,
//     SVE, UDF; Arm32 MRC/MCR, as in every thread-local access, and UDF),
//     while unallocated words hardly occur in code. Stopping there would
//     leave the rest of the function without frames;
//   - every decoded instruction's address is queried;
//   - a jump or call whose only operand is an immediate target (x86 JMP,
//     Jcc, CALL, LOOPcc, JCXZ family; Arm64 B, B.cond, BL; Arm32 B, BL, BLX)
//     also queries that target, right after the instruction's own address.
//     Compare-and-branch forms (CBZ, TBZ, ...) carry a register operand too
//     and are skipped, as in Tracy; so are indirect branches.
//
// The queries go through queryCallstackFrame, so an address already asked
// for (by a call stack or by another symbol) is not asked again.

// codeWalker decodes machine code of one CPU architecture.
type codeWalker func(addr uint64, code []byte, visit func(uint64))

// walkerFor returns the decoder for a Welcome cpuArch, or nil when the
// architecture is unknown (Tracy then does not disassemble).
func walkerFor(arch protocol.CPUArch) codeWalker {
	switch arch {
	case protocol.CPUArchX86:
		return func(addr uint64, code []byte, visit func(uint64)) { walkX86(32, addr, code, visit) }
	case protocol.CPUArchX64:
		return func(addr uint64, code []byte, visit func(uint64)) { walkX86(64, addr, code, visit) }
	case protocol.CPUArchArm64:
		return walkArm64
	case protocol.CPUArchArm32:
		return walkArm32
	}
	return nil
}

// disassemble queries the call-stack frames of a symbol's instructions and
// direct branch targets (see the comment at the top of this file).
func (w *worker) disassemble(addr uint64, code []byte) {
	walk := walkerFor(protocol.CPUArch(w.t.Metadata.CPUArch))
	if walk == nil {
		return
	}
	walk(addr, code, w.queryCallstackFrame)
}

// walkX86 decodes x86 code in 32- or 64-bit mode.
func walkX86(mode int, addr uint64, code []byte, visit func(uint64)) {
	walkX86With(mode, addr, code, visit, mode == 64)
}

// walkX86With is walkX86 with the fast path for common x86-64 forms
// (x86fast64) on or off; both give the same visits.
func walkX86With(mode int, addr uint64, code []byte, visit func(uint64), fast bool) {
	mask := ^uint64(0)
	if mode == 32 {
		mask = 0xFFFFFFFF
	}
	for len(code) > 0 {
		n, rel, branch := 0, int64(0), false
		if fast {
			n, rel, branch = x86fast64(code)
		}
		if n == 0 {
			if n, rel, branch = x86Step(code, mode); n == 0 {
				return
			}
		}
		visit(addr)
		next := addr + uint64(n)
		if branch {
			if t := (next + uint64(rel)) & mask; t != 0 {
				visit(t)
			}
		}
		addr = next & mask
		code = code[n:]
	}
}

// x86Step decodes one instruction with x86asm (and x86FallbackLen): its
// length, 0 when the walk must stop there, and for a direct branch with a
// relative target its displacement from the next instruction.
func x86Step(code []byte, mode int) (n int, rel int64, branch bool) {
	inst, err := x86asm.Decode(code, mode)
	if err != nil || inst.Op == 0 {
		// x86asm rejects a few encodings Capstone decodes (ENDBR64
		// above all); where it does, it may return a lone prefix as
		// an instruction. Measure such an instruction by its layout.
		n := x86FallbackLen(code, mode)
		if n == 0 {
			return 0, 0, false
		}
		inst = x86asm.Inst{Len: n}
	}
	if inst.Len <= 0 || inst.Len > len(code) {
		return 0, 0, false
	}
	if x86DirectBranch(inst.Op) && inst.Args[1] == nil {
		if r, ok := inst.Args[0].(x86asm.Rel); ok {
			return inst.Len, int64(r), true
		}
	}
	return inst.Len, 0, false
}

// x86FallbackLen returns the length of an instruction x86asm rejects but
// Capstone decodes, or 0 when the bytes are none of these (the walk then
// stops, as Capstone's would at an invalid instruction). x86asm has no
// entries for
//
//   - the reserved-NOP and hint space 0F 18-1F: ENDBR32/64 (F3 0F 1E FA/FB),
//     which begins every function built with -fcf-protection (the default
//     of many Linux distributions; three libc symbols of the demo fixture),
//     RDSSP, the BND instructions;
//   - some 0F 38 / 0F 3A and 0F C7 forms (ADCX, ADOX, RDPID, ...);
//   - some VEX and EVEX forms (512-bit stores, ...).
//
// These families share one layout: legacy prefixes, REX (64-bit mode),
// opcode bytes, a ModRM operand and, in the 0F 3A and VEX/EVEX map 3
// spaces and a few VEX map 1 opcodes, an 8-bit immediate. Where x86asm
// returns a prefix alone as an instruction it has in fact rejected what
// follows, so that case comes here too.
func x86FallbackLen(code []byte, mode int) int {
	i, addr16 := 0, false
prefixes:
	for ; i < len(code) && i < 15; i++ {
		switch code[i] {
		case 0x66, 0xF2, 0xF3, 0xF0, 0x2E, 0x36, 0x3E, 0x26, 0x64, 0x65:
		case 0x67:
			addr16 = mode == 32
		default:
			break prefixes
		}
	}
	rex := false
	if mode == 64 && i < len(code) && code[i]&0xF0 == 0x40 {
		i, rex = i+1, true
	}
	if i+1 >= len(code) {
		return 0
	}
	imm := 0
	switch op := code[i]; {
	case op == 0x0F:
		switch op2 := code[i+1]; {
		case op2 == 0x38:
			i += 3
		case op2 == 0x3A:
			i, imm = i+3, 1
		case op2 >= 0x18 && op2 <= 0x1F, op2 == 0xC7, op2 == 0xB9, op2 == 0x0D:
			i += 2
		default:
			return 0
		}
	case (op == 0xC4 || op == 0xC5 || op == 0x62) && !rex && (mode == 64 || code[i+1]>>6 == 3):
		vmap := 1
		switch op {
		case 0xC5:
			i += 2
		case 0xC4:
			vmap, i = int(code[i+1]&0x1F), i+3
		case 0x62:
			vmap, i = int(code[i+1]&0x07), i+4
		}
		if i >= len(code) {
			return 0
		}
		switch opc := code[i]; {
		case vmap == 3:
			imm = 1
		case vmap == 1 && (opc >= 0x70 && opc <= 0x73 || opc >= 0xC2 && opc <= 0xC6):
			imm = 1
		}
		i++
	default:
		return 0
	}
	if i >= len(code) {
		return 0
	}
	modrm := code[i]
	i++
	mod, rm := modrm>>6, modrm&7
	switch {
	case mod == 3:
	case addr16:
		switch {
		case mod == 0 && rm == 6, mod == 2:
			i += 2
		case mod == 1:
			i++
		}
	default:
		if rm == 4 {
			if i >= len(code) {
				return 0
			}
			if mod == 0 && code[i]&7 == 5 {
				i += 4
			}
			i++
		}
		switch {
		case mod == 0 && rm == 5, mod == 2:
			i += 4
		case mod == 1:
			i++
		}
	}
	i += imm
	if i > len(code) || i > 15 {
		return 0
	}
	return i
}

// x86DirectBranch reports whether op is in Capstone's jump or call group
// and can take a relative target.
func x86DirectBranch(op x86asm.Op) bool {
	switch op {
	case x86asm.JMP, x86asm.CALL,
		x86asm.JA, x86asm.JAE, x86asm.JB, x86asm.JBE, x86asm.JE, x86asm.JNE,
		x86asm.JG, x86asm.JGE, x86asm.JL, x86asm.JLE,
		x86asm.JO, x86asm.JNO, x86asm.JP, x86asm.JNP, x86asm.JS, x86asm.JNS,
		x86asm.JCXZ, x86asm.JECXZ, x86asm.JRCXZ,
		x86asm.LOOP, x86asm.LOOPE, x86asm.LOOPNE:
		return true
	}
	return false
}

// walkArm64 decodes A64 code: fixed 4-byte instructions; every direct B,
// B.cond and BL is known to arm64asm.
func walkArm64(addr uint64, code []byte, visit func(uint64)) {
	for len(code) >= 4 {
		inst, err := arm64asm.Decode(code)
		visit(addr)
		if err == nil && (inst.Op == arm64asm.B || inst.Op == arm64asm.BL) {
			// B and BL carry only the label; B.cond carries the condition
			// first, which Capstone reports as a code, not an operand.
			for _, a := range inst.Args {
				if rel, ok := a.(arm64asm.PCRel); ok {
					if t := addr + uint64(int64(rel)); t != 0 {
						visit(t)
					}
					break
				}
			}
		}
		addr += 4
		code = code[4:]
	}
}

// walkArm32 decodes A32 (ARM-state) code: fixed 4-byte instructions, branch
// offsets relative to the instruction address plus 8; every direct B, BL
// and BLX is known to armasm.
func walkArm32(addr uint64, code []byte, visit func(uint64)) {
	addr &= 0xFFFFFFFF
	for len(code) >= 4 {
		inst, err := armasm.Decode(code, armasm.ModeARM)
		visit(addr)
		if err == nil && arm32DirectBranch(inst.Op) && inst.Args[1] == nil {
			if rel, ok := inst.Args[0].(armasm.PCRel); ok {
				if t := (addr + 8 + uint64(int64(rel))) & 0xFFFFFFFF; t != 0 {
					visit(t)
				}
			}
		}
		addr = (addr + 4) & 0xFFFFFFFF
		code = code[4:]
	}
}

// arm32DirectBranch reports whether op is B, BL or BLX under any condition
// (armasm encodes the condition in the low four bits of the Op).
func arm32DirectBranch(op armasm.Op) bool {
	switch op &^ 15 {
	case armasm.B_EQ, armasm.BL_EQ:
		return true
	}
	return op == armasm.BLX
}
