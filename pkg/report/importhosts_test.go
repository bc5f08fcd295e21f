package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpupath/gpupath/pkg/importers"
	"github.com/gpupath/gpupath/pkg/model"
)

// A report of a cluster's outputs shows its hosts: a table of each host's
// files, tools and records, each file titled with its host; and a host's
// own hardware listing (its ibstat) models its files alone, not another
// host's.
func TestImportedHosts(t *testing.T) {
	fx := filepath.Join("..", "importers", "testdata", "fixtures")
	dir := t.TempDir()
	put := func(rel, fixture string) string {
		raw, err := os.ReadFile(filepath.Join(fx, fixture))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, raw, 0o644)
		return p
	}
	bw := "perftest/moc-ib_write_bw-a-gbits-client-roce-raw.txt"
	files, err := importers.ReadFiles([]string{
		put("node01/bw.txt", bw), put("node01/ibstat.txt", "ibstat/nersc-8hca-mlx5-mixed-ib-eth.txt"), put("node02/bw.txt", "perftest/alibaba-ib_write_bw-b-q4-a-gbits-ionic-pollara-client.txt"),
	}, "")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "run")
	if _, err := importers.WriteRun(out, files, importers.Meta{Version: "test", Time: time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC), HostDir: true}); err != nil {
		t.Fatal(err)
	}
	run, err := importers.ReadRun(out)
	if err != nil {
		t.Fatal(err)
	}
	im := FromImported(run, model.Default())
	if len(im.Hosts) != 2 || im.Hosts[0].Name != "node01" || len(im.Hosts[0].Files) != 2 || im.Hosts[1].Records != run.Files[2].Records {
		t.Fatalf("hosts %+v", im.Hosts)
	}
	sets := func(i int) string { return strings.Join(im.Files[i].Model.Sets, "; ") }
	if !strings.Contains(sets(0), "nic.rate=") || strings.Contains(sets(2), "nic.rate=") {
		t.Errorf("node01's ibstat must set node01's NIC rate only: node01 %q, node02 %q", sets(0), sets(2))
	}
	in := Input{Scenario: model.Default(), Source: "preset default", Version: "test", Host: "h", Time: time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC), RunID: "r", Imported: []Imported{im}}
	text := sectionText(sectionOf(t, buildDoc(t, in), "imported"))
	for _, want := range []string{"node01 2 23 perftest, ibstat ", "node02 1 23 perftest ", "bw.txt (node01) — perftest", "bw.txt (node02) — perftest"} {
		if !strings.Contains(text, want) {
			t.Errorf("the section lacks %q:\n%.3000s", want, text)
		}
	}
}
