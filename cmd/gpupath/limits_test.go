package main

import (
	"strings"
	"testing"

	"github.com/gpupath/gpupath/internal/cli"
)

// Every command that reads from outside lists its limits in --help, with
// the values the code enforces.
func TestHelpListsLimits(t *testing.T) {
	for cmd, wants := range map[string][]string{
		"model":  {"scenario file 1 MiB"},
		"report": {"scenario file 1 MiB", "results.jsonl 1 GiB", "lines 1 MiB", "1,000,000 records", "256 MiB per file", "PDF 500 pages"},
		"fit":    {"manifest.json and doctor.json 16 MiB", "1,000,000 records"},
		"import": {"256 MiB per file"},
		"doctor": {"one file of a tree, and the --nvml file, 16 MiB", "a FIFO or a device is refused"},
		"serve":  {"16 sessions at once", "1 GiB of message buffers", "10 MB/s", "10 min per connection"},
	} {
		stdout, _, code := invoke(t, cmd, "--help")
		if code != 0 {
			t.Errorf("%s --help: exit %d", cmd, code)
		}
		_, limits, ok := strings.Cut(stdout, "\nlimits (a message names the one passed):\n")
		if !ok {
			t.Errorf("%s --help lists no limits:\n%s", cmd, stdout)
			continue
		}
		for _, w := range wants {
			if !strings.Contains(limits, w) {
				t.Errorf("%s --help: no %q in its limits:\n%s", cmd, w, limits)
			}
		}
	}
}

// An error quoting a 100,000-byte argument is one line of at most 1 KiB,
// "gpupath: " and what follows the argument (the list of presets, the
// hint) included, whatever the command.
func TestLongArgumentErrorLine(t *testing.T) {
	long := strings.Repeat("B", 100000)
	for _, args := range [][]string{
		{"model", "--preset", long},
		{"model", "--set", long},
		{"model", "--sizes", long},
		{"catalog", "show", long},
		{"preset", "show", long},
		{"measure", "--probes", long},
		{"doctor", "--fail-on", long},
		{long},
	} {
		_, errOut, code := invoke(t, args...)
		if code != 2 || len(errOut) > cli.MaxMessageBytes || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "bytes left out") {
			t.Errorf("%.20q: exit %d, %d bytes: %.80q…%q", args, code, len(errOut), errOut, errOut[max(0, len(errOut)-120):])
		}
	}
}
