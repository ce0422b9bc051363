//go:build !race && !notracy

package tracy

const raceEnabled = false
