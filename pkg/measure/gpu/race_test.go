//go:build race

package gpu

// raceEnabled relaxes timing checks: the race detector slows big copies
// (it checks every byte range) many times over.
const raceEnabled = true
