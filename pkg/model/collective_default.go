package model

// The collective a report shows when nobody asks for another: an all_reduce
// (the collective of data-parallel training, nccl-tests' all_reduce_perf)
// on DefaultCollectiveNodes nodes, NCCL choosing the algorithm, the protocol
// and the path.
const (
	// DefaultCollectiveNodes is 16 nodes: a small cluster of 128 GPUs at
	// eight a node, across more than two nodes (where NCCL's double binary
	// tree moves twice the buffer over a node's NICs, not once) and within
	// one leaf switch's reach.
	DefaultCollectiveNodes = 16
	// DefaultGPUsPerNode is 8: the GPUs of an HGX/DGX board (DGX A100, DGX
	// H100: eight SXM GPUs on NVSwitch, NVIDIA's DGX user guides) and of the
	// common 4U server of PCIe cards, and the default of `gpupath model
	// --collective`.
	DefaultGPUsPerNode = 8
)

// DefaultCollectiveSpec is the collective the report shows for s: an
// all_reduce on DefaultCollectiveNodes nodes of DefaultGPUsPerNode GPUs,
// one NIC per GPU (the rail-optimized layout of DGX and HGX nodes), the
// algorithm, the protocol and the channels left to NCCL and the
// inter-node path to NCCL's own rule (Scenario.NCCLPath).
//
// A scenario describes two nodes and one GPU–NIC pair of each: no key
// counts a node's GPUs or NICs. What it does say agrees with eight:
// topology.nvswitch puts the GPUs on an NVSwitch board, eight GPUs (an
// HGX/DGX board), and without it the node is taken as the common server of
// eight PCIe GPUs. The NICs follow the GPUs, one each. s is read for the
// keys that say more (none yet: a key that counts GPUs or NICs is read
// here); nil is the default scenario.
func DefaultCollectiveSpec(s *Scenario) CollectiveSpec {
	return CollectiveSpec{Op: AllReduce, Nodes: DefaultCollectiveNodes, GPUsPerNode: DefaultGPUsPerNode, NICsPerNode: DefaultGPUsPerNode,
		Algo: AlgoAuto, Proto: AlgoAuto}
}
