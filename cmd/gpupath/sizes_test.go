package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSizesSameEverywhere runs the same size lists, good and bad, through
// every --sizes flag: model, measure, and the diagnostic runner (measure
// --diagnose and its alias gpucheck). They share one grammar
// (units.ParseSizes): the same lists give the same sizes, and the same bad
// lists the same one-line error with exit status 2.
func TestSizesSameEverywhere(t *testing.T) {
	good := []struct {
		list string
		want []int64
	}{
		{"8,4096,1MiB", []int64{8, 4096, 1 << 20}},
		{"1B:4B:x2", []int64{1, 2, 4}},
		{"8:1MiB:x16", []int64{8, 128, 2048, 32768, 524288}},
		{"1MB, 4kB,64KiB", []int64{1e6, 4000, 64 << 10}},
		{"1.5KiB", []int64{1536}},
		{"1GiB", []int64{1 << 30}},
	}
	for _, tc := range good {
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), []string{"model", "--paths", "host-tcp", "--format", "json", "--sizes", tc.list}, &stdout, &stderr); err != nil {
			t.Fatalf("model --sizes %q: %v", tc.list, err)
		}
		var out struct {
			Results []struct {
				Bytes int64 `json:"bytes"`
			} `json:"results"`
		}
		if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, r := range out.Results {
			got = append(got, r.Bytes)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("model --sizes %q: %v, want %v", tc.list, got, tc.want)
		}
		for _, c := range []struct {
			name     string
			diagnose bool
			args     []string
		}{
			// Probes without a declared size range: the grammar alone
			// (the ranges are measure's TestMeasureBadInput).
			{"measure", false, []string{"--probes", "topo,cuda", "--sizes", tc.list}},
			{"measure", false, []string{"--diagnose", "--sizes", tc.list}},
			{"gpucheck", true, []string{"-sizes", tc.list}},
		} {
			_, cfg, err := parseMeasure(c.name, c.diagnose, c.args, &stdout)
			if err != nil || !slices.Equal(cfg.Plan.Sizes, tc.want) {
				t.Errorf("%s %v: %v, %v; want %v", c.name, c.args, cfg.Plan.Sizes, err, tc.want)
			}
		}
	}
	bad := []string{"", "64,x", "1M", "4kb", "0", "-8", "1B:1GiB", "1B:1GiB:x1", "4B:1B:x2", "1.5B", "8,,16"}
	for _, list := range bad {
		var msgs []string
		for _, args := range [][]string{
			{"model", "--sizes", list},
			{"measure", "--sizes", list, "--out", filepath.Join(t.TempDir(), "run")},
			{"measure", "--diagnose", "--sizes", list, "--out", filepath.Join(t.TempDir(), "run")},
			{"gpucheck", "-sizes", list, "-out", filepath.Join(t.TempDir(), "run")},
		} {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), args, &stdout, &stderr)
			if code := exitCode(err, &stderr); code != 2 {
				t.Errorf("%v: exit %d, want 2 (%v)", args, code, err)
			}
			if strings.Count(stderr.String(), "\n") != 1 {
				t.Errorf("%v: stderr %q is not one line", args, stderr.String())
			}
			msgs = append(msgs, stderr.String())
		}
		for _, m := range msgs[1:] {
			if m != msgs[0] {
				t.Errorf("--sizes %q: the flags disagree: %q", list, msgs)
				break
			}
		}
	}
}
