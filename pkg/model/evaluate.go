package model

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/gpupath/gpupath/pkg/units"
)

// Result is a path evaluated at one message size. Infeasible paths carry
// only Path, Bytes, Feasible and Reason.
type Result struct {
	Path     string
	Bytes    units.Bytes
	Feasible bool
	Reason   string
	// Note says what the figures assume that a reader may not (NCCL would
	// not use GPUDirect RDMA this far from the NIC; a software stack that
	// leaves this path bare); "" when nothing.
	Note string

	// Latency is the latency the hardware gives one message: stages that
	// hand data on as they go (Stage.Grain: a NIC reading, the wire, a NIC
	// writing packet by packet; a kernel pushing TCP segments) overlap
	// within the message, steps that take the whole message follow one
	// another (see hardware).
	Latency units.Seconds
	// StepByStep is the step-by-step story Σ T_i(n): each stage finishes before
	// the next starts (never less than Latency). The stage table adds up
	// to it.
	StepByStep units.Seconds
	// Pipelined is the latency when software moves the message in chunks
	// of Chunk bytes that overlap across stages (never more than Latency).
	Pipelined units.Seconds
	Chunk     units.Bytes
	Chunks    int

	// Registration is the one-time cost of registering the message's
	// buffer for the path (ibv_reg_mr of host memory, pinning GPU memory
	// for GPUDirect RDMA) on one node — both nodes do it at once. It is
	// paid once per buffer, not per message, and is not in Latency.
	Registration units.Seconds

	// Bandwidth is the streaming bandwidth for back-to-back messages of
	// this size: the tightest shared resource. Bottleneck names it.
	Bandwidth  units.Rate
	Bottleneck string
	// LineRate is the streaming bandwidth with unlimited CPU: the rate the
	// wire and links allow (what "cores at line rate" refers to).
	LineRate units.Rate

	// CPU seconds per message, both nodes, and per side.
	CPU, CPUSender, CPUReceiver units.Seconds
	// Cores needed to carry LineRate, both nodes, and per side. Where the
	// message rate binds (MessageBound) they are 0: no number of cores
	// carries a line rate that per-message work, not the bytes, sets.
	Cores, CoresSender, CoresReceiver float64
	// MessageBound: at this size the line rate is set by per-message or
	// per-packet work (the NIC's message rate, a stage's fixed cost), not
	// by the bytes: "cores at line rate" does not apply, and
	// MessagesPerCore says what one core does instead.
	MessageBound bool
	// MessagesPerCore is how many messages per second one core of the
	// busier side handles (1 / its CPU seconds per message); 0 when the
	// path uses no CPU.
	MessagesPerCore float64

	DDRBytes  float64 // payload bytes read or written in DDR, both nodes
	Copies    int     // explicit payload copies
	Crossings int     // PCIe transfers of the payload

	Stages []StageResult
}

// StageResult is one stage's share of a Result (the stage's description
// is in Route.Stages at the same index).
type StageResult struct {
	Name   string
	Letter string
	Side   Side
	// Latency is the stage's step-by-step time T(n): its fixed cost and
	// its size-dependent cost (the stage table adds up to Result.StepByStep).
	Latency units.Seconds
	// Alpha is the fixed cost the stage was charged at this size
	// (Stage.AlphaAt: an inline send's smaller one up to nic.inline_size).
	Alpha     units.Seconds
	Rate      units.Rate // asymptotic stage bandwidth (+Inf: no per-byte cost)
	CPU       units.Seconds
	DDRBytes  float64
	Crossings int
	Copy      bool
	// Inactive: the stage does not run at this size (a protocol of a
	// software stack that another protocol replaces there); it costs
	// nothing.
	Inactive bool
}

// Evaluate computes the route at message size n (n ≥ 1).
func (r *Route) Evaluate(n units.Bytes) Result {
	return r.evaluate(n, nil)
}

// evaluate fills buf (when it has room) with the stage results.
func (r *Route) evaluate(n units.Bytes, buf []StageResult) Result {
	res := Result{Path: r.Path.Name, Bytes: n, Feasible: r.Feasible, Reason: r.Reason, Note: r.Note}
	if !r.Feasible {
		return res
	}
	res.Chunk = r.Chunk
	if cap(buf) >= len(r.Stages) {
		res.Stages = buf[:len(r.Stages):len(r.Stages)]
	} else {
		res.Stages = make([]StageResult, len(r.Stages))
	}
	for i, st := range r.Stages {
		t := st.Time(n)
		cpu := st.CPU(n)
		res.StepByStep += t
		active := st.Active(n)
		res.Stages[i] = StageResult{Name: st.Name, Letter: st.Letter, Side: st.Side,
			Latency: t, Alpha: st.AlphaAt(n), Rate: st.Rate(), CPU: cpu, Inactive: !active}
		if !active {
			continue
		}
		res.Stages[i].DDRBytes, res.Stages[i].Crossings, res.Stages[i].Copy = st.DDR*float64(n), st.Crossings, st.Copy
		switch st.Side {
		case Receiver:
			res.CPUReceiver += cpu
		default:
			res.CPUSender += cpu
		}
		res.DDRBytes += st.DDR * float64(n)
		res.Crossings += st.Crossings
		if st.Copy {
			res.Copies++
		}
	}
	res.CPU = res.CPUSender + res.CPUReceiver
	res.Latency = hardware(r.Stages, n)
	if r.register != nil {
		res.Registration = r.register(n)
	}
	loads := r.loads
	if loads == nil {
		loads = indexUses(r.Stages, r.Resources)
	}
	cp := r.chunkPeriod
	if !r.periodKnown {
		cp = period(r.Stages, loads, r.Chunk)
	}
	res.Pipelined, res.Chunks = pipelined(r.Stages, loads, n, r.Chunk, cp)
	if res.Pipelined > res.Latency {
		res.Pipelined, res.Chunks = res.Latency, 1
	}
	var byteShare float64
	res.Bandwidth, res.Bottleneck, res.LineRate, byteShare = streamingShare(r.Stages, loads, n)
	if busier := max(res.CPUSender, res.CPUReceiver); busier > 0 {
		res.MessagesPerCore = 1 / float64(busier)
	}
	if byteShare < 0.5 {
		res.MessageBound = true
		return res
	}
	perSec := float64(res.LineRate) / float64(n) // messages per second at line rate
	res.CoresSender = float64(res.CPUSender) * perSec
	res.CoresReceiver = float64(res.CPUReceiver) * perSec
	res.Cores = res.CoresSender + res.CoresReceiver
	return res
}

// hardware is the latency of one message of n bytes as the hardware moves
// it. A stage without a grain takes the whole message before the next
// starts: its time adds. A run of consecutive stages with a grain streams
// the message through in units of their grains: every stage handles its
// first unit in turn, then the slowest sets the pace for the rest,
//
//	T_run = Σ_i [α_i + c_i(min(n, g_i))] + max_i [c_i(n) − c_i(min(n, g_i))]
//
// where c_i is the stage's size-dependent cost (Stage.Cost) and g_i its
// grain. For one grain g this is Σ_i T_i(g) + the slowest stage for the
// remaining n − g bytes: about Σα + n/β_min plus a unit per extra stage.
// It never exceeds Σ T_i(n) and never falls as n grows.
func hardware(stages []Stage, n units.Bytes) units.Seconds {
	var t, rest units.Seconds
	for _, st := range stages {
		if !st.Active(n) {
			continue
		}
		if st.Grain <= 0 {
			t += rest + st.Time(n)
			rest = 0
			continue
		}
		c1 := st.Cost(min(n, st.Grain))
		t += st.AlphaAt(n) + c1
		rest = max(rest, st.Cost(n)-c1)
	}
	return t + rest
}

// pipelined is the latency of n bytes sent by software in chunks of c: the
// first chunk passes every stage (as the hardware moves one message of c
// bytes), then each further chunk adds the period of the pipeline — the
// time the tightest stage or shared resource (a CPU that serves two
// stages, a link, DDR) is busy with one chunk, as in streaming:
//
//	T = hardware(c) + Σ_{j=2..k} period(c_j),  period(x) = x / bandwidth(x)
func pipelined(stages []Stage, loads []resourceUses, n, c units.Bytes, chunkPeriod units.Seconds) (units.Seconds, int) {
	if c <= 0 || n <= c {
		return hardware(stages, n), 1
	}
	k := int((n + c - 1) / c)
	last := n - units.Bytes(k-1)*c
	t := hardware(stages, c)
	t += units.Seconds(k-2) * chunkPeriod
	t += period(stages, loads, last)
	return t, k
}

// resourceUses pairs a shared resource with the stage uses that load it.
type resourceUses struct {
	res  Resource
	uses []Use
}

func indexUses(stages []Stage, resources []Resource) []resourceUses {
	out := make([]resourceUses, 0, len(resources))
	for _, res := range resources {
		ru := resourceUses{res: res}
		for _, st := range stages {
			for _, u := range st.Uses {
				if u.Resource == res.Name {
					u.from, u.until = st.From, st.Until
					ru.uses = append(ru.uses, u)
				}
			}
		}
		if len(ru.uses) > 0 && res.Capacity > 0 {
			out = append(out, ru)
		}
	}
	return out
}

// period is the time one of many back-to-back messages of n bytes keeps
// the tightest stage or shared resource busy (0 when nothing limits).
func period(stages []Stage, loads []resourceUses, n units.Bytes) units.Seconds {
	bw, _, _ := streaming(stages, loads, n)
	if math.IsInf(float64(bw), 1) || bw <= 0 {
		return 0
	}
	return units.Seconds(float64(n) / float64(bw))
}

// streaming finds the tightest resource for back-to-back messages of n
// bytes: every non-CPU stage's own occupancy (divided among its Parallel
// workers) and every shared resource. It returns the bandwidth with every
// limit and the line rate, which leaves out CPU limits.
func streaming(stages []Stage, loads []resourceUses, n units.Bytes) (bw units.Rate, bottleneck string, line units.Rate) {
	bw, bottleneck, line, _ = streamingShare(stages, loads, n)
	return bw, bottleneck, line
}

// streamingShare is streaming, and the share of the line rate's limit
// that is per-byte work at n (1: all bytes; near 0: the message rate binds).
func streamingShare(stages []Stage, loads []resourceUses, n units.Bytes) (bw units.Rate, bottleneck string, line units.Rate, byteShare float64) {
	worst, worstLine := 0.0, 0.0
	wStage, wRes := -1, -1
	byteShare = 1
	for i, st := range stages {
		// A CPU stage's occupancy is CPU time, counted in its side's CPU
		// resource (whose capacity is the same number of cores).
		if st.OnCPU || !st.Active(n) {
			continue
		}
		busy := float64(st.Busy(n)) / float64(max(st.Parallel, 1))
		if busy > worst {
			worst, wStage, wRes = busy, i, -1
		}
		if busy > worstLine {
			worstLine = busy
			byteShare = float64(st.bytesBusy(n)) / float64(max(st.Parallel, 1)) / busy
		}
	}
	for i, ru := range loads {
		var load float64
		for _, u := range ru.uses {
			load += u.load(n)
		}
		busy := load / ru.res.Capacity
		if busy > worst {
			worst, wStage, wRes = busy, -1, i
		}
		if !ru.res.CPU && busy > worstLine {
			worstLine = busy
			var perByte float64
			for _, u := range ru.uses {
				if u.load(n) > 0 {
					perByte += float64(n) * u.PerByte
				}
			}
			byteShare = perByte / load
		}
	}
	bw, line = units.Rate(math.Inf(1)), units.Rate(math.Inf(1))
	if worst > 0 {
		bw = units.Rate(float64(n) / worst)
	}
	if worstLine > 0 {
		line = units.Rate(float64(n) / worstLine)
	}
	switch {
	case wRes >= 0:
		bottleneck = loads[wRes].res.Label
	case wStage >= 0:
		st := stages[wStage]
		if st.Letter != "" {
			bottleneck = "stage " + st.Letter + ": " + st.Name
		} else {
			bottleneck = "stage: " + st.Name
		}
	default:
		bottleneck = "nothing"
	}
	return bw, bottleneck, line, byteShare
}

// Sweep evaluates every path at every size: results are path-major, in the
// order given.
func Sweep(s *Scenario, ps []Path, sizes []units.Bytes) []Result {
	out, _ := SweepContext(context.Background(), s, ps, sizes)
	return out
}

// CheckEvery is how many evaluations (or output rows) pass between two
// checks of the context in SweepContext and the writers that take one.
const CheckEvery = 256

// SweepContext is Sweep that stops when ctx is done (SIGINT or SIGTERM in a
// command): it checks ctx every CheckEvery evaluations and returns its
// error, with no results. It stays pure: no I/O, only the check.
func SweepContext(ctx context.Context, s *Scenario, ps []Path, sizes []units.Bytes) ([]Result, error) {
	out := make([]Result, 0, len(ps)*len(sizes))
	routes := make([]*Route, len(ps))
	total := 0
	for i, p := range ps {
		routes[i] = p.Route(s)
		if routes[i].Feasible {
			total += len(routes[i].Stages) * len(sizes)
		}
	}
	buf := make([]StageResult, total) // one allocation for every stage result
	k := 0
	for _, r := range routes {
		for _, n := range sizes {
			if k++; k%CheckEvery == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			res := r.evaluate(n, buf)
			if r.Feasible {
				buf = buf[len(r.Stages):]
			}
			out = append(out, res)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// DefaultSizes is the sweep used when none is given: 1 B to 1 GiB in powers of two.
func DefaultSizes() []units.Bytes {
	var out []units.Bytes
	for b := units.Bytes(1); b <= 1<<30; b *= 2 {
		out = append(out, b)
	}
	return out
}

// Bidirectional is the streaming bandwidth of each direction when both
// nodes send back-to-back messages of n bytes to each other at once (an
// exchange, a ring collective's step, osu_bibw). Each node then runs the
// sender's and the receiver's stages: their CPU work shares the node's
// cores and their DDR traffic its memory, and every PCIe link carries
// payload both ways, each direction keeping pcie.bidir_factor of its
// one-way rate. The wire is full duplex. It returns the bandwidth per
// direction and its bottleneck.
func (r *Route) Bidirectional(n units.Bytes) (units.Rate, string) {
	if !r.Feasible {
		return 0, ""
	}
	merged := map[string]string{"cpu:sender": "cpu:node", "cpu:receiver": "cpu:node", "cpu:receiver-softirq": "cpu:node-softirq", "ddr:sender": "ddr:node", "ddr:receiver": "ddr:node"}
	var res []Resource
	seen := map[string]bool{}
	for _, rs := range r.Resources {
		name := rs.Name
		if m, ok := merged[name]; ok {
			if seen[m] {
				continue
			}
			seen[m] = true
			rs.Name = m
			rs.Label = strings.Replace(strings.Replace(rs.Label, "sender ", "each node's ", 1), "receiver ", "each node's ", 1)
		} else if strings.HasPrefix(name, "pcie:") || strings.HasPrefix(name, "p2p:") {
			rs.Capacity *= r.bidir
			rs.Label += fmt.Sprintf(", both directions loaded (×%g)", r.bidir)
		}
		res = append(res, rs)
	}
	stages := make([]Stage, len(r.Stages))
	for i, st := range r.Stages {
		uses := make([]Use, len(st.Uses))
		for j, u := range st.Uses {
			if m, ok := merged[u.Resource]; ok {
				u.Resource = m
			}
			uses[j] = u
		}
		st.Uses = uses
		stages[i] = st
	}
	bw, why, _ := streaming(stages, indexUses(stages, res), n)
	return bw, why
}
