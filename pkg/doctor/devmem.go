package doctor

import (
	"fmt"
	"strings"

	"github.com/gpupath/gpupath/pkg/calib"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/topo"
)

// devmemCheck reads what device-memory TCP needs where the kernel shows
// it: the kernel (Linux ≥ 6.12 with CONFIG_NET_DEVMEM), and per NIC its
// driver and receive queues. Header split and flow steering are not in
// sysfs: only ethtool's netlink interface reports them
// (ETHTOOL_MSG_RINGS_GET: tcp-data-split; ETHTOOL_MSG_FEATURES_GET:
// ntuple-filters), which doctor does not query, so they are reported as
// unknown with the command that reads them.
type devmemCheck struct{}

func (devmemCheck) Name() string { return "devmem" }

// Device-memory TCP receive landed in Linux 6.12 (net: "devmem TCP",
// Documentation/networking/devmem.rst), transmit in 6.14.
const devmemMajor, devmemMinor = 6, 12

// devmemDrivers implement the queue management API (netdev_queue_mgmt_ops)
// that devmem TCP binds a dma-buf to a receive queue through, in mainline
// as far as this list knows (bnxt_en and gve since 6.12/6.13, mlx5_core
// since 6.15, fbnic): a driver not listed may have gained it since.
var devmemDrivers = map[string]bool{"bnxt_en": true, "gve": true, "mlx5_core": true, "fbnic": true}

func (devmemCheck) Run(e *Env) []Finding {
	k := readKernel(e)
	kf := Finding{ID: "devmem.kernel", Facts: []Fact{k.relFact}}
	if k.config != nil {
		kf.Facts = append(kf.Facts, k.configFact("CONFIG_NET_DEVMEM"))
	} else {
		kf.Facts = append(kf.Facts, k.configFacts...)
	}
	switch {
	case !k.relFact.OK():
		kf.Severity, kf.Title = Unknown, "kernel release unreadable: devmem TCP support unknown"
	case !k.atLeast(devmemMajor, devmemMinor):
		kf.Severity = Info
		kf.Title = fmt.Sprintf("kernel %s predates devmem TCP (Linux ≥ %d.%d)", k.release, devmemMajor, devmemMinor)
		kf.Fix = "Devmem TCP needs Linux ≥ 6.12 (6.14 for transmit) with CONFIG_NET_DEVMEM=y."
		kf.Cost = devmemCost()
	case k.config == nil:
		kf.Severity = Unknown
		kf.Title = fmt.Sprintf("kernel %s is new enough for devmem TCP, but its config is not readable (CONFIG_NET_DEVMEM unknown)", k.release)
	case k.config["CONFIG_NET_DEVMEM"] != "y":
		kf.Severity = Info
		kf.Title = fmt.Sprintf("kernel %s is built without CONFIG_NET_DEVMEM: no devmem TCP", k.release)
		kf.Fix = "Use a kernel built with CONFIG_NET_DEVMEM=y (it needs CONFIG_DMA_SHARED_BUFFER, CONFIG_GENERIC_ALLOCATOR and CONFIG_PAGE_POOL)."
		kf.Cost = devmemCost()
	default:
		kf.Severity = OK
		kf.Title = fmt.Sprintf("kernel %s has devmem TCP (CONFIG_NET_DEVMEM=y)", k.release)
	}
	out := []Finding{kf}

	s, err := e.system()
	if err != nil {
		return out
	}
	for _, n := range s.Net {
		d, ok := s.Device(n.PCIAddress)
		if !ok || !physicalNIC(d) || d.BaseClass() != classEthernetNIC {
			continue // devmem TCP is Ethernet's (IPoIB has no header split)
		}
		f := devmemNIC(e, n, d)
		if kf.Severity != OK && kf.Severity != Unknown {
			f.Cost = nil // the kernel finding prices it
		}
		out = append(out, f)
	}
	return out
}

func devmemCost() *Cost {
	return &Cost{Lead: "no devmem TCP: GPU traffic over TCP is host-staged",
		Before: Case{Path: "devmem", Set: caseKeys(calib.Facts{NICKind: is(model.KindEthernet), RDMA: is(false)},
			model.Override{Key: "nic.header_split", Value: true}, model.Override{Key: "nic.flow_steering", Value: true}, model.Override{Key: "nic.checksum_offload", Value: true})},
		After: Case{Path: "tcp", Set: caseKeys(calib.Facts{NICKind: is(model.KindEthernet), RDMA: is(false)})}}
}

func devmemNIC(e *Env, n topo.NetDev, d topo.PCIDevice) Finding {
	f := Finding{ID: "devmem.nic", Subject: n.Name + " (" + n.PCIAddress + ")"}
	drv := d.Driver
	df := Fact{Source: src(sysTree, "class/net/"+n.Name+"/device/driver"), Value: drv}
	if drv == "" {
		df.Value, df.Error = "", "could not read: no driver bound"
	}
	rx, tx := 0, 0
	qf := Fact{Source: src(sysTree, "class/net/"+n.Name+"/queues")}
	if ents, err := e.readDir(sysTree, "class/net/"+n.Name+"/queues"); err == nil {
		for _, q := range ents {
			switch {
			case strings.HasPrefix(q.Name(), "rx-"):
				rx++
			case strings.HasPrefix(q.Name(), "tx-"):
				tx++
			}
		}
		qf.Value = fmt.Sprintf("%d rx, %d tx queues", rx, tx)
	} else {
		qf.Error = whyNot(err)
	}
	f.Facts = []Fact{df, qf,
		{Source: "ethtool -g " + n.Name + " (tcp-data-split)", Error: "could not read: header split is reported only by ethtool netlink (ETHTOOL_MSG_RINGS_GET), which doctor does not query"},
		{Source: "ethtool -k " + n.Name + " (ntuple-filters)", Error: "could not read: flow steering is reported only by ethtool netlink (ETHTOOL_MSG_FEATURES_GET), which doctor does not query"}}
	f.Fix = fmt.Sprintf("Check and set them: ethtool -g %s | grep -i split; ethtool -G %s tcp-data-split on; ethtool -K %s ntuple on; leave RSS off the devmem queue (ethtool -X %s equal N-1).", n.Name, n.Name, n.Name, n.Name)
	switch {
	case drv != "" && !devmemDrivers[drv]:
		f.Severity = Info
		f.Title = fmt.Sprintf("driver %s is not known to support devmem TCP (queue management API)", drv)
		f.Fix = ""
		f.Cost = devmemCost()
	case rx > 0 && rx < 2:
		f.Severity = Info
		f.Title = fmt.Sprintf("one receive queue: devmem TCP needs a queue of its own besides the RSS queues (driver %s)", drv)
		f.Cost = devmemCost()
	default:
		f.Severity = Unknown
		f.Title = fmt.Sprintf("driver %s can do devmem TCP; header split and flow steering cannot be read from sysfs", orDash(drv))
		f.Why = "Devmem TCP needs header/data split (payload to GPU memory, headers to the host), ntuple flow steering to the dma-buf's queue, and RSS kept off that queue."
	}
	return f
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
