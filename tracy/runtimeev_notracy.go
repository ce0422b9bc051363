//go:build notracy

package tracy

// RuntimeBatch collects execution-trace events (notracy: empty).
type RuntimeBatch struct{}

func RuntimeEnabled() bool { return false }
func (b *RuntimeBatch) ContextSwitch(ns int64, oldThread, newThread uint32, cpu, reason, state uint8) {
}
func (b *RuntimeBatch) Wakeup(ns int64, thread uint32, cpu uint8)      {}
func (b *RuntimeBatch) ZoneBegin(thread uint32, ns int64, name string) {}
func (b *RuntimeBatch) ZoneEnd(thread uint32, ns int64)                {}
func (b *RuntimeBatch) Message(thread uint32, ns int64, text string)   {}
func (b *RuntimeBatch) Sample(thread uint32, ns int64, pcs []uintptr)  {}
func (b *RuntimeBatch) Len() int                                       { return 0 }
func (b *RuntimeBatch) Flush()                                         {}
func SetRuntimeCPUs(n int)                                             {}
func SetLaneName(tid uint32, name string)                              {}
func SetGoroutineName(tid uint32, fn string)                           {}
