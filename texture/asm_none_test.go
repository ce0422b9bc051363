//go:build (!amd64 && !arm64) || purego

package texture

func asmEncoders() map[string]func(out, rgba []byte, w, h int, flip bool) { return nil }
