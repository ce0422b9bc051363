//go:build !unix

package fileio

import "testing"

func mkfifo(t *testing.T, path string) { t.Skip("no named pipes on this system") }
