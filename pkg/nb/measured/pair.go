package measured

import (
	"fmt"
	"path/filepath"

	"github.com/gpupath/gpupath/pkg/nb"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"
)

// ExamplePair is the committed two-host run: two network namespaces joined
// by a veth pair shaped to 1 Gbit/s, ranks launched with torchrun's
// environment (reports/examples/two-hosts-veth).
const ExamplePair = "reports/examples/two-hosts-veth/run"

// PairTable describes a two-host run (gpupath measure on two ranks): who
// measured against whom, how the pair was found, and per probe and size the
// median time and rate that rank 1 measured across the link.
func PairTable(root, dir string) (string, error) {
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(root, dir)
	}
	rd, err := record.ReadRun(dir)
	if err != nil {
		return "", err
	}
	m := rd.Manifest
	if m.Peer == nil || m.Pairing == nil {
		return "", fmt.Errorf("nb: %s is a one-host run (no peer in its manifest)", dir)
	}
	t := nb.Table{Caption: fmt.Sprintf("Rank %d on %s measured against rank 0 on %s (%s, found by %s), paired by %s, run %s",
		m.Pairing.Rank, machine(rd), m.Peer.Hostname, m.Pairing.PeerAddr, m.Pairing.Found, m.Pairing.Launcher, m.Status),
		Head: []string{"probe", "variant", "size", "median", "rate"}, Right: []bool{false, false, true, true, true}}
	for _, r := range rd.Results {
		if r.Probe != "tcp" && r.Probe != "staged-host" {
			continue
		}
		t.Add(r.Probe, r.Variant, units.Bytes(r.Bytes).Human(), units.Seconds(r.MedianS).Human(), units.Rate(r.ThroughputBps).Gbits())
	}
	return t.HTML(), nil
}
