package model

import (
	"encoding/json"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/units"
)

// The hand-worked cases run on dgx-h100-ndr: H100 SXM5 (compute
// capability 9.0 from the catalog: Hopper's columns of every table), an
// Intel CPU (llMaxBws' Intel row; getNetOverhead 1 µs), NVLink 450 GB/s ×
// 0.88 = 396 GB/s per GPU and direction, NVSwitch (NVLS allowed), no SHARP
// unless a case sets it, one NDR NIC per GPU on gdr. The NIC's rate with
// the node sending and receiving at once comes from the path model (nic);
// everything else is NCCL's arithmetic, written out. GB/s are 1e9 B/s;
// NCCL's µs are 1e-6 s. Checked to 1e-9.

const (
	gb = 1e9
	nv = 396.0 // NVLink, GB/s
)

const s256 = float64(256 << 20)

func dgx(t *testing.T) *Scenario {
	t.Helper()
	s, err := Preset("dgx-h100-ndr")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// gdrNIC is one NIC's rate on gdr under NCCL, GB/s, the node sending and
// receiving at once (Route.Bidirectional at pipeline.chunk).
func gdrNIC(t *testing.T, s *Scenario) float64 {
	t.Helper()
	rt, err := s.NCCLRoute("gdr")
	if err != nil {
		t.Fatal(err)
	}
	r, _ := rt.Bidirectional(s.Pipeline.Chunk)
	return float64(r) / gb
}

func model1(t *testing.T, s *Scenario, c CollectiveSpec, n float64) CollectiveResult {
	t.Helper()
	rs, err := s.CollectiveModel(c, []units.Bytes{units.Bytes(n)})
	if err != nil {
		t.Fatalf("%+v: %v", c, err)
	}
	return rs[0]
}

func TestCollectiveHandWorked(t *testing.T) {
	s := dgx(t)
	nic := gdrNIC(t, s)
	net := 8 * nic // the node's eight NICs
	if cc, _ := s.ComputeCapability(); cc != 90 {
		t.Fatalf("compute capability %d, want 90 from the catalog", cc)
	}
	type tc struct {
		name        string
		c           CollectiveSpec
		n           float64
		algo, proto string
		want        float64 // gpupath's time, s
		nccl        float64 // NCCL's estimate, s (0: = want)
	}
	// One node: the ring graph has 12 channels (ncclChannels: the fastest
	// sm90 intra speed under 396 GB/s is 60, ⌊396/60⌋ = 6 channels, doubled
	// from 25 GB/s to 12 of 30); a ring's links give 396 GB/s of bus
	// bandwidth (every GPU forwards every channel), 33 GB/s per channel.
	// NVLS has one head per GPU and its intra bandwidth is NVLink ×
	// G/(G−1) (NCCL's search scales totalBw so), per channel 396/(G−1).
	llN1 := math.Min(141, 0.5*nv)                  // llMaxBws[Hopper][1 node] = 141 < 198
	nvls2 := 2 * math.Min(396*0.85*1.0/2*2, 396)   // 2 heads × min(intraBw, bwInter) = 673.2 GB/s
	nvls8 := 8 * math.Min(nv/7*0.85*7.0/8*2, nv/7) // 8 heads × 56.57 = 452.57 GB/s
	treeN1 := math.Min(nv*0.92, 12*38.7)           // perChMaxTreeBws[Hopper][N1] 38.7 × 12 channels does not bind
	cases := []tc{
		// 2 ranks on one node, 8 B: ring LL = base 6.6 + 2 steps × NVLink 0.6
		// = 7.8 µs (tree LL 6.8 + 2 × 0.6 = 8.0, NVLS 25): NCCL takes ring/LL;
		// algbw = busBw × nRanks/nsteps = 141 × 2/2.
		{"2 ranks, 8 B", CollectiveSpec{Op: AllReduce, Nodes: 1, GPUsPerNode: 2}, 8, AlgoRing, ProtoLL, 7.8*us + 8/(llN1*gb), 0},
		// 2 ranks, 256 MiB: NCCL's NVLS estimate 25 µs + S/673.2 GB/s (2 × 396
		// × 0.85 × 1/2 × 2) beats ring Simple's 15.2 µs + S/396: NCCL picks
		// NVLS. Its traffic is S(1 + 1/2) each way through a GPU's NVLink, so
		// the links need 1.5·S/396 GB/s: gpupath's time is that.
		{"2 ranks, 256 MiB", CollectiveSpec{Op: AllReduce, Nodes: 1, GPUsPerNode: 2}, s256, AlgoNVLS, ProtoSimple, 25*us + 1.5*s256/(nv*gb), 25*us + s256/(nvls2*gb)},
		// ring/Simple on 2 ranks: 8.4 + 2 × 3.4 µs, 396 GB/s × 2/2.
		{"2 ranks, ring Simple", CollectiveSpec{Op: AllReduce, Nodes: 1, GPUsPerNode: 2, Algo: AlgoRing, Proto: ProtoSimple}, s256, AlgoRing, ProtoSimple, 15.2*us + s256/(nv*gb), 0},
		// 8 ranks, 8 B: ring LL 6.6 + 14 × 0.6 = 15 µs beats tree LL 6.8 + 2 ×
		// 7 × 0.6 = 15.2; algbw 141 × 8/14.
		{"8 ranks, 8 B", CollectiveSpec{Op: AllReduce, Nodes: 1, GPUsPerNode: 8}, 8, AlgoRing, ProtoLL, 15*us + 8/(llN1*8/14*gb), 0},
		// 8 ranks, 4 KiB: ring LL 15 µs + 4096/80.6 GB/s; tree LL 15.2 µs +
		// 4096/(min(364.3/3.8, 141) × 0.5 × treeCorrectionFactor[LL][6] 0.7).
		{"8 ranks, 4 KiB", CollectiveSpec{Op: AllReduce, Nodes: 1, GPUsPerNode: 8}, 4096, AlgoRing, ProtoLL, 15*us + 4096/(llN1*8/14*gb), 0},
		// 8 ranks, 256 MiB: NVLS 25 µs + S/(452.57 × 8/14) beats ring Simple
		// 8.4 + 14 × 3.4 = 56 µs + S/(396 × 8/14); NVLS's links need S·1.125/396,
		// less than NCCL's estimate: no floor.
		{"8 ranks, 256 MiB", CollectiveSpec{Op: AllReduce, Nodes: 1, GPUsPerNode: 8}, s256, AlgoNVLS, ProtoSimple, 25*us + s256/(nvls8*8/14*gb), 0},
		{"8 ranks, ring Simple", CollectiveSpec{Op: AllReduce, Nodes: 1, GPUsPerNode: 8, Algo: AlgoRing, Proto: ProtoSimple}, s256, AlgoRing, ProtoSimple, 56*us + s256/(nv*8/14*gb), 0},
		// tree/Simple, one node: 8.4 + 2 × 7 × 4.0 = 64.4 µs; busBw min(396 ×
		// .92, 12 × 38.7) × 0.5, × treeCorrectionFactor[Simple][22] 0.9 at 256 MiB.
		{"8 ranks, tree Simple", CollectiveSpec{Op: AllReduce, Nodes: 1, GPUsPerNode: 8, Algo: AlgoTree}, s256, AlgoTree, ProtoSimple, 64.4*us + s256/(treeN1*0.5*0.9*gb), 0},
	}
	// 8 nodes × 8 GPUs on gdr (64 ranks): the ring graph has 8 channels (one
	// per NIC at sm90 inter speed 48 GB/s, not doubled: from Hopper below 50
	// GB/s with more than 4 channels), the communicator 16. latencyInter is
	// 0 on gdr (NCCL's IB transport). Tree bwInter per channel = min(396,
	// net)/8.
	treeBus := 8 * (math.Min(nv, net) / 8)
	treeAR := math.Min(treeBus*0.92, 8*36.0) // perChMaxTreeBws[Hopper][N4] 36 × 8 = 288 binds
	treeLL := math.Min(treeAR/3.8, 20.4)     // llMaxBws[Intel][N4] = 20.4
	nvlsTree := math.Min(math.Min(nv/7*0.85*7.0/8*2, nic), 45.5) * 8
	ring64 := math.Min(nv*8/7, net)
	cases = append(cases,
		// 8 B: tree LL 6.8 + 2 × (7 × 0.6 + log2(8) × 5.0) = 45.2 µs; ring LL
		// 6.6 + 112 × max(0.6, 1) + 14 × 2.7 = 156.4; NVLS Tree 25 + 2 × 3 ×
		// 20.9 = 150.4.
		tc{"64 ranks, 8 B", CollectiveSpec{Op: AllReduce, Nodes: 8, GPUsPerNode: 8, Path: "gdr"}, 8, AlgoTree, ProtoLL, 45.2*us + 8/(treeLL*0.5*gb), 0},
		// 4 KiB: tree LL with treeCorrectionFactor[LL][6] = 0.7.
		tc{"64 ranks, 4 KiB", CollectiveSpec{Op: AllReduce, Nodes: 8, GPUsPerNode: 8, Path: "gdr"}, 4096, AlgoTree, ProtoLL, 45.2*us + 4096/(treeLL*0.5*0.7*gb), 0},
		// 256 MiB: NVLS Tree 150.4 µs + S/(min(84.15, nic, 45.5) × 8 × 64/126)
		// (perChMaxNVLSTreeBws[Hopper][N4] 45.5 binds) beats tree Simple 8.4 +
		// 2 × (7 × 4 + 3 × 14) = 148.4 µs + S/(288 × 0.5 × 0.9).
		tc{"64 ranks, 256 MiB", CollectiveSpec{Op: AllReduce, Nodes: 8, GPUsPerNode: 8, Path: "gdr"}, s256, AlgoNVLSTree, ProtoSimple, 150.4*us + s256/(nvlsTree*64/126*gb), 0},
		// ring/Simple: (8.4 + 112 × max(3.4, 3 × 1) + 14 × 14) × 1.4 (the
		// plateau: 256 MiB/(16 × 64) ≥ 64 B) = 819.28 µs; busBw = min(396 ×
		// 8/7, 8 NICs) over 8 channels × 8, algbw × 64/126.
		tc{"64 ranks, ring Simple", CollectiveSpec{Op: AllReduce, Nodes: 8, GPUsPerNode: 8, Path: "gdr", Algo: AlgoRing, Proto: ProtoSimple}, s256, AlgoRing, ProtoSimple, 585.2*1.4*us + s256/(ring64*64/126*gb), 0},
		// ring/LL at 8 B: no plateau (LL); 156.4 µs + 8/(min(20.4, 0.5 busBw) × 64/126).
		tc{"64 ranks, ring LL", CollectiveSpec{Op: AllReduce, Nodes: 8, GPUsPerNode: 8, Path: "gdr", Algo: AlgoRing, Proto: ProtoLL}, 8, AlgoRing, ProtoLL, 156.4*us + 8/(math.Min(20.4, 0.5*ring64)*64/126*gb), 0},
	)
	// 128 nodes × 8 (1024 ranks): tree LL 6.8 + 2 × (7 × 0.6 + 7 × 5) =
	// 85.2 µs at 8 B; NVLS Tree 25 + 2 × 7 × 20.9 = 317.6 µs + S/(nvlsTree ×
	// 1024/2046) at 256 MiB; ring LL 6.6 + 1792 × 1 + 254 × 2.7 = 2484.4 µs.
	cases = append(cases,
		tc{"1024 ranks, 8 B", CollectiveSpec{Op: AllReduce, Nodes: 128, GPUsPerNode: 8, Path: "gdr"}, 8, AlgoTree, ProtoLL, 85.2*us + 8/(treeLL*0.5*gb), 0},
		tc{"1024 ranks, 256 MiB", CollectiveSpec{Op: AllReduce, Nodes: 128, GPUsPerNode: 8, Path: "gdr"}, s256, AlgoNVLSTree, ProtoSimple, 317.6*us + s256/(nvlsTree*1024/2046*gb), 0},
		tc{"1024 ranks, ring LL", CollectiveSpec{Op: AllReduce, Nodes: 128, GPUsPerNode: 8, Path: "gdr", Algo: AlgoRing, Proto: ProtoLL}, 8, AlgoRing, ProtoLL, 2484.4*us + 8/(math.Min(20.4, 0.5*ring64)*1024/2046*gb), 0},
	)
	for _, c := range cases {
		r := model1(t, s, c.c, c.n)
		nccl := c.nccl
		if nccl == 0 {
			nccl = c.want
		}
		if r.Algo != c.algo || r.Proto != c.proto || !near9(float64(r.Time), c.want) || !near9(float64(r.NCCLTime), nccl) {
			t.Errorf("%s: %s/%s %.9g s (NCCL %.9g), want %s/%s %.9g s (NCCL %.9g)", c.name, r.Algo, r.Proto, r.Time, r.NCCLTime, c.algo, c.proto, c.want, nccl)
		}
		f, _, _ := BusFactor(AllReduce, r.Ranks)
		if !near9(float64(r.AlgBW), c.n/c.want) || !near9(float64(r.BusBW), c.n/c.want*f) {
			t.Errorf("%s: algbw %v busbw %v", c.name, r.AlgBW, r.BusBW)
		}
	}

	// NVLS across nodes needs SHARP: with network.sharp, 64 ranks NVLS =
	// NVLink 25 µs + NET NVLS 18 µs; bandwidth min(84.15, nic) per head × 8
	// × 64/126.
	sh := dgx(t)
	sh.Set("network.sharp", "true")
	r := model1(t, sh, CollectiveSpec{Op: AllReduce, Nodes: 8, GPUsPerNode: 8, Path: "gdr", Algo: AlgoNVLS}, s256)
	if want := 43*us + s256/(8*math.Min(nv/7*0.85*7.0/8*2, nic)*64/126*gb); !near9(float64(r.Time), want) {
		t.Errorf("NVLS with SHARP: %.9g, want %.9g", r.Time, want)
	}
	if _, err := s.CollectiveModel(CollectiveSpec{Op: AllReduce, Nodes: 8, GPUsPerNode: 8, Path: "gdr", Algo: AlgoNVLS}, []units.Bytes{8}); err == nil || !strings.Contains(err.Error(), "CollNet") {
		t.Errorf("NVLS across nodes without SHARP: %v", err)
	}
}

// Two nodes of one GPU (2 ranks across the network): ppn = 1 takes the
// Tree network latencies; ring LL 6.6 + 2 × 5.0 = 16.6 µs beats tree LL
// 6.8 + 2 × 1 × 5.0 = 16.8. The ring graph: 1 NIC at speed 48, doubled to
// 2 channels (2 ≤ 4); busBw = nic, LL min(39 (llMaxBws[Intel][2 nodes]),
// 0.5 × nic).
func TestCollectiveTwoNodesOneGPU(t *testing.T) {
	s := dgx(t)
	nic := gdrNIC(t, s)
	r := model1(t, s, CollectiveSpec{Op: AllReduce, Nodes: 2, GPUsPerNode: 1}, 8)
	if want := 16.6*us + 8/(math.Min(39, 0.5*nic)*gb); r.Algo != AlgoRing || r.Proto != ProtoLL || !near9(float64(r.Time), want) || r.Channels != 2 || r.Path != "gdr" {
		t.Errorf("%s/%s %.9g on %s (%d channels), want ring/LL %.9g on gdr (2)", r.Algo, r.Proto, r.Time, r.Path, r.Channels, want)
	}
	// PAT runs at one GPU per node: an all_gather on 8 nodes × 1 GPU, 1 MiB,
	// PAT = 8.0 + log2(8) × 14/3.5 + 8 × 2.8 = 42.4 µs + S/(0.75 × busBw),
	// busBw = 2 channels × nic/2 (bwInter beyond 2 nodes), no conversion.
	r = model1(t, s, CollectiveSpec{Op: AllGather, Nodes: 8, GPUsPerNode: 1, Algo: AlgoPAT}, 1<<20)
	if want := 42.4*us + float64(1<<20)/(0.75*nic*gb); !near9(float64(r.Time), want) {
		t.Errorf("PAT: %.9g, want %.9g", r.Time, want)
	}
	// …and never with more GPUs per node, nor over devmem's unpack.
	if _, err := s.CollectiveModel(CollectiveSpec{Op: AllGather, Nodes: 8, GPUsPerNode: 2, Algo: AlgoPAT}, []units.Bytes{8}); err == nil || !strings.Contains(err.Error(), "one GPU per node") {
		t.Errorf("PAT at 2 GPUs per node: %v", err)
	}
}

// all_to_all and send_recv: NCCL's send/receive (not tuned by NCCL; gpupath's
// model from NCCL's constants). LL up to 16 KiB a peer, Simple above; the
// latency is the ring's base, one network step, the NVLink hop to the
// remote rail's GPU (PXN) and getNetOverhead (1 µs) per remote peer; the
// bandwidth is the links' time for the traffic, LL at half the rate.
func TestCollectiveP2PHandWorked(t *testing.T) {
	s := dgx(t)
	nic := gdrNIC(t, s)
	// send_recv 2 × 8, 8 B: LL, 6.6 + 2.7 + 0.6 + 1 × 1 µs; one GPU's NIC
	// carries the 8 B across, the others' NVLink theirs.
	r := model1(t, s, CollectiveSpec{Op: SendRecv, Nodes: 2, GPUsPerNode: 8}, 8)
	if want := 10.9*us + 2*8/(math.Min(nv, nic)*gb); r.Proto != ProtoLL || !r.PXN || !near9(float64(r.Time), want) {
		t.Errorf("send_recv: %s %.9g (PXN %v), want LL %.9g", r.Proto, r.Time, r.PXN, want)
	}
	// all_to_all 16 × 8 (128 ranks): 1 MiB is 8 KiB a peer (LL); 120 remote
	// peers. Per GPU over NVLink: S × (7/128 + 7/8 × 120/128) with PXN; per
	// node over its 8 NICs: S × 8 × 120/128.
	c := CollectiveSpec{Op: AllToAll, Nodes: 16, GPUsPerNode: 8}
	link := func(x float64) float64 {
		return x * math.Max((7.0/128+7.0/8*120/128)/(nv*gb), 8*120.0/128/(8*nic*gb))
	}
	r = model1(t, s, c, 1<<20)
	if want := (6.6+2.7+0.6+120)*us + 2*link(1<<20); r.Proto != ProtoLL || !near9(float64(r.Time), want) {
		t.Errorf("all_to_all 1 MiB: %s %.9g, want LL %.9g", r.Proto, r.Time, want)
	}
	// 4 MiB is 32 KiB a peer: Simple, 8.4 + 14 + 3.4 + 120 µs.
	r = model1(t, s, c, 4<<20)
	if want := (8.4+14+3.4+120)*us + link(4<<20); r.Proto != ProtoSimple || !near9(float64(r.Time), want) {
		t.Errorf("all_to_all 4 MiB: %s %.9g, want Simple %.9g", r.Proto, r.Time, want)
	}
	// Without PXN the data stays on its own rail: no NVLink hop, no forwarding.
	c.NoPXN = true
	r = model1(t, s, c, 4<<20)
	noPXN := func(x float64) float64 { return x * math.Max(7.0/128/(nv*gb), 8*120.0/128/(8*nic*gb)) }
	if want := (8.4+14+120)*us + noPXN(4<<20); r.PXN || !near9(float64(r.Time), want) {
		t.Errorf("all_to_all without PXN: %.9g, want %.9g", r.Time, want)
	}
}

// A TCP hop: NCCL's socket transport through its host buffers. The network
// step costs what the path's one-way latency exceeds gdr's (latencyInter),
// once for LL, twice for Simple; the ring's intra steps cost at least
// getNetOverhead.
func TestCollectiveTCPLatencyInter(t *testing.T) {
	s := dgx(t)
	tcp, _ := s.NCCLRoute("tcp")
	gdr, _ := s.NCCLRoute("gdr")
	li := float64(tcp.Evaluate(8).Latency-gdr.Evaluate(8).Latency) / us
	if li <= 0 {
		t.Fatalf("latencyInter %g µs", li)
	}
	for _, st := range tcp.Stages {
		if strings.Contains(st.Name, "cudaMemcpy") {
			t.Errorf("NCCL's socket transport has a cudaMemcpy stage: %s", st.Name)
		}
	}
	r := model1(t, s, CollectiveSpec{Op: AllReduce, Nodes: 2, GPUsPerNode: 8, Path: "tcp", Algo: AlgoRing, Proto: ProtoLL}, 8)
	// 6.6 + 28 × max(0.6, 1) + 2 × (2.7 + li)
	if want := (6.6 + 28 + 2*(2.7+li)) * us; !near9(float64(r.Latency), want) {
		t.Errorf("ring LL over tcp: latency %.9g, want %.9g", r.Latency, want)
	}
	r = model1(t, s, CollectiveSpec{Op: AllReduce, Nodes: 2, GPUsPerNode: 8, Path: "tcp", Algo: AlgoRing, Proto: ProtoSimple}, 8)
	// 8.4 + 28 × max(3.4, 3) + 2 × (14 + 2 li); 8 B is below the plateau
	if want := (8.4 + 28*3.4 + 2*(14+2*li)) * us; !near9(float64(r.Latency), want) {
		t.Errorf("ring Simple over tcp: latency %.9g, want %.9g", r.Latency, want)
	}
	if r.NCCLPath.Path != "gdr" || r.NCCLPath.Algo == "" {
		t.Errorf("NCCL's own path beside tcp: %+v", r.NCCLPath)
	}
	// The socket stack burns cores; gdr's proxy barely any.
	big := model1(t, s, CollectiveSpec{Op: AllReduce, Nodes: 2, GPUsPerNode: 8, Path: "tcp"}, s256)
	g := model1(t, s, CollectiveSpec{Op: AllReduce, Nodes: 2, GPUsPerNode: 8, Path: "gdr"}, s256)
	if big.CoresPerNode < 1 || g.CoresPerNode > big.CoresPerNode/4 || big.DDRBytesPerNode <= 0 || g.DDRBytesPerNode != 0 {
		t.Errorf("tcp %.3g cores %.3g DDR B, gdr %.3g cores %.3g DDR B", big.CoresPerNode, big.DDRBytesPerNode, g.CoresPerNode, g.DDRBytesPerNode)
	}
}

// The terms of the time add up to it.
func TestCollectiveStepsAddUp(t *testing.T) {
	s := dgx(t)
	for _, op := range CollectiveOps {
		for _, nodes := range []int{1, 2, 16} {
			for _, n := range []units.Bytes{8, 1 << 20, 1 << 30} {
				r := model1(t, s, CollectiveSpec{Op: op, Nodes: nodes, GPUsPerNode: 8}, float64(n))
				var sum units.Seconds
				for _, st := range r.Steps() {
					sum += st.Time
					if st.What == "" || !near9(float64(st.Time), st.Count*float64(st.Each)) {
						t.Errorf("%s %d nodes %v: step %+v", op, nodes, n, st)
					}
				}
				if !near9(float64(sum), float64(r.Time)) {
					t.Errorf("%s %d nodes %v: steps add up to %v, time %v", op, nodes, n, sum, r.Time)
				}
			}
		}
	}
}

// NCCL's rules for which algorithms and protocols may run.
func TestCollectiveEnableRules(t *testing.T) {
	unavailable := func(r CollectiveResult, algo, proto string) string {
		for _, u := range r.Unavailable {
			if u.Algo == algo && u.Proto == proto {
				return u.Reason
			}
		}
		return ""
	}
	s := dgx(t)
	r := model1(t, s, CollectiveSpec{Op: AllReduce, Nodes: 4, GPUsPerNode: 8}, 8)
	for _, x := range []struct{ algo, proto, want string }{
		{AlgoCollNetDirect, ProtoSimple, "network.sharp"}, {AlgoNVLS, ProtoSimple, "CollNet"}, {AlgoNVLSTree, ProtoLL, "Simple"},
	} {
		if w := unavailable(r, x.algo, x.proto); !strings.Contains(w, x.want) {
			t.Errorf("%s/%s: %q, want %q", x.algo, x.proto, w, x.want)
		}
	}
	// PCIe between the GPUs: no LL128 (typeIntra beyond NVB); no NVSwitch: no NVLS.
	p := dgx(t)
	p.Set("gpu.nvlink_rate", "0B/s")
	p.Set("topology.nvswitch", "false")
	r = model1(t, p, CollectiveSpec{Op: AllReduce, Nodes: 1, GPUsPerNode: 4}, 8)
	if !strings.Contains(unavailable(r, AlgoRing, ProtoLL128), "NVLink") || !strings.Contains(unavailable(r, AlgoNVLS, ProtoSimple), "NVSwitch") {
		t.Errorf("PCIe node: %+v", r.Unavailable)
	}
	// Hopper allows LL128 up to PXN, so not across the CPU (PHB).
	h := dgx(t)
	h.Set("topology.gpu_nic", "PHB")
	r = model1(t, h, CollectiveSpec{Op: AllReduce, Nodes: 2, GPUsPerNode: 8, Path: "gdr"}, 8)
	if !strings.Contains(unavailable(r, AlgoRing, ProtoLL128), "PXN") {
		t.Errorf("PHB on Hopper: %+v", r.Unavailable)
	}
	// Broadcast is a ring only; all_gather is never a tree.
	r = model1(t, s, CollectiveSpec{Op: Broadcast, Nodes: 2, GPUsPerNode: 8}, 8)
	if len(r.Alternatives)+len(r.Unavailable) != 3 || r.Algo != AlgoRing {
		t.Errorf("broadcast alternatives %+v %+v", r.Alternatives, r.Unavailable)
	}
	if _, err := s.CollectiveModel(CollectiveSpec{Op: AllGather, Nodes: 2, GPUsPerNode: 8, Algo: AlgoTree}, []units.Bytes{8}); err == nil {
		t.Error("all_gather as a tree accepted")
	}
	// SHARP enables CollNet; CollNet Direct wants NVSwitch.
	c := dgx(t)
	c.Set("network.sharp", "true")
	r = model1(t, c, CollectiveSpec{Op: AllReduce, Nodes: 16, GPUsPerNode: 8, Algo: AlgoCollNetDirect}, s256)
	if r.Algo != AlgoCollNetDirect || r.Proto != ProtoSimple {
		t.Errorf("CollNet Direct with SHARP: %s/%s", r.Algo, r.Proto)
	}
}

// NCCL's own path: GDR up to nccl.gdr_level, host-staged beyond; sockets
// without RDMA; gpupath reports it beside the path asked for.
func TestNCCLPath(t *testing.T) {
	s := dgx(t)
	if p, _ := s.NCCLPath(8); p != "gdr" {
		t.Errorf("PIX: %s", p)
	}
	s.Set("topology.gpu_nic", "SYS")
	if p, why := s.NCCLPath(8); p != "rdma" || !strings.Contains(why, "gdr_level") {
		t.Errorf("SYS: %s (%s)", p, why)
	}
	r := model1(t, s, CollectiveSpec{Op: AllReduce, Nodes: 2, GPUsPerNode: 8}, 1<<20)
	if r.Path != "rdma" || r.NCCLPath.Path != "rdma" {
		t.Errorf("NCCL's path taken by default: %s, beside %s", r.Path, r.NCCLPath.Path)
	}
	g, _ := Preset("gcp-a3-tcpx")
	if p, _ := g.NCCLPath(8); p != "tcp" {
		t.Errorf("no RDMA: %s", p)
	}
	v, _ := Preset("gen3-edr") // V100 PCIe, no NVLink: before Ampere NCCL does not let the NIC read GPU memory
	if p, why := v.NCCLPath(4); p != "rdma" || !strings.Contains(why, "NET_GDR_READ") {
		t.Errorf("V100 PCIe: %s (%s)", p, why)
	}
	if p, _ := v.NCCLPath(1); p != "gdr" {
		t.Errorf("V100 alone: %s", p)
	}
}

func TestComputeCapability(t *testing.T) {
	for _, tc := range []struct {
		preset, set string
		want        int
		src         string
	}{
		{"dgx-h100-ndr", "", 90, "catalog"},
		{"a100-hdr", "", 80, "catalog"},
		{"gen3-edr", "", 70, "catalog"},
		{"default", "", 90, "gdr_flush"}, // "H100-class PCIe GPU" is no catalog name
		{"default", "10.0", 100, "gpu.compute_capability"},
	} {
		s, _ := Preset(tc.preset)
		if tc.set != "" {
			if err := s.Set("gpu.compute_capability", tc.set); err != nil {
				t.Fatal(err)
			}
		}
		cc, src := s.ComputeCapability()
		if cc != tc.want || !strings.Contains(src, tc.src) {
			t.Errorf("%s %s: %d (%s), want %d from %s", tc.preset, tc.set, cc, src, tc.want, tc.src)
		}
	}
	s := Default()
	for _, bad := range []string{"2.0", "16", "x"} {
		if err := s.Set("gpu.compute_capability", bad); err == nil {
			t.Errorf("gpu.compute_capability %s accepted", bad)
		}
	}
}

func TestCollectiveBadInput(t *testing.T) {
	s := dgx(t)
	for _, tc := range []struct {
		c    CollectiveSpec
		want string
	}{
		{CollectiveSpec{Op: "gather", Nodes: 2, GPUsPerNode: 1}, "not one of"},
		{CollectiveSpec{Op: AllReduce, Nodes: 1, GPUsPerNode: 1}, "two ranks"},
		{CollectiveSpec{Op: AllReduce, Nodes: 0, GPUsPerNode: 8}, "nodes"},
		{CollectiveSpec{Op: AllReduce, Nodes: 2, GPUsPerNode: 8, Path: "gpu-peer"}, "inter-node path"},
		{CollectiveSpec{Op: AllReduce, Nodes: 2, GPUsPerNode: 8, Path: "devmem"}, "infeasible"},
		{CollectiveSpec{Op: AllReduce, Nodes: 2, GPUsPerNode: 8, Proto: "fast"}, "protocol"},
		{CollectiveSpec{Op: AllReduce, Nodes: 2, GPUsPerNode: 8, Algo: "hypercube"}, "algorithm"},
		{CollectiveSpec{Op: AllToAll, Nodes: 2, GPUsPerNode: 8, Algo: AlgoRing}, "p2p"},
		{CollectiveSpec{Op: AllReduce, Nodes: 2, GPUsPerNode: 8, Channels: 65}, "channels"},
	} {
		if _, err := s.CollectiveModel(tc.c, []units.Bytes{8}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.c, err, tc.want)
		}
	}
}

// The result is a documented JSON object: every key snake_case (units as
// the model's JSON writes them: _s, _Bps).
func TestCollectiveJSON(t *testing.T) {
	r := model1(t, dgx(t), CollectiveSpec{Op: "allreduce", Nodes: 2, GPUsPerNode: 8, Path: "tcp"}, 1<<20)
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	key := regexp.MustCompile(`"([A-Za-z_]+)":`)
	ok := regexp.MustCompile(`^[a-z][a-z0-9_]*(_Bps)?$`)
	seen := map[string]bool{}
	for _, m := range key.FindAllStringSubmatch(string(b), -1) {
		seen[m[1]] = true
		if !ok.MatchString(m[1]) {
			t.Errorf("key %q is not snake_case", m[1])
		}
	}
	for _, k := range []string{"time_s", "nccl_time_s", "algbw_Bps", "busbw_Bps", "bottleneck", "cores_per_node", "ddr_bytes_per_node", "steps", "alternatives", "unavailable", "nccl_path"} {
		if !seen[k] {
			t.Errorf("no key %q in %s", k, b)
		}
	}
}

// TestBusFactor: nccl-tests' GetBw of each test (src/*.cu at a0b82b2), for
// every spelling people write.
func TestBusFactor(t *testing.T) {
	for _, tc := range []struct {
		op   string
		n    int
		want float64
	}{
		{"all_reduce", 16, 2 * 15.0 / 16}, {"allreduce", 2, 1}, {"all_gather_perf", 8, 7.0 / 8}, {"ReduceScatter", 4, 3.0 / 4},
		{"alltoall", 16, 15.0 / 16}, {"broadcast", 16, 1}, {"reduce", 8, 1}, {"sendrecv", 8, 1}, {"gather", 4, 3.0 / 4},
		{"scatter", 2, 0.5}, {"hypercube", 8, 1}, {"all_to_all", 4, 3.0 / 4}, {"send_recv", 4, 1},
	} {
		f, _, ok := BusFactor(tc.op, tc.n)
		if !ok || math.Abs(f-tc.want) > 1e-12 {
			t.Errorf("%s n=%d: %v, want %v", tc.op, tc.n, f, tc.want)
		}
	}
	if _, _, ok := BusFactor("all_reduce", 0); ok {
		t.Error("n=0 accepted")
	}
	if _, _, ok := BusFactor("alltoallv", 8); ok {
		t.Error("alltoallv has no factor")
	}
	if f, formula, _ := BusFactor(AllReduce, 8); formula != "2(n−1)/n = 2·7/8" || f != 1.75 {
		t.Errorf("formula %q, factor %v", formula, f)
	}
	if BusFormula("allgather") != "(n−1)/n" || BusFormula("x") != "" {
		t.Error("BusFormula")
	}
}
