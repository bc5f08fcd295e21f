// Package measure is the runner of gpupath's probes and the probes of the
// host itself.
//
// The runner (Run, run.go) measures with the probes a RunConfig names and
// writes a run directory through pkg/record: the manifest at the start
// (running), as each probe starts and ends, and at the end (complete or
// interrupted); each record is appended with one write as it is measured,
// so an interrupted run keeps what it measured. The run's budget is shared
// among the probes by weight (Weighted). A probe that is unavailable (no
// GPU, driver, library, device or permission: ErrUnavailable) or fails is
// recorded as such and the run goes on. QuickConfig and RunQuick are the
// short run of `gpupath report`. Progress (Bar, Lines, or a notebook's own)
// is told about each probe and record: Bar keeps a table of each probe's
// results on a terminal, Lines writes one line per event for pipes, and
// both spell times as units.Seconds.Human does. A Server logs the clients
// that come and go (ServerConfig.Log), within bounds no client can flood.
//
// Probes (Probe, a registry filled by each probe's init: Register, Names,
// New) are made with the run's Env (the sysfs root, the diagnostics sink)
// and keep it; they have no setters. They may say more through optional
// methods: the options they read (Optioner; CheckOptions refuses others),
// their share of the budget (Weighted), the records a plan makes (Stepper)
// and what hardware they found (InventoryReporter). Repeat repeats an operation after a warm-up until its median is
// stable or its time is spent, and Summarize gives the median and
// percentiles (internal/stats). The host probes:
//
//   - "tcp" (tcp.go, tcpclient.go, tcpserver.go): ping-pong latency and
//     streaming goodput with their CPU cost, over loopback, a veth pair
//     between two network namespaces (veth.go, optionally shaped with tbf),
//     or to a `gpupath serve` peer (Server and Client are the two ends), on
//     the raw blocking sockets of internal/rawsock; veth pairs are made
//     through netlink by internal/testnet, after removing those a killed
//     run left behind;
//   - "staged-host" (staged_host.go): the staged GPU→GPU transfer with host
//     buffers standing in for the GPUs (copy, TCP, copy, checked byte for
//     byte by the receiver), store-and-forward and pipelined, over one or
//     more connections (flows, chunks striped round robin), on loopback or
//     against a peer's Server (its "staged" mode);
//   - "memcpy" (memcpy.go): a Go copy on one core, warm and cold caches
//     (cold: the copy's lines flushed from the caches before each timed
//     batch, memcpy_flush_amd64.s), in memory bounded by the largest size;
//   - "syscall" (syscall.go): a bare system call, socketpair and loopback
//     TCP send and receive;
//   - "topo" (pcietopo.go): the PCIe tree from sysfs (pkg/topo), GPUs, NICs
//     and how each GPU reaches each NIC;
//   - "rdma" (rdma.go): RDMA devices and ports from sysfs;
//   - "perftest" (perftest.go): the linux-rdma perftest tools, when
//     installed and an RDMA port is active.
//
// Two hosts (pair.go): rank 0 runs a PairServer (a control port: hellos
// with tool, version and host inventory, heartbeats, done, and a report of
// every Session its probe server measured), rank 1 a PairClient, which
// gives the probes rank 0's server as their target. A peer of another
// version or protocol is refused; a peer that goes silent is ErrPeerLost.
// Where the ranks come from is pkg/cluster's business.
//
// The GPU probes (cuda, staged, nvml) are in pkg/measure/gpu, which
// registers them when imported. ReadHost describes the machine for the
// manifest.
//
// It does not read runs back (pkg/record does), derive scenario values or
// fit (pkg/calib, pkg/fit), model (pkg/model) or draw (pkg/plots). It
// prints nothing and never exits. The network probes need Linux.
package measure
