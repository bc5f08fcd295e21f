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
// Its evaluations of the model are in price.go; the keys of a priced case
// and of this host are typed overrides made by calib.Overrides (cases.go).
//
// Doctor reads only the trees it is given — a sysfs root, a procfs root and
// a boot directory (for config-<release>), each an fs.FS — and the GPU
// facts from a GPUSource, in the nvml probe's form (record.GPUInventory:
// NVML on a GPU host through package nvmlsrc, which calls the driver's
// library, not files; or a JSON file of it, FileGPUSource). Open gives os.Root file systems: a
// relative symbolic link is followed while it stays inside its root (all of
// sysfs's do: bus/pci/devices, class/net, class/infiniband, iommu_group);
// a link that leaves the root, or an absolute one, is never followed and
// reads "could not read: ... not followed". /dev is not read (the GDRCopy
// check says to look at /dev/gdrdrv), nor is anything through ethtool or
// verbs. Reading is split from
// parsing: every parser of file text is a pure function, fuzzed. The checks
// are one file per family, registered in registry.go behind the one-method
// Check interface. A missing or unreadable file is an ordinary finding,
// never a failure, and nothing here needs root, though config space beyond
// its first 64 bytes (MPS, MRRS, ACS) is readable only by root.
//
// The package does not load GPU libraries, link cgo, write files, or print.
package doctor
