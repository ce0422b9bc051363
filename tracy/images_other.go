//go:build !linux && !notracy

package tracy

// loadExeImage: the image-list extension is implemented for Linux (ELF)
// only; elsewhere the client does not advertise it and resolves its frames
// itself.
func loadExeImage() exeImage { return exeImage{} }
