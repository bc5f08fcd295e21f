package model

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/units"
)

// Every rate and time key has a lower and an upper bound, and within them
// no scenario makes JSON output fail (+Inf) for any size up to the largest.
func TestKeyBoundsKeepOutputFinite(t *testing.T) {
	for _, k := range Keys() {
		var bad []string
		switch k.Unit {
		case "rate":
			bad = []string{"1e-300bit/s", "5e-324B/s", "100bit/s", "1e300B/s"}
		case "duration":
			bad = []string{"1e-300s", "5e-324s", "0.0001ns", "1e300s"}
		default:
			continue
		}
		for _, v := range bad {
			if err := Default().Set(k.Name, v); err == nil {
				t.Errorf("%s=%s accepted", k.Name, v)
			}
		}
	}
	sizes := []units.Bytes{1, 1 << 40, math.MaxInt64 / 2}
	for _, ext := range []struct{ rate, dur string }{{"1kbit/s", "0.001ns"}, {"1000000GB/s", "0.001ns"}, {"1kbit/s", ""}} {
		s := Default()
		for _, k := range Keys() {
			switch {
			// A key with a tighter range of its own (gpu.memory_rate:
			// 1–100000 GB/s) refuses the extreme and keeps its value.
			case k.Unit == "rate" && k.Name != "loopback.rate":
				if err := s.Set(k.Name, ext.rate); err != nil && !strings.Contains(err.Error(), "out of range") {
					t.Fatalf("%s=%s: %v", k.Name, ext.rate, err)
				}
			case k.Unit == "duration" && ext.dur != "":
				if err := s.Set(k.Name, ext.dur); err != nil && !strings.Contains(err.Error(), "out of range") {
					t.Fatalf("%s=%s: %v", k.Name, ext.dur, err)
				}
			}
		}
		var b bytes.Buffer
		if err := WriteJSON(&b, s, Sweep(s, Paths(), sizes)); err != nil {
			t.Errorf("rates %s, times %s: %v", ext.rate, ext.dur, err)
		}
		if !json.Valid(b.Bytes()) {
			t.Errorf("invalid JSON")
		}
	}
}

func TestParseYAMLDocuments(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"name: a\n---\nname: b\n", "s.yaml:3: a second YAML document"},
		{"nic:\n  rate: [1, 2]\n", "found a list"},
	} {
		_, err := Parse([]byte(tc.text), "s.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.text, err, tc.want)
		}
	}
	// An alias to a plain value is that value.
	s, err := Parse([]byte("name: &n fast\ndescription: *n\n"), "s.yaml")
	if err != nil || s.Description != "fast" {
		t.Errorf("alias: %v, %+v", err, s)
	}
	// A single document with a leading --- is fine.
	if _, err := Parse([]byte("---\nname: a\n"), "s.yaml"); err != nil {
		t.Errorf("leading ---: %v", err)
	}
}
