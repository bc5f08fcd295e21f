// Package topo reads the PCIe and RDMA topology of a Linux host from sysfs,
// without NVML or any vendor library, and classifies how two devices are
// connected in the words of `nvidia-smi topo -m` (X, PIX, PXB, PHB, NODE,
// SYS; NV# for NVLink, which only NVML can see).
//
// A Reader is rooted at a configurable sysfs directory, so tests point it at
// fixture trees in testdata that mirror real systems. Reading is split from
// parsing: every parser of sysfs text (link speeds, hex ids, PCI paths, RDMA
// port rates and states, GIDs) is a pure function, and so is the parser of
// `nvidia-smi topo -m` output, which serves as a cross-check of Classify.
//
// The package does not probe hardware beyond reading files, does not load
// any library, and prints nothing.
package topo
