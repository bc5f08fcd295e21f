// Package golden is the one golden-file checker of the module: a test
// compares what it produced with a committed file, and `go test -update`
// rewrites the files instead. Every golden test of the module goes through
// Check (or JSON), and this package declares the module's only flags of the
// kind (TestOneFlag fails on a test file that declares its own).
//
// The flag is per test binary: name the packages, as in
//
//	go test ./pkg/plots ./pkg/report -update
//
// (`go test ./... -update` fails in the packages that have no golden test;
// scripts/update-golden.sh runs it in every package whose tests use this
// one). Look at the difference before rewriting: a test that fails shows it.
//
// A second mode, -update-fixtures, is for the fixture trees that tests
// generate from specs written in the tests (pkg/topo's sysfs archives,
// pkg/doctor's trees and their fuzz seeds). Those are the input of other
// tests, not the output of the code under test, so -update leaves them
// alone: with one flag for both, an accidental change in a generator would
// be written into the fixtures and into the golden files in the same run,
// and no test would fail.
//
// The package does not decide what a golden file holds (tests normalise
// temporary paths, times and the last bits of floats themselves) and does
// not compare images: the module's golden files are text.
package golden

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var (
	update         = flag.Bool("update", false, "rewrite the golden files instead of comparing with them")
	updateFixtures = flag.Bool("update-fixtures", false, "rewrite the fixture trees that the tests generate from their specs")
)

// Update reports whether the test binary runs with -update: Check writes
// the golden files instead of comparing with them.
func Update() bool { return *update }

// UpdateFixtures reports whether the test binary runs with
// -update-fixtures: the tests that generate fixture trees from their specs
// rewrite them (they skip otherwise).
func UpdateFixtures() bool { return *updateFixtures }

// Check compares got with the golden file at path. A difference is an
// error of the test (it goes on) that shows the differing lines; a missing
// file stops it. With -update it writes got to path instead, creating the
// directory.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		write(t, path, got)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from what the test produced (look at the difference; go test -update rewrites the file):\n%s", path, diff(want, got))
	}
}

// JSON checks v as indented JSON (two spaces, no HTML escaping, a final
// newline) against the golden file at path, as Check does.
func JSON(t testing.TB, path string, v any) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	Check(t, path, buf.Bytes())
}

// write writes data to path, creating its directory.
func write(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
