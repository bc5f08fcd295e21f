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
const hostile = "ev\x1b]0;pwn\x07il\x00\r\n\u2028\u202e\u009b\x7f\u200b\ufeff\U000e0001\xff"

// yamlHostile is hostile as a YAML double-quoted string.
const yamlHostile = `"ev\e]0;pwn\ail\0\r\n\L\u202e\x9b\x7f\u200b\ufeff\U000e0001"`

// oneLineHostile and yamlOneLine are hostile and yamlHostile without their
// line breaks: the names of scenarios and hosts are one line (a line
// break in them is bad input), every other character is accepted and
// escaped where it is shown.
const (
	oneLineHostile = "ev\x1b]0;pwn\x07il\x00\u202e\u009b\x7f\u200b\ufeff\U000e0001\xff"
	yamlOneLine    = `"ev\e]0;pwn\ail\0\u202e\x9b\x7f\u200b\ufeff\U000e0001"`
)

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
		if format == "json" {
			if bad, err := termtext.ControlStrings([]byte(out)); err != nil || len(bad) > 0 {
				t.Errorf("--format json: %v, strings that decode to a control character: %q", err, bad)
			}
		}
	}
}

// The JSON a command prints holds no string that decodes to a control
// character (\u001b is ESC to jq -r): a scenario named from outside comes
// out as the table shows it, a\x1b… as text, in every JSON form.
func TestJSONOutputEscaped(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ctl.yaml")
	os.WriteFile(p, []byte("name: "+yamlOneLine+"\nbase: default\n"), 0o644)
	for _, args := range [][]string{
		{"model", "--scenario", p, "--sizes", "8"},
		{"model", "--scenario", p, "--sizes", "8", "--collective", "allreduce"},
		{"preset", "show", "--resolved", "--scenario", p},
	} {
		out, errOut, code := invoke(t, append(args, "--format", "json")...)
		if code == 2 {
			t.Fatalf("%q: exit 2: %s", args, errOut)
		}
		if !strings.Contains(out, `ev\\x1b]0;pwn\\x07il\\x00\\u202e`) {
			t.Errorf("%q: the name is not escaped as text:\n%.600s", args, out)
		}
		if bad, err := termtext.ControlStrings([]byte(out)); err != nil || len(bad) > 0 {
			t.Errorf("%q: %v, strings that decode to a control character: %q", args, err, bad)
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
	os.WriteFile(scen, []byte("name: "+yamlHostile+"\n"), 0o644)
	if _, errOut, code := invoke(t, "model", "--scenario", scen); code != 2 || !strings.Contains(errOut, "one line") {
		t.Errorf("a name with line breaks: exit %d, %q; want 2", code, errOut)
	}
	os.WriteFile(scen, []byte("name: "+yamlOneLine+"\ndescription: "+yamlOneLine+"\ngpu:\n  model: "+yamlOneLine+"\n"), 0o644)
	run := filepath.Join(dir, "run")
	os.Mkdir(run, 0o755)
	m, err := os.ReadFile("../../pkg/report/testdata/h200-run/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	h, _ := json.Marshal(oneLineHostile)
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

// TestNoForgedLines: a line break inside a name or path from outside (a
// file name, an --out path, a scenario's name, a table's row id) never
// starts a line of its own in what a command prints: text values of a
// scenario and host names are refused as bad input, and every other such
// string passes termtext.Name where a line shows it.
func TestNoForgedLines(t *testing.T) {
	dir := t.TempDir()
	evil := filepath.Join(dir, "d\nFAKE: forged")
	if err := os.MkdirAll(evil, 0o755); err != nil {
		t.Fatal(err)
	}
	fixture, err := os.ReadFile(filepath.Join("..", "..", "pkg", "importers", "testdata", "fixtures", "iperf3", "json-v3.0.11-tcp-1stream-13s.json"))
	if err != nil {
		t.Fatal(err)
	}
	imp := filepath.Join(evil, "x\nFAKE.json")
	os.WriteFile(imp, fixture, 0o644)
	bad := filepath.Join(evil, "bad\nFAKE.txt")
	os.WriteFile(bad, []byte("# OSU MPI Latency Test v5.0\n# Size          Latency (us)\n1 1.5\n2 xx\n"), 0o644)
	scen := filepath.Join(dir, "s.yaml")
	os.WriteFile(scen, []byte("name: \"ok\\nFAKE: line\"\n"), 0o644)
	table, _ := os.ReadFile(filepath.Join("..", "..", "pkg", "validate", "data", "published.csv"))
	lines := strings.SplitAfter(string(table), "\n")
	vt := filepath.Join(dir, "t.csv")
	os.WriteFile(vt, []byte(lines[0]+strings.Replace(lines[1], "S02-01", "\"S02\nFAKE\"", 1)), 0o644)
	run := filepath.Join("..", "..", "reports", "examples", "h200-1gpu", "run")
	for _, args := range [][]string{
		{"model", "--scenario", scen},
		{"model", "--set", "name=ok\nFAKE: line"},
		{"import", imp, "--out", filepath.Join(evil, "i1")},
		{"import", bad, "--out", filepath.Join(evil, "i2")},
		{"measure", "--probes", "syscall", "--budget", "1s", "--out", filepath.Join(evil, "m")},
		{"report", "--model-only", "--out", filepath.Join(evil, "r")},
		{"fit", "--data", run, "--out", filepath.Join(evil, "c.yaml")},
		{"validate", "--data", vt},
		{"catalog", "show", "x\nFAKE"},
		{"preset", "show", "x\nFAKE"},
	} {
		if testing.Short() && (args[0] == "report" || args[0] == "measure") {
			continue
		}
		out, errOut, code := invoke(t, args...)
		for _, l := range strings.Split(out+errOut, "\n") {
			if strings.HasPrefix(l, "FAKE") {
				t.Errorf("%q (exit %d): forged line %q", args, code, l)
			}
		}
	}
}

// TestImportHostileNames: a hostname from another tool's output with
// control and invisible characters (ESC, BEL, U+202E, U+200B, U+FEFF, a
// tag) reaches neither the terminal nor a file raw: the imported run's
// manifest and records, and the report of it, hold none (the manifest's
// hostname passes termtext.Name; every JSON the one writer).
func TestImportHostileNames(t *testing.T) {
	if testing.Short() {
		t.Skip("renders a report")
	}
	dir := t.TempDir()
	src, err := os.ReadFile(fixtures + "nccl-tests/moc-all_reduce_perf-2node-1gpu-h100-roce-step-bytes-with-NCCL_DEBUG-INFO.txt")
	if err != nil {
		t.Fatal(err)
	}
	evil := strings.NewReplacer("\x00", "", "\xff", "").Replace(oneLineHostile)
	src = bytes.ReplaceAll(src, []byte("MOC-R4PCC04U37"), []byte(evil))
	in := filepath.Join(dir, "nccl.txt")
	os.WriteFile(in, src, 0o644)
	run := filepath.Join(dir, "run")
	stdout, errOut, code := invoke(t, "import", in, "--out", run)
	if code != 0 {
		t.Fatalf("import: exit %d: %s", code, errOut)
	}
	m, _ := os.ReadFile(filepath.Join(run, "manifest.json"))
	if !bytes.Contains(m, []byte(`u202e`)) {
		t.Fatalf("the hostname did not reach the manifest:\n%s", m)
	}
	// Not even JSON-escaped: every string of the manifest, the files'
	// inventories included, decodes to text without a control character.
	if bad, err := termtext.ControlStrings(m); err != nil || len(bad) > 0 {
		t.Errorf("manifest strings with a control character: %v %q", err, bad)
	}
	out := filepath.Join(dir, "out")
	so, eo, code := invoke(t, "report", "--model-only", "--data", run, "--out", out)
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, eo)
	}
	for _, s := range []string{stdout, errOut, so, eo} {
		if !termtext.Safe(s, true) {
			t.Errorf("raw control characters on the terminal: %q", s)
		}
	}
	checkFiles(t, run, out)
}
