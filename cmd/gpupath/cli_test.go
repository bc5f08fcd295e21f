package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gpupath/gpupath/internal/golden"
)

// invoke runs the command line as main does and returns stdout, stderr and the exit status.
func invoke(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := exitCode(run(context.Background(), args, &out, &errb), &errb)
	return out.String(), errb.String(), code
}

func TestModelGolden(t *testing.T) {
	for _, tc := range []struct {
		file string
		args []string
	}{
		{"model_table.golden", []string{"model"}},
		{"model_csv.golden", []string{"model", "--format", "csv", "--sizes", "8,1MiB"}},
		{"model_gen3_table.golden", []string{"model", "--preset", "gen3-edr", "--paths", "host-tcp,host-rdma,gdr", "--sizes", "8,64KiB,16MiB"}},
		{"preset_list.golden", []string{"preset", "list"}},
	} {
		out, errOut, code := invoke(t, tc.args...)
		if code != 0 || errOut != "" {
			t.Fatalf("%v: exit %d, stderr %q", tc.args, code, errOut)
		}
		golden.Check(t, filepath.Join("testdata", tc.file), []byte(out))
	}
}

// The JSON of `gpupath model` follows DESIGN.md's contract: every key it
// names, with the types it shows; infeasible results carry only path,
// bytes, feasible and reason.
func TestModelJSONContract(t *testing.T) {
	out, _, code := invoke(t, "model", "--format", "json", "--sizes", "8,1MiB")
	if code != 0 {
		t.Fatal(code)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	// scenario and results (DESIGN.md), then how the scenario was
	// resolved: base, and given and warnings when there are any.
	if doc["scenario"] == nil || doc["results"] == nil || doc["base"] != "default" {
		t.Fatalf("top level keys: %v", keys(doc))
	}
	for k := range doc {
		switch k {
		case "scenario", "results", "base", "given", "warnings":
		default:
			t.Errorf("top-level key %q is not in the contract", k)
		}
	}
	sc := doc["scenario"].(map[string]any)
	nic := sc["nic"].(map[string]any)
	if nic["rate"] != "200Gbit/s" || nic["mtu"] != 9000.0 || nic["rdma"] != true || sc["topology"].(map[string]any)["gpu_nic"] != "PIX" {
		t.Errorf("scenario keys not as in the YAML: nic=%v", nic)
	}
	for _, sec := range []string{"gpu", "cpu", "memory", "nic", "topology", "network"} {
		if _, ok := sc[sec].(map[string]any); !ok {
			t.Errorf("scenario lacks section %s", sec)
		}
	}
	results := doc["results"].([]any)
	if len(results) != 16 {
		t.Fatalf("%d results, want 8 paths × 2 sizes", len(results))
	}
	num := []string{"latency_s", "pipelined_latency_s", "bandwidth_Bps", "cpu_s", "ddr_bytes", "copies", "pcie_crossings"}
	for _, r := range results {
		m := r.(map[string]any)
		if _, ok := m["path"].(string); !ok {
			t.Errorf("path missing: %v", m)
		}
		if _, ok := m["bytes"].(float64); !ok {
			t.Errorf("bytes missing: %v", m)
		}
		if m["feasible"] == false {
			if len(m) != 4 || m["reason"] == "" {
				t.Errorf("infeasible result has keys %v", keys(m))
			}
			continue
		}
		for _, k := range num {
			if _, ok := m[k].(float64); !ok {
				t.Errorf("%v: %s missing or not a number", m["path"], k)
			}
		}
		stages := m["stages"].([]any)
		for _, s := range stages {
			st := s.(map[string]any)
			for _, k := range []string{"name", "letter", "side"} {
				if _, ok := st[k].(string); !ok {
					t.Errorf("stage lacks %s: %v", k, st)
				}
			}
			if _, ok := st["latency_s"].(float64); !ok {
				t.Errorf("stage lacks latency_s: %v", st)
			}
			if side := st["side"]; side != "sender" && side != "network" && side != "receiver" {
				t.Errorf("stage side %v", side)
			}
		}
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// Bad input exits 2 with one line on stderr that names the key (and the
// file line where there is one).
func TestBadInputExitsTwo(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	unknown := write("unknown.yaml", "nic:\n  rate: 100Gbit/s\n  colour: blue\n")
	badUnit := write("unit.yaml", "nic:\n  rate: 100 furlongs\n")
	empty := write("empty.yaml", "")
	notYAML := write("notyaml.yaml", "{{{ this : is [ not\n")
	binary := write("blob.yaml", "\x00\x01\x02garbage")
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"unknown key", []string{"model", "--scenario", unknown}, []string{"unknown.yaml:3", "nic.colour", "unknown key"}},
		{"bad unit", []string{"model", "--scenario", badUnit}, []string{"unit.yaml:2", "nic.rate"}},
		{"negative rate", []string{"model", "--set", "nic.rate=-100Gbit/s"}, []string{"nic.rate", "positive"}},
		{"zero rate", []string{"model", "--set", "memory.rate=0GB/s"}, []string{"memory.rate"}},
		{"mtu 0", []string{"model", "--set", "nic.mtu=0"}, []string{"nic.mtu"}},
		{"gen9", []string{"model", "--set", "gpu.pcie=gen9x16"}, []string{"gpu.pcie", "generation 9"}},
		{"set missing key", []string{"model", "--set", "nic.colour=blue"}, []string{"nic.colour", "unknown key"}},
		{"set without =", []string{"model", "--set", "nic.rate"}, []string{"key=value"}},
		{"unreadable file", []string{"model", "--scenario", filepath.Join(dir, "nope.yaml")}, []string{"nope.yaml", "no such file"}},
		{"directory", []string{"model", "--scenario", dir}, []string{dir}},
		{"empty file", []string{"model", "--scenario", empty}, []string{"empty.yaml", "empty"}},
		{"non-YAML file", []string{"model", "--scenario", notYAML}, []string{"notyaml.yaml", "YAML"}},
		{"binary file", []string{"model", "--scenario", binary}, []string{"blob.yaml", "not a text file"}},
		{"unknown preset", []string{"model", "--preset", "dgx-z"}, []string{"unknown preset"}},
		{"both", []string{"model", "--preset", "default", "--scenario", unknown}, []string{"not both"}},
		{"unknown path", []string{"model", "--paths", "tcp,carrier-pigeon"}, []string{"carrier-pigeon"}},
		{"bad sizes", []string{"model", "--sizes", "8,lots"}, []string{"--sizes"}},
		{"bad format", []string{"model", "--format", "xml"}, []string{"xml"}},
		{"unknown flag", []string{"model", "--colour"}, []string{"colour"}},
		{"unknown command", []string{"frobnicate"}, []string{"frobnicate"}},
		{"preset show unknown", []string{"preset", "show", "nonesuch"}, []string{"nonesuch"}},
	} {
		out, errOut, code := invoke(t, tc.args...)
		if code != 2 {
			t.Errorf("%s: exit %d, want 2 (stderr %q)", tc.name, code, errOut)
		}
		if out != "" {
			t.Errorf("%s: wrote to stdout: %q", tc.name, out)
		}
		if strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "gpupath: ") {
			t.Errorf("%s: stderr is not one line: %q", tc.name, errOut)
		}
		for _, w := range tc.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%s: stderr %q lacks %q", tc.name, errOut, w)
			}
		}
		if strings.Contains(errOut, "goroutine") || strings.Contains(errOut, "panic") {
			t.Errorf("%s: stack trace: %q", tc.name, errOut)
		}
	}
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// gpupathBinary builds the command once per test run, for tests that need a real process.
func gpupathBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "gpupath-bin")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "gpupath")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = err
			t.Logf("%s", out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

func TestBinaryExitStatus(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds and runs the binary")
	}
	bin := gpupathBinary(t)
	cmd := exec.Command(bin, "model", "--set", "gpu.pcie=gen9x16")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 2 {
		t.Fatalf("exit: %v", err)
	}
	if got := stderr.String(); got != "gpupath: --set gpu.pcie: \"gen9x16\": PCIe generation 9 does not exist (gen1..gen6)\n" {
		t.Errorf("stderr %q", got)
	}
	if out, err := exec.Command(bin, "model", "--paths", "gdr", "--sizes", "8").Output(); err != nil || !strings.Contains(string(out), "gdr") {
		t.Errorf("model: %v %s", err, out)
	}
}

func TestFitBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad")
	os.MkdirAll(bad, 0o755)
	os.WriteFile(filepath.Join(bad, "manifest.json"), []byte("{not json"), 0o644)
	os.WriteFile(filepath.Join(bad, "results.jsonl"), []byte("garbage\n"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"no data", []string{"fit"}},
		{"missing dir", []string{"fit", "--data", filepath.Join(dir, "nope")}},
		{"corrupt run", []string{"fit", "--data", bad}},
		{"bad format", []string{"fit", "--data", bad, "--format", "xml"}},
	} {
		_, errOut, code := invoke(t, tc.args...)
		if code != 2 || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q", tc.name, code, errOut)
		}
	}
}
