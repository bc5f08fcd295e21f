package measure

import (
	"math"

	"golang.org/x/sys/unix"
)

// ThreadCPU returns the user and system CPU seconds of the calling OS
// thread (RUSAGE_THREAD); the caller must be locked to its thread. Both are
// NaN when the kernel does not say.
func ThreadCPU() (user, sys float64) {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_THREAD, &ru) != nil {
		return math.NaN(), math.NaN()
	}
	return tvSeconds(ru.Utime), tvSeconds(ru.Stime)
}

// ProcessCPU returns the user and system CPU seconds of this process, all
// threads (RUSAGE_SELF); 0 when the kernel does not say.
func ProcessCPU() (user, sys float64) {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return 0, 0
	}
	return tvSeconds(ru.Utime), tvSeconds(ru.Stime)
}

func tvSeconds(tv unix.Timeval) float64 {
	return float64(tv.Sec) + float64(tv.Usec)*1e-6
}
