// Package inventory reads the outputs that describe hardware rather than
// measure it — ibstat, ibv_devinfo (plain, -v, -l) and `nvidia-smi topo -m`
// (through pkg/topo's parser) — into the hardware part of an observation:
// the NICs with their ports, states, link layers and rates, and the PCIe
// distance between the GPUs and their nearest NIC. They carry no records;
// imported beside measurements they tell the report which hardware the
// numbers came from.
package inventory
