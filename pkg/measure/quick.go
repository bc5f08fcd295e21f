package measure

import (
	"context"
	"time"

	"github.com/gpupath/gpupath/pkg/record"
)

// QuickBudget is the wall time of the quick run that `gpupath report` makes
// by default; the run ends within about a second of it.
const QuickBudget = 18 * time.Second

// QuickProbes are the probes of the quick run: the host-side stages.
var QuickProbes = []string{"tcp", "memcpy", "syscall"}

// QuickConfig is the configuration of the quick run: TCP ping-pong and
// streaming on loopback, memory copies and system-call costs, with short
// sweeps (Plan.Quick), about 20 seconds in all. progress may be nil.
func QuickConfig(dir string, progress Progress, version string) RunConfig {
	return RunConfig{
		Dir:      dir,
		Probes:   QuickProbes,
		Budget:   QuickBudget,
		Plan:     Plan{Quick: true, Target: "loopback"},
		Progress: progress,
		Version:  version,
	}
}

// RunQuick makes the quick run into dir (see QuickConfig and Run).
func RunQuick(ctx context.Context, dir string, progress Progress, version string) (*record.Manifest, error) {
	return Run(ctx, QuickConfig(dir, progress, version))
}
