//go:build race

package measure

// raceEnabled relaxes timing checks: the race detector slows big copies
// (it checks every byte range) many times over.
const raceEnabled = true
