package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// fakeT records what Check reports; Fatal ends the goroutine as testing's does.
type fakeT struct {
	testing.TB
	errors, fatals []string
}

func (f *fakeT) Helper() {}
func (f *fakeT) Errorf(format string, args ...any) {
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}
func (f *fakeT) Fatalf(format string, args ...any) {
	f.fatals = append(f.fatals, fmt.Sprintf(format, args...))
	runtime.Goexit()
}
func (f *fakeT) Fatal(args ...any) {
	f.fatals = append(f.fatals, fmt.Sprint(args...))
	runtime.Goexit()
}

// run calls fn with a fakeT in its own goroutine (Fatal ends it).
func run(fn func(t testing.TB)) *fakeT {
	f := &fakeT{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(f)
	}()
	<-done
	return f
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.golden")
	if err := os.WriteFile(path, []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if f := run(func(t testing.TB) { Check(t, path, []byte("one\ntwo\nthree\n")) }); len(f.errors)+len(f.fatals) != 0 {
		t.Errorf("equal: %v %v", f.errors, f.fatals)
	}
	f := run(func(t testing.TB) { Check(t, path, []byte("one\nTWO\nthree\n")) })
	if len(f.errors) != 1 || len(f.fatals) != 0 || !strings.Contains(f.errors[0], path+" differs") ||
		!strings.Contains(f.errors[0], "- two\n+ TWO") || !strings.Contains(f.errors[0], "go test -update") {
		t.Errorf("different: %q %q", f.errors, f.fatals)
	}
	f = run(func(t testing.TB) { Check(t, filepath.Join(dir, "missing"), nil) })
	if len(f.fatals) != 1 || !strings.Contains(f.fatals[0], "go test -update writes it") {
		t.Errorf("missing: %q", f.fatals)
	}

	// -update writes the file (and its directory) and compares nothing.
	defer func(v bool) { *update = v }(*update)
	*update = true
	nested := filepath.Join(dir, "new", "b.golden")
	if f := run(func(t testing.TB) { Check(t, nested, []byte("fresh\n")) }); len(f.errors)+len(f.fatals) != 0 {
		t.Errorf("update: %v %v", f.errors, f.fatals)
	}
	if b, err := os.ReadFile(nested); err != nil || string(b) != "fresh\n" {
		t.Errorf("update wrote %q, %v", b, err)
	}
}

func TestJSON(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v.json")
	want := "{\n  \"name\": \"<a&b>\",\n  \"n\": [\n    1,\n    2\n  ]\n}\n"
	if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
		t.Fatal(err)
	}
	v := struct {
		Name string `json:"name"`
		N    []int  `json:"n"`
	}{"<a&b>", []int{1, 2}}
	if f := run(func(t testing.TB) { JSON(t, path, v) }); len(f.errors)+len(f.fatals) != 0 {
		t.Errorf("%v %v", f.errors, f.fatals)
	}
}

func TestDiff(t *testing.T) {
	long := strings.Repeat("x", 500)
	for _, tc := range []struct {
		name, want, got string
		has             []string
	}{
		{"changed line", "a\nb\nc\nd\ne\nf\ng\n", "a\nb\nc\nD\ne\nf\ng\n",
			[]string{"@@ line 4: 1 lines of the golden file (-) are 1 lines (+) @@", "  a\n  b\n  c\n- d\n+ D\n  e\n  f\n  g"}},
		{"inserted lines", "a\nb\n", "a\nnew1\nnew2\nb\n", []string{"@@ line 2: 0 lines of the golden file (-) are 2 lines (+) @@\n  a\n+ new1\n+ new2\n  b"}},
		{"removed at the end", "a\nb\nc\n", "a\n", []string{"line 2", "- b\n- c"}},
		{"final newline", "a\nb\n", "a\nb", []string{"- b\n+ b\\ no newline at end of file"}},
		{"carriage return", "a\n", "a\r\n", []string{`+ "a\r"`}},
		{"trailing space", "a\n", "a \n", []string{`+ "a "`}},
		{"long line", long + "1" + long + "\n", long + "2" + long + "\n",
			[]string{"- " + strings.Repeat("x", 80) + "1" + strings.Repeat("x", 79) + " (bytes 420 to 580 of 1001)"}},
		{"many lines", "a\n", strings.Repeat("n\n", 30), []string{"+ … 10 more lines"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := diff([]byte(tc.want), []byte(tc.got))
			for _, h := range tc.has {
				if !strings.Contains(d, h) {
					t.Errorf("lacks %q:\n%s", h, d)
				}
			}
		})
	}
}
