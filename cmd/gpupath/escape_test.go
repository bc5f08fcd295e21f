package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/internal/termtext"
)

// hostile is text from outside with every kind of control character.
const hostile = "ev\x1b]0;pwn\x07il\x00\r\n\u2028\u202e\u009b\x7f\xff"

// yamlHostile is hostile as a YAML double-quoted string.
const yamlHostile = `"ev\e]0;pwn\ail\0\r\n\L\u202e\x9b\x7f"`

// seeds are the fuzz corpora's hostile strings.
var seeds = []string{"", "plain", "\x1b[2J", "\x1b]0;t\x07", "nul\x00", "cr\r", "lf\n", "ls\u2028", "rlo\u202e", "bad\xff\xfe", "\xe2\x80", hostile}

func TestTermWriter(t *testing.T) {
	for _, s := range seeds {
		for cut := 0; cut <= len(s); cut++ {
			var b bytes.Buffer
			w, flush := cleanTerm(&b)
			io.WriteString(w, s[:cut])
			io.WriteString(w, s[cut:])
			flush()
			if want := termtext.CleanText(s); b.String() != want {
				t.Fatalf("%q cut at %d: %q, want %q", s, cut, b.String(), want)
			}
		}
	}
	var b bytes.Buffer
	w := progressTerm(&b)
	io.WriteString(w, "\rbar \x1b[2J 50%")
	if b.String() != "\rbar \\x1b[2J 50%" {
		t.Errorf("progress line %q: want its \\r kept, its ESC escaped, nothing held back", b.String())
	}
}

func FuzzTermWriter(f *testing.F) {
	for _, s := range seeds {
		f.Add(s, 1)
	}
	f.Fuzz(func(t *testing.T, s string, cut int) {
		var b bytes.Buffer
		w, flush := cleanTerm(&b)
		if cut < 0 || cut > len(s) {
			cut = len(s) / 2
		}
		io.WriteString(w, s[:cut])
		io.WriteString(w, s[cut:])
		flush()
		if !termtext.Safe(b.String(), true) {
			t.Fatalf("control characters reach the terminal: %q", b.String())
		}
	})
}

// Every command prints through the terminal writer: runCommand is the only
// way run starts one, and what a command writes to either stream arrives
// escaped.
func TestEveryCommandEscaped(t *testing.T) {
	c := command{run: func(_ context.Context, _ []string, stdout, stderr io.Writer) error {
		if _, ok := stdout.(*termtext.Writer); !ok {
			t.Errorf("stdout is %T, not the terminal writer", stdout)
		}
		fmt.Fprintln(stdout, hostile)
		fmt.Fprint(stderr, hostile)
		return nil
	}}
	var out, errOut bytes.Buffer
	if err := runCommand(context.Background(), c, nil, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{out.String(), errOut.String()} {
		if !termtext.Safe(s, true) {
			t.Errorf("raw control characters: %q", s)
		}
	}
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(src), ".run(ctx"); n != 1 || !strings.Contains(string(src), "return runCommand(ctx, c, args[1:], stdout, stderr)") {
		t.Errorf("main.go starts a command other than through runCommand (%d calls of .run)", n)
	}
}

// validate --data prints the rows of a table from outside.
func TestValidateDataEscaped(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile("../../pkg/validate/data/published.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	row := strings.Replace(lines[1], "S02-01", "S02-01\x1b]0;pwn\x07\u202e", 1)
	p := filepath.Join(dir, "t.csv")
	os.WriteFile(p, []byte(lines[0]+row), 0o644)
	for _, format := range []string{"table", "csv", "json"} {
		out, errOut, _ := invoke(t, "validate", "--data", p, "--format", format)
		for _, s := range []string{out, errOut} {
			if !termtext.Safe(s, true) {
				t.Errorf("--format %s: raw control characters: %q", format, s)
			}
		}
		if format == "json" && out != "" && !json.Valid([]byte(out)) {
			t.Errorf("--format json: not JSON: %q", out)
		}
	}
}

// A report of a scenario, a run and its host, each named from outside:
// no file written holds a control character (the PDF and PNG are binary
// and not looked at), and the report's files read back.
func TestReportHostileNames(t *testing.T) {
	if testing.Short() {
		t.Skip("renders a report")
	}
	dir := t.TempDir()
	scen := filepath.Join(dir, "s.yaml")
	os.WriteFile(scen, []byte("name: "+yamlHostile+"\ndescription: "+yamlHostile+"\ngpu:\n  model: "+yamlHostile+"\n"), 0o644)
	run := filepath.Join(dir, "run")
	os.Mkdir(run, 0o755)
	m, err := os.ReadFile("../../pkg/report/testdata/h200-run/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	h, _ := json.Marshal(hostile)
	m = bytes.Replace(m, []byte(`"hostname": "vm"`), []byte(`"hostname": `+string(h)), 1)
	m = bytes.Replace(m, []byte(`"Intel(R) Xeon(R) Processor"`), h, 1)
	os.WriteFile(filepath.Join(run, "manifest.json"), m, 0o644)
	r, _ := os.ReadFile("../../pkg/report/testdata/h200-run/results.jsonl")
	os.WriteFile(filepath.Join(run, "results.jsonl"), r, 0o644)
	out := filepath.Join(dir, "out")
	stdout, errOut, code := invoke(t, "report", "--model-only", "--scenario", scen, "--data", run, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, s := range []string{stdout, errOut} {
		if !termtext.Safe(s, true) {
			t.Errorf("raw control characters on the terminal: %q", s)
		}
	}
	fit := filepath.Join(dir, "fit.yaml")
	if _, errOut, code := invoke(t, "fit", "--data", run, "--out", fit); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, errOut)
	}
	if _, errOut, code := invoke(t, "model", "--scenario", fit); code != 0 {
		t.Errorf("fit's scenario does not load: exit %d: %s", code, errOut)
	}
	checkFiles(t, out, fit)
}

// checkFiles fails for a text file under the paths with a control
// character other than a newline or tab.
func checkFiles(t *testing.T, paths ...string) {
	t.Helper()
	n := 0
	for _, root := range paths {
		filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
			if err != nil || fi.IsDir() {
				return err
			}
			switch filepath.Ext(p) {
			case ".pdf", ".png":
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			n++
			if !termtext.Safe(string(b), true) {
				i := strings.IndexFunc(string(b), func(r rune) bool { return termtext.IsControl(r) && r != '\n' && r != '\t' })
				t.Errorf("%s holds a control character: %q", filepath.Base(p), string(b[max(0, i-40):min(len(b), i+40)]))
			}
			if filepath.Ext(p) == ".json" && !json.Valid(b) {
				t.Errorf("%s is not JSON", filepath.Base(p))
			}
			return nil
		})
	}
	if n < 5 {
		t.Fatalf("only %d files looked at", n)
	}
}
