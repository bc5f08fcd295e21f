package golden

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// moduleRoot is the directory of the module's go.mod.
func moduleRoot(t *testing.T) string {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil || !strings.HasPrefix(string(b), "module github.com/gpupath/gpupath\n") {
		t.Fatalf("%s is not the module's root: %v", root, err)
	}
	return root
}

// walkModule calls fn for every file of the module outside this package,
// testdata, hidden directories, build output and nested modules (tools/).
func walkModule(t *testing.T, fn func(path string, rel string)) {
	root := moduleRoot(t)
	self, _ := filepath.Abs(".")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			n := d.Name()
			if p != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "bin" || p == self) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil && p != root {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		fn(p, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// goldenName is what a flag of the golden kind is called.
var goldenName = regexp.MustCompile(`(?i)golden|regen|update`)

// goldenFlags lists the flags of the golden kind that the Go source
// declares (flag.Bool("regen", ...), fs.BoolVar(&x, "update", ...), ...),
// as "line: name".
func goldenFlags(fset *token.FileSet, f *ast.File) []string {
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		m := sel.Sel.Name
		arg := 0 // where the flag's name is
		switch m {
		case "Bool", "String", "Int", "Int64", "Uint", "Uint64", "Float64", "Duration", "Func", "BoolFunc":
		case "BoolVar", "StringVar", "IntVar", "Int64Var", "UintVar", "Uint64Var", "Float64Var", "DurationVar", "Var", "TextVar":
			arg = 1
		default:
			return true
		}
		if len(call.Args) <= arg {
			return true
		}
		lit, ok := call.Args[arg].(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		if name, err := strconv.Unquote(lit.Value); err == nil && goldenName.MatchString(name) {
			out = append(out, fmt.Sprintf("%d: %s", fset.Position(lit.Pos()).Line, name))
		}
		return true
	})
	return out
}

func TestGoldenFlags(t *testing.T) {
	src := `package p
import "flag"
var a = flag.Bool("regen", false, "")
var b = flag.Bool("verbose", false, "")
func init() { var x bool; fs := flag.NewFlagSet("x", 0); fs.BoolVar(&x, "update-golden", false, ""); flag.String("golden", "", "") }
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(goldenFlags(fset, f), ", "); got != "3: regen, 5: update-golden, 5: golden" {
		t.Errorf("found %s", got)
	}
}

// TestOneFlag fails where a test file of the module (or a test helper: a
// file that imports testing) declares a golden, regen or update flag of its
// own: this package's -update and -update-fixtures are the only ones.
func TestOneFlag(t *testing.T) {
	fset := token.NewFileSet()
	n := 0
	walkModule(t, func(p, rel string) {
		if !strings.HasSuffix(p, ".go") {
			return
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Error(err)
			return
		}
		if !strings.HasSuffix(p, "_test.go") && !imports(f, "testing") {
			return
		}
		n++
		for _, fl := range goldenFlags(fset, f) {
			t.Errorf("%s:%s: a golden flag of its own; use internal/golden (golden.Check, golden.Update, golden.UpdateFixtures)", rel, fl)
		}
	})
	if n < 50 {
		t.Errorf("only %d test files read", n)
	}
}

func imports(f *ast.File, path string) bool {
	for _, im := range f.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); p == path {
			return true
		}
	}
	return false
}

// The old flags are named nowhere: not in the source, its comments, the
// README, the scripts or the notebooks.
func TestNoOldFlags(t *testing.T) {
	old := regexp.MustCompile(`(^|[^\w-])-regen(-trees)?\b`)
	walkModule(t, func(p, rel string) {
		switch filepath.Ext(p) {
		case ".go", ".md", ".sh", ".py", ".ipynb", ".yaml", ".yml", ".txt":
		default:
			return
		}
		b, err := os.ReadFile(p)
		if err != nil || len(b) > 1<<20 {
			return
		}
		for i, l := range strings.Split(string(b), "\n") {
			if old.MatchString(l) {
				t.Errorf("%s:%d names an old flag (the flag is -update, or -update-fixtures): %.120s", rel, i+1, strings.TrimSpace(l))
			}
		}
	})
}
