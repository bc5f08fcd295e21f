// Package doctor reads the machine facts that decide which path GPU traffic
// between nodes can take, and says what each costs: the peer-memory modules
// under every name the libraries look for, GDRCopy, DMA-BUF support, the
// NVIDIA driver's registry parameters, the GPU↔NIC topology class against
// NCCL's GPUDirect limit, NUMA placement, PCIe link training, MPS and MRRS,
// ACS, the IOMMU, the RDMA ports (state, rate, link layer, GID types, MTU),
// what device-memory TCP needs, and NVLink.
//
// Each finding has a severity, the facts as read (the file or call and its
// value, or "could not read: why"), a fix a person can apply, and its price
// from pkg/model: the path the traffic falls back to and what that does to
// latency and bandwidth at 8 B, 1 MiB and 1 GiB, to copies and DDR traffic.
// All use of the model is in price.go.
//
// Doctor reads only the trees it is given — a sysfs root, a procfs root and
// a boot directory, each an fs.FS (Open gives os.Root file systems, which do
// not follow a symbolic link out of their root) — and the GPU facts from a
// GPUSource (NVML on a GPU host: package nvmlsrc). Reading is split from
// parsing: every parser of file text is a pure function, fuzzed. The checks
// are one file per family, registered in registry.go behind the one-method
// Check interface. A missing or unreadable file is an ordinary finding,
// never a failure, and nothing here needs root, though config space beyond
// its first 64 bytes (MPS, MRRS, ACS) is readable only by root.
//
// The package does not load GPU libraries, link cgo, write files, or print.
package doctor
