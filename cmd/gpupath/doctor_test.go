package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gpupath/gpupath/internal/fstree"
	"github.com/gpupath/gpupath/internal/golden"
	"github.com/gpupath/gpupath/internal/termtext"
)

// unpackDoctorTree unpacks a doctor fixture tree into a temporary directory.
func unpackDoctorTree(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	if err := fstree.UnpackFile(filepath.Join("..", "..", "pkg", "doctor", "testdata", "trees", name, "tree.txt"), dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func doctorArgs(dir string, extra ...string) []string {
	args := []string{"doctor", "--sysfs", filepath.Join(dir, "sys"), "--proc", filepath.Join(dir, "proc"), "--boot", filepath.Join(dir, "boot")}
	// A tree's nvml.json that is not JSON (the bad tree's) is left out:
	// given as --nvml FILE it is bad input (TestDoctorBadInput); pkg/doctor's
	// tree tests diagnose it as a finding of the tree.
	if b, err := os.ReadFile(filepath.Join(dir, "nvml.json")); err == nil && json.Valid(b) {
		args = append(args, "--nvml", filepath.Join(dir, "nvml.json"))
	}
	return append(args, extra...)
}

// gpupath doctor on fixture trees: stdout pinned by golden files, the
// tree's temporary directory written as $TREE.
func TestDoctorGolden(t *testing.T) {
	for _, tc := range []struct {
		tree, file string
		extra      []string
	}{
		{"pix-good", "doctor_pix-good.golden", nil},
		{"bridge-bad", "doctor_bridge-bad_json.golden", []string{"--format", "json"}},
		{"cross-socket", "doctor_cross-socket_gen3.golden", []string{"--preset", "gen3-edr", "--set", "nic.rate=100Gbit/s"}},
		{"bad", "doctor_bad.golden", nil},
	} {
		t.Run(tc.tree, func(t *testing.T) {
			dir := unpackDoctorTree(t, tc.tree)
			out, errOut, code := invoke(t, doctorArgs(dir, tc.extra...)...)
			if code != 0 || errOut != "" {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			golden.Check(t, filepath.Join("testdata", tc.file), []byte(strings.ReplaceAll(out, dir, "$TREE")))
		})
	}
}

// Bad input: exit 2, one line on stderr, nothing on stdout.
func TestDoctorBadInput(t *testing.T) {
	dir := unpackDoctorTree(t, "empty")
	fifo, huge := filepath.Join(t.TempDir(), "fifo"), filepath.Join(t.TempDir(), "nvml.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(huge, nil, 0o644); err != nil || os.Truncate(huge, 17<<20) != nil {
		t.Fatal("cannot make the large file")
	}
	binary, empty := filepath.Join(t.TempDir(), "bin.dat"), filepath.Join(t.TempDir(), "empty.json")
	os.WriteFile(binary, []byte("\xa1\x00\xff\x1b[2J"), 0o644)
	os.WriteFile(empty, nil, 0o644)
	for _, args := range [][]string{
		{"doctor", "--format", "yaml"},
		{"doctor", "--sysfs", filepath.Join(dir, "nowhere")},
		{"doctor", "--proc", filepath.Join(dir, "sys", "..", "missing")},
		{"doctor", "--sysfs", ""},
		{"doctor", "--preset", "no-such-preset"},
		{"doctor", "--preset", "default", "--scenario", "x.yaml"},
		{"doctor", "--set", "nic.rate"},
		{"doctor", "--set", "nic.rate=fast"},
		{"doctor", "--nvml", filepath.Join(dir, "missing.json")},
		// A file of GPU facts that cannot be a file of facts (a device, a
		// FIFO, one over the limit) is bad input, before anything is read.
		{"doctor", "--nvml", "/dev/zero"},
		{"doctor", "--nvml", fifo},
		{"doctor", "--nvml", huge},
		// Given, the file is input and must be GPU facts: one that is not
		// JSON (binary, empty, the bad tree's damaged nvml.json) is bad input,
		// the byte it stopped at escaped.
		{"doctor", "--nvml", binary},
		{"doctor", "--nvml", empty},
		{"doctor", "--nvml", filepath.Join(unpackDoctorTree(t, "bad"), "nvml.json")},
		{"doctor", "extra-argument"},
		{"doctor", "--no-such-flag"},
	} {
		out, errOut, code := invoke(t, args...)
		if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "gpupath: ") || !termtext.Safe(errOut, true) || strings.ContainsRune(errOut, '¡') {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}

// --save-tree writes what doctor read; doctor on the saved tree says the
// same as on the original.
func TestDoctorSaveTree(t *testing.T) {
	for _, tree := range []string{"pix-good", "bad"} {
		t.Run(tree, func(t *testing.T) {
			dir := unpackDoctorTree(t, tree)
			saved := filepath.Join(t.TempDir(), "saved.txt")
			first, errOut, code := invoke(t, doctorArgs(dir, "--format", "json", "--save-tree", saved)...)
			if code != 0 || errOut != "" {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			again := t.TempDir()
			if err := fstree.UnpackFile(saved, again); err != nil {
				t.Fatal(err)
			}
			for _, d := range []string{"sys", "proc", "boot"} {
				os.MkdirAll(filepath.Join(again, d), 0o755)
			}
			second, errOut, code := invoke(t, doctorArgs(again, "--format", "json")...)
			if code != 0 || errOut != "" {
				t.Fatalf("replay: exit %d, stderr %q", code, errOut)
			}
			var a, b map[string]any
			json.Unmarshal([]byte(strings.ReplaceAll(first, dir, "$TREE")), &a)
			json.Unmarshal([]byte(strings.ReplaceAll(second, again, "$TREE")), &b)
			if tree == "bad" {
				// Faults and links out of the root do not survive a copy: compare the summary only loosely.
				if a["summary"] == nil || b["summary"] == nil {
					t.Fatal("no summary")
				}
				return
			}
			ja, _ := json.MarshalIndent(a, "", " ")
			jb, _ := json.MarshalIndent(b, "", " ")
			if string(ja) != string(jb) {
				t.Errorf("replayed tree reads differently:\n%s\n---\n%s", ja, jb)
			}
		})
	}
}

// The tree doctor saved on the H200 host (reports/examples/doctor/
// h200-1gpu-tree.txt) replays as its header says: doctor reads it, sees
// the GPU, and finds what it found on the host that day (h200-1gpu.txt:
// the same summary and the same checks at the same levels; the prices
// follow the model of the day and are not compared). A saved tree the
// reader refuses (its nvml.json in an older schema showed "GPUs: none")
// fails here.
func TestDoctorExampleTreeReplays(t *testing.T) {
	const ex = "../../reports/examples/doctor/"
	dir := t.TempDir()
	if err := fstree.UnpackFile(ex+"h200-1gpu-tree.txt", dir); err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"sys", "proc", "boot"} {
		os.MkdirAll(filepath.Join(dir, sub), 0o755)
	}
	out, errOut, code := invoke(t, doctorArgs(dir)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	host, err := os.ReadFile(ex + "h200-1gpu.txt")
	if err != nil {
		t.Fatal(err)
	}
	// findings: the summary line, the GPU line and each check's heading.
	findings := func(s string) string {
		var keep []string
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "gpupath doctor:") || strings.HasPrefix(l, "GPUs:") || l != "" && l[0] >= 'A' && l[0] <= 'Z' && strings.Contains(l, "  ") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	if got, want := findings(out), findings(string(host)); got != want {
		t.Errorf("the replay finds otherwise than doctor did on the host:\n--- replay\n%s\n--- host\n%s", got, want)
	}
	if !strings.Contains(out, "GPUs:   NVML 13.580.159.04 (1 GPU)") {
		t.Errorf("the replay sees no GPU:\n%s", out)
	}
}
