package measure

// InventoryReporter is implemented by probes that also find out what
// hardware is there (devices, links, topology). After Run, Inventory
// returns a JSON-able value for the manifest, next to the probe's status.
// The runner may ignore it; nothing in the results depends on it.
type InventoryReporter interface {
	Inventory() any
}

// Verboser is implemented by probes that can report diagnostics while they
// run (what was loaded, allocated, skipped). The command line sets it for
// its verbose mode; libraries never print by themselves.
type Verboser interface {
	SetLog(func(format string, args ...any))
}

// SetLog sets the diagnostics sink (nil discards).
func (p *CUDACopy) SetLog(f func(format string, args ...any)) { p.Log = f }

// Weights of the GPU-side probes in a run's budget (Weighted): the copy
// sweep and the staged transfer take most of it, inventories almost none.
func (p *CUDACopy) Weight() float64      { return 4 }
func (p *Staged) Weight() float64        { return 3 }
func (p *NVMLProbe) Weight() float64     { return 0.2 }
func (p *TopoProbe) Weight() float64     { return 0.05 }
func (p *RDMAProbe) Weight() float64     { return 0.05 }
func (p *PerftestProbe) Weight() float64 { return 2 }
