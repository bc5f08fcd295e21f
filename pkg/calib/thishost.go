package calib

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/gpupath/gpupath/internal/stats"
	"github.com/gpupath/gpupath/pkg/fit"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"
)

// Override is one scenario value of the model, measured on this host: Key
// is the model's dotted key ("cpu.memcpy_rate"), Value its text in the
// one unit vocabulary's spelling ("11.8GB/s", "0.35us"), Source how it was derived.
type Override struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Source string `json:"source"`
}

// SetArg is the override as a `--set` argument: "cpu.memcpy_rate=11.8GB/s".
func (o Override) SetArg() string { return o.Key + "=" + o.Value }

// records returns the records of a probe and variant.
func records(rs []record.Result, probe, variant string) []record.Result {
	var out []record.Result
	for _, r := range rs {
		if r.Probe == probe && r.Variant == variant {
			out = append(out, r)
		}
	}
	return out
}

// atSmallest returns the records at the smallest size among rs, and that size.
func atSmallest(rs []record.Result) ([]record.Result, int64) {
	if len(rs) == 0 {
		return nil, 0
	}
	small := rs[0].Bytes
	for _, r := range rs {
		small = min(small, r.Bytes)
	}
	var out []record.Result
	for _, r := range rs {
		if r.Bytes == small {
			out = append(out, r)
		}
	}
	return out, small
}

func medians(rs []record.Result) []float64 {
	v := make([]float64, len(rs))
	for i, r := range rs {
		v[i] = r.MedianS
	}
	return v
}

// HostOverrides turns measured records into scenario values of this host.
// It is a pure function of the records. Keys it can derive:
//
//	cpu.memcpy_rate        memcpy probe, cold (else warm) copies: best per-size median ≥ 16 MiB
//	stack.syscall          syscall probe, getppid: a bare system call
//	stack.tx_per_message   syscall probe, tcp-send at its smallest size (else half the
//	                       ping-pong CPU per message)
//	stack.rx_per_message   syscall probe, tcp-recv at its smallest size (else the other half)
//	stack.wakeup           ping-pong CPU per one-way message (both ends, rusage) minus
//	                       tx and rx: the CPU cost of sleeping and being woken; left
//	                       out when not positive
//
// notes says, for every key it left out, why.
func HostOverrides(rs []record.Result) (ovs []Override, notes []string) {
	// cpu.memcpy_rate: the best per-size median at 16 MiB or more. Each
	// median is already robust within its size; across sizes, interference
	// (other work on the machine, a VM's neighbours) only ever slows a copy,
	// so the best large-copy median is the rate one core sustains.
	memDone := false
	for _, variant := range []string{"cold", "warm"} {
		var best record.Result
		n := 0
		for _, r := range records(rs, "memcpy", variant) {
			if r.Bytes >= 16<<20 && r.ThroughputBps > 0 {
				n++
				if r.ThroughputBps > best.ThroughputBps {
					best = r
				}
			}
		}
		if n == 0 {
			continue
		}
		ovs = append(ovs, Override{Key: "cpu.memcpy_rate", Value: units.Rate(best.ThroughputBps).Compact(),
			Source: fmt.Sprintf("measured: memcpy probe, Go copy on one core, %s caches; the best of %d per-size medians at 16MiB or more (%s copies, %d repetitions); bytes copied per second",
				variant, n, units.Bytes(best.Bytes), best.Iterations)})
		memDone = true
		break
	}
	if !memDone {
		notes = append(notes, "cpu.memcpy_rate: no memcpy record at 16MiB or more")
	}

	// stack.syscall
	if sc := records(rs, "syscall", "getppid"); len(sc) > 0 {
		v := stats.Median(medians(sc))
		ovs = append(ovs, Override{Key: "stack.syscall", Value: units.Seconds(v).Compact(),
			Source: fmt.Sprintf("measured: syscall probe, median time of one getppid(2) (a bare system call: entry and exit), %d record(s)", len(sc))})
	} else {
		notes = append(notes, "stack.syscall: no syscall/getppid record")
	}

	// stack.tx_per_message, stack.rx_per_message
	var tx, rx float64
	send, sendSize := atSmallest(records(rs, "syscall", "tcp-send"))
	recv, recvSize := atSmallest(records(rs, "syscall", "tcp-recv"))
	pp := pingPongForHost(rs)
	ppSmall, ppSize := atSmallest(pp)
	switch {
	case len(send) > 0 && len(recv) > 0:
		tx, rx = stats.Median(medians(send)), stats.Median(medians(recv))
		ovs = append(ovs,
			Override{Key: "stack.tx_per_message", Value: units.Seconds(tx).Compact(),
				Source: fmt.Sprintf("measured: syscall probe, median time of one send(2) of %s on loopback TCP (TCP_NODELAY, receiver not waiting): the transmit path; on loopback it also carries the receiver's IP/TCP input and the ACK, so it overstates the transmit side alone", units.Bytes(sendSize))},
			Override{Key: "stack.rx_per_message", Value: units.Seconds(rx).Compact(),
				Source: fmt.Sprintf("measured: syscall probe, median time of one recv(2) of %s already queued on loopback TCP: system call and copy to user (the protocol input ran in the sender's call)", units.Bytes(recvSize))})
	case len(ppSmall) > 0:
		var cpu []float64
		for _, r := range ppSmall {
			cpu = append(cpu, r.CPUUserS+r.CPUSysS)
		}
		c := stats.Median(cpu)
		if c > 0 {
			tx, rx = c/2, c/2
			src := fmt.Sprintf("measured: tcp ping-pong at %s (%s), CPU per one-way message of both ends from rusage (%s), split evenly between send and receive for want of a direct send/recv timing; includes the wake-up",
				units.Bytes(ppSize), ppSmall[0].Target, units.Seconds(c).Compact())
			ovs = append(ovs, Override{Key: "stack.tx_per_message", Value: units.Seconds(tx).Compact(), Source: src},
				Override{Key: "stack.rx_per_message", Value: units.Seconds(rx).Compact(), Source: src})
		} else {
			notes = append(notes, "stack.tx_per_message, stack.rx_per_message: no send/recv timing and no CPU time in the ping-pong records")
		}
	default:
		notes = append(notes, "stack.tx_per_message, stack.rx_per_message: no syscall tcp-send/tcp-recv and no ping-pong records")
	}

	// stack.wakeup: CPU, not latency. The one-way ping-pong latency cannot
	// be split into send + wake-up + receive: the two ends' system calls
	// overlap (the receiver is already inside recv when the data comes), so
	// α − send − receive is only a lower bound. CPU times do add up: the
	// ping-pong's CPU per one-way message (both ends, rusage) minus the CPU
	// of a send and a receive that never wait is the cost of sleeping in
	// recv and being woken (wake-up, context switches).
	ppFit, ppFitted := pingPongAlpha(pp, 64<<10)
	var cpuMsg float64
	if len(ppSmall) > 0 {
		var cpu []float64
		for _, r := range ppSmall {
			cpu = append(cpu, r.CPUUserS+r.CPUSysS)
		}
		cpuMsg = stats.Median(cpu)
	}
	switch {
	case len(ppSmall) == 0 || cpuMsg <= 0:
		notes = append(notes, "stack.wakeup: no ping-pong record with CPU times on loopback or an unshaped veth")
	case len(send) == 0 || len(recv) == 0:
		notes = append(notes, "stack.wakeup: needs the send/recv timings of the syscall probe (tcp-send, tcp-recv)")
	case cpuMsg-tx-rx <= 0:
		notes = append(notes, fmt.Sprintf("stack.wakeup: ping-pong CPU per message %s is not above send %s + receive %s; left out",
			units.Seconds(cpuMsg).Compact(), units.Seconds(tx).Compact(), units.Seconds(rx).Compact()))
	default:
		w := cpuMsg - tx - rx
		src := fmt.Sprintf("derived: tcp ping-pong at %s (%s) costs %s of CPU per one-way message, both ends (rusage); minus send %s and receive %s timed without waiting leaves the CPU cost of blocking in recv and being woken (wake-up, context switches). A CPU cost: the latency it adds is smaller, as the two ends overlap",
			units.Bytes(ppSize), ppSmall[0].Target, units.Seconds(cpuMsg).Compact(), units.Seconds(tx).Compact(), units.Seconds(rx).Compact())
		if ppFitted {
			src += fmt.Sprintf(" (the ping-pong fit latency = α + n/β over %d sizes up to %s gives α = %s one-way)",
				ppFit.Sizes, units.Bytes(64<<10), units.Seconds(ppFit.Alpha.Value).Compact())
		}
		ovs = append(ovs, Override{Key: "stack.wakeup", Value: units.Seconds(w).Compact(), Source: src})
	}
	return ovs, notes
}

// pingPongAlpha fits latency = α + n/β (fit.AlphaBeta, relative error)
// to the medians of the ping-pong records up to maxBytes; false when they do
// not hold two sizes. Only the point estimate is used (one resample).
func pingPongAlpha(rs []record.Result, maxBytes int64) (fit.Result, bool) {
	var obs []fit.Observation
	for _, r := range rs {
		if r.Bytes <= maxBytes && r.MedianS > 0 {
			obs = append(obs, fit.Observation{Bytes: float64(r.Bytes), Seconds: []float64{r.MedianS}})
		}
	}
	f, err := fit.AlphaBeta(obs, fit.Options{Resamples: 1})
	return f, err == nil
}

// pingPongForHost returns the ping-pong records that measure this host's
// stack alone: loopback, else an unshaped veth pair (a remote peer's
// records include a wire and another host).
func pingPongForHost(rs []record.Result) []record.Result {
	all := records(rs, "tcp", "pingpong")
	for _, want := range []string{"loopback", "veth"} {
		var out []record.Result
		for _, r := range all {
			if r.Target == want {
				out = append(out, r)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// ScenarioDoc is the overrides as a scenario fragment for model.WriteYAML:
// nested keys in the model's layout, each value preceded by a comment with
// its source, under title. The fragment merges over a preset
// (`--scenario`) or is read key by key.
func ScenarioDoc(title string, ovs []Override) (model.YAMLDoc, error) {
	d := model.YAMLDoc{Width: 98}
	if title != "" {
		d.Head = []string{title}
	}
	for _, o := range ovs {
		sec, key, ok := strings.Cut(o.Key, ".")
		if !ok || sec == "" || key == "" || strings.Contains(key, ".") {
			return model.YAMLDoc{}, fmt.Errorf("override key %q is not section.key", o.Key)
		}
		d.Entries = append(d.Entries, model.YAMLEntry{Key: o.Key, Value: o.Value, Comment: o.Source})
	}
	// A section's keys are written together, in the order they first came.
	order := map[string]int{}
	for _, e := range d.Entries {
		sec, _, _ := strings.Cut(e.Key, ".")
		if _, ok := order[sec]; !ok {
			order[sec] = len(order)
		}
	}
	sort.SliceStable(d.Entries, func(a, b int) bool {
		sa, _, _ := strings.Cut(d.Entries[a].Key, ".")
		sb, _, _ := strings.Cut(d.Entries[b].Key, ".")
		return order[sa] < order[sb]
	})
	return d, nil
}

// WriteScenarioYAML writes the overrides as a scenario fragment
// (ScenarioDoc through model.WriteYAML).
func WriteScenarioYAML(w io.Writer, title string, ovs []Override) error {
	d, err := ScenarioDoc(title, ovs)
	if err != nil {
		return err
	}
	return model.WriteYAML(w, d)
}

// ThisHost returns every "this host" scenario value a run supports: the
// host-side ones (memcpy, syscall, TCP stack costs: HostOverrides) and the
// GPU-side ones (PCIe links, copy latency and rate, NVLink, topology, NIC:
// GPUHostOverrides), with the notes of what could not be derived.
func ThisHost(d *record.RunData) ([]Override, []string, error) {
	ovs, notes := HostOverrides(d.Results)
	facts, err := HostFacts(d)
	if err != nil {
		return ovs, notes, err
	}
	seen := map[string]bool{}
	for _, o := range ovs {
		seen[o.Key] = true
	}
	for _, o := range GPUHostOverrides(facts) {
		if !seen[o.Key] {
			ovs = append(ovs, o)
			seen[o.Key] = true
		}
	}
	if h := d.Manifest.Host; h.CPUs > 0 && !seen["cpu.cores"] {
		ovs = append(ovs, Override{Key: "cpu.cores", Value: fmt.Sprint(h.CPUs),
			Source: fmt.Sprintf("manifest: %d logical CPUs in /proc/cpuinfo (%s)", h.CPUs, h.CPUModel)})
	}
	return ovs, notes, nil
}

// HostFacts gathers, from a run read back from disk, what the GPU-side
// probes found (their inventories in the manifest) and the run's records,
// for GPUHostOverrides.
func HostFacts(d *record.RunData) (GPUHostFacts, error) {
	inv, err := d.Inventories()
	return GPUHostFacts{NVML: inv.NVML, CUDA: inv.CUDA, Topo: inv.Topo, Results: d.Results}, err
}

// HostScenarioYAML is the scenario file of a run's host (host-scenario.yaml,
// next to the run): a title comment, name and description, then the keys
// measured on the host (ThisHost) with their sources, and the notes on what
// was not derived. Keys it does not set come from the default preset.
func HostScenarioYAML(rd *record.RunData, ovs []Override, notes []string) ([]byte, error) {
	title := fmt.Sprintf("This host (%s), measured by gpupath %s at %s. Keys not listed come from the default preset.",
		rd.Manifest.Host.Hostname, rd.Manifest.Version, rd.Manifest.Start.Format(time.RFC3339))
	if len(notes) > 0 {
		title += " Not derived: " + strings.Join(notes, "; ")
	}
	d, err := ScenarioDoc(title, ovs)
	if err != nil {
		return nil, err
	}
	d.Fields = []model.YAMLField{{Key: "name", Value: "this-host " + rd.Manifest.Host.Hostname, Quote: true},
		{Key: "description", Value: fmt.Sprintf("%s as measured at %s (run %s)", rd.Manifest.Host.Hostname, rd.Manifest.Start.Format(time.RFC3339), filepath.Base(rd.Dir)), Quote: true}}
	var b bytes.Buffer
	if err := model.WriteYAML(&b, d); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
