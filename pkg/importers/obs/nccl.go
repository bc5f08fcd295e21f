package obs

// Channel is one connection an NCCL log reports, e.g.
// "Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0/GDRDMA".
type Channel struct {
	Line    int `json:"line"`
	Channel int `json:"channel"`
	// Conn is the connection index after the slash (0 when not printed).
	Conn int `json:"conn,omitempty"`
	// From and To are the ranks; FromDev and ToDev what follows them in
	// brackets (a device index, or a bus id in older NCCL).
	From    int    `json:"from"`
	To      int    `json:"to"`
	FromDev string `json:"from_dev,omitempty"`
	ToDev   string `json:"to_dev,omitempty"`
	// Direction is "send" or "receive" for network connections, "" for
	// P2P and SHM.
	Direction string `json:"direction,omitempty"`
	// Transport is "NET", "P2P", "SHM" or "CollNet"; Via is everything
	// after "via " as printed ("NET/IB/0/GDRDMA", "P2P/IPC/read").
	Transport string `json:"transport"`
	Via       string `json:"via"`
	// Net is the network plugin name ("IB", "Socket"), NetDev its device
	// index; ProxyRank is set when PXN routes the traffic through another
	// GPU's NIC (NET/IB/1(2)/...).
	Net       string `json:"net,omitempty"`
	NetDev    int    `json:"net_dev,omitempty"`
	ProxyRank *int   `json:"proxy_rank,omitempty"`
	GDR       bool   `json:"gdr,omitempty"`
	// Path is the model path the connection takes: gdr (GPUDirect RDMA),
	// rdma (host-staged RDMA), tcp (sockets), gpu-peer (P2P inside a
	// node), host (SHM: through host memory inside a node).
	Path string `json:"path"`
	// Host is the host of the process that logged the line.
	Host string `json:"host,omitempty"`
}

// NCCLPath is what an NCCL log says about the path the traffic took.
type NCCLPath struct {
	// Path is the model path of the traffic between nodes: the path every
	// network channel took, "mixed" when they differ, "" when the log shows
	// no network channel. Intra is the same for channels inside a node.
	Path  string `json:"path,omitempty"`
	Intra string `json:"intra,omitempty"`
	// Counts is the number of channels per path.
	Counts map[string]int `json:"counts,omitempty"`
	// Line is the first line that shows Path (a channel line), the line a
	// reader should look at.
	Line int `json:"line,omitempty"`
	// Version is the NCCL version the log prints.
	Version string `json:"version,omitempty"`
	// Network is the network NCCL chose ("IB", "Socket"); NICs the devices
	// its "NET/IB : Using" or "NET/Socket : Using" line lists.
	Network     string   `json:"network,omitempty"`
	NetworkLine int      `json:"network_line,omitempty"`
	NICs        []string `json:"nics,omitempty"`
	// GDR lists the "GPU Direct RDMA Enabled/Disabled" lines.
	GDR []GDRLine `json:"gdr,omitempty"`
	// RingPXN and RingGDR are from "Connected all rings, use ring PXN %d
	// GDR %d" (nil when the log does not have that line).
	RingPXN  *bool `json:"ring_pxn,omitempty"`
	RingGDR  *bool `json:"ring_gdr,omitempty"`
	RingLine int   `json:"ring_line,omitempty"`
	// PXN is true when a channel went through another GPU's NIC.
	PXN bool `json:"pxn,omitempty"`
	// Verdict says in one sentence which path NCCL took and why, with the
	// line to look at.
	Verdict string `json:"verdict"`
}

// GDRLine is one "GPU Direct RDMA Enabled/Disabled" line of an NCCL log.
type GDRLine struct {
	Line    int  `json:"line"`
	Enabled bool `json:"enabled"`
	// GPU and HCA are as printed; HCAName is the device name of the
	// per-HCA form ("NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'").
	GPU     string `json:"gpu,omitempty"`
	HCA     string `json:"hca,omitempty"`
	HCAName string `json:"hca_name,omitempty"`
	// Distance and Level are the path types NCCL compares ("distance 7 >
	// 5"); Class and LevelClass name them (PIX, PXB, PHB, SYS) for the
	// NCCL version of the log, "" when it is unknown.
	Distance   int    `json:"distance,omitempty"`
	Level      int    `json:"level,omitempty"`
	Class      string `json:"class,omitempty"`
	LevelClass string `json:"level_class,omitempty"`
	// Reason is what the line says beyond enabled/disabled.
	Reason string `json:"reason,omitempty"`
}
