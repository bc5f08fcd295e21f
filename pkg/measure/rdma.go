package measure

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/topo"
)

func init() { Register("rdma", func(env Env) Probe { return &RDMAProbe{Env: env} }) }

// RDMAProbe lists the RDMA (verbs) devices from sysfs
// (/sys/class/infiniband/<dev>/ports/<n>/{state,rate,link_layer,gids}), with
// no library: their ports' state, rate, link layer (InfiniBand or Ethernet,
// i.e. RoCE) and populated GIDs, the PCI function and network interfaces
// they belong to. Without a device it reports ErrUnavailable.
//
// Results carry no timings: one record per port (Variant "port", Target
// "mlx5_0/1") with rate_bps, width, active and gids in Extra and the state,
// link layer and rate text in Note. Inventory returns the *RDMAInventory.
type RDMAProbe struct {
	// Env says which sysfs tree to read and where diagnostics go.
	Env Env
	inv *RDMAInventory
}

// RDMAInventory is what the RDMA probe found.
type RDMAInventory struct {
	Devices  []topo.RDMADevice `json:"devices"`
	Warnings []string          `json:"warnings,omitempty"`
}

// Name returns "rdma".
func (p *RDMAProbe) Name() string { return "rdma" }

// Weight is the probe's share of a run's budget (Weighted): an inventory
// takes almost none.
func (p *RDMAProbe) Weight() float64 { return 0.05 }

// Inventory returns the *RDMAInventory of the last Run.
func (p *RDMAProbe) Inventory() any { return p.inv }

// Available checks that /sys/class/infiniband lists a device.
func (p *RDMAProbe) Available() error { return rdmaPresent(p.Env) }

func rdmaPresent(env Env) error {
	dir := env.Sys("class", "infiniband")
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return Unavailable("no RDMA device (%s does not exist)", dir)
	}
	if err != nil {
		return Unavailable("no RDMA device (%v)", err)
	}
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), ".") {
			return nil
		}
	}
	return Unavailable("no RDMA device (%s is empty)", dir)
}

// Run reads the devices and emits one record per port.
func (p *RDMAProbe) Run(ctx context.Context, plan Plan, emit func(record.Result) error) error {
	if err := rdmaPresent(p.Env); err != nil {
		return err
	}
	r := topo.Reader{Root: p.Env.SysRoot}
	devs, warns, err := r.RDMADevices()
	if err != nil {
		return err
	}
	// The network interfaces of each device's PCI function.
	if nds, _, err := r.NetDevs(); err == nil {
		for i := range devs {
			for _, n := range nds {
				if n.PCIAddress != "" && n.PCIAddress == devs[i].PCIAddress {
					devs[i].NetDevs = append(devs[i].NetDevs, n.Name)
				}
			}
		}
	}
	p.inv = &RDMAInventory{Devices: devs, Warnings: warns}
	now := time.Now()
	for _, d := range devs {
		for _, port := range d.Ports {
			if err := ctx.Err(); err != nil {
				return err
			}
			note := fmt.Sprintf("%s %s %s %s %s", d.HCAType, port.State, port.LinkLayer, port.Rate, d.PCIAddress)
			p.Env.Logf("rdma: %s port %d: %s, %d GIDs, netdevs %v", d.Name, port.Port, note, len(port.GIDs), d.NetDevs)
			res := record.Result{Probe: "rdma", Variant: "port", Target: fmt.Sprintf("%s/%d", d.Name, port.Port), Time: now, Note: note,
				Extra: map[string]float64{"rate_bps": port.RateBps, "width": float64(port.Width), "active": record.Bool(port.Active()),
					"gids": float64(len(port.GIDs)), "infiniband": record.Bool(topo.LinkKind(port.LinkLayer) == "ib")}}
			if err := emit(res); err != nil {
				return err
			}
		}
	}
	return nil
}
