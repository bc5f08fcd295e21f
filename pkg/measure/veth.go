package measure

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/gpupath/gpupath/internal/compact"
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
	// Timeout bounds each ip/tc command (default 10s).
	Timeout time.Duration
}

// NetnsPrefix starts the name of every network namespace the probes make:
// gpupath-<pid>-<random>-s (server side) and -c (client side).
const NetnsPrefix = "gpupath-"

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
	// Qdisc is the tc command line that shaped the client side, if any.
	Qdisc string
}

// VethAvailable says whether veth pairs can be made here: root and the ip
// and tc commands.
func VethAvailable() error {
	if os.Geteuid() != 0 {
		return Unavailable("veth target needs root (network namespaces)")
	}
	for _, tool := range []string{"ip", "tc"} {
		if _, err := exec.LookPath(tool); err != nil {
			return Unavailable("veth target needs %s (iproute2): %v", tool, err)
		}
	}
	return nil
}

// NewVeth creates two network namespaces joined by a veth link, with
// 10.R.R.1 on the server side and 10.R.R.2 on the client side, and shapes
// the client's egress when cfg.Rate is set. On any error it removes what it
// made. The caller must Close the pair, also on failure paths.
func NewVeth(ctx context.Context, cfg VethConfig) (*Veth, error) {
	if err := VethAvailable(); err != nil {
		return nil, err
	}
	if cfg.MTU <= 0 {
		cfg.MTU = 1500
	}
	if cfg.Latency <= 0 {
		cfg.Latency = 20 * time.Millisecond
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.Rate > 0 && cfg.Burst <= 0 {
		cfg.Burst = max(64<<10, int64(cfg.Rate*0.004))
	}
	var rnd [3]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return nil, err
	}
	tag := hex.EncodeToString(rnd[:])
	// 10.<a>.<b>.0/24 from the random tag: unlikely to meet a real route.
	net3 := fmt.Sprintf("10.%d.%d", 200+int(rnd[0])%50, rnd[1])
	v := &Veth{
		// The pid in the names tells whose namespaces they are (a run
		// killed with SIGKILL cannot remove its own).
		ServerNs:  fmt.Sprintf("%s%d-%s-s", NetnsPrefix, os.Getpid(), tag),
		ClientNs:  fmt.Sprintf("%s%d-%s-c", NetnsPrefix, os.Getpid(), tag),
		ServerDev: "gpv" + tag + "s", ClientDev: "gpv" + tag + "c",
		ServerAddr: net3 + ".1", ClientAddr: net3 + ".2",
		Config: cfg,
	}
	run := func(args ...string) error { return runCmd(ctx, cfg.Timeout, args...) }
	steps := [][]string{
		{"ip", "netns", "add", v.ServerNs},
		{"ip", "netns", "add", v.ClientNs},
		{"ip", "link", "add", v.ServerDev, "netns", v.ServerNs, "mtu", strconv.Itoa(cfg.MTU), "type", "veth",
			"peer", "name", v.ClientDev, "netns", v.ClientNs, "mtu", strconv.Itoa(cfg.MTU)},
		{"ip", "-n", v.ServerNs, "addr", "add", v.ServerAddr + "/24", "dev", v.ServerDev},
		{"ip", "-n", v.ClientNs, "addr", "add", v.ClientAddr + "/24", "dev", v.ClientDev},
		{"ip", "-n", v.ServerNs, "link", "set", "lo", "up"},
		{"ip", "-n", v.ClientNs, "link", "set", "lo", "up"},
		{"ip", "-n", v.ServerNs, "link", "set", v.ServerDev, "up"},
		{"ip", "-n", v.ClientNs, "link", "set", v.ClientDev, "up"},
	}
	if cfg.Rate > 0 {
		tbf := []string{"tc", "-n", v.ClientNs, "qdisc", "add", "dev", v.ClientDev, "root", "tbf",
			"rate", strconv.FormatInt(int64(math.Round(cfg.Rate*8)), 10) + "bit",
			"burst", strconv.FormatInt(cfg.Burst, 10),
			"latency", strconv.FormatInt(cfg.Latency.Microseconds(), 10) + "us"}
		v.Qdisc = strings.Join(tbf, " ")
		steps = append(steps, tbf)
	}
	for _, s := range steps {
		if err := run(s...); err != nil {
			v.Close()
			return nil, err
		}
	}
	return v, nil
}

// Close deletes both namespaces (which deletes the veth pair and its qdisc).
// It is safe to call more than once and works after a cancelled context.
func (v *Veth) Close() error {
	var errs []error
	for _, ns := range []string{v.ServerNs, v.ClientNs} {
		if ns == "" {
			continue
		}
		if _, err := os.Stat("/var/run/netns/" + ns); errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err := runCmd(context.Background(), 10*time.Second, "ip", "netns", "del", ns); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Label describes the target for records: "veth" or "veth tbf 1Gbit/s".
func (v *Veth) Label() string {
	if v.Config.Rate > 0 {
		return "veth tbf " + compact.BitRate(v.Config.Rate)
	}
	return "veth"
}

// runCmd runs a command with a deadline and returns its stderr in the error.
func runCmd(ctx context.Context, timeout time.Duration, args ...string) error {
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out, err := exec.CommandContext(cctx, args[0], args[1:]...).CombinedOutput()
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if msg == "" {
			msg = err.Error()
		}
		return fmt.Errorf("%s: %s", strings.Join(args, " "), msg)
	}
	return nil
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
