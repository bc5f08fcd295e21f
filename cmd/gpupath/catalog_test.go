package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/internal/golden"
	"github.com/gpupath/gpupath/pkg/model"
)

// gpupath catalog list and show, both formats, pinned by golden files.
func TestCatalogGolden(t *testing.T) {
	for _, tc := range []struct {
		file string
		args []string
	}{
		{"catalog_list.golden", []string{"catalog", "list"}},
		{"catalog_list_infiniband_json.golden", []string{"catalog", "list", "--kind", "infiniband", "--format", "json"}},
		{"catalog_show_a100.golden", []string{"catalog", "show", "A100-SXM4-80GB"}},
		{"catalog_show_cx7_json.golden", []string{"catalog", "show", "ConnectX-7", "NDR", "--format", "json"}},
		{"catalog_show_cpuinfo.golden", []string{"catalog", "show", "--kind", "cpu", "Intel(R) Xeon(R) Platinum 8480C CPU @ 2.00GHz"}},
	} {
		out, errOut, code := invoke(t, tc.args...)
		if code != 0 || errOut != "" {
			t.Fatalf("%v: exit %d, stderr %q", tc.args, code, errOut)
		}
		golden.Check(t, filepath.Join("testdata", tc.file), []byte(out))
	}
}

// The JSON is the catalog's data: every entry of a kind, every fact with
// its source; show prints one entry.
func TestCatalogJSON(t *testing.T) {
	out, _, code := invoke(t, "catalog", "list", "--format", "json")
	var all []model.CatalogEntry
	if code != 0 || json.Unmarshal([]byte(out), &all) != nil || len(all) != len(model.Catalog("")) {
		t.Fatalf("list --format json: exit %d, %d entries", code, len(all))
	}
	for _, e := range all {
		for _, f := range e.Facts {
			if f.Key == "" || f.Value == "" || f.Source == "" {
				t.Errorf("%s: fact %+v lacks a key, value or source", e.Name, f)
			}
		}
	}
	out, _, code = invoke(t, "catalog", "show", "H200", "--format", "json")
	var one model.CatalogEntry
	if code != 0 || json.Unmarshal([]byte(out), &one) != nil || one.Name != "H200-SXM-141GB" || one.Kind != "gpu" {
		t.Errorf("show H200 --format json: exit %d, %+v", code, one)
	}
}

func TestCatalogBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"catalog", "show", "A100"}, `no catalog entry is named "A100" (near: A100-PCIE-40GB, A100-PCIE-80GB, A100-SXM4-40GB, A100-SXM4-80GB)`},
		{[]string{"catalog", "show", "ConnectX-7", "--kind", "nic"}, `no nic entry is named "ConnectX-7" (near: ConnectX-7 NDR, ConnectX-7 NDR200, ConnectX-7 400GbE, ConnectX-7 200GbE`},
		{[]string{"catalog", "show", "K80", "--kind", "nic"}, `no nic entry is named "K80"`},
		{[]string{"catalog", "show", "zzzz"}, `no catalog entry is named "zzzz" (gpupath catalog list lists them)`},
		{[]string{"catalog", "show"}, "catalog show needs a NAME"},
		{[]string{"catalog"}, "catalog: say list or show NAME"},
		{[]string{"catalog", "lsit"}, `unknown action "lsit"`},
		{[]string{"catalog", "list", "K80"}, "catalog list takes no argument"},
		{[]string{"catalog", "list", "--kind", "fpga"}, `unknown catalog kind "fpga" (kinds: gpu, nic, cpu, switch, infiniband)`},
		{[]string{"catalog", "list", "--format", "csv"}, `--format "csv": want table, json`},
		{[]string{"catalog", "list", "--nope"}, "unknown flag --nope"},
	} {
		out, errOut, code := invoke(t, tc.args...)
		if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", tc.args, code, out, errOut, tc.want)
		}
	}
	out, _, code := invoke(t, "catalog", "--help")
	if code != 0 || !strings.Contains(out, "usage: gpupath catalog list") || !strings.Contains(out, "-kind") {
		t.Errorf("catalog --help: exit %d, %q", code, out)
	}
}

// The usage has one source, the command table: gpupath help, the
// command's doc comment (main.go) and the README's command list name
// every command and no other.
func TestUsageListsEveryCommand(t *testing.T) {
	help, _, _ := invoke(t, "help")
	mainSrc, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, cmds, _ := strings.Cut(string(readme), "\n## Commands\n")
	cmds, _, _ = strings.Cut(cmds, "\n## ")
	listed := func(text string, re *regexp.Regexp) []string {
		var names []string
		seen := map[string]bool{}
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			if !seen[m[1]] {
				seen[m[1]] = true
				names = append(names, m[1])
			}
		}
		sort.Strings(names)
		return names
	}
	want := strings.Join(commandNames(), " ")
	for _, src := range []struct {
		name string
		got  []string
	}{
		{"gpupath help", listed(help, regexp.MustCompile(`(?m)^  ([a-z]+) `))},
		{"main.go's doc comment", listed(string(mainSrc), regexp.MustCompile(`(?m)^//\tgpupath ([a-z]+)`))},
		{"README.md's command list", listed(cmds, regexp.MustCompile(`(?m)^gpupath ([a-z]+)`))},
	} {
		if got := strings.Join(src.got, " "); got != want {
			t.Errorf("%s lists %q; the commands are %q", src.name, got, want)
		}
	}
}
