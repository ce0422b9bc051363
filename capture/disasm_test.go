package capture

import (
	"bytes"
	"context"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"golang.org/x/arch/x86/x86asm"

	"github.com/gotracy/gotracy/protocol"
)

func le32(words ...uint32) []byte {
	var b []byte
	for _, w := range words {
		b = binary.LittleEndian.AppendUint32(b, w)
	}
	return b
}

// The walkers visit every instruction address and, right after a direct
// jump or call, its target; they stop at the first undecodable bytes.
func TestWalkCode(t *testing.T) {
	const x64 = 0x7f0000001000
	for _, tc := range []struct {
		name string
		arch protocol.CPUArch
		addr uint64
		code []byte
		want []uint64
	}{
		{
			name: "x64",
			arch: protocol.CPUArchX64,
			addr: x64,
			code: []byte{
				0xf3, 0x0f, 0x1e, 0xfa, // +0x00 endbr64 (x86asm rejects it)
				0xe8, 0x00, 0x00, 0x00, 0x00, // +0x04 call +0x09
				0x0f, 0x84, 0xf1, 0xff, 0xff, 0xff, // +0x09 je +0x00
				0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00, // +0x0f nopw
				0xff, 0xe0, // +0x17 jmp rax: indirect, no target
				0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00, // +0x19 nopw
				0xe3, 0x00, // +0x1f jrcxz +0x21
				0x06, // +0x21 invalid in 64-bit mode: the walk stops
				0x90,
			},
			want: []uint64{x64, x64 + 4, x64 + 9, x64 + 9, x64, x64 + 0xf, x64 + 0x17, x64 + 0x19, x64 + 0x1f, x64 + 0x21},
		},
		{
			name: "x64 truncated",
			arch: protocol.CPUArchX64,
			addr: x64,
			code: []byte{0x90, 0xe8, 0x00, 0x00},
			want: []uint64{x64},
		},
		{
			name: "x86",
			arch: protocol.CPUArchX86,
			addr: 0x1000,
			code: []byte{
				0x06,                         // 0x1000 push es
				0xe8, 0x00, 0xe0, 0xff, 0xff, // 0x1001 call -0x2000: wraps to 0xfffff006
				0xe2, 0xfe, // 0x1006 loop 0x1006
				0xff, 0x15, 0x00, 0x20, 0x00, 0x00, // 0x1008 call [0x2000]: no target
				0xc3, // 0x100e ret
			},
			want: []uint64{0x1000, 0x1001, 0xfffff006, 0x1006, 0x1006, 0x1008, 0x100e},
		},
		{
			name: "arm64",
			arch: protocol.CPUArchArm64,
			addr: 0x10000,
			code: le32(
				0xd503201f, // nop
				0x94000040, // bl +0x100
				0x54ffffc0, // b.eq -8
				0xb4000040, // cbz x0, +8: register operand too, no target
				0x14000004, // b +0x10
				0xd65f03c0, // ret
				0xd63f0020, // blr x1
				0xb8200020, // ldadd w0, w0, [x1]: LSE, unknown to arm64asm, still an instruction
				0x00000000, // udf #0: likewise
				0x17fffff6, // b -0x28
			),
			want: []uint64{0x10000, 0x10004, 0x10104, 0x10008, 0x10000, 0x1000c, 0x10010, 0x10020, 0x10014, 0x10018, 0x1001c, 0x10020, 0x10024, 0xfffc},
		},
		{
			name: "arm32",
			arch: protocol.CPUArchArm32,
			addr: 0x8000,
			code: append(le32(
				0xe1a00000, // mov r0, r0
				0xeb000010, // bl pc+8+0x40
				0x0afffffc, // beq pc+8-0x10
				0xfa000002, // blx pc+8+8 (to Thumb)
				0xe12fff1e, // bx lr
				0xee1d0f70, // mrc p15, 0, r0, c13, c0, 3: unknown to armasm, still an instruction
				0xeafffffe, // b . (to itself)
			), 0x00, 0x00), // a truncated word ends the walk
			want: []uint64{0x8000, 0x8004, 0x804c, 0x8008, 0x8000, 0x800c, 0x801c, 0x8010, 0x8014, 0x8018, 0x8018},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []uint64
			walkerFor(tc.arch)(tc.addr, tc.code, func(a uint64) { got = append(got, a) })
			if !slices.Equal(got, tc.want) {
				t.Errorf("visited %#x\nwant    %#x", got, tc.want)
			}
		})
	}
	if walkerFor(protocol.CPUArchUnknown) != nil {
		t.Error("unknown architecture has a walker; Tracy does not disassemble then")
	}
}

func TestX86FallbackLen(t *testing.T) {
	for _, tc := range []struct {
		mode int
		code []byte
		want int
	}{
		{64, []byte{0xf3, 0x0f, 0x1e, 0xfa}, 4},                               // endbr64
		{32, []byte{0xf3, 0x0f, 0x1e, 0xfb}, 4},                               // endbr32
		{64, []byte{0xf3, 0x48, 0x0f, 0x1e, 0xc8}, 5},                         // rdsspq rax
		{64, []byte{0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00, 0x90}, 8}, // nopw [rax+rax+0]
		{64, []byte{0x0f, 0x18, 0x04, 0x24}, 4},                               // SIB, no displacement
		{64, []byte{0x0f, 0x1f, 0x04, 0x25, 0, 0, 0, 0}, 8},                   // SIB with no base: disp32
		{64, []byte{0x0f, 0x1e, 0x05, 0, 0, 0, 0}, 7},                         // RIP-relative
		{32, []byte{0x67, 0x0f, 0x1f, 0x06, 0x34, 0x12}, 6},                   // 16-bit addressing, disp16
		{64, []byte{0x0f, 0x1f, 0x44, 0x00}, 0},                               // truncated
		{64, []byte{0xf3, 0x0f, 0xc7, 0xf8}, 4},                               // rdpid rax
		{64, []byte{0x66, 0x0f, 0x38, 0xf6, 0xc1}, 5},                         // adcx eax, ecx
		{64, []byte{0x66, 0x0f, 0x3a, 0x0f, 0xc1, 0x08}, 6},                   // palignr: imm8
		{64, []byte{0x62, 0x71, 0xfd, 0x48, 0xe7, 0x00}, 6},                   // vmovntdq [rax], zmm8
		{64, []byte{0x62, 0xf3, 0x7d, 0x28, 0x3f, 0x4e, 0x01, 0x00}, 8},       // vpcmpb k1, ymm0, [rsi+32], 0: map 3 imm8
		{64, []byte{0xc4, 0xe3, 0x7d, 0x18, 0xc1, 0x01}, 6},                   // vinsertf128: map 3 imm8
		{64, []byte{0xc5, 0xfd, 0x70, 0xc1, 0x1b}, 5},                         // vpshufd: map 1 imm8
		{64, []byte{0xc5, 0xfe, 0x6f, 0x06}, 4},                               // vmovdqu ymm0, [rsi]
		{32, []byte{0xc5, 0x06}, 0},                                           // lds in 32-bit mode, not VEX
		{64, []byte{0x48, 0xc5, 0xfe, 0x6f, 0x06}, 0},                         // REX before VEX is invalid
		{64, []byte{0x0f, 0x0b}, 0},                                           // ud2: x86asm's business
		{64, []byte{0x90}, 0},
		{32, []byte{0x40, 0x0f, 0x1f, 0xc0}, 0}, // 0x40 is inc eax in 32-bit mode, not REX
	} {
		if got := x86FallbackLen(tc.code, tc.mode); got != tc.want {
			t.Errorf("% x (mode %d): %d, want %d", tc.code, tc.mode, got, tc.want)
		}
	}
}

// FuzzDisasm feeds arbitrary bytes to every walker: no panic, no more
// than two visits (an instruction and its target) per byte of code, and
// the x86-64 fast path agrees with x86asm wherever it measures.
func FuzzDisasm(f *testing.F) {
	f.Add(uint8(protocol.CPUArchX64), []byte{0xf3, 0x0f, 0x1e, 0xfa, 0xe8, 0, 0, 0, 0, 0xc3})
	f.Add(uint8(protocol.CPUArchArm64), le32(0x94000040, 0x54ffffc0))
	f.Fuzz(func(t *testing.T, arch uint8, code []byte) {
		walk := walkerFor(protocol.CPUArch(arch % 5))
		if walk == nil {
			return
		}
		n := 0
		walk(0xfffffffffffffff0, code, func(uint64) { n++ })
		if n > 2*len(code) {
			t.Errorf("%d visits for %d bytes", n, len(code))
		}
		if n, rel, br := x86fast64(code); n != 0 {
			if sn, srel, sbr := x86Step(code, 64); n != sn || rel != srel || br != sbr {
				t.Errorf("% x: fast path length %d, branch %v %+d; x86asm %d, %v %+d", code, n, br, rel, sn, sbr, srel)
			}
		}
		for _, mode := range []int{32, 64} {
			if l := x86FallbackLen(code, mode); l > len(code) || l > 15 {
				t.Errorf("hint nop length %d of %d bytes", l, len(code))
			}
		}
	})
}

// A live capture disassembles the symbol code the client sends and stores
// the frame of every instruction and of the call target, as Tracy's
// capture does for the assembly view.
func TestLiveDisassembly(t *testing.T) {
	const sym = 0x401000
	code := []byte{
		0xf3, 0x0f, 0x1e, 0xfa, // 0x401000 endbr64
		0x55,             // 0x401004 push rbp
		0x48, 0x89, 0xe5, // 0x401005 mov rbp, rsp
		0xe8, 0xf3, 0x3f, 0x00, 0x00, // 0x401008 call 0x405000
		0x85, 0xc0, // 0x40100d test eax, eax
		0x74, 0x03, // 0x40100f je 0x401014
		0x90, 0x90, 0x90, // 0x401011..13 nop
		0x5d, // 0x401014 pop rbp
		0xc3, // 0x401015 ret
	}
	var want []uint64
	for _, a := range []uint64{0x401000, 0x401004, 0x401005, 0x401008, 0x40100d, 0x40100f, 0x401011, 0x401012, 0x401013, 0x401014, 0x401015} {
		want = append(want, a)
	}
	for len(code) < 64 { // int3 padding up to the symbol size the client reports
		want = append(want, sym+uint64(len(code)))
		code = append(code, 0xcc)
	}
	want = append(want, 0x405000)

	c := newFakeClient(t)
	c.welcome.Flags |= protocol.FlagCodeTransfer
	c.code = map[uint64][]byte{sym: code}
	c.strings = map[uint64]string{0x2000: "Zone", 0x2010: "main", 0x2020: "demo.c"}
	c.srclocs = map[uint64][4]uint64{0x1000: {0x2000, 0x2010, 0x2020, 1}}
	c.serve(func(s *session) {
		var b []byte
		b = s.refs.AppendThreadContext(b, 1)
		var err error
		if b, err = protocol.AppendCallstackPayloadFrames(b, 1, []uint64{0x401010}); err != nil {
			t.Error(err)
		}
		b = protocol.AppendCallstack(b)
		b = s.refs.AppendZoneBeginCallstack(b, 2_000_000, 0x1000)
		b = s.refs.AppendZoneEnd(b, 2_000_500)
		s.send(b)
		s.send(protocol.AppendTerminate(nil))
	})
	res, err := Connect(context.Background(), c.addr(), WithTimeLimit(10*time.Second), func(cf *config) { cf.budget = 8 })
	if err != nil {
		t.Fatalf("capture: %v", err)
	}
	<-c.done
	if res.Stop != StopClientExit {
		t.Fatalf("stop = %v, want client exit", res.Stop)
	}
	tr := res.Trace
	if len(tr.SymbolCode) != 1 || tr.SymbolCode[0].Addr != sym || len(tr.SymbolCode[0].Code) != 64 {
		t.Fatalf("symbol code %+v", tr.SymbolCode)
	}
	for _, a := range want {
		if _, ok := tr.Frames[packFrame(a)]; !ok {
			t.Errorf("no frame stored for %#x", a)
		}
	}
	// The stack's own frame, every instruction and the call target; the
	// target's symbol is asked for too, and has no code.
	c.mu.Lock()
	defer c.mu.Unlock()
	if n := c.queries[protocol.ServerQueryCallstackFrame]; n != 1+len(want) {
		t.Errorf("%d CallstackFrame queries, want %d", n, 1+len(want))
	}
	if n := c.queries[protocol.ServerQuerySymbolCode]; n != 2 {
		t.Errorf("%d SymbolCode queries, want 2 (0x401000, 0x405000)", n)
	}
	if len(tr.Frames) != 1+len(want) {
		t.Errorf("%d frames stored, want %d", len(tr.Frames), 1+len(want))
	}
}

// BenchmarkDisasmDemo walks the demo's real symbol code (387 x86-64
// symbols, the code Tracy's server disassembled for that recording).
// Reported: code bytes/s and instructions/s of the walk alone.
func BenchmarkDisasmDemo(b *testing.B) {
	res := replayFixture(b, "demo")
	codes := res.Trace.SymbolCode
	walk := walkerFor(protocol.CPUArch(res.Trace.Metadata.CPUArch))
	var size int64
	for _, c := range codes {
		size += int64(len(c.Code))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	visits := 0
	b.ResetTimer()
	for b.Loop() {
		for _, c := range codes {
			walk(c.Addr, c.Code, func(uint64) { visits++ })
		}
	}
	b.ReportMetric(float64(visits)/b.Elapsed().Seconds(), "visits/s")
}

// TestX86FastMatchesX86asm holds the fast path for common x86-64 forms
// (x86fast64) to x86asm: on random instructions built around every
// opcode of both maps, with and without 0x66 and REX prefixes and cut at
// every length, whatever the fast path measures must be what x86asm (with
// the fallback) measures, with the same direct-branch displacement; and
// walking the demo's real symbol code with and without it visits the same
// addresses in the same order.
func TestX86FastMatchesX86asm(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 1766))
	n := 2_000_000
	if testing.Short() {
		n = 200_000
	}
	hits, bad := 0, 0
	reported := map[[3]int]bool{}
	buf := make([]byte, 16)
	for k := range n {
		b := buf[:0]
		switch rng.IntN(4) {
		case 1:
			b = append(b, 0x66)
		case 2:
			b = append(b, 0x40|byte(rng.IntN(16)))
		case 3:
			b = append(b, 0x66, 0x40|byte(rng.IntN(16)))
		}
		if k%2 == 0 {
			b = append(b, byte(k/2%256))
		} else {
			b = append(b, 0x0F, byte(k/2%256))
		}
		for len(b) < 16 {
			b = append(b, byte(rng.Uint32()))
		}
		if rng.IntN(4) == 0 { // truncated instructions too
			b = b[:1+rng.IntN(len(b))]
		}
		fn, frel, fbr := x86fast64(b)
		if fn == 0 {
			continue
		}
		hits++
		sn, srel, sbr := x86Step(b, 64)
		if fn != sn || frel != srel || fbr != sbr {
			key := [3]int{k % 2, k / 2 % 256, len(b) - len(bytes.TrimLeft(b, "\x66"))}
			if reported[key] {
				continue
			}
			reported[key] = true
			inst, err := x86asm.Decode(b, 64)
			t.Errorf("% x: fast path says length %d, branch %v %+d; x86asm %d, branch %v %+d (%v, %v)", b, fn, fbr, frel, sn, sbr, srel, inst, err)
			if bad++; bad == 200 {
				t.FailNow()
			}
		}
	}
	t.Logf("random: fast path measured %d of %d instructions", hits, n)

	res := replayFixture(t, "demo")
	var fast, slow []uint64
	insts, fastInsts := 0, 0
	for _, c := range res.Trace.SymbolCode {
		walkX86With(64, c.Addr, c.Code, func(a uint64) { fast = append(fast, a) }, true)
		walkX86With(64, c.Addr, c.Code, func(a uint64) { slow = append(slow, a) }, false)
		code := c.Code
		for len(code) > 0 {
			n, _, _ := x86Step(code, 64)
			if n == 0 {
				break
			}
			insts++
			if fn, _, _ := x86fast64(code); fn != 0 {
				fastInsts++
			}
			code = code[n:]
		}
	}
	if !slices.Equal(fast, slow) {
		t.Fatalf("demo: %d visits with the fast path, %d without, or in another order", len(fast), len(slow))
	}
	if len(fast) < 40_000 {
		t.Fatalf("demo: only %d visits", len(fast))
	}
	t.Logf("demo: %d visits; the fast path measured %d of %d instructions (%.1f%%)", len(fast), fastInsts, insts, 100*float64(fastInsts)/float64(insts))
}
