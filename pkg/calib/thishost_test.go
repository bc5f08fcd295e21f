package calib

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/gpupath/gpupath/internal/golden"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"
)

func TestPingPongAlpha(t *testing.T) {
	// latency = 5us + n / 1GB/s, exactly: the fit recovers it; the record
	// above the limit is left out, and one size is not enough.
	var rs []record.Result
	for _, n := range []int64{1, 64, 1024, 16384, 65536, 1 << 20} {
		rs = append(rs, record.Result{Bytes: n, MedianS: 5e-6 + float64(n)/1e9})
	}
	rs[5].MedianS = 1 // far off the line, and past 64 KiB
	f, ok := pingPongAlpha(rs, 64<<10)
	if !ok || f.Sizes != 5 {
		t.Fatalf("fit %+v ok=%v", f, ok)
	}
	if math.Abs(f.Alpha.Value-5e-6)/5e-6 > 1e-9 || math.Abs(f.Beta.Value-1e9)/1e9 > 1e-9 {
		t.Errorf("alpha %v beta %v, want 5e-6 and 1e9", f.Alpha.Value, f.Beta.Value)
	}
	if _, ok := pingPongAlpha([]record.Result{{Bytes: 8, MedianS: 1e-6}, {Bytes: 8, MedianS: 2e-6}}, 1<<20); ok {
		t.Error("fit from one size")
	}
}

// hostRecords is a run as the three probes write it, with round numbers.
func hostRecords() []record.Result {
	rs := []record.Result{
		{Probe: "memcpy", Variant: "warm", Bytes: 64 << 20, Iterations: 20, MedianS: 4e-3, ThroughputBps: 16.777e9},
		{Probe: "memcpy", Variant: "cold", Bytes: 16 << 20, Iterations: 30, ThroughputBps: 12e9},
		{Probe: "memcpy", Variant: "cold", Bytes: 64 << 20, Iterations: 12, ThroughputBps: 11.83e9},
		{Probe: "memcpy", Variant: "cold", Bytes: 4 << 20, Iterations: 40, ThroughputBps: 20e9}, // too small to count
		{Probe: "syscall", Variant: "getppid", Iterations: 100, MedianS: 3.5e-7},
		{Probe: "syscall", Variant: "tcp-send", Bytes: 1, Iterations: 50, MedianS: 2.0e-6},
		{Probe: "syscall", Variant: "tcp-recv", Bytes: 1, Iterations: 50, MedianS: 1.0e-6},
		{Probe: "syscall", Variant: "tcp-send", Bytes: 1024, Iterations: 50, MedianS: 2.5e-6}, // not the smallest
	}
	// Ping-pong on loopback: 6.5us + n / 2GB/s. A remote peer's records must be ignored.
	for _, n := range []int64{1, 64, 1024, 16384, 65536, 4 << 20} {
		rs = append(rs, record.Result{Probe: "tcp", Variant: "pingpong", Target: "loopback", Bytes: n,
			MedianS: 6.5e-6 + float64(n)/2e9, CPUUserS: 1e-6, CPUSysS: 7e-6})
		rs = append(rs, record.Result{Probe: "tcp", Variant: "pingpong", Target: "10.0.0.2:7470", Bytes: n, MedianS: 30e-6})
	}
	return rs
}

func TestHostFacts(t *testing.T) {
	f, notes := hostFacts(hostRecords())
	ovs := Overrides(f)
	got, src := overrideTexts(t, ovs)
	for k, s := range src {
		if s == "" {
			t.Errorf("%s has no source", k)
		}
	}
	want := map[string]string{
		"cpu.memcpy_rate":      "12GB/s", // the best cold median at ≥ 16 MiB (16 MiB: 12e9 > 64 MiB: 11.83e9)
		"stack.syscall":        "350ns",  // the units formatter picks ns below 1 µs
		"stack.tx_per_message": "2us",
		"stack.rx_per_message": "1us",
		"stack.wakeup":         "5us", // ping-pong CPU 1us + 7us per message − 2us − 1us
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if len(ovs) != len(want) || len(notes) != 0 {
		t.Errorf("overrides %v, notes %v", ovs, notes)
	}
	if ovs[0].Key != "cpu.memcpy_rate" || ovs[0].Value != units.Rate(12e9) {
		t.Errorf("first override %+v, want cpu.memcpy_rate typed", ovs[0])
	}
}

func TestHostFactsFallbacks(t *testing.T) {
	// No syscall tcp records: tx and rx split the ping-pong CPU per message
	// (1us + 7us at the smallest size), and wakeup is left out with a note.
	var rs []record.Result
	for _, r := range hostRecords() {
		if r.Probe == "tcp" {
			rs = append(rs, r)
		}
	}
	f, notes := hostFacts(rs)
	got, src := overrideTexts(t, Overrides(f))
	if got["stack.tx_per_message"] != "4us" || got["stack.rx_per_message"] != "4us" ||
		!strings.Contains(src["stack.tx_per_message"], "split evenly") {
		t.Errorf("fallback %+v", got)
	}
	if _, ok := got["stack.wakeup"]; ok {
		t.Error("wakeup derived without send/recv timings")
	}
	joined := strings.Join(notes, "\n")
	for _, k := range []string{"cpu.memcpy_rate", "stack.syscall", "stack.wakeup"} {
		if !strings.Contains(joined, k) {
			t.Errorf("no note for %s in %q", k, joined)
		}
	}
	// Ping-pong CPU per message (8us) below send + receive gives no wakeup.
	rs = hostRecords()
	for i := range rs {
		if rs[i].Variant == "tcp-send" {
			rs[i].MedianS = 7.5e-6
		}
	}
	f, notes = hostFacts(rs)
	for _, o := range Overrides(f) {
		if o.Key == "stack.wakeup" {
			t.Errorf("wakeup %v from a negative difference", o)
		}
	}
	if !strings.Contains(strings.Join(notes, " "), "not above") {
		t.Errorf("notes %v", notes)
	}
	// Nothing at all.
	f, notes = hostFacts(nil)
	if ovs := Overrides(f); len(ovs) != 0 || len(notes) != 4 {
		t.Errorf("empty: %v %v", ovs, notes)
	}
}

func TestWriteScenarioYAML(t *testing.T) {
	f, _ := hostFacts(hostRecords())
	ovs := Overrides(f)
	var buf bytes.Buffer
	if err := WriteScenarioYAML(&buf, "This host (node1), measured by gpupath test.", ovs); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "host-scenario.golden.yaml"), buf.Bytes())
	// It reads back as nested keys with the values.
	var back map[string]map[string]string
	if err := yaml.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back["cpu"]["memcpy_rate"] != "12GB/s" || back["stack"]["wakeup"] != "5us" || len(back["stack"]) != 4 {
		t.Errorf("read back %v", back)
	}
	if err := WriteScenarioYAML(&buf, "", []model.Override{{Key: "nodots", Value: 1}}); err == nil {
		t.Error("a key without a section accepted")
	}
}
