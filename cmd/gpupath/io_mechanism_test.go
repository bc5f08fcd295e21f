package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// bypassFuncs are the calls that read or write a file outside the one
// bounded reader and the one writer (internal/safeio).
var bypassFuncs = map[string]map[string]bool{
	"os":        {"ReadFile": true, "Open": true, "OpenFile": true, "Create": true, "CreateTemp": true, "WriteFile": true},
	"io/ioutil": {"ReadFile": true, "ReadAll": true, "WriteFile": true, "TempFile": true, "ReadDir": true},
}

// ioAllowed are the files (or directories, ending in /) that may call them,
// each with its reason. Everything else reads through safeio.Open /
// ReadFile / ReadFSFile / NewReader and writes through safeio.Create /
// WriteFile / WriteWith.
var ioAllowed = map[string]string{
	"internal/safeio/":                   "the one bounded reader and the one writer themselves",
	"internal/rawsock/sock.go":           "network namespace handles (/proc/thread-self/ns/net, /run/netns/*) opened for setns, not read",
	"pkg/record/write.go":                "results.jsonl is appended record by record under a lock, keeping a partial run by design",
	"pkg/measure/pair.go":                "a pair's rank 1 appends to results.jsonl like the runner, keeping a partial run by design",
	"pkg/importers/rundir.go":            "an imported run is written into a new or empty directory (refused otherwise); another change moves it onto safeio.WriteFile",
	"internal/golden/":                   "test helper: golden files of the repository",
	"internal/fstree/":                   "test helper: fixture trees unpacked into temporary directories",
	"internal/sysfstest/":                "test helper: sysfs fixtures in temporary directories",
	"internal/nbcheck/":                  "developer tool: notebooks of the repository and their logs",
	"cmd/nbcheck/":                       "developer tool: notebook screenshots",
	"pkg/importers/internal/importtest/": "test helper: fixture files of the repository",
	"bench/":                             "benchmark programs run by hand, not part of gpupath",
	"tools/":                             "developer tools, not part of gpupath",
}

// jsonFuncs are the encoders of encoding/json; jsonAllowed the files that
// may call them. Everything else encodes through the one JSON writer
// (termtext.NewJSONEncoder, MarshalJSON, MarshalJSONIndent), which leaves
// no raw control or invisible character from outside in a file. A method
// named MarshalJSON may call json.Marshal: what it returns is part of a
// value that the one writer encodes.
var jsonFuncs = map[string]map[string]bool{
	"encoding/json": {"Marshal": true, "MarshalIndent": true, "NewEncoder": true},
}

var jsonAllowed = map[string]string{
	"internal/termtext/": "the one JSON writer itself",
	"pkg/model/":         "imports pkg/units only; its JSON goes to a command's stdout alone, through termtext.NewJSONWriter (model.go, catalog.go; TestJSONOutputEscaped)",
	"internal/golden/":   "test helper: golden files of the repository",
	"bench/":             "benchmark programs run by hand, not part of gpupath",
	"tools/":             "developer tools, not part of gpupath",
}

func allowedIn(list map[string]string, rel string) (string, bool) {
	for k, why := range list {
		if rel == k || (strings.HasSuffix(k, "/") && strings.HasPrefix(rel, k)) {
			return why, true
		}
	}
	return "", false
}

// ioBypasses lists every call of a bypass function in the non-test Go
// files under root that the allowlist does not cover, as file:line: call.
func ioBypasses(t *testing.T, root string) []string {
	t.Helper()
	return callsOutside(t, root, bypassFuncs, ioAllowed)
}

// callsOutside lists every call of (or reference to) one of funcs in the
// non-test Go files under root that list does not cover, as file:line:
// call; a call inside a method named MarshalJSON is not listed.
func callsOutside(t *testing.T, root string, funcs map[string]map[string]bool, list map[string]string) []string {
	t.Helper()
	var out []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (n == "testdata" || n == "vendor" || strings.HasPrefix(n, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if _, ok := allowedIn(list, rel); ok {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		names := map[string]string{} // local name → import path
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			if funcs[path] == nil {
				continue
			}
			name := filepath.Base(path)
			if im.Name != nil {
				name = im.Name.Name
			}
			names[name] = path
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if fd, ok := n.(*ast.FuncDecl); ok && fd.Recv != nil && fd.Name.Name == "MarshalJSON" {
				return false
			}
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			id, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			if path, ok := names[id.Name]; ok && funcs[path][sel.Sel.Name] {
				out = append(out, fset.Position(sel.Pos()).String()+": "+id.Name+"."+sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// Every read of an outside path goes through the bounded reader and every
// output file through the one writer: no package outside internal/safeio
// calls os.ReadFile, os.Open, os.OpenFile, os.Create, os.CreateTemp,
// os.WriteFile or io/ioutil's functions, but the allowlisted ones, each
// with its reason. (A reference such as a variable set to os.ReadFile
// counts as a call.)
func TestIOGoesThroughSafeio(t *testing.T) {
	root := filepath.Join("..", "..")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal(err)
	}
	if got := ioBypasses(t, root); len(got) > 0 {
		t.Errorf("file I/O outside internal/safeio (use safeio, or add the file to ioAllowed with its reason):\n%s", strings.Join(got, "\n"))
	}
	for k := range ioAllowed {
		if _, err := os.Stat(filepath.Join(root, strings.TrimSuffix(k, "/"))); err != nil {
			t.Errorf("ioAllowed names %s, which is not there: %v", k, err)
		}
	}
}

// Every JSON gpupath writes goes through the one JSON writer
// (termtext.NewJSONEncoder / MarshalJSON / MarshalJSONIndent): no package
// but the allowlisted ones calls json.Marshal, json.MarshalIndent or
// json.NewEncoder outside a MarshalJSON method. (A manifest's hostname
// with U+202E was written raw by encoding/json that way.)
func TestJSONGoesThroughOneWriter(t *testing.T) {
	root := filepath.Join("..", "..")
	if got := callsOutside(t, root, jsonFuncs, jsonAllowed); len(got) > 0 {
		t.Errorf("JSON encoded past the one writer (use termtext.NewJSONEncoder or MarshalJSON, or add the file to jsonAllowed with its reason):\n%s", strings.Join(got, "\n"))
	}
	for k := range jsonAllowed {
		if _, err := os.Stat(filepath.Join(root, strings.TrimSuffix(k, "/"))); err != nil {
			t.Errorf("jsonAllowed names %s, which is not there: %v", k, err)
		}
	}
	dir := t.TempDir()
	src := "package x\n\nimport \"encoding/json\"\n\ntype T struct{}\n\nfunc (T) MarshalJSON() ([]byte, error) { return json.Marshal(1) }\n\nfunc f() { json.NewEncoder(nil) }\n"
	os.MkdirAll(filepath.Join(dir, "pkg", "x"), 0o755)
	if err := os.WriteFile(filepath.Join(dir, "pkg", "x", "x.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got := callsOutside(t, dir, jsonFuncs, nil)
	if len(got) != 1 || !strings.Contains(got[0], "json.NewEncoder") {
		t.Errorf("the check found %q, want json.NewEncoder alone (a MarshalJSON method may call json.Marshal)", got)
	}
}

// The check finds a bypass: a file that calls os.ReadFile, a renamed
// import's os.Create and a reference to os.WriteFile are all reported.
func TestIOBypassDetected(t *testing.T) {
	dir := t.TempDir()
	src := `package x

import (
	"os"
	osx "os"
)

var w = os.WriteFile

func f() { os.ReadFile("x"); osx.Create("y"); os.Stat("z") }
`
	if err := os.MkdirAll(filepath.Join(dir, "pkg", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pkg", "x", "x.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(ioBypasses(t, dir), "\n")
	for _, w := range []string{"os.WriteFile", "os.ReadFile", "osx.Create"} {
		if !strings.Contains(got, w) {
			t.Errorf("the check missed %s:\n%s", w, got)
		}
	}
	if strings.Contains(got, "os.Stat") {
		t.Errorf("os.Stat is no bypass:\n%s", got)
	}
}

// TestCSVNumbersGoThroughCell: every file that writes CSV (imports
// encoding/csv) spells its numbers with units.Cell (full precision, whole
// numbers as integers): a strconv.FormatFloat in 'g' or 'e' form, or a
// %g / %e verb, in such a file is a CSV cell written past the formatter
// (model's CSV kept 6 digits, and bytes went 1.6777216e+07, that way).
func TestCSVNumbersGoThroughCell(t *testing.T) {
	root := filepath.Join("..", "..")
	var bad []string
	for _, dir := range []string{"pkg", "internal", "cmd"} {
		filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			csvFile := false
			for _, im := range f.Imports {
				if p, _ := strconv.Unquote(im.Path.Value); p == "encoding/csv" {
					csvFile = true
				}
			}
			if !csvFile {
				return nil
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.CallExpr:
					if sel, ok := x.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "FormatFloat" && len(x.Args) > 1 {
						if lit, ok := x.Args[1].(*ast.BasicLit); ok && (lit.Value == "'g'" || lit.Value == "'e'") {
							bad = append(bad, fset.Position(x.Pos()).String())
						}
					}
				case *ast.BasicLit:
					if x.Kind == token.STRING && (strings.Contains(x.Value, "%g") || strings.Contains(x.Value, "%e") || strings.Contains(x.Value, ".4g") || strings.Contains(x.Value, ".3g")) {
						bad = append(bad, fset.Position(x.Pos()).String())
					}
				}
				return true
			})
			return nil
		})
	}
	if len(bad) > 0 {
		t.Errorf("numbers formatted past units.Cell in files that write CSV:\n  %s", strings.Join(bad, "\n  "))
	}
}
