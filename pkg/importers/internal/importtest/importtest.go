// Package importtest is the one harness of the importers' tests: it finds a
// format's fixtures, reads and parses one as the importer does (detected,
// parsed, validated), and checks what the parser makes of every fixture
// against its golden file (internal/golden: go test -update rewrites them).
//
// Every real output is stored once, in pkg/importers/testdata/fixtures, one
// directory per tool, whose SOURCES.md traces each file to its source. An
// importer package keeps in its own testdata only what is its own: golden/
// (one JSON file per fixture), fuzz/ (the seed corpus, where go test -fuzz
// looks for it), and the outputs that are not shared, in one directory with
// a README.md that says where they come from (handwritten/: written by hand
// for this repository; captured/: captured on a development machine).
//
// The package does not parse anything itself and knows no format.
package importtest

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/internal/golden"
	"github.com/gpupath/gpupath/pkg/importers/obs"
)

// Shared is the directory of the shared fixtures as an importer package's
// tests see it (go test runs them in the package's directory).
const Shared = "../testdata/fixtures"

// Format is one format's fixtures and parser, as an importer package's tests
// declare them once.
type Format struct {
	// Tool is the directory of the format's outputs under Shared
	// ("perftest", "nccl-tests").
	Tool string
	// Only, when set, keeps these of the tool's shared outputs and no other;
	// an empty Only keeps none (a format with no shared outputs: its
	// directory under Shared need not exist).
	Only []string
	// Local is the directory under the package's testdata that holds the
	// format's outputs that are not shared ("handwritten"), "" for none. They
	// are named Local/<file>.
	Local string
	// Golden is the directory of the golden files, "" for testdata/golden.
	// The golden file of an output is <Golden>/<its base name>.json.
	Golden string
	// Detect, when set, must recognise every output that Output reads.
	Detect func([]byte) bool
	// Parse reads an output.
	Parse func([]byte) (*obs.Output, error)
	// ParseNamed is Parse for a format that reads the file's name too
	// (nccl-tests takes the test's name from it); set one of the two. It is
	// given the base name.
	ParseNamed func(name string, b []byte) (*obs.Output, error)
}

// Names lists the format's outputs: the shared ones (base names, sorted),
// then the local ones (Local/<file>, sorted). SOURCES.md and README.md are
// not outputs.
func (f Format) Names(t testing.TB) []string {
	t.Helper()
	var out []string
	switch {
	case f.Only == nil:
		out = files(t, filepath.Join(Shared, f.Tool))
	case len(f.Only) > 0:
		shared := files(t, filepath.Join(Shared, f.Tool))
		for _, n := range f.Only {
			if !slices.Contains(shared, n) {
				t.Fatalf("%s is not in %s", n, filepath.Join(Shared, f.Tool))
			}
		}
		out = slices.Clone(f.Only)
	}
	if f.Local != "" {
		for _, n := range files(t, filepath.Join("testdata", f.Local)) {
			out = append(out, path.Join(f.Local, n))
		}
	}
	return out
}

// Path is where the output of that name is: under testdata when it is
// local, in the shared directory otherwise.
func (f Format) Path(name string) string {
	if f.Local != "" && strings.HasPrefix(name, f.Local+"/") {
		return filepath.Join("testdata", filepath.FromSlash(name))
	}
	return filepath.Join(Shared, f.Tool, filepath.FromSlash(name))
}

// Read returns the bytes of the output of that name.
func (f Format) Read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(f.Path(name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Output reads the output of that name as the importer does: Detect must
// recognise it, Parse must read it, and what it returns must pass
// validation.
func (f Format) Output(t testing.TB, name string) *obs.Output {
	t.Helper()
	b := f.Read(t, name)
	if f.Detect != nil && !f.Detect(b) {
		t.Fatalf("%s not detected", name)
	}
	o, err := f.parse(path.Base(name), b)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := o.Validate(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return o
}

func (f Format) parse(name string, b []byte) (*obs.Output, error) {
	if f.ParseNamed != nil {
		return f.ParseNamed(name, b)
	}
	return f.Parse(b)
}

// GoldenPath is the golden file of the output of that name.
func (f Format) GoldenPath(name string) string {
	dir := f.Golden
	if dir == "" {
		dir = filepath.Join("testdata", "golden")
	}
	return filepath.Join(dir, path.Base(name)+".json")
}

// CheckGolden checks every output (a subtest each, named as Names names it)
// against its golden file.
func (f Format) CheckGolden(t *testing.T) {
	for _, name := range f.Names(t) {
		t.Run(name, func(t *testing.T) {
			golden.JSON(t, f.GoldenPath(name), f.Output(t, name))
		})
	}
}

// Fuzz is the body of a format's fuzz target: the parser must never panic,
// and what it returns without an error must pass validation. The seed
// corpus stays the package's own testdata/fuzz/<target>, where go test
// finds it.
func (f Format) Fuzz(ft *testing.F) {
	ft.Fuzz(func(t *testing.T, b []byte) {
		o, err := f.parse("fuzz.txt", b)
		if err != nil {
			return
		}
		if err := o.Validate(); err != nil {
			t.Fatal(err)
		}
	})
}

// files lists the regular files of dir (not its subdirectories), sorted,
// leaving out SOURCES.md and README.md.
func files(t testing.TB, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() || e.Name() == "SOURCES.md" || e.Name() == "README.md" {
			continue
		}
		out = append(out, e.Name())
	}
	return out
}
