package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/internal/golden"
)

// grammarCase is one command as the grammar test runs it: a JSON
// invocation (with a flag after a positional argument where the command
// takes one), the exit status it must have, and whether its JSON is
// deterministic enough to pin whole (else its shape is pinned).
type grammarCase struct {
	args []string // {{TMP}} is a fresh directory
	code int
}

// grammarCases has one entry per command; TestGrammarCoversEveryCommand
// fails when a command has none.
func grammarCases(t *testing.T) map[string]grammarCase {
	tree := unpackDoctorTree(t, "pix-good")
	fixture := filepath.Join("..", "..", "pkg", "importers", "testdata", "fixtures", "iperf3", "json-v3.0.11-tcp-1stream-13s.json")
	return map[string]grammarCase{
		"model": {args: []string{"model", "--sizes", "8", "--paths", "gdr", "--format", "json"}},
		// The collective's JSON is its own object (model.CollectiveJSON).
		"model --collective": {args: []string{"model", "--collective", "all_reduce", "--nodes", "4", "--sizes", "8", "--paths", "nccl,tcp", "--format", "json"}},
		"preset":             {args: []string{"preset", "show", "--format", "json", "default", "--resolved"}},
		"catalog":            {args: []string{"catalog", "show", "H200", "--format", "json"}},
		"measure":            {args: []string{"measure", "--probes", "topo", "--sysfs", "{{TMP}}", "--out", "{{TMP}}/run", "--format", "json"}, code: 1},
		"gpucheck":           {args: []string{"gpucheck", "--probes", "topo", "--sysfs", "{{TMP}}", "--out", "{{TMP}}/run", "--format", "json", "--quiet"}, code: 1},
		"serve":              {args: []string{"serve", "--listen", "127.0.0.1:0", "--for", "10ms", "--format", "json"}},
		"fit":                {args: []string{"fit", "--data", filepath.Join("..", "..", "reports", "examples", "h200-1gpu", "run"), "--format", "json"}},
		"report":             {args: []string{"report", "--model-only", "--out", "{{TMP}}/rep", "--format", "json"}},
		"import":             {args: []string{"import", fixture, "--format", "json", "--out", "{{TMP}}/imp"}},
		"doctor":             {args: doctorArgs(tree, "--format", "json", "--nvml", "off")},
		"validate":           {args: []string{"validate", "--format", "json"}},
		"version":            {args: []string{"version", "--format", "json"}},
	}
}

func TestGrammarCoversEveryCommand(t *testing.T) {
	cases := grammarCases(t)
	for _, n := range commandNames() {
		if _, ok := cases[n]; !ok {
			t.Errorf("command %s has no case in grammarCases", n)
		}
	}
}

// Every command: --help, help CMD and CMD help print the same text, GNU
// style (two dashes, the command's own usage line), and exit 0.
func TestHelpIsOneText(t *testing.T) {
	singleDash := regexp.MustCompile(`(?m)^\s+-[a-z][a-z-]+\b`)
	for _, n := range commandNames() {
		h1, e1, c1 := invoke(t, n, "--help")
		h2, e2, c2 := invoke(t, "help", n)
		h3, _, c3 := invoke(t, n, "-h")
		if c1 != 0 || c2 != 0 || c3 != 0 || e1 != "" || e2 != "" {
			t.Errorf("%s: exit %d/%d/%d, stderr %q %q", n, c1, c2, c3, e1, e2)
		}
		if h1 != h2 || h1 != h3 {
			t.Errorf("%s: --help, help %s and -h differ:\n%s\n---\n%s", n, n, h1, h2)
		}
		if n != "import" { // import help could be a file named help
			if h4, _, c4 := invoke(t, n, "help"); h4 != h1 || c4 != 0 {
				t.Errorf("%s help: exit %d, %q", n, c4, h4)
			}
		}
		if !strings.HasPrefix(h1, "usage: gpupath "+n) || !strings.Contains(h1, "--format") || !strings.Contains(h1, "-h, --help") {
			t.Errorf("%s --help:\n%s", n, h1)
		}
		if m := singleDash.FindString(h1); m != "" {
			t.Errorf("%s --help lists a flag with one dash: %q", n, m)
		}
	}
	top, _, code := invoke(t, "help")
	for _, n := range commandNames() {
		if !strings.Contains(top, "  "+n+" ") {
			t.Errorf("gpupath help does not list %s", n)
		}
	}
	if code != 0 {
		t.Errorf("gpupath help: exit %d", code)
	}
	if _, errOut, code := invoke(t, "help", "nosuch"); code != 2 || !strings.Contains(errOut, "unknown command") {
		t.Errorf("help nosuch: exit %d, %q", code, errOut)
	}
}

// Every command with --format json: stdout is one JSON document whose shape
// (keys and value types) is pinned by a golden file, and the exit status
// is the one the README's table gives for the case.
func TestEveryCommandJSON(t *testing.T) {
	shapes := map[string]any{}
	for name, tc := range grammarCases(t) {
		tmp := t.TempDir()
		args := make([]string, len(tc.args))
		for i, a := range tc.args {
			args[i] = strings.ReplaceAll(a, "{{TMP}}", tmp)
		}
		out, errOut, code := invoke(t, args...)
		if code != tc.code {
			t.Errorf("%s: exit %d, want %d; stderr %q", name, code, tc.code, errOut)
		}
		var v any
		dec := json.NewDecoder(strings.NewReader(out))
		if err := dec.Decode(&v); err != nil {
			t.Errorf("%s --format json: stdout is not JSON: %v\n%s", name, err, out)
			continue
		}
		if dec.More() {
			t.Errorf("%s --format json: more than one JSON document on stdout", name)
		}
		shapes[name] = shape(v)
	}
	golden.JSON(t, filepath.Join("testdata", "json_shapes.golden"), shapes)
}

// shape is v with every value replaced by its type and every array by its
// first element's shape: what a script reading the JSON relies on.
func shape(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = shape(e)
		}
		// Maps keyed by data (per path, per source) are pinned by one key.
		if len(x) > 0 && keyedByData(x) {
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			return map[string]any{"<key>": out[keys[0]]}
		}
		return out
	case []any:
		if len(x) == 0 {
			return []any{}
		}
		return []any{shape(x[0])}
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "bool"
	case nil:
		return "null"
	}
	return "?"
}

// keyedByData reports whether a JSON object's keys are data (paths,
// sources, row ids) rather than field names: field names are lower-case
// words with underscores.
func keyedByData(m map[string]any) bool {
	field := regexp.MustCompile(`^[a-z][a-zA-Z0-9_]*$`)
	for k := range m {
		if !field.MatchString(k) {
			return true
		}
	}
	return false
}

// Flags after positional arguments are the same flags: preset show NAME
// --resolved, catalog show NAME --format json, import FILE --out DIR.
func TestFlagsAfterPositionalArguments(t *testing.T) {
	for _, pair := range [][2][]string{
		{{"preset", "show", "--resolved", "default"}, {"preset", "show", "default", "--resolved"}},
		{{"preset", "--format", "json", "list"}, {"preset", "list", "--format", "json"}},
		{{"catalog", "show", "--format", "json", "H200"}, {"catalog", "show", "H200", "--format", "json"}},
		{{"model", "-format", "csv", "--sizes", "8"}, {"model", "--sizes=8", "--format=csv"}},
	} {
		a, ea, ca := invoke(t, pair[0]...)
		b, eb, cb := invoke(t, pair[1]...)
		if ca != 0 || cb != 0 || a != b || a == "" {
			t.Errorf("%q (exit %d, %q) and %q (exit %d, %q) differ", pair[0], ca, ea, pair[1], cb, eb)
		}
	}
	// A typo is one letter wrong, missing or two letters swapped.
	for typo, want := range map[string]string{"--fromat": "--format", "--siezs": "--sizes", "--pahts": "--paths", "--sizs": "--sizes"} {
		if _, errOut, code := invoke(t, "model", typo, "x"); code != 2 || !strings.Contains(errOut, "did you mean "+want+"?") {
			t.Errorf("model %s: exit %d, %q", typo, code, errOut)
		}
	}
	if _, errOut, code := invoke(t, "import", "a.txt", "--ot", "r"); code != 2 || !strings.Contains(errOut, "did you mean --out?") {
		t.Errorf("import --ot: exit %d, %q", code, errOut)
	}
}

// The exit statuses of the README's table, one case each (interrupts:
// TestMeasureSIGINT and TestSIGTERMStopsLongCommands; import's unreadable
// line: TestImportGolden's damaged case).
func TestExitStatusTable(t *testing.T) {
	bad := unpackDoctorTree(t, "bad")
	good := unpackDoctorTree(t, "pix-good")
	empty := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		{"success", []string{"model", "--sizes", "8"}, 0, ""},
		{"help", []string{"model", "--help"}, 0, ""},
		{"measured nothing", []string{"measure", "--probes", "topo,rdma", "--sysfs", empty, "--out", filepath.Join(t.TempDir(), "r"), "--quiet"}, 1, "measured nothing: topo unavailable"},
		{"doctor finding at --fail-on error", doctorArgs(bad, "--fail-on", "error", "--nvml", "off"), 1, "at error or worse (--fail-on error)"},
		{"doctor without --fail-on", doctorArgs(bad, "--nvml", "off"), 0, ""},
		{"doctor clean at --fail-on warn", doctorArgs(good, "--fail-on", "warn", "--nvml", "off"), 0, ""},
		{"bad flag", []string{"model", "--nope"}, 2, "unknown flag --nope"},
		{"bad --fail-on", doctorArgs(good, "--fail-on", "info"), 2, `--fail-on "info"`},
		{"bad key", []string{"model", "--set", "nic.speed=1Gbit/s"}, 2, "did you mean nic.rate?"},
		{"bad format", []string{"fit", "--format", "text", "--data", "x"}, 2, `--format "text": want table, json`},
	} {
		out, errOut, code := invoke(t, tc.args...)
		if code != tc.code || (tc.want != "" && !strings.Contains(errOut, tc.want)) {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", tc.name, code, errOut, tc.code, tc.want)
		}
		if code == 2 && (out != "" || strings.Count(errOut, "\n") != 1) {
			t.Errorf("%s: bad input printed %q on stdout and %q on stderr, want one line on stderr", tc.name, out, errOut)
		}
	}
}

// The README's exit-status table and the constants say the same.
func TestExitStatusTableInREADME(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range []string{"| 0 | success", "| 1 | a run that failed", "| 2 | bad input"} {
		if !strings.Contains(string(b), row) {
			t.Errorf("README's exit-status table has no row %q", row)
		}
	}
	if !slices.Contains(commandNames(), "version") {
		t.Error("no version command")
	}
}
