package model

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/units"
)

func eval(t *testing.T, s *Scenario, path string, n units.Bytes) Result {
	t.Helper()
	p, err := LookupPath(path)
	if err != nil {
		t.Fatal(err)
	}
	return p.Route(s).Evaluate(n)
}

// The account's facts, on the default preset. Copies: tcp 4 (A, B, F, G),
// rdma 2 (A, G), gdr 0, devmem 1 — devmem's payload lands in the NIC's
// receive buffers in GPU memory (page-sized fragments in arrival order), and
// a GPU kernel copies it into the user's buffer: an explicit copy of every
// payload byte, though inside GPU memory (no PCIe crossing, no DDR).
func TestSeedFacts(t *testing.T) {
	s := Default()
	const n = 1 << 20
	want := map[string]int{"tcp": 4, "rdma": 2, "gdr": 0, "devmem": 1}
	for p, c := range want {
		r := eval(t, s, p, n)
		if !r.Feasible || r.Copies != c {
			t.Errorf("%s: copies = %d (feasible %v), want %d", p, r.Copies, r.Feasible, c)
		}
	}
	tcp, rdma, gdr, devmem := eval(t, s, "tcp", n), eval(t, s, "rdma", n), eval(t, s, "gdr", n), eval(t, s, "devmem", n)
	if !(tcp.DDRBytes > rdma.DDRBytes && rdma.DDRBytes > gdr.DDRBytes && gdr.DDRBytes == 0 && devmem.DDRBytes == 0) {
		t.Errorf("payload DDR bytes tcp %v, rdma %v, gdr %v, devmem %v: want tcp > rdma > gdr = 0 = devmem", tcp.DDRBytes, rdma.DDRBytes, gdr.DDRBytes, devmem.DDRBytes)
	}
	// tcp lands in DDR twice per side: A writes, B reads and writes, C reads → 4 B per byte per side.
	if tcp.DDRBytes != 8*n || rdma.DDRBytes != 4*n {
		t.Errorf("DDR bytes per payload byte: tcp %v, rdma %v; want 8 and 4", tcp.DDRBytes/n, rdma.DDRBytes/n)
	}
	l8 := func(p string) units.Seconds { return eval(t, s, p, 8).Latency }
	if !(l8("gdr") < l8("rdma") && l8("rdma") < l8("tcp")) {
		t.Errorf("8 B latency gdr %v, rdma %v, tcp %v: want gdr < rdma < tcp", l8("gdr"), l8("rdma"), l8("tcp"))
	}
	if ht := l8("host-tcp"); ht < 10e-6 || ht > 20e-6 {
		t.Errorf("host-tcp 8 B latency %v, want 10–20 µs", ht.Human())
	}
	if hr := l8("host-rdma"); hr < 2e-6 || hr > 5e-6 {
		t.Errorf("host-rdma 8 B latency %v, want 2–5 µs", hr.Human())
	}
	plain := eval(t, s, "p2p-plain-nic", 8)
	for _, w := range []string{"can transmit", "devmem TCP's transmit side", "cannot split received headers from payload", "lands whole in host memory", "finished packets"} {
		if plain.Feasible || !strings.Contains(plain.Reason, w) {
			t.Errorf("p2p-plain-nic: feasible %v, reason %q lacks %q", plain.Feasible, plain.Reason, w)
		}
	}
}

func TestFeasibility(t *testing.T) {
	s := Default()
	s.Set("nic.header_split", "false")
	s.Set("nic.checksum_offload", "false")
	r := eval(t, s, "devmem", 8)
	if r.Feasible || !strings.Contains(r.Reason, "header split (nic.header_split), checksum offload") {
		t.Errorf("devmem without header split: %+v", r.Reason)
	}
	s = Default()
	s.Set("nic.rdma", "false")
	for _, p := range []string{"rdma", "gdr", "host-rdma"} {
		if r := eval(t, s, p, 8); r.Feasible || !strings.Contains(r.Reason, "no RDMA") {
			t.Errorf("%s without RDMA: feasible %v, %q", p, r.Feasible, r.Reason)
		}
	}
	if r := eval(t, s, "devmem", 8); !r.Feasible {
		t.Errorf("devmem needs no RDMA: %q", r.Reason)
	}
	ib, _ := Preset("dgx-h100-ndr")
	if r := eval(t, ib, "devmem", 8); r.Feasible || !strings.Contains(r.Reason, "IPoIB") {
		t.Errorf("devmem over InfiniBand: %q", r.Reason)
	}
}

// Hand-worked values on the default preset. The arithmetic is written out
// with the preset's numbers; the model's code is not used to compute them.
// Each stage is α + c(n), c its size-dependent cost. The latency the
// hardware gives adds the stages that take the whole message (A, G, post,
// poll, unpack) and, for each run of stages that hand data on as they go
// (B–F of TCP: TSO segments, packets, GRO aggregates; C–E of RDMA:
// packets), Σ[α + c(min(n, grain))] + max[c(n) − c(min(n, grain))]. The
// step-by-step story is Σ(α + c(n)).
func TestHandWorked(t *testing.T) {
	s := Default()
	const (
		us = 1e-6
		ns = 1e-9
		G  = float64(1 << 30)
	)
	link := 32e9 * 16 * 128 / 130 / 8 * 256 / (256 + 28) // PCIe gen5 x16, 128b/130b, MPS 256 with 28 B per TLP: 56.80 GB/s
	cp := 0.975 * link                                   // pinned copies reach 97.5 % of it both ways (gpu.h2d/d2h_efficiency)
	wire := 200e9 / 8                                    // 200 Gbit/s in bytes per second (Ethernet: sold at the data rate)
	ceil := func(a, b float64) float64 { return math.Max(1, math.Ceil(a/b)) }
	tcpPk := func(n float64) float64 { return ceil(n, 9000-20-32) } // MTU 9000 − IPv4 20 − TCP 32 = 8948 B payload
	roPk := func(n float64) float64 { return ceil(n, 4096) }        // RoCEv2 path MTU 4096 within a 9000 B IP MTU
	seg := func(n float64) float64 { return ceil(n, 65536) }        // TSO segments and GRO aggregates of 64 KiB
	net := 3*0.45*us + 30*5*ns                                      // 3 hops × 0.45 µs + 30 m × 5 ns/m = 1.5 µs

	type st struct {
		alpha float64
		c     func(float64) float64 // size-dependent cost
		grain float64               // 0: the whole message
	}
	hw := func(stages []st, n float64) float64 { // the latency the hardware gives, as in the comment above
		var t, rest float64
		for _, x := range stages {
			if x.grain == 0 {
				t += rest + x.alpha + x.c(n)
				rest = 0
				continue
			}
			c1 := x.c(math.Min(n, x.grain))
			t += x.alpha + c1
			rest = math.Max(rest, x.c(n)-c1)
		}
		return t + rest
	}
	steps := func(stages []st, n float64) float64 {
		var t float64
		for _, x := range stages {
			t += x.alpha + x.c(n)
		}
		return t
	}
	none := func(float64) float64 { return 0 }
	// The NIC's host transactions cross one PCIe switch level (PIX:
	// topology.nic_switches 1, 0.1 µs each way): the doorbell 0.15 + 0.1,
	// a DMA read round trip 0.6 + 2 × 0.1, a DMA write 0.15 + 0.1. The
	// RoCE NIC's pipeline is 0.25 µs each way (UCX's 800 ns less two
	// posted writes of 0.15 µs, halved).
	doorbell, read, write, nic := 0.25*us, 0.8*us, 0.25*us, 0.25*us
	reads := func(n float64) float64 { return ceil(n, 131072) }                                      // recv() of up to 128 KiB each
	A := st{7.6 * us, func(n float64) float64 { return n / cp }, 0}                                  // synchronous cudaMemcpy
	B := st{0.25*us + 1.5*us, func(n float64) float64 { return n/12e9 + seg(n)*0.5*us }, 65536}      // syscall + tx; copy + TSO segments
	Ct := st{doorbell + read + nic, func(n float64) float64 { return n/link + tcpPk(n)*5*ns }, 8948} // doorbell + DMA read RTT + NIC; 1/200M per packet
	Dt := st{net, func(n float64) float64 { return (n + tcpPk(n)*90) / wire }, 8948}                 // 90 B of Ethernet/IP/TCP per packet
	Et := st{nic + write, func(n float64) float64 { return n/link + tcpPk(n)*5*ns }, 8948}           // NIC + DMA write of payload and completion
	// F on two cores: the softirq (IRQ 1.5 µs; per packet the driver's 0.2
	// µs and the packet's share of the aggregate's 3 µs of IP/TCP input)
	// and the reader (wakeup 2 µs; the cold copy at 6.74 GB/s and a recv()
	// of 0.25 + 0.8 µs per 128 KiB read), each handing on per aggregate.
	Fs := st{1.5 * us, func(n float64) float64 { return tcpPk(n) * (0.2*us + 3*us*8948/65536) }, 65536}
	Fr := st{2 * us, func(n float64) float64 { return n/6.74e9 + reads(n)*(0.25*us+0.8*us) }, 65536}
	Bdev := st{0.25*us + 1.5*us, func(n float64) float64 { return seg(n) * 0.5 * us }, 65536}    // no copy
	Cdev := st{doorbell + read + 0.5*us + nic, Ct.c, 8948}                                       // the GPU's read: a host read's path + 0.5 µs through BAR1
	Edev := st{nic + write, Et.c, 8948}                                                          // payload by peer-to-peer, the completion to host memory
	Frdev := st{2 * us, func(n float64) float64 { return reads(n) * (0.25*us + 0.8*us) }, 65536} // tokens, no copy
	unpack := st{2.4 * us, func(n float64) float64 { return n / 1e12 }, 0}                       // a kernel launch; copy at 2 TB/s ÷ 2
	post, poll := st{0.115 * us, none, 0}, st{0.075 * us, none, 0}                               // UCX's verbs figures: 75 + 40 ns to post, 75 ns to poll
	Cr := func(n float64) st {                                                                   // host memory: inline up to 220 B (no DMA read of the payload)
		a := doorbell + read + nic
		if n <= 220 {
			a = doorbell + nic
		}
		return st{a, func(n float64) float64 { return n/link + roPk(n)*5*ns }, 4096}
	}
	Dr := st{net + 16/wire, func(n float64) float64 { return (n + roPk(n)*82) / wire }, 4096} // RETH 16 once, 82 B RoCEv2 per packet
	Er := st{nic + write, func(n float64) float64 { return n/link + roPk(n)*5*ns }, 4096}
	Cg := st{doorbell + read + 0.5*us + nic, Cr(1e9).c, 4096}                                                    // GPU memory: never inline, a host read's path + 0.5 µs through BAR1
	peer := st{11.3*us + 2*0.1*us + 0.15*us/2, func(n float64) float64 { return n / (0.975 * link * 0.833) }, 0} // NODE: 2 switch hops + half a UPI crossing; 5/6 for posted writes through the host bridge

	paths := map[string]func(n float64) []st{
		"host-tcp":  func(float64) []st { return []st{B, Ct, Dt, Et, Fs, Fr} },
		"tcp":       func(float64) []st { return []st{A, B, Ct, Dt, Et, Fs, Fr, A} },
		"host-rdma": func(n float64) []st { return []st{post, Cr(n), Dr, Er, poll} },
		"rdma":      func(n float64) []st { return []st{A, post, Cr(n), Dr, Er, poll, A} },
		"gdr":       func(float64) []st { return []st{post, Cg, Dr, Er, poll} }, // the bare transport: the application posts and polls
		"devmem":    func(float64) []st { return []st{Bdev, Cdev, Dt, Edev, Fs, Frdev, unpack} },
		"gpu-peer":  func(float64) []st { return []st{peer} },
	}
	for path, f := range paths {
		for _, n := range []float64{8, 100 << 10, G} {
			got := eval(t, s, path, units.Bytes(n))
			if w := hw(f(n), n); math.Abs(float64(got.Latency)-w)/w > 1e-9 {
				t.Errorf("%s at %v B: latency %.9g s, hand-worked %.9g s", path, n, float64(got.Latency), w)
			}
			if w := steps(f(n), n); math.Abs(float64(got.StepByStep)-w)/w > 1e-9 {
				t.Errorf("%s at %v B: step by step %.9g s, hand-worked %.9g s", path, n, float64(got.StepByStep), w)
			}
		}
	}
	// Spot values, rounded, that a reader can check in the table output.
	// host-tcp 8 B: B 1.75 + 0.5 µs, C 1.305, D 1.5039, E 0.505, F on the
	// softirq 1.5 + 0.2 + 0.4096 and on the reader 2 + 1.05 = 10.7256 µs;
	// host-rdma 8 B: post 0.115, C inline 0.505, D 1.5042, E 0.505, poll
	// 0.075 = 2.7045 µs; gdr 8 B: C reads GPU memory, 1.8 + 0.005 = 4.0045 µs.
	for _, tc := range []struct {
		path string
		n    units.Bytes
		want float64
	}{
		{"host-tcp", 8, 10.7257e-6}, {"host-rdma", 8, 2.7045e-6}, {"gdr", 8, 4.0045e-6}, {"tcp", 8, 25.9260e-6},
	} {
		if got := float64(eval(t, s, tc.path, tc.n).Latency); math.Abs(got-tc.want) > 0.0001e-6 {
			t.Errorf("%s %v: %.7g, want %.7g", tc.path, tc.n, got, tc.want)
		}
	}

	// Streaming bandwidth at 1 GiB. host-tcp: the reader's core is the
	// bottleneck (the softirq has a core of its own): the wakeup 2 µs, the
	// cold copy at 6.74 GB/s and a recv() of 0.25 + 0.8 µs per 128 KiB read.
	rx := 2*us + G/6.74e9 + reads(G)*1.05*us
	if got := eval(t, s, "host-tcp", 1<<30); math.Abs(float64(got.Bandwidth)-G/rx)/(G/rx) > 1e-9 || got.Bottleneck != "receiver CPU (1 core)" {
		t.Errorf("host-tcp 1 GiB bandwidth %v (%s), want %v", got.Bandwidth.Human(), got.Bottleneck, units.Rate(G/rx).Human())
	}
	// gdr: the wire, with 82 B per 4096 B packet and one RETH.
	wbw := G / ((G + 16 + roPk(G)*82) / wire)
	if got := eval(t, s, "gdr", 1<<30); math.Abs(float64(got.Bandwidth)-wbw)/wbw > 1e-9 {
		t.Errorf("gdr 1 GiB bandwidth %v, want %v", got.Bandwidth.Human(), units.Rate(wbw).Human())
	}
	// rdma pipelined at 1 GiB: 2048 chunks of 512 KiB; the first goes as one
	// message of 512 KiB, then the wire (busiest: a copy of a chunk keeps
	// the engine 2.4 µs + 512 KiB/55.4 GB/s = 11.9 µs, the wire 21.4 µs)
	// takes (512 KiB + 16 B RETH + 128 × 82 B)/25 GB/s per further chunk.
	c := float64(512 << 10)
	first := hw(paths["rdma"](c), c)
	step := (c + 16 + roPk(c)*82) / wire
	wantPipe := first + 2047*step
	if got := eval(t, s, "rdma", 1<<30); math.Abs(float64(got.Pipelined)-wantPipe)/wantPipe > 1e-9 || got.Chunks != 2048 {
		t.Errorf("rdma 1 GiB pipelined %.9g s in %d chunks, want %.9g s in 2048", float64(got.Pipelined), got.Chunks, wantPipe)
	}
	// Registration, once per buffer: host memory 5 µs + 0.25 µs per 4 KiB
	// page; GPU memory 50 µs + 0.2 µs per 64 KiB page.
	if got, want := float64(eval(t, s, "host-rdma", 1<<20).Registration), 5*us+256*0.25*us; math.Abs(got-want) > 1e-15 {
		t.Errorf("host-rdma registration of 1 MiB %v, want %v", got, want)
	}
	if got, want := float64(eval(t, s, "gdr", 1<<20).Registration), 50*us+16*0.2*us; math.Abs(got-want) > 1e-15 {
		t.Errorf("gdr registration of 1 MiB %v, want %v", got, want)
	}
	if got := eval(t, s, "tcp", 1<<20).Registration; got != 0 {
		t.Errorf("tcp registration %v, want none", got)
	}
}

// The PCIe model against the measurement on an NVIDIA H200 machine:
// gen5 x16 = 32 GT/s × 16 lanes × 128/130 / 8 = 63.015 GB/s raw; with MPS 256
// each TLP carries 256 B of payload and 28 B of overhead (16 header + 6 DLL +
// 2 framing + 4 of DLLP share): 63.015 × 256/284 = 56.80 GB/s, 2.5 % above the
// 55.4 GB/s measured for pinned 1 GiB copies on 2026-11-29
// (bench/results/h200-1gpu-2026-11-29-final/).
func TestPCIeGen5MatchesMeasuredCopy(t *testing.T) {
	l := Link{Gen: 5, Lanes: 16}
	if raw := float64(l.RawRate()); math.Abs(raw-63.015e9) > 0.001e9 {
		t.Errorf("raw rate %v", raw)
	}
	got := float64(l.Rate(256))
	if math.Abs(got-56.80e9) > 0.01e9 {
		t.Errorf("gen5 x16 MPS 256: %v, want 56.80 GB/s", units.Rate(got).Human())
	}
	if e := math.Abs(got-55.4e9) / 55.4e9; e > 0.05 {
		t.Errorf("gen5 x16 %v is %.1f%% from the measured 55.4 GB/s", units.Rate(got).Human(), e*100)
	}
	// Generations: 8b/10b for gen1–2, 128b/130b gen3–5, FLIT for gen6.
	for _, tc := range []struct {
		l    Link
		want float64
	}{
		{Link{1, 1}, 2.5e9 * 0.8 / 8},
		{Link{2, 16}, 5e9 * 16 * 0.8 / 8},
		{Link{3, 16}, 8e9 * 16 * 128 / 130 / 8},
		{Link{4, 8}, 16e9 * 8 * 128 / 130 / 8},
		{Link{6, 16}, 64e9 * 16 / 8},
	} {
		if got := float64(tc.l.RawRate()); math.Abs(got-tc.want) > 1 {
			t.Errorf("%v raw %v, want %v", tc.l, got, tc.want)
		}
	}
	// gen6 FLIT: 236 of 256 bytes carry TLPs; a 256 B TLP has a 16 B header.
	if e := (Link{6, 16}).TLPEfficiency(256); math.Abs(e-236.0/256*256/272) > 1e-12 {
		t.Errorf("gen6 efficiency %v", e)
	}
	if _, err := ParseLink("gen9x16"); err == nil {
		t.Error("gen9 accepted")
	}
}

func TestTopologyChangesPeerBandwidth(t *testing.T) {
	prev := math.Inf(1)
	prevLat := 0.0
	for _, c := range Classes {
		s := Default()
		s.Set("topology.gpu_nic", string(c))
		s.Set("nic.rate", "800Gbit/s") // make PCIe, not the wire, the limit
		r := eval(t, s, "gdr", 1<<30)
		bw := float64(r.Bandwidth)
		if bw > prev {
			t.Errorf("%s: gdr bandwidth %v rose above the nearer class's %v", c, r.Bandwidth.Human(), units.Rate(prev).Human())
		}
		if lat := float64(eval(t, s, "gdr", 8).Latency); lat < prevLat {
			t.Errorf("%s: gdr latency fell", c)
		} else {
			prevLat = lat
		}
		prev = bw
	}
}

// propertySizes: 1 B to 4 GiB, each power of two with its neighbours, ascending.
var propertySizes = func() []units.Bytes {
	out := []units.Bytes{1, 2, 3}
	for b := units.Bytes(4); b <= 4<<30; b *= 2 {
		out = append(out, b-1, b, b+1)
	}
	return out
}()

func TestProperties(t *testing.T) {
	for _, name := range PresetNames() {
		s, _ := Preset(name)
		for _, p := range Paths() {
			r := p.Route(s)
			if !r.Feasible {
				continue
			}
			var prev Result
			for i, n := range propertySizes {
				res := r.Evaluate(n)
				if i > 0 && res.Latency < prev.Latency {
					t.Errorf("%s/%s: latency fell from %v at %d B to %v at %d B", name, p.Name, prev.Latency, prev.Bytes, res.Latency, n)
				}
				if i > 0 && res.Pipelined < prev.Pipelined {
					t.Errorf("%s/%s: pipelined latency fell at %d B", name, p.Name, n)
				}
				if res.Latency > res.StepByStep*(1+1e-12) {
					t.Errorf("%s/%s at %d B: hardware latency %v > step by step %v", name, p.Name, n, res.Latency, res.StepByStep)
				}
				if i > 0 && res.StepByStep < prev.StepByStep {
					t.Errorf("%s/%s: step-by-step latency fell at %d B", name, p.Name, n)
				}
				if res.Pipelined > res.Latency {
					t.Errorf("%s/%s at %d B: pipelined %v > store-and-forward %v", name, p.Name, n, res.Pipelined, res.Latency)
				}
				if p.Internode && float64(res.Bandwidth) > float64(s.NIC.Rate) && s.NIC.Kind != KindLoopback {
					t.Errorf("%s/%s at %d B: bandwidth %v exceeds the wire rate %v", name, p.Name, n, res.Bandwidth.Human(), s.NIC.Rate.Human())
				}
				if res.Bandwidth <= 0 || math.IsNaN(float64(res.Bandwidth)) || res.Cores < 0 || math.IsNaN(res.Cores) {
					t.Errorf("%s/%s at %d B: bandwidth %v cores %v", name, p.Name, n, res.Bandwidth, res.Cores)
				}
				prev = res
			}
		}
	}
}

// More stages with the same rates never make a path faster; with all rates
// equal, a path with fewer stages is never slower to stream.
func TestMoreStagesNeverFaster(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	randStage := func() Stage {
		st := Stage{Name: "s", Side: Sender,
			Alpha:     units.Seconds(rng.Float64() * 5e-6),
			PerByte:   units.Seconds(1 / (1e9 + rng.Float64()*100e9)),
			PerPacket: units.Seconds(rng.Float64() * 1e-6),
			Packet:    units.Bytes(256 + rng.IntN(9000)),
		}
		st.Occupancy = units.Seconds(rng.Float64()) * st.Alpha
		st.Uses = []Use{{Resource: "cpu:sender", PerMessage: float64(st.Occupancy), PerByte: float64(st.PerByte) * rng.Float64()}}
		return st
	}
	res := []Resource{{Name: "cpu:sender", Label: "cpu", Capacity: 1, CPU: true}}
	for trial := 0; trial < 300; trial++ {
		k := 1 + rng.IntN(6)
		stages := make([]Stage, k)
		for i := range stages {
			stages[i] = randStage()
		}
		extra := randStage()
		pos := rng.IntN(k + 1)
		more := append(append(append([]Stage{}, stages[:pos]...), extra), stages[pos:]...)
		chunk := units.Bytes(1 << (10 + rng.IntN(12)))
		a := &Route{Path: Path{Name: "a"}, Feasible: true, Stages: stages, Resources: res, Chunk: chunk}
		b := &Route{Path: Path{Name: "b"}, Feasible: true, Stages: more, Resources: res, Chunk: chunk}
		for _, n := range []units.Bytes{1, 100, 4096, 1 << 20, 1 << 30} {
			ra, rb := a.Evaluate(n), b.Evaluate(n)
			if rb.Latency < ra.Latency || rb.Pipelined < ra.Pipelined-1e-18 || rb.Bandwidth > ra.Bandwidth {
				t.Fatalf("trial %d, %d B: adding a stage made it faster: latency %v→%v pipelined %v→%v bandwidth %v→%v",
					trial, n, ra.Latency, rb.Latency, ra.Pipelined, rb.Pipelined, ra.Bandwidth, rb.Bandwidth)
			}
		}
	}
}

// BenchmarkSweep is a full sweep: every path × 64 sizes on the default preset.
func BenchmarkSweep(b *testing.B) {
	s := Default()
	var sizes []units.Bytes
	for i := 0; i < 64; i++ {
		sizes = append(sizes, units.Bytes(math.Round(math.Pow(2, float64(i)*31/63))))
	}
	ps := Paths()
	b.ReportAllocs()
	for b.Loop() {
		Sweep(s, ps, sizes)
	}
}

// A measured copy rate replaces the PCIe-derived one in stages A and G.
func TestCopyRateOverride(t *testing.T) {
	s := Default()
	if err := s.Set("gpu.copy_rate", "20GB/s"); err != nil {
		t.Fatal(err)
	}
	r := eval(t, s, "tcp", 1<<30)
	a := float64(r.Stages[0].Latency)
	if want := 7.6e-6 + float64(1<<30)/20e9; math.Abs(a-want)/want > 1e-12 || r.Stages[0].Letter != "A" {
		t.Errorf("stage A with copy_rate 20 GB/s: %v, want %v", a, want)
	}
}

// A measured loopback transfer replaces B–F: the staged path on one host is
// A + (α + n/β) + G, with the four copies still counted.
func TestMeasuredLoopback(t *testing.T) {
	s := Default()
	for k, v := range map[string]string{"nic.kind": "loopback", "nic.rdma": "false", "loopback.latency": "20us", "loopback.rate": "4GB/s",
		"gpu.copy_latency": "10us", "gpu.copy_rate": "50GB/s"} {
		if err := s.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	n := float64(64 << 20)
	r := eval(t, s, "tcp", units.Bytes(n))
	want := 2*(10e-6+n/50e9) + 20e-6 + n/4e9
	if math.Abs(float64(r.Latency)-want)/want > 1e-12 || r.Copies != 4 || len(r.Stages) != 4 {
		t.Errorf("latency %v want %v; copies %d, stages %d", float64(r.Latency), want, r.Copies, len(r.Stages))
	}
	// Pipelined in 512 KiB chunks: the send stage (c/β = 131 µs) is the slowest.
	c := float64(512 << 10)
	first := 2*(10e-6+c/50e9) + 20e-6 + c/4e9
	wantPipe := first + 127*(10e-6+c/4e9)
	if got := float64(r.Pipelined); math.Abs(got-wantPipe)/wantPipe > 1e-12 {
		t.Errorf("pipelined %v want %v", got, wantPipe)
	}
	for _, p := range []string{"rdma", "gdr", "devmem"} {
		if eval(t, s, p, 8).Feasible {
			t.Errorf("%s feasible on loopback", p)
		}
	}
}

// The key table keeps each section's keys together (the YAML writer and the
// file format depend on it).
func TestKeysGroupedBySection(t *testing.T) {
	seen := map[string]bool{}
	prev := ""
	for _, k := range Keys() {
		sec, _, ok := strings.Cut(k.Name, ".")
		if !ok {
			continue
		}
		if sec != prev && seen[sec] {
			t.Errorf("key %s: section %s appears twice in the key table", k.Name, sec)
		}
		seen[sec], prev = true, sec
	}
}

// Cached-buffer copies (tcp path only) and a knee in the loopback transfer,
// hand-worked: A = 10 µs + min(n, 8 MiB)/20 GB/s + max(0, n − 8 MiB)/50 GB/s.
func TestCachedCopiesAndKnee(t *testing.T) {
	s := Default()
	for k, v := range map[string]string{"nic.kind": "loopback", "nic.rdma": "false", "gpu.copy_latency": "8us", "gpu.copy_rate": "50GB/s",
		"gpu.cached_copy_latency": "10us", "gpu.cached_copy_rate": "20GB/s", "gpu.cached_copy_knee": "8MiB",
		"loopback.latency": "20us", "loopback.rate": "6GB/s", "loopback.knee": "4MiB", "loopback.rate_beyond": "3GB/s"} {
		if err := s.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	const M = 1 << 20
	for _, n := range []float64{1 * M, 64 * M} {
		a := 10e-6 + math.Min(n, 8*M)/20e9 + math.Max(0, n-8*M)/50e9
		lo := 20e-6 + math.Min(n, 4*M)/6e9 + math.Max(0, n-4*M)/3e9
		want := 2*a + lo
		if got := float64(eval(t, s, "tcp", units.Bytes(n)).Latency); math.Abs(got-want)/want > 1e-12 {
			t.Errorf("tcp at %v B: %v, want %v", n, got, want)
		}
	}
	// rdma does not touch its bounce buffer with the CPU: plain copies.
	s.Set("nic.kind", "roce")
	s.Set("nic.rdma", "true")
	r := eval(t, s, "rdma", 1*M)
	if got, want := float64(r.Stages[0].Latency), 8e-6+1*M/50e9; math.Abs(got-want)/want > 1e-12 {
		t.Errorf("rdma stage A %v, want %v", got, want)
	}
}
