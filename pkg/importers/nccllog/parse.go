package nccllog

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/gpupath/gpupath/pkg/importers/obs"
)

// Tool is the name of the format.
const Tool = "nccl-log"

var (
	// "host:pid:tid [dev] NCCL INFO message", after an optional Open MPI tag.
	prefixRe  = regexp.MustCompile(`^(?:\[\d+,\d+\]<std(?:out|err)>:)?\s*(\S+?):(\d+):(\d+) \[(\d+)\] NCCL (INFO|WARN|TRACE) ?(.*)$`)
	channelRe = regexp.MustCompile(`^Channel (\d+)(?:/(\d+))? : (\d+)\[([^\]]*)\] -> (\d+)\[([^\]]*)\](?: \[(send|receive)\])? via (.+?)\s*$`)
	netViaRe  = regexp.MustCompile(`^NET/(.+)/(\d+)(?:\((\d+)\))?(/GDRDMA)?(?:\(PCI\))?(/Shared)?$`)
	versionRe = regexp.MustCompile(`^NCCL version (\S+)`)
	usingRe   = regexp.MustCompile(`^NET/(\S+) ?: Using(.*)$`)
	nicRe     = regexp.MustCompile(`\[(\d+)\]([^\s;]+)`)
	networkRe = regexp.MustCompile(`^Using network (.+?)\s*$`)
	// "GPU Direct RDMA Disabled for GPU 5000 / HCA 0 (distance 7 > 5)",
	// "... Enabled for GPU 1b000 / HCA 0 (distance 4 <= 5), read 1 mode Default".
	gdrRe = regexp.MustCompile(`^GPU Direct RDMA (Enabled|Disabled) for GPU (\S+) / HCA (\S+) \(distance (\d+) (<=|>) (-?\d+)\)(.*)$`)
	// "NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)".
	gdrHCARe = regexp.MustCompile(`^NET/\S+ ?: GPU Direct RDMA (Enabled|Disabled) for HCA (\d+) '([^']*)'(.*)$`)
	ringRe   = regexp.MustCompile(`^Connected all rings(?:, use ring PXN (\d+) GDR (\d+))?`)
	// "Channel 00/02 :    0   1   2   3": the ranks of a ring, not a connection.
	ringListRe = regexp.MustCompile(`^Channel \d+/\d+ :(\s+\d+)+\s*$`)
	commRe     = regexp.MustCompile(`^comm \S+ rank (\d+) nRanks (\d+) nNodes (\d+) localRanks (\d+)`)
	errWords   = regexp.MustCompile(`(?i)\b(error|fail(ed|ure)?|abort(ed)?|timeout|timed out)\b`)
)

// Detect tells whether b holds NCCL debug lines.
func Detect(b []byte) bool {
	n := 0
	for _, l := range obs.Lines(b) {
		if m := prefixRe.FindStringSubmatch(l); m != nil && m[5] != "TRACE" {
			if n++; n >= 2 {
				return true
			}
		}
	}
	return false
}

// Parse reads the NCCL lines of b into observations: the channels, the
// path they amount to with its verdict, and the hardware the lines name
// (hosts, NICs, ranks and nodes). It has no records: NCCL logs measure
// nothing.
func Parse(b []byte) (*obs.Output, error) {
	out := &obs.Output{Tool: Tool}
	np := &obs.NCCLPath{}
	seen := map[string]bool{}
	lines := 0
	for i, raw := range obs.Lines(b) {
		n := i + 1
		m := prefixRe.FindStringSubmatch(strings.TrimRight(raw, " \t"))
		if m == nil {
			// nccl-tests and some launchers print the version on a line of its own.
			if v := versionRe.FindStringSubmatch(strings.TrimSpace(raw)); v != nil && np.Version == "" {
				np.Version = strings.TrimSuffix(v[1], ".")
				out.Version = np.Version
			}
			continue
		}
		lines++
		host, level, msg := m[1], m[5], strings.TrimSpace(m[6])
		out.Hardware.AddHost(host)
		if level == "WARN" {
			if errWords.MatchString(msg) {
				out.Failures = append(out.Failures, obs.Problem{Line: n, Text: msg, Reason: "NCCL warned of an error"})
			} else {
				out.Notes = append(out.Notes, fmt.Sprintf("line %d: NCCL WARN %s", n, msg))
			}
			continue
		}
		switch {
		case versionRe.MatchString(msg):
			if np.Version == "" {
				np.Version = strings.TrimSuffix(versionRe.FindStringSubmatch(msg)[1], ".")
				out.Version = np.Version
			}
		case ringListRe.MatchString(msg):
			// the order of a ring: which connections follow is in the lines below
		case strings.HasPrefix(msg, "Channel "):
			c, err := channel(msg, n, host)
			if err != nil {
				out.Problems = append(out.Problems, obs.Problem{Line: n, Text: msg, Reason: err.Error()})
				continue
			}
			// The same connection can be logged more than once (a
			// communicator per test); keep the first.
			key := fmt.Sprintf("%s|%d|%d|%d|%d|%s|%s", host, c.Channel, c.Conn, c.From, c.To, c.Direction, c.Via)
			if seen[key] {
				continue
			}
			seen[key] = true
			out.Channels = append(out.Channels, c)
		case usingRe.MatchString(msg) && !strings.Contains(msg, "threads and"):
			u := usingRe.FindStringSubmatch(msg)
			if np.NetworkLine == 0 {
				np.NetworkLine = n
			}
			if np.Network == "" {
				np.Network = u[1]
			}
			for _, d := range nicRe.FindAllStringSubmatch(u[2], -1) {
				nic := nicOf(u[1], d[2], n)
				name := d[2] // "mlx5_5:1/RoCE"
				if u[1] == "Socket" {
					name = nic.Name // "eth0", without the address
				}
				np.NICs = appendOnce(np.NICs, name)
				out.Hardware.NICs = appendNIC(out.Hardware.NICs, nic)
			}
		case networkRe.MatchString(msg):
			np.Network = networkRe.FindStringSubmatch(msg)[1]
			if np.NetworkLine == 0 {
				np.NetworkLine = n
			}
		case gdrRe.MatchString(msg):
			g := gdrRe.FindStringSubmatch(msg)
			d, _ := strconv.Atoi(g[4])
			lv, _ := strconv.Atoi(g[6])
			np.GDR = append(np.GDR, obs.GDRLine{Line: n, Enabled: g[1] == "Enabled", GPU: g[2], HCA: g[3], Distance: d, Level: lv,
				Reason: strings.TrimSpace(strings.TrimPrefix(g[7], ","))})
		case gdrHCARe.MatchString(msg):
			g := gdrHCARe.FindStringSubmatch(msg)
			np.GDR = append(np.GDR, obs.GDRLine{Line: n, Enabled: g[1] == "Enabled", HCA: g[2], HCAName: g[3], Reason: strings.Trim(strings.TrimSpace(g[4]), "()")})
		case ringRe.MatchString(msg):
			r := ringRe.FindStringSubmatch(msg)
			if r[1] != "" && np.RingLine == 0 {
				pxn, gdr := r[1] != "0", r[2] != "0"
				np.RingPXN, np.RingGDR, np.RingLine = &pxn, &gdr, n
			}
		case commRe.MatchString(msg):
			c := commRe.FindStringSubmatch(msg)
			ranks, _ := strconv.Atoi(c[2])
			nodes, _ := strconv.Atoi(c[3])
			local, _ := strconv.Atoi(c[4])
			hw := &out.Hardware
			if ranks > hw.Ranks {
				hw.Ranks, hw.Nodes, hw.GPUsPerNode = ranks, nodes, local
				for _, k := range []string{"ranks", "nodes", "gpus_per_node"} {
					hw.Mark(k, n)
				}
			}
		case strings.HasPrefix(msg, "NET/IB : No device found"):
			out.Notes = append(out.Notes, fmt.Sprintf("line %d: NCCL found no InfiniBand/RoCE device", n))
		}
	}
	if lines == 0 {
		return nil, obs.NotRecognized(Tool, "no NCCL debug lines")
	}
	if len(out.Hardware.NICs) > 0 {
		out.Hardware.Mark("nics", np.NetworkLine)
	}
	classify(np)
	summarize(np, out.Channels)
	out.Path = np
	return out, nil
}

func appendOnce(xs []string, s string) []string {
	for _, x := range xs {
		if x == s {
			return xs
		}
	}
	return append(xs, s)
}

func appendNIC(ns []obs.NIC, n obs.NIC) []obs.NIC {
	for _, x := range ns {
		if x.Name == n.Name && x.Port == n.Port {
			return ns
		}
	}
	return append(ns, n)
}

// nicOf reads a device of a "Using" line: "mlx5_5:1/RoCE" (IB) or
// "eth0:10.0.0.1<0>" (Socket).
func nicOf(net, dev string, line int) obs.NIC {
	if net == "Socket" {
		// An IP interface: Ethernet, IPoIB or anything else; the line does not say.
		name, _, _ := strings.Cut(dev, ":")
		return obs.NIC{Name: name, Line: line}
	}
	name, rest, _ := strings.Cut(dev, ":")
	portS, ll, _ := strings.Cut(rest, "/")
	port, _ := strconv.Atoi(portS)
	if ll == "IB" {
		ll = "InfiniBand"
	}
	return obs.NIC{Name: name, Port: port, LinkLayer: ll, Line: line}
}

// channel reads a "Channel ..." message.
func channel(msg string, line int, host string) (obs.Channel, error) {
	m := channelRe.FindStringSubmatch(msg)
	if m == nil {
		return obs.Channel{}, fmt.Errorf("a channel line that cannot be read")
	}
	c := obs.Channel{Line: line, FromDev: m[4], ToDev: m[6], Direction: m[7], Via: m[8], Host: host}
	c.Channel, _ = strconv.Atoi(m[1])
	c.Conn, _ = strconv.Atoi(m[2])
	c.From, _ = strconv.Atoi(m[3])
	c.To, _ = strconv.Atoi(m[5])
	via := c.Via
	switch {
	case strings.HasPrefix(via, "NET/"):
		v := netViaRe.FindStringSubmatch(via)
		if v == nil {
			return obs.Channel{}, fmt.Errorf("a network transport that cannot be read: %q", via)
		}
		c.Transport, c.Net = "NET", v[1]
		c.NetDev, _ = strconv.Atoi(v[2])
		if v[3] != "" {
			pr, _ := strconv.Atoi(v[3])
			c.ProxyRank = &pr
		}
		c.GDR = v[4] != ""
		switch {
		case c.Net == "Socket":
			c.Path = "tcp"
		case c.GDR:
			c.Path = "gdr"
		default:
			c.Path = "rdma"
		}
	case strings.HasPrefix(via, "P2P/"):
		c.Transport, c.Path = "P2P", "gpu-peer"
	case strings.HasPrefix(via, "SHM/"):
		c.Transport, c.Path = "SHM", "host"
	case strings.HasPrefix(via, "COLLNET/"), strings.HasPrefix(via, "CollNet"):
		c.Transport, c.Path = "CollNet", "collnet"
		c.GDR = strings.Contains(via, "/GDRDMA")
	default:
		return obs.Channel{}, fmt.Errorf("unknown transport %q", via)
	}
	return c, nil
}

// pathTypes names NCCL's PATH_* numbers (src/graph/topo.h) for the
// versions that changed them: PXN came in 2.12, C2C in 2.26, P2C in 2.27
// (before PXN from 2.28). NVIDIA/nccl tags v2.8.4-1, v2.12.10-1,
// v2.25.1-1, v2.26.2-1, v2.27.3-1, v2.28.9-1.
var pathTypes = []struct {
	from  [2]int // first version (major, minor) with this numbering
	names []string
}{
	{[2]int{2, 0}, []string{"LOC", "NVL", "NVB", "PIX", "PXB", "PHB", "SYS"}},
	{[2]int{2, 12}, []string{"LOC", "NVL", "NVB", "PIX", "PXB", "PXN", "PHB", "SYS", "NET", "DIS"}},
	{[2]int{2, 26}, []string{"LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "PXN", "PHB", "SYS", "NET", "DIS"}},
	{[2]int{2, 27}, []string{"LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "PXN", "P2C", "PHB", "SYS", "NET", "DIS"}},
	{[2]int{2, 28}, []string{"LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "P2C", "PXN", "PHB", "SYS", "NET", "DIS"}},
}

// PathType names NCCL path type d for NCCL version v ("2.18.3"), or ""
// when the version or the number is unknown.
func PathType(v string, d int) string {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return ""
	}
	maj, err1 := strconv.Atoi(parts[0])
	min, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return ""
	}
	var names []string
	for _, p := range pathTypes {
		if maj > p.from[0] || maj == p.from[0] && min >= p.from[1] {
			names = p.names
		}
	}
	if d < 0 || d >= len(names) {
		return ""
	}
	return names[d]
}

func classify(np *obs.NCCLPath) {
	for i := range np.GDR {
		g := &np.GDR[i]
		if g.HCAName != "" {
			continue
		}
		g.Class, g.LevelClass = PathType(np.Version, g.Distance), PathType(np.Version, g.Level)
	}
}

// summarize counts the channels per path and writes the verdict.
func summarize(np *obs.NCCLPath, chans []obs.Channel) {
	np.Counts = map[string]int{}
	var net, intra []obs.Channel
	for _, c := range chans {
		np.Counts[c.Path]++
		if c.ProxyRank != nil {
			np.PXN = true
		}
		if c.Transport == "NET" || c.Transport == "CollNet" {
			net = append(net, c)
		} else {
			intra = append(intra, c)
		}
	}
	np.Path, np.Line = one(net)
	np.Intra, _ = one(intra)
	if np.Line == 0 && len(intra) > 0 {
		_, np.Line = one(intra)
	}
	if len(chans) == 0 {
		np.Counts = nil
	}
	np.Verdict = verdict(np, net, intra)
}

// one returns the path every channel took ("mixed" when they differ) and
// the first line that shows it.
func one(cs []obs.Channel) (string, int) {
	if len(cs) == 0 {
		return "", 0
	}
	p := cs[0].Path
	for _, c := range cs {
		if c.Path != p {
			return "mixed", cs[0].Line
		}
	}
	return p, cs[0].Line
}

var pathWords = map[string]string{
	"gdr":      "GPUDirect RDMA: the NIC reads and writes GPU memory directly",
	"rdma":     "RDMA through host memory, host-staged: the NIC moves the data, but it is copied between GPU and host memory on both nodes",
	"tcp":      "TCP sockets, host-staged: every byte goes through host memory and the CPUs' TCP/IP stacks",
	"collnet":  "in-network reduction (CollNet/SHARP)",
	"gpu-peer": "peer-to-peer between the GPUs (NVLink or PCIe)",
	"host":     "host shared memory (SHM)",
}

func verdict(np *obs.NCCLPath, net, intra []obs.Channel) string {
	var b strings.Builder
	switch {
	case len(net) > 0 && np.Path != "mixed":
		fmt.Fprintf(&b, "Between nodes NCCL took the %s path on all %d network connection(s) (%s, line %d) — %s", np.Path, len(net), net[0].Via, net[0].Line, pathWords[np.Path])
	case len(net) > 0:
		var parts []string
		byPath := map[string]int{}
		first := map[string]int{}
		for _, c := range net {
			byPath[c.Path]++
			if first[c.Path] == 0 {
				first[c.Path] = c.Line
			}
		}
		keys := make([]string, 0, len(byPath))
		for k := range byPath {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("%d %s (first at line %d)", byPath[k], k, first[k]))
		}
		fmt.Fprintf(&b, "Between nodes the %d network connections took different paths: %s", len(net), strings.Join(parts, ", "))
	case len(intra) > 0:
		fmt.Fprintf(&b, "The log shows no network connection: inside the node NCCL took the %s path (line %d) — %s", np.Intra, intra[0].Line, pathWords[np.Intra])
	default:
		b.WriteString("The log shows no channel connections (NCCL prints them with NCCL_DEBUG=INFO and NCCL_DEBUG_SUBSYS including INIT), so it does not say which path the traffic took")
	}
	if np.PXN {
		b.WriteString("; PXN: some traffic goes through the NIC of another GPU of the node (over NVLink to it first)")
	}
	if len(net) > 0 && len(intra) > 0 && np.Path != "mixed" {
		fmt.Fprintf(&b, "; inside each node: %s", np.Intra)
	}
	b.WriteString(".")
	// Why not GPUDirect RDMA, when the network path is host-staged RDMA.
	if np.Path == "rdma" || np.Path == "mixed" {
		var why []string
		said := map[string]bool{}
		if np.RingGDR != nil && !*np.RingGDR {
			why = append(why, fmt.Sprintf("the ring setup says GDR 0 (line %d)", np.RingLine))
		}
		for _, g := range np.GDR {
			if k := g.GPU + "|" + g.HCA + "|" + g.HCAName; g.Enabled || said[k] {
				continue
			} else {
				said[k] = true
			}
			switch {
			case g.HCAName != "":
				w := fmt.Sprintf("NCCL reports GPU Direct RDMA disabled for HCA %s '%s'", g.HCA, g.HCAName)
				if g.Reason != "" {
					w += " (" + g.Reason + ")"
				}
				why = append(why, w+fmt.Sprintf(" (line %d)", g.Line))
			default:
				w := fmt.Sprintf("GPU Direct RDMA disabled for GPU %s / HCA %s: distance %d > %d", g.GPU, g.HCA, g.Distance, g.Level)
				if g.Class != "" && g.LevelClass != "" {
					w += fmt.Sprintf(" (%s farther than %s, NCCL_NET_GDR_LEVEL)", g.Class, g.LevelClass)
				}
				why = append(why, w+fmt.Sprintf(" (line %d)", g.Line))
			}
			if len(why) >= 3 {
				break
			}
		}
		if len(why) == 0 {
			why = append(why, "the log does not say why (NCCL_DEBUG_SUBSYS=INIT,NET prints the GPU Direct RDMA decisions; the peer-memory module nvidia_peermem or DMA-BUF must be available)")
		}
		b.WriteString(" GPUDirect RDMA was not used: " + strings.Join(why, "; ") + ".")
	}
	if np.Path == "tcp" {
		w := " No RDMA device was used"
		if np.Network != "" && np.NetworkLine > 0 {
			w += fmt.Sprintf(" (NCCL chose network %s, line %d)", np.Network, np.NetworkLine)
		}
		b.WriteString(w + ".")
	}
	if len(np.NICs) > 0 && len(net) > 0 {
		fmt.Fprintf(&b, " NICs: %s.", strings.Join(np.NICs, ", "))
	}
	return b.String()
}
