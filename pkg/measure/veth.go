package measure

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/gpupath/gpupath/internal/testnet"
	"github.com/gpupath/gpupath/pkg/units"
)

// VethConfig describes a pair of network namespaces joined by a veth link,
// the "two hosts in one box" target of the network probes.
type VethConfig struct {
	// Rate, when positive, shapes the client→server direction with the tbf
	// qdisc to this many bytes per second of frames as tbf counts them
	// (Ethernet header + IP + TCP + payload, no preamble or FCS).
	Rate float64
	// Burst is tbf's bucket in bytes; zero picks max(64 KiB, 4 ms at Rate).
	Burst int64
	// Latency is tbf's queue limit expressed as time (default 20ms).
	Latency time.Duration
	// MTU of both ends (default 1500).
	MTU int
	// Timeout is not used since the pair is made through netlink (no
	// commands to bound); kept for callers that set it.
	Timeout time.Duration
}

// NetnsPrefix starts the name of every network namespace the probes make:
// gpupath-<pid>-<random>-a (client side) and -b (server side).
const NetnsPrefix = testnet.Prefix

// Veth is a live pair of namespaces; Close removes them.
type Veth struct {
	// ServerNs and ClientNs are the namespace names (for ip netns, rawsock.InNetns).
	ServerNs, ClientNs string
	// ServerDev and ClientDev are the interface names inside them.
	ServerDev, ClientDev string
	// ServerAddr and ClientAddr are the IPv4 addresses (no prefix length).
	ServerAddr, ClientAddr string
	// Config is the configuration the pair was built with, defaults filled in.
	Config VethConfig
	// Qdisc is the shaping of the client side in tc's words, if any.
	Qdisc string

	pair *testnet.Pair
}

// VethAvailable says whether veth pairs can be made here: root and network
// namespaces (they are made through netlink: no ip or tc commands).
func VethAvailable() error {
	if err := testnet.Available(); err != nil {
		return Unavailable("veth target: %v", err)
	}
	return nil
}

// NewVeth creates two network namespaces joined by a veth link
// (internal/testnet, through netlink), the client side first, and shapes the
// client's egress when cfg.Rate is set. It first removes namespaces that a
// killed run left behind (testnet.Cleanup). On any error it removes what it
// made. The caller must Close the pair, also on failure paths.
func NewVeth(ctx context.Context, cfg VethConfig) (*Veth, error) {
	if err := VethAvailable(); err != nil {
		return nil, err
	}
	if _, err := testnet.Cleanup(); err != nil {
		return nil, fmt.Errorf("veth: removing namespaces of killed runs: %w", err)
	}
	// A is the client (its egress is the shaped direction), B the server.
	p, err := testnet.New(ctx, testnet.Config{Rate: cfg.Rate, Burst: cfg.Burst, Latency: cfg.Latency, MTU: cfg.MTU})
	if err != nil {
		return nil, err
	}
	cfg.MTU, cfg.Latency, cfg.Burst = p.Config.MTU, p.Config.Latency, p.Config.Burst
	v := &Veth{
		ServerNs: p.B.Name, ClientNs: p.A.Name,
		ServerDev: p.B.Dev, ClientDev: p.A.Dev,
		ServerAddr: p.B.Addr, ClientAddr: p.A.Addr,
		Config: cfg, pair: p,
	}
	if p.Qdisc != "" {
		v.Qdisc = "tc -n " + p.A.Name + " qdisc add dev " + p.A.Dev + " root " + p.Qdisc
	}
	return v, nil
}

// Close deletes both namespaces (which deletes the veth pair and its qdisc).
// It is safe to call more than once and works after a cancelled context.
func (v *Veth) Close() error {
	if v.pair == nil {
		return nil
	}
	return v.pair.Close()
}

// Label describes the target for records: "veth" or "veth tbf 1Gbit/s".
func (v *Veth) Label() string {
	if v.Config.Rate > 0 {
		return "veth tbf " + units.Rate(v.Config.Rate).CompactBits()
	}
	return "veth"
}

// GoodputForFrameRate is the TCP payload rate that a link passing rate bytes
// per second of frames carries when every segment holds mss payload bytes
// under hdr bytes of IP and TCP headers and link bytes of link-layer header
// (14 for Ethernet as the qdisc sees it): rate × mss / (mss + hdr + link).
// ACKs travel the other way and do not count against this direction.
func GoodputForFrameRate(rate float64, mss, hdr, link int) float64 {
	if mss <= 0 {
		return math.NaN()
	}
	return rate * float64(mss) / float64(mss+hdr+link)
}
