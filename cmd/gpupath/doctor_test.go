package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/internal/fstree"
	"github.com/gpupath/gpupath/internal/golden"
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
	if _, err := os.Stat(filepath.Join(dir, "nvml.json")); err == nil {
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
		{"doctor", "extra-argument"},
		{"doctor", "--no-such-flag"},
	} {
		out, errOut, code := invoke(t, args...)
		if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "gpupath: ") {
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
