// Package model is gpupath's analytic model of how a message travels from a
// GPU on one node to a GPU on another.
//
// A Scenario describes the two nodes and the network between them (GPU,
// CPU, memory, NIC, PCIe topology, switches and cable, the host's TCP stack).
// It comes from a built-in preset (Preset, Default) or from YAML text
// (Parse), and single keys can be changed by name (Scenario.Set with the
// dotted keys of Keys: "nic.rate", "topology.gpu_nic"). Every key is one
// entry of a table (name, parser, doc, bounds), so the YAML reader, --set
// and `gpupath preset show` cannot drift apart.
//
// A Path (tcp, rdma, gdr, devmem, p2p-plain-nic, host-tcp, host-rdma,
// gpu-peer) is an ordered table of stages, lettered A–G as the three-path
// account tells the story: the bare transport, as perftest's verbs run it.
// A software Stack (software.stack: none, perftest, ucx, nccl, nvshmem; one
// file each, registered like paths) adds its own named stages on top —
// NCCL's proxy hand-off and pre-Hopper flush, UCX's eager and rendezvous
// protocols (stages that run only over a range of sizes), NVSHMEM's
// GPU-initiated posts. Path.Route puts a path on a scenario; a Route
// evaluates at a message size to the latency the hardware gives (stages a
// device streams packet by packet overlap; host steps follow one another),
// the step-by-step sum, pipelined latency, streaming bandwidth with its
// bottleneck (or, where the message rate binds, one core's message rate),
// CPU time, DDR traffic, copies and PCIe crossings, and a note where the
// figures assume something a reader may not (NCCL would not use GPUDirect
// RDMA that far from the NIC). A path that cannot work on a scenario
// (p2p-plain-nic on a plain NIC, devmem without header split) is infeasible
// with its reason instead of numbers. Sweep evaluates many paths and sizes;
// Fastest, Crossovers and Ranked compare them; LocalCopies are the
// single-node copies (host↔GPU, GPU peer, BAR1).
//
// Collectives are NCCL's own cost model (src/graph/tuning.cc and
// src/enqueue.cc at NVIDIA/nccl 5067397c, every constant cited where it is
// defined, nccl_tuning.go) with the links taken from this model.
// Scenario.CollectiveModel(CollectiveSpec, sizes) evaluates one collective
// — Op (all_reduce, all_gather, reduce_scatter, broadcast, reduce,
// all_to_all, send_recv; any spelling CollectiveOp reads), Nodes (1 to
// 65,536) × GPUsPerNode (1 to 64), NICsPerNode (0: one per GPU), Algo
// ("auto" or one of Algorithms: tree, ring, collnet_direct, collnet_chain,
// nvls, nvls_tree, pat; p2p for all_to_all and send_recv), Proto ("auto",
// LL, LL128, Simple), Path (tcp, rdma, gdr, devmem; "" for the one NCCL
// takes, Scenario.NCCLPath) and Channels (0: from the topology) — at each
// size to a CollectiveResult: nccl-tests' time, algbw and busbw (BusFactor),
// NCCL's own estimate beside gpupath's time, the bottleneck (a link, the
// path's CPU or DDR, or a protocol ceiling of NCCL's), the node's CPU
// cores, CPU seconds and DDR bytes for its network traffic, the time term
// by term (Steps), NCCL's choice on the path asked for and on its own path,
// and every algorithm × protocol NCCL weighs with its time or why it is not
// allowed there (NVLS only with topology.nvswitch from compute capability
// 9.0, gpu.compute_capability or the catalog's; CollNet only with
// network.sharp; PAT only at one GPU per node). Scenario.Collectives
// prepares a scenario once for many such calls (the paths' network steps,
// the compute capability), and its Choices, Crossovers, GDRGain and
// TCPCores give the sizes where NCCL's pick changes, the crossovers between
// two algorithms, protocols or paths, what GPUDirect RDMA buys over NCCL's
// host-staged transport and the cores NCCL's socket transport burns, as
// functions of the size or the node count. DefaultCollectiveSpec is the
// collective a report shows (an all_reduce on 16 nodes × 8 GPUs, NCCL
// choosing the rest). NCCLRoute is the route of one
// network step: NCCL's host-staged transports (rdma, tcp) store into and
// load from its pinned host buffers from the kernel, without a cudaMemcpy.
//
// The hardware catalog (Catalog, LookupCatalog, NearCatalogNames) says
// what a product name implies: GPUs, NICs, CPUs, switches and InfiniBand
// generations, each fact a scenario key with its value and its source
// (embedded from catalog/*.yaml; `gpupath catalog` prints it).
//
// Quantities are pkg/units' types in base units (bytes, seconds, bytes per
// second). Every default constant carries its source in a comment.
//
// The package is pure: it reads no file, clock, environment or global
// state, prints nothing and logs nothing, and it imports no package of this
// module but pkg/units. Readers of scenario files, writers of reports and
// everything measured live in the packages above it; WriteJSON, WriteCSV,
// WriteTable and WriteYAML write to the io.Writer they are given.
package model
