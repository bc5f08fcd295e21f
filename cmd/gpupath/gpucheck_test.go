package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGPUCheckWithoutHardware(t *testing.T) {
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"gpucheck", "-out", out, "-probes", "topo,rdma,perftest", "-sysfs", t.TempDir(), "-quiet"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr with -quiet: %s", stderr.String())
	}
	for _, f := range []string{"results.jsonl", "inventory.json", "overrides.json", "set-flags.txt", "this-host.yaml", "summary.txt"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	var inv struct {
		Probes []gpucheckProbe `json:"probes"`
	}
	b, _ := os.ReadFile(filepath.Join(out, "inventory.json"))
	if err := json.Unmarshal(b, &inv); err != nil {
		t.Fatal(err)
	}
	if len(inv.Probes) != 3 {
		t.Fatalf("probes %+v", inv.Probes)
	}
	for _, p := range inv.Probes {
		if p.Status != "unavailable" || !strings.HasPrefix(p.Error, "not measured: ") {
			t.Errorf("%s: %s %s", p.Name, p.Status, p.Error)
		}
	}
	if !strings.Contains(stdout.String(), "rdma      unavailable") {
		t.Errorf("summary:\n%s", stdout.String())
	}
}

func TestGPUCheckBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"gpucheck"},
		{"gpucheck", "-out", t.TempDir(), "-probes", "nosuch"},
		{"gpucheck", "-out", t.TempDir(), "-sizes", "4,x"},
		{"gpucheck", "-out", t.TempDir(), "-opt", "novalue"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), args, &stdout, &stderr)
		if code := exitCode(err, &stderr); code != 2 {
			t.Errorf("%v: exit %d (%v)", args, code, err)
		}
	}
}

func TestParseSizeList(t *testing.T) {
	got, err := parseSizeList("4, 4KiB,1MiB,1GiB,16B")
	want := []int64{4, 4096, 1 << 20, 1 << 30, 16}
	if err != nil || len(got) != len(want) {
		t.Fatalf("%v %v", got, err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%d: %d, want %d", i, got[i], want[i])
		}
	}
	for _, bad := range []string{"", "0", "-4", "1TiB0", "4kb"} {
		if _, err := parseSizeList(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if sizeName(1<<30) != "1GiB" || sizeName(4) != "4B" || sizeName(64<<10) != "64KiB" {
		t.Error("sizeName")
	}
}
