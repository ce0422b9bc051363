//go:build !unix

package main

import "testing"

func mkfifo(t *testing.T, path string) { t.Skip("no named pipes on this system") }
