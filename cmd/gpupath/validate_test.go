package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	out, errOut, code := invoke(t, "validate")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, w := range []string{"mode full: ", "S08-06", "full: ", "median error", "per source", "per path", "notes: rows excluded"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q", w)
		}
	}
	if strings.Contains(out, "partial") {
		t.Error("the partial mode without --partial")
	}
	// --partial: both modes, row by row, per source and per path.
	out, _, code = invoke(t, "validate", "--partial")
	for _, w := range []string{"mode full: ", "mode partial: ", "full: ", "partial: ", "partial median", "in the partial mode"} {
		if code != 0 || !strings.Contains(out, w) {
			t.Errorf("--partial: exit %d, output lacks %q", code, w)
		}
	}
	out, _, _ = invoke(t, "validate", "--partial", "--format", "json")
	var both struct {
		Mode    string           `json:"mode"`
		Rows    []map[string]any `json:"rows"`
		Partial map[string]any   `json:"partial"`
	}
	if json.Unmarshal([]byte(out), &both) != nil || both.Mode != "full and partial" || both.Partial["all"] == nil || both.Rows[1]["partial"] == nil {
		t.Errorf("--partial json: mode %q, partial %v", both.Mode, both.Partial != nil)
	}
	out, _, _ = invoke(t, "validate", "--partial", "--format", "csv")
	if !strings.HasPrefix(out, "id,source,path,") || !strings.Contains(strings.SplitN(out, "\n", 2)[0], "partial_ratio") {
		t.Errorf("--partial csv header %q", strings.SplitN(out, "\n", 2)[0])
	}
	out, _, code = invoke(t, "validate", "--format", "json")
	var doc struct {
		Mode string           `json:"mode"`
		Rows []map[string]any `json:"rows"`
		All  map[string]any   `json:"all"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || len(doc.Rows) != 113 || doc.All["median_error"] == nil || doc.Mode != "full" {
		t.Errorf("json: exit %d, %d rows", code, len(doc.Rows))
	}
	out, _, code = invoke(t, "validate", "--format", "csv")
	if code != 0 || !strings.HasPrefix(out, "id,source,path,") || strings.Count(out, "\n") != 114 {
		t.Errorf("csv: exit %d, %d lines", code, strings.Count(out, "\n"))
	}
	if out, _, code := invoke(t, "validate", "--sources"); code != 0 || !strings.Contains(out, "Published measurements") {
		t.Errorf("--sources: exit %d", code)
	}
}

func TestValidateBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("id,path,quantity,unit,msg_bytes,value,gpu,nic,pcie,topology,software,source,notes\nX-1,gdr,latency_oneway,us,8,fast,,,,,,,\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"validate", "--format", "xml"}, `--format "xml"`},
		{[]string{"validate", "--data", filepath.Join(dir, "missing.csv")}, "missing.csv: no such file"},
		{[]string{"validate", "--data", bad}, "bad.csv:2: X-1: value \"fast\""},
		{[]string{"validate", "extra"}, "unexpected argument"},
		{[]string{"validate", "--nope"}, "unknown flag --nope"},
	} {
		out, errOut, code := invoke(t, tc.args...)
		if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", tc.args, code, out, errOut, tc.want)
		}
	}
	// A table of one good row models it.
	one := filepath.Join(dir, "one.csv")
	os.WriteFile(one, []byte("id,path,quantity,unit,msg_bytes,value,gpu,nic,pcie,topology,software,source,notes\nX-1,rdma_host,latency_oneway,us,32,0.83,none,ConnectX-4 100 Gb/s back-to-back,PCIe Gen3 x16,,perftest ib_send_lat,,\n"), 0o644)
	if out, errOut, code := invoke(t, "validate", "--data", one); code != 0 || !strings.Contains(out, "X-1") || errOut != "" {
		t.Errorf("one row: exit %d, %q %q", code, out, errOut)
	}
}
