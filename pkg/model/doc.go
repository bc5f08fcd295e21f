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
// Fastest, Crossovers and Ranked compare them; Scenario.Collective models
// collectives; LocalCopies are the single-node copies (host↔GPU, GPU peer,
// BAR1).
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
