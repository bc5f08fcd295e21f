package doctor

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/gpupath/gpupath/internal/fstree"
	"github.com/gpupath/gpupath/internal/golden"
	"github.com/gpupath/gpupath/pkg/model"
)

var (
	treeRoot string
	unpacked = struct {
		sync.Mutex
		dirs map[string]string
	}{dirs: map[string]string{}}
)

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "doctor-trees-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	treeRoot = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// treeNames lists the fixture trees.
func treeNames(t testing.TB) []string {
	ents, err := os.ReadDir(filepath.Join("testdata", "trees"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// unpackTree unpacks testdata/trees/<name>/tree.txt once per test binary and
// returns its directory. Next to the bad tree's sysfs root it puts a real
// outside/nvidia_peermem/version, which a link in the tree points to: it
// must never be read.
func unpackTree(t testing.TB, name string) string {
	t.Helper()
	unpacked.Lock()
	defer unpacked.Unlock()
	if d, ok := unpacked.dirs[name]; ok {
		return d
	}
	dir := filepath.Join(treeRoot, name)
	if err := fstree.UnpackFile(filepath.Join("testdata", "trees", name, "tree.txt"), dir); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "outside", "nvidia_peermem")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "version"), []byte(outsideSecret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	unpacked.dirs[name] = dir
	return dir
}

const outsideSecret = "OUTSIDE-THE-ROOT"

// faultFS makes the named files fail with an errno, as sysfs makes some
// attributes fail.
type faultFS struct {
	fs.FS
	faults map[string]error
}

func (f faultFS) check(name string) error {
	if err, ok := f.faults[name]; ok {
		return &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return nil
}

func (f faultFS) Open(name string) (fs.File, error) {
	if err := f.check(name); err != nil {
		return nil, err
	}
	return f.FS.Open(name)
}

func (f faultFS) ReadFile(name string) ([]byte, error) {
	if err := f.check(name); err != nil {
		return nil, err
	}
	return fs.ReadFile(f.FS, name)
}

func (f faultFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := f.check(name); err != nil {
		return nil, err
	}
	return fs.ReadDir(f.FS, name)
}

func (f faultFS) Stat(name string) (fs.FileInfo, error) {
	if err := f.check(name); err != nil {
		return nil, err
	}
	return fs.Stat(f.FS, name)
}

func (f faultFS) ReadLink(name string) (string, error) {
	if err := f.check(name); err != nil {
		return "", err
	}
	return f.FS.(fs.ReadLinkFS).ReadLink(name)
}

func (f faultFS) Lstat(name string) (fs.FileInfo, error) {
	if err := f.check(name); err != nil {
		return nil, err
	}
	return f.FS.(fs.ReadLinkFS).Lstat(name)
}

var errnos = map[string]error{"EACCES": syscall.EACCES, "EPERM": syscall.EPERM, "EIO": syscall.EIO, "EINVAL": syscall.EINVAL}

// readFaults reads <tree>/faults.txt: "sys/path ERRNO" lines, split by tree.
func readFaults(t testing.TB, dir string) map[string]map[string]error {
	out := map[string]map[string]error{}
	f, err := os.Open(filepath.Join(dir, "faults.txt"))
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		p, errno, _ := strings.Cut(line, " ")
		e, ok := errnos[errno]
		tree, rest, ok2 := strings.Cut(p, "/")
		if !ok || !ok2 {
			t.Fatalf("faults.txt: bad line %q", line)
		}
		if out[tree] == nil {
			out[tree] = map[string]error{}
		}
		out[tree][rest] = e
	}
	return out
}

// runTree runs doctor on a fixture tree as the golden tests do.
func runTree(t testing.TB, name string) *Report {
	dir := unpackTree(t, name)
	trees := Open(filepath.Join(dir, "sys"), filepath.Join(dir, "proc"), filepath.Join(dir, "boot"))
	t.Cleanup(func() { trees.Close() })
	faults := readFaults(t, dir)
	wrap := func(f fs.FS, tree string) fs.FS {
		if f == nil || faults[tree] == nil {
			return f
		}
		return faultFS{f, faults[tree]}
	}
	var gpu GPUSource = NoGPUSource{Why: "no nvml.json in this tree"}
	if _, err := os.Stat(filepath.Join(dir, "nvml.json")); err == nil {
		gpu = FileGPUSource{FS: os.DirFS(dir), Name: "nvml.json"}
	}
	return Run(Options{Sys: wrap(trees.Sys, "sys"), Proc: wrap(trees.Proc, "proc"), Boot: wrap(trees.Boot, "boot"),
		Roots: Roots{Sys: "sys", Proc: "proc", Boot: "boot"}, GPU: gpu, Pricer: NewPricer(model.Default(), "preset default")})
}

// TestTrees fixes doctor's text and JSON output on every fixture tree.
func TestTrees(t *testing.T) {
	for _, name := range treeNames(t) {
		t.Run(name, func(t *testing.T) {
			r := runTree(t, name)
			var txt, js bytes.Buffer
			if err := WriteText(&txt, r); err != nil {
				t.Fatal(err)
			}
			if err := WriteJSON(&js, r); err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(txt.Bytes(), []byte(outsideSecret)) || bytes.Contains(js.Bytes(), []byte(outsideSecret)) {
				t.Errorf("a file outside the root was read")
			}
			for _, f := range r.Findings {
				if strings.HasSuffix(f.ID, ".internal") {
					t.Errorf("a check stopped: %s", f.Title)
				}
			}
			golden.Check(t, filepath.Join("testdata", "trees", name, "want.txt"), txt.Bytes())
			golden.Check(t, filepath.Join("testdata", "trees", name, "want.json"), js.Bytes())
		})
	}
}

// bestIsNotOK lists the findings that cannot reach OK from files alone:
// what they need is only behind ethtool netlink or verbs, or they exist only
// to say what could not be read.
var bestIsNotOK = map[string]string{
	"devmem.nic":       "header split and flow steering are readable only through ethtool netlink",
	"topology.read":    "emitted only when attributes could not be read",
	"nvparams.read":    "emitted only when the params file could not be read or parsed",
	"topology.gpu-gpu": "", // reaches OK (h200-vm); listed to keep the map's keys in view
}

// TestTreeCoverage checks that the trees show every finding both as it
// should be (OK) and not (any other severity).
func TestTreeCoverage(t *testing.T) {
	seen := map[string]map[Severity][]string{}
	for _, name := range treeNames(t) {
		for _, f := range runTree(t, name).Findings {
			if seen[f.ID] == nil {
				seen[f.ID] = map[Severity][]string{}
			}
			seen[f.ID][f.Severity] = append(seen[f.ID][f.Severity], name)
		}
	}
	ids := sortedKeys(seen)
	for _, id := range ids {
		s := seen[id]
		bad := 0
		for sev, trees := range s {
			if sev != OK {
				bad += len(trees)
			}
		}
		if _, ok := s[OK]; !ok && bestIsNotOK[id] == "" {
			t.Errorf("%s: no tree shows it OK (seen %v)", id, s)
		}
		if bad == 0 {
			t.Errorf("%s: no tree shows it in a bad state (seen %v)", id, s)
		}
	}
	var lines []string
	for _, id := range ids {
		var parts []string
		for _, sev := range Severities() {
			if trees := seen[id][sev]; len(trees) > 0 {
				sort.Strings(trees)
				parts = append(parts, fmt.Sprintf("%s: %s", sev, strings.Join(uniqStrings(trees), ",")))
			}
		}
		lines = append(lines, fmt.Sprintf("%-22s %s", id, strings.Join(parts, "; ")))
	}
	t.Logf("coverage:\n%s", strings.Join(lines, "\n"))
}

func uniqStrings(s []string) []string {
	var out []string
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
