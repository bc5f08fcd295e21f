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

func init() { Register("topo", func(env Env) Probe { return &TopoProbe{Env: env} }) }

// TopoProbe reads the PCIe topology from sysfs, without NVML: the GPUs and
// NICs with their PCIe links and NUMA nodes, and how every GPU reaches every
// NIC (PIX, PXB, PHB, NODE, SYS, as nvidia-smi would print it).
//
// Results carry no timings: one record per GPU and NIC (Variant "gpu" or
// "nic", Target the PCI address) with the link in Extra (pcie_gen_max,
// pcie_width_max, pcie_gen_current, pcie_width_current, numa_node), and one
// per GPU-NIC pair (Variant "gpu-nic", Target "gpu@0000:05:00.0->nic@...",
// the class in Note, its rank and bridge count in Extra). Inventory returns
// the whole *TopoInventory.
type TopoProbe struct {
	// Env says which sysfs tree to read and where diagnostics go.
	Env Env
	inv *record.TopoInventory
}

// Name returns "topo".
func (p *TopoProbe) Name() string { return "topo" }

// Weight is the probe's share of a run's budget (Weighted): an inventory
// takes almost none.
func (p *TopoProbe) Weight() float64 { return 0.05 }

// Inventory returns the *TopoInventory of the last Run.
func (p *TopoProbe) Inventory() any { return p.inv }

// Available checks that sysfs lists PCI devices.
func (p *TopoProbe) Available() error {
	dir := p.Env.Sys("bus", "pci", "devices")
	if _, err := os.Stat(dir); err != nil {
		return Unavailable("no PCI devices in sysfs (%v)", err)
	}
	return nil
}

// ReadTopology reads the sysfs tree at root ("" for /sys) into an inventory.
func ReadTopology(root string) (*record.TopoInventory, error) {
	sys, err := topo.Reader{Root: root}.Read()
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, Unavailable("no PCI devices in sysfs (%v)", err)
		}
		return nil, err
	}
	return &record.TopoInventory{
		GPUs: sys.GPUs(), NICs: sys.NICs(), Pairs: sys.GPUNICPairs(),
		RDMA: sys.RDMA, Net: sys.Net, Warnings: sys.Warnings, System: sys,
	}, nil
}

// Run reads the topology and emits its records.
func (p *TopoProbe) Run(ctx context.Context, plan Plan, emit func(record.Result) error) error {
	inv, err := ReadTopology(p.Env.SysRoot)
	if err != nil {
		return err
	}
	p.inv = inv
	now := time.Now()
	dev := func(kind string, d topo.PCIDevice) record.Result {
		names := append(append([]string(nil), d.RDMADevs...), d.NetDevs...)
		return record.Result{Probe: "topo", Variant: kind, Target: d.Address, Time: now,
			Note: fmt.Sprintf("%04x:%04x %s %s %s", d.Vendor, d.Device, d.Driver, d.Link.Max(), strings.Join(names, ",")),
			Extra: map[string]float64{
				"pcie_gen_max": float64(d.Link.MaxGen()), "pcie_width_max": float64(d.Link.MaxWidth),
				"pcie_gen_current": float64(d.Link.CurrentGen()), "pcie_width_current": float64(d.Link.CurrentWidth),
				"numa_node": float64(d.NUMANode), "bridges": float64(len(d.Bridges)),
			}}
	}
	for _, g := range inv.GPUs {
		if err := emit(dev("gpu", g)); err != nil {
			return err
		}
	}
	for _, n := range inv.NICs {
		if err := emit(dev("nic", n)); err != nil {
			return err
		}
	}
	for _, pr := range inv.Pairs {
		p.Env.Logf("topo: GPU %s - NIC %s %v: %s (ancestor %s, %d bridges)", pr.GPU, pr.NIC, pr.NICNames, pr.Class, pr.Ancestor, pr.Bridges)
		r := record.Result{Probe: "topo", Variant: "gpu-nic", Target: "gpu@" + pr.GPU + "->nic@" + pr.NIC, Time: now,
			Note:  string(pr.Class),
			Extra: map[string]float64{"class_rank": float64(pr.Class.Rank()), "bridges": float64(pr.Bridges)}}
		if err := emit(r); err != nil {
			return err
		}
	}
	p.Env.Logf("topo: %d GPUs, %d NICs, %d RDMA devices, %d warnings", len(inv.GPUs), len(inv.NICs), len(inv.RDMA), len(inv.Warnings))
	for _, w := range inv.Warnings {
		p.Env.Logf("topo: warning: %s", w)
	}
	return ctx.Err()
}
