//go:build linux

package testnet

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vishvananda/netlink"
)

// MaxBridgeHosts is the most hosts one bridge takes (and 2 the fewest).
const MaxBridgeHosts = 64

// BridgeConfig describes a bridge's hosts and their links.
type BridgeConfig struct {
	// Hosts is how many hosts hang off the bridge, 2 to MaxBridgeHosts.
	Hosts int
	// Rate, when positive, shapes every host's link to this many bytes per
	// second of frames (as Config.Rate), in both directions: tbf on the
	// host's veth (its egress) and on the bridge's port to it (its
	// ingress). Zero leaves the links unshaped.
	Rate float64
	// Rates overrides Rate for the hosts it names (index 0 to Hosts-1); a
	// zero there leaves that host unshaped.
	Rates map[int]float64
	// MTU of every link (default 1500).
	MTU int
	// Latency is tbf's queue limit as time (default 20 ms).
	Latency time.Duration
}

// Bridge is N live test hosts on one Ethernet bridge; Close removes them.
//
// The bridge lives in a namespace of its own, the switch
// (gpupath-<pid>-<tag>-sw), so the root namespace is left untouched; host i
// is the namespace gpupath-<pid>-<tag>-h<i> with one veth whose peer is a
// port of the bridge, and the address 10.X.Y.(i+1)/24.
type Bridge struct {
	// Hosts are the hosts in index order.
	Hosts []Host
	// Switch is the namespace holding the bridge; Dev is the bridge device
	// and Addr is empty.
	Switch Host
	// Ports are the bridge's ports in the switch, Ports[i] leading to
	// Hosts[i].
	Ports []string
	// Rates are the hosts' rates in bytes per second, 0 where unshaped.
	Rates []float64
	// Qdisc describes each host's shaping in tc's words (see Pair.Qdisc),
	// empty where unshaped; the port to the host has the same.
	Qdisc  []string
	Config BridgeConfig

	// made are the namespaces this bridge created, the ones Close removes.
	made []string
}

// NewBridge makes cfg.Hosts hosts on one bridge, named with tag (letters,
// digits, '_' and '-', at most 32), and shapes the links of those with a
// rate. A bad tag or cfg is an error on any machine; then, as New, it
// returns ErrUnavailable where test hosts cannot be made. On error it
// removes whatever it made.
func NewBridge(tag string, cfg BridgeConfig) (*Bridge, error) {
	return newBridge(os.Getpid(), tag, cfg)
}

// newBridge is NewBridge with the pid the names carry (a test names a dead
// one to leave what a killed run leaves).
func newBridge(pid int, tag string, cfg BridgeConfig) (*Bridge, error) {
	if err := checkTag(tag); err != nil {
		return nil, err
	}
	if cfg.Hosts < 2 || cfg.Hosts > MaxBridgeHosts {
		return nil, fmt.Errorf("testnet: a bridge of %d hosts; it takes 2 to %d", cfg.Hosts, MaxBridgeHosts)
	}
	if cfg.MTU <= 0 {
		cfg.MTU = 1500
	}
	if cfg.MTU < 68 || cfg.MTU > 65535 {
		return nil, fmt.Errorf("testnet: MTU %d out of range [68, 65535]", cfg.MTU)
	}
	if cfg.Latency <= 0 {
		cfg.Latency = 20 * time.Millisecond
	}
	if badRate(cfg.Rate) {
		return nil, fmt.Errorf("testnet: bad rate %g", cfg.Rate)
	}
	rates := make([]float64, cfg.Hosts)
	for i := range rates {
		rates[i] = cfg.Rate
	}
	idx := make([]int, 0, len(cfg.Rates))
	for i := range cfg.Rates {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for _, i := range idx {
		r := cfg.Rates[i]
		if i < 0 || i >= cfg.Hosts {
			return nil, fmt.Errorf("testnet: a rate for host %d of a bridge of %d hosts (0 to %d)", i, cfg.Hosts, cfg.Hosts-1)
		}
		if badRate(r) {
			return nil, fmt.Errorf("testnet: bad rate %g for host %d", r, i)
		}
		rates[i] = r
	}
	if err := Available(); err != nil {
		return nil, err
	}
	net3, err := bridgeSubnet()
	if err != nil {
		return nil, err
	}
	var rnd [3]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return nil, err
	}
	// Device names (15 bytes at most) carry a random tag of their own: the
	// caller's tag may be long.
	dev := "gpb" + hex.EncodeToString(rnd[:])
	base := fmt.Sprintf("%s%d-%s", Prefix, pid, tag)
	b := &Bridge{
		Switch: Host{Name: base + "-sw", Dev: dev + "br"},
		Rates:  rates,
		Qdisc:  make([]string, cfg.Hosts),
		Config: cfg,
	}
	b.Switch.Path = filepath.Join(NetnsDir, b.Switch.Name)
	for i := range cfg.Hosts {
		h := Host{
			Name: fmt.Sprintf("%s-h%d", base, i),
			Dev:  fmt.Sprintf("%sh%d", dev, i),
			Addr: fmt.Sprintf("%s.%d", net3, i+1),
		}
		h.Path = filepath.Join(NetnsDir, h.Name)
		b.Hosts = append(b.Hosts, h)
		b.Ports = append(b.Ports, fmt.Sprintf("%sp%d", dev, i))
	}
	if err := b.build(); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

func checkTag(tag string) error {
	if tag == "" || len(tag) > 32 {
		return fmt.Errorf("testnet: bridge tag %q: want 1 to 32 characters", tag)
	}
	for _, c := range tag {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return fmt.Errorf("testnet: bridge tag %q: only letters, digits, '_' and '-'", tag)
		}
	}
	return nil
}

func badRate(r float64) bool {
	return r < 0 || math.IsNaN(r) || math.IsInf(r, 0)
}

// Bridge subnets are 10.150.0.0/24 to 10.199.255.0/24 (pairs take 10.200
// and up): a random start per process, then the next one for each bridge,
// so the bridges of one process never share a subnet and those of two
// processes rarely do. (Sharing one would do no harm: each bridge's hosts
// see only that bridge, and the root namespace none.)
var (
	subnetOnce sync.Once
	subnetBase uint32
	subnetErr  error
	subnetNext atomic.Uint32
)

const bridgeSubnets = 50 * 256

func bridgeSubnet() (string, error) {
	subnetOnce.Do(func() {
		var r [4]byte
		if _, subnetErr = rand.Read(r[:]); subnetErr == nil {
			subnetBase = binary.BigEndian.Uint32(r[:]) % bridgeSubnets
		}
	})
	if subnetErr != nil {
		return "", subnetErr
	}
	n := (subnetBase + subnetNext.Add(1) - 1) % bridgeSubnets
	return fmt.Sprintf("10.%d.%d", 150+n/256, n%256), nil
}

func (b *Bridge) build() error {
	names := []string{b.Switch.Name}
	for _, h := range b.Hosts {
		names = append(names, h.Name)
	}
	hs, err := makeNamespaces(names...)
	for _, h := range hs {
		defer h.Close()
	}
	b.made = names[:len(hs)]
	if err != nil {
		return err
	}
	sw := hs[0]
	nh, err := netlink.NewHandleAt(sw)
	if err != nil {
		return fmt.Errorf("testnet: netlink in %s: %w", b.Switch.Name, err)
	}
	defer nh.Close()
	la := netlink.NewLinkAttrs()
	la.Name = b.Switch.Dev
	la.MTU = b.Config.MTU
	if err := nh.LinkAdd(&netlink.Bridge{LinkAttrs: la}); err != nil {
		return fmt.Errorf("testnet: bridge %s: %w", b.Switch.Dev, err)
	}
	br, err := nh.LinkByName(b.Switch.Dev)
	if err != nil {
		return fmt.Errorf("testnet: bridge %s: %w", b.Switch.Dev, err)
	}
	for i, h := range b.Hosts {
		ns := hs[i+1]
		la := netlink.NewLinkAttrs()
		la.Name = h.Dev
		la.MTU = b.Config.MTU
		la.Namespace = netlink.NsFd(int(ns))
		veth := &netlink.Veth{LinkAttrs: la, PeerName: b.Ports[i], PeerNamespace: netlink.NsFd(int(sw))}
		if err := netlink.LinkAdd(veth); err != nil {
			return fmt.Errorf("testnet: veth %s/%s: %w", h.Dev, b.Ports[i], err)
		}
		if err := configure(ns, h, b.Config.MTU); err != nil {
			return err
		}
		if err := b.attach(nh, br, b.Ports[i]); err != nil {
			return err
		}
		if b.Rates[i] > 0 {
			cfg := Config{Rate: b.Rates[i], Burst: defaultBurst(b.Rates[i]), Latency: b.Config.Latency}
			q, err := shape(ns, h.Dev, cfg)
			if err != nil {
				return err
			}
			if _, err := shape(sw, b.Ports[i], cfg); err != nil {
				return err
			}
			b.Qdisc[i] = q
		}
	}
	if err := nh.LinkSetUp(br); err != nil {
		return fmt.Errorf("testnet: bridge %s up: %w", b.Switch.Dev, err)
	}
	return nil
}

// attach makes port (the switch's end of a veth) a port of br and brings it
// up; its MTU is set here, older kernels ignoring the peer's attributes.
func (b *Bridge) attach(nh *netlink.Handle, br netlink.Link, port string) error {
	link, err := nh.LinkByName(port)
	if err != nil {
		return fmt.Errorf("testnet: %s in %s: %w", port, b.Switch.Name, err)
	}
	if link.Attrs().MTU != b.Config.MTU {
		if err := nh.LinkSetMTU(link, b.Config.MTU); err != nil {
			return fmt.Errorf("testnet: mtu %d on %s: %w", b.Config.MTU, port, err)
		}
	}
	if err := nh.LinkSetMaster(link, br); err != nil {
		return fmt.Errorf("testnet: %s onto bridge %s: %w", port, b.Switch.Dev, err)
	}
	if err := nh.LinkSetUp(link); err != nil {
		return fmt.Errorf("testnet: %s up: %w", port, err)
	}
	return nil
}

// Close removes every namespace of the bridge (the veths, the bridge and
// their qdiscs go with them). Safe to call more than once.
func (b *Bridge) Close() error {
	if b == nil {
		return nil
	}
	var errs []error
	for _, name := range b.made {
		if err := remove(name); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
