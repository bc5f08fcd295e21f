package importers

import (
	"crypto/sha256"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFixturesStoredOnce fails where a shared fixture is stored again: a
// file with the same bytes in any testdata directory of the module (the
// importers, pkg/topo and pkg/measure read the shared directory instead),
// or an importer package's output that is not in a directory of its own
// with a README.md saying where it comes from. Golden files and fuzz seed
// corpora are each package's own.
func TestFixturesStoredOnce(t *testing.T) {
	shared := map[[32]byte]string{}
	for _, p := range fixtureFiles(t) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		shared[sha256.Sum256(b)] = p
	}
	root := filepath.Join("..", "..")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal(err)
	}
	sharedDir := filepath.Join(root, "pkg", "importers", fixtureDir)
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p == sharedDir || d.Name() == "fuzz" || d.Name() == "tools" || strings.HasPrefix(d.Name(), ".") && p != root {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if !strings.Contains(rel, "/testdata/") || !d.Type().IsRegular() {
			return nil
		}
		n++
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if s, ok := shared[sha256.Sum256(b)]; ok {
			t.Errorf("%s is a copy of the shared fixture %s: read that one", rel, s)
		}
		imp, isImporter := strings.CutPrefix(rel, "pkg/importers/")
		if pkg, in, ok := strings.Cut(imp, "/testdata/"); isImporter && ok && !strings.Contains(pkg, "/") && pkg != "testdata" {
			dir, _, nested := strings.Cut(in, "/")
			switch {
			case dir == "golden":
			case !nested:
				t.Errorf("%s: an importer's own outputs go in a directory of their own, with a README.md", rel)
			default:
				if _, err := os.Stat(filepath.Join(filepath.Dir(p), "README.md")); err != nil {
					t.Errorf("%s: no README.md beside it says where it comes from", rel)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Errorf("only %d testdata files read", n)
	}
}
