package measure

import (
	"errors"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/internal/sysfstest"
	"github.com/gpupath/gpupath/pkg/record"
)

func TestRDMAProbe(t *testing.T) {
	root := sysfstest.Write(t, sysfstest.Opts{IB: true, State: "4: ACTIVE", Layer: "InfiniBand", Rate: "400 Gb/sec (4X NDR)", NetSpeed: "400000"})
	p := &RDMAProbe{Env: Env{SysRoot: root}}
	if err := p.Available(); err != nil {
		t.Fatal(err)
	}
	res, err := runCollect(t, p, Plan{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Target != "mlx5_0/1" || res[0].Extra["rate_bps"] != 400e9 || res[0].Extra["active"] != 1 ||
		res[0].Extra["infiniband"] != 1 || res[0].Extra["gids"] != 1 || !strings.Contains(res[0].Note, "ACTIVE InfiniBand 400 Gb/sec (4X NDR)") {
		t.Errorf("records %+v", res)
	}
	inv := p.Inventory().(*RDMAInventory)
	if len(inv.Devices) != 1 || inv.Devices[0].PCIAddress != "0000:04:00.0" || strings.Join(inv.Devices[0].NetDevs, ",") != "ibp4s0" {
		t.Errorf("inventory %+v", inv)
	}
}

func TestRDMAAbsent(t *testing.T) {
	empty := sysfstest.Write(t, sysfstest.Opts{})
	for _, root := range []string{empty, t.TempDir()} {
		p := &RDMAProbe{Env: Env{SysRoot: root}}
		err := p.Available()
		if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "no RDMA device") {
			t.Errorf("Available = %v", err)
		}
		if _, err := runCollect(t, p, Plan{}); !errors.Is(err, ErrUnavailable) {
			t.Errorf("Run = %v", err)
		}
	}
	err := (&RDMAProbe{Env: Env{SysRoot: empty}}).Available()
	if !strings.HasSuffix(err.Error(), "class/infiniband is empty)") {
		t.Errorf("message %q", err)
	}
}

func TestTopoProbe(t *testing.T) {
	root := sysfstest.Write(t, sysfstest.Opts{GPU: true, IB: true, State: "4: ACTIVE", Layer: "InfiniBand", Rate: "400 Gb/sec (4X NDR)"})
	p := &TopoProbe{Env: Env{SysRoot: root}}
	if err := p.Available(); err != nil {
		t.Fatal(err)
	}
	res, err := runCollect(t, p, Plan{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 3 || res[0].Variant != "gpu" || res[1].Variant != "nic" || res[2].Variant != "gpu-nic" {
		t.Fatalf("records %+v", res)
	}
	if res[2].Note != "PIX" || res[2].Target != "gpu@0000:03:00.0->nic@0000:04:00.0" || res[0].Extra["pcie_gen_max"] != 5 {
		t.Errorf("records %+v", res)
	}
	inv := p.Inventory().(*record.TopoInventory)
	if len(inv.GPUs) != 1 || len(inv.Pairs) != 1 || inv.System == nil {
		t.Errorf("inventory %+v", inv)
	}
	if err := (&TopoProbe{Env: Env{SysRoot: t.TempDir()}}).Available(); !errors.Is(err, ErrUnavailable) {
		t.Errorf("empty root: %v", err)
	}
	if _, err := runCollect(t, &TopoProbe{Env: Env{SysRoot: t.TempDir()}}, Plan{}); !errors.Is(err, ErrUnavailable) {
		t.Errorf("empty root Run: %v", err)
	}
}

// TestProbesOnThisHost runs the sysfs probes on the real /sys: whatever
// the machine has, they must not fail (absence is ErrUnavailable).
func TestProbesOnThisHost(t *testing.T) {
	for _, p := range []Probe{&TopoProbe{}, &RDMAProbe{}, &PerftestProbe{}} {
		_, err := runCollect(t, p, Plan{Quick: true})
		switch {
		case err == nil:
			t.Logf("%s: ok", p.Name())
		case errors.Is(err, ErrUnavailable):
			t.Logf("%s: %v", p.Name(), err)
		default:
			t.Errorf("%s: %v", p.Name(), err)
		}
	}
}
