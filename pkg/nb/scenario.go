package nb

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/gpupath/gpupath/internal/safeio"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/units"
)

// With returns a copy of base with each "key=value" override applied, as
// `gpupath model --set key=value` applies them.
func With(base *model.Scenario, sets ...string) (*model.Scenario, error) {
	if base == nil {
		return nil, fmt.Errorf("nb: no scenario")
	}
	s := base.Clone()
	ovs, err := model.ParseSets(sets, "set")
	if err != nil {
		return nil, err
	}
	if err := s.Apply(ovs...); err != nil {
		return nil, err
	}
	return s, nil
}

// Scenario describes s in one Markdown line: its name and description.
func Scenario(s *model.Scenario) string {
	return fmt.Sprintf("**Scenario `%s`**: %s", s.Name, s.Description)
}

// PathHeader is a Markdown heading for a path with its title and story,
// as the model tells it.
func PathHeader(path string) (string, error) {
	p, err := model.LookupPath(path)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("### `%s` — %s\n\n%s", p.Name, p.Title, p.Story), nil
}

// Host describes the machine the notebook runs on in one Markdown line:
// host name, CPUs, OS and kernel (what is not found is left out).
func Host() string {
	name, err := os.Hostname()
	if err != nil {
		name = "unknown"
	}
	line := fmt.Sprintf("**This host**: `%s`, %d CPUs, %s/%s", name, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH)
	if b, err := safeio.ReadFile(context.Background(), "/proc/sys/kernel/osrelease", 4<<10); err == nil {
		line += ", kernel " + strings.TrimSpace(string(b))
	}
	return line + "."
}

// PipelineGain says in Markdown how much pipelining in the scenario's
// chunks gains over one message as the hardware moves it, for path at
// each size.
func PipelineGain(s *model.Scenario, path string, sizes ...units.Bytes) (string, error) {
	r, err := s.Route(path)
	if err != nil {
		return "", err
	}
	if !r.Feasible {
		return "", fmt.Errorf("nb: %s is infeasible on %s: %s", path, s.Name, r.Reason)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "`%s` on `%s`, one message as the hardware moves it (device stages overlap packet by packet) against software pipelined in %s chunks:\n",
		path, s.Name, s.Pipeline.Chunk.Human())
	for _, n := range sizes {
		res := r.Evaluate(n)
		if res.Chunks <= 1 {
			why := "one chunk"
			if n > s.Pipeline.Chunk {
				why = "the hardware's overlap is as good as chunks"
			}
			fmt.Fprintf(&b, "- %s: %s either way (%s).\n", n.Human(), res.Latency.Human(), why)
			continue
		}
		fmt.Fprintf(&b, "- %s: %s against %s pipelined in %d chunks, %s less time.\n", n.Human(), res.Latency.Human(),
			res.Pipelined.Human(), res.Chunks, percent(1 - float64(res.Pipelined/res.Latency))[1:])
	}
	return b.String(), nil
}
