//go:build linux

// Package testnet makes test hosts: two network namespaces joined by a veth
// pair (New), or N on one Ethernet bridge (NewBridge), optionally shaped
// with the tbf qdisc, built through netlink (no ip or tc commands: the GPU
// machine has no iproute2). Each namespace is bind-mounted at
// /run/netns/NAME, so `nsenter --net=/run/netns/NAME` or Host.Start runs
// any process inside it.
//
// Names start with Prefix and carry the creating process's pid, so a later
// start can remove what a killed run left behind (Cleanup). It needs root;
// Available says why not otherwise. It does not measure anything.
package testnet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"
)

// Prefix starts the name of every namespace this package makes:
// gpupath-<pid>-<tag>-a and -b for a pair, gpupath-<pid>-<tag>-sw and
// -h0, -h1, ... for a bridge.
const Prefix = "gpupath-"

// NetnsDir is where named namespaces are bind-mounted (as ip netns does).
const NetnsDir = "/run/netns"

// ErrUnavailable says test hosts cannot be made here (not root, no netns).
var ErrUnavailable = errors.New("test hosts unavailable")

// Config describes the link between the two hosts.
type Config struct {
	// Rate, when positive, shapes A→B (A's egress) with tbf to this many
	// bytes per second of frames as tbf counts them (Ethernet header + IP +
	// TCP + payload; no preamble or FCS).
	Rate float64
	// Both shapes B→A as well, with the same rate.
	Both bool
	// Burst is tbf's bucket in bytes; zero picks max(64 KiB, 4 ms at Rate).
	Burst int64
	// Latency is tbf's queue limit as time (default 20 ms).
	Latency time.Duration
	// MTU of both ends (default 1500).
	MTU int
}

// Host is one end: a named namespace with one veth device and an address.
type Host struct {
	// Name of the namespace; Path is its bind mount.
	Name, Path string
	// Dev is the veth device inside it; Addr its IPv4 address (no prefix).
	Dev, Addr string
}

// Pair is two live test hosts; Close removes them.
type Pair struct {
	A, B   Host
	Config Config
	// Qdisc describes the shaping in tc's words ("tbf rate 1000000000bit
	// burst 131072 latency 20000us"), empty when unshaped.
	Qdisc string
}

// Available says whether test hosts can be made: root and netns support.
func Available() error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("%w: network namespaces need root", ErrUnavailable)
	}
	if _, err := os.Stat("/proc/self/ns/net"); err != nil {
		return fmt.Errorf("%w: no network namespaces: %v", ErrUnavailable, err)
	}
	return nil
}

// New makes two namespaces joined by a veth pair, 10.X.Y.1 on A and
// 10.X.Y.2 on B, and shapes A's egress when cfg.Rate is set. On error it
// removes whatever it made.
func New(ctx context.Context, cfg Config) (*Pair, error) {
	if err := Available(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
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
	if cfg.Rate < 0 || math.IsNaN(cfg.Rate) || math.IsInf(cfg.Rate, 0) {
		return nil, fmt.Errorf("testnet: bad rate %g", cfg.Rate)
	}
	if cfg.Rate > 0 && cfg.Burst <= 0 {
		cfg.Burst = defaultBurst(cfg.Rate)
	}
	var rnd [3]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return nil, err
	}
	tag := hex.EncodeToString(rnd[:])
	net3 := fmt.Sprintf("10.%d.%d", 200+int(rnd[0])%50, rnd[1])
	base := fmt.Sprintf("%s%d-%s", Prefix, os.Getpid(), tag)
	p := &Pair{
		A:      Host{Name: base + "-a", Dev: "gpv" + tag + "a", Addr: net3 + ".1"},
		B:      Host{Name: base + "-b", Dev: "gpv" + tag + "b", Addr: net3 + ".2"},
		Config: cfg,
	}
	p.A.Path = filepath.Join(NetnsDir, p.A.Name)
	p.B.Path = filepath.Join(NetnsDir, p.B.Name)
	if err := p.build(); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

func (p *Pair) build() error {
	ha, hb, err := makeNamed(p.A.Name, p.B.Name)
	if err != nil {
		return err
	}
	defer ha.Close()
	defer hb.Close()

	la := netlink.NewLinkAttrs()
	la.Name = p.A.Dev
	la.MTU = p.Config.MTU
	la.Namespace = netlink.NsFd(int(ha))
	veth := &netlink.Veth{LinkAttrs: la, PeerName: p.B.Dev, PeerNamespace: netlink.NsFd(int(hb))}
	if err := netlink.LinkAdd(veth); err != nil {
		return fmt.Errorf("testnet: veth %s/%s: %w", p.A.Dev, p.B.Dev, err)
	}
	// The peer's MTU: set inside B (older kernels ignore the peer's attrs).
	for _, s := range []struct {
		ns   netns.NsHandle
		host Host
	}{{ha, p.A}, {hb, p.B}} {
		if err := configure(s.ns, s.host, p.Config.MTU); err != nil {
			return err
		}
	}
	if p.Config.Rate > 0 {
		q, err := shape(ha, p.A.Dev, p.Config)
		if err != nil {
			return err
		}
		p.Qdisc = q
		if p.Config.Both {
			if _, err := shape(hb, p.B.Dev, p.Config); err != nil {
				return err
			}
		}
	}
	return nil
}

// makeNamed creates two named namespaces and returns handles to them; the
// calling goroutine's thread is restored to its own namespace.
func makeNamed(a, b string) (netns.NsHandle, netns.NsHandle, error) {
	hs, err := makeNamespaces(a, b)
	if len(hs) == 2 {
		return hs[0], hs[1], err
	}
	for _, h := range hs {
		h.Close()
	}
	return -1, -1, err
}

// makeNamespaces creates the named namespaces in order and returns handles
// to those it made: all of them, or on error the ones made before it (the
// caller closes them and removes their names). The calling goroutine's
// thread is restored to its own namespace.
func makeNamespaces(names ...string) ([]netns.NsHandle, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	orig, err := netns.Get()
	if err != nil {
		return nil, fmt.Errorf("testnet: current namespace: %w", err)
	}
	defer orig.Close()
	defer netns.Set(orig) //nolint:errcheck // restored below too; a failure leaves the thread locked out
	hs := make([]netns.NsHandle, 0, len(names))
	for _, name := range names {
		h, err := netns.NewNamed(name)
		if err != nil {
			return hs, fmt.Errorf("testnet: namespace %s: %w", name, err)
		}
		hs = append(hs, h)
	}
	if err := netns.Set(orig); err != nil {
		// The thread is stuck in the last one: keep it locked so it dies
		// with the goroutine.
		runtime.LockOSThread()
		return hs, fmt.Errorf("testnet: back to the original namespace: %w", err)
	}
	return hs, nil
}

func configure(ns netns.NsHandle, h Host, mtu int) error {
	nh, err := netlink.NewHandleAt(ns)
	if err != nil {
		return fmt.Errorf("testnet: netlink in %s: %w", h.Name, err)
	}
	defer nh.Close()
	lo, err := nh.LinkByName("lo")
	if err != nil {
		return fmt.Errorf("testnet: lo in %s: %w", h.Name, err)
	}
	if err := nh.LinkSetUp(lo); err != nil {
		return fmt.Errorf("testnet: lo up in %s: %w", h.Name, err)
	}
	link, err := nh.LinkByName(h.Dev)
	if err != nil {
		return fmt.Errorf("testnet: %s in %s: %w", h.Dev, h.Name, err)
	}
	if link.Attrs().MTU != mtu {
		if err := nh.LinkSetMTU(link, mtu); err != nil {
			return fmt.Errorf("testnet: mtu %d on %s: %w", mtu, h.Dev, err)
		}
	}
	addr, err := netlink.ParseAddr(h.Addr + "/24")
	if err != nil {
		return err
	}
	if err := nh.AddrAdd(link, addr); err != nil {
		return fmt.Errorf("testnet: address %s on %s: %w", h.Addr, h.Dev, err)
	}
	if err := nh.LinkSetUp(link); err != nil {
		return fmt.Errorf("testnet: %s up: %w", h.Dev, err)
	}
	return nil
}

// defaultBurst is tbf's bucket when none is given: max(64 KiB, 4 ms at rate).
func defaultBurst(rate float64) int64 {
	return max(64<<10, int64(rate*0.004))
}

// shape puts tbf at the root of dev as `tc qdisc add dev DEV root tbf rate
// R burst B latency L` would: limit = rate × latency + burst, buffer = the
// time to send burst at rate, in ticks (iproute2's tc/q_tbf.c).
func shape(ns netns.NsHandle, dev string, cfg Config) (string, error) {
	nh, err := netlink.NewHandleAt(ns)
	if err != nil {
		return "", err
	}
	defer nh.Close()
	link, err := nh.LinkByName(dev)
	if err != nil {
		return "", err
	}
	rate := uint64(math.Round(cfg.Rate))
	limit := cfg.Rate*cfg.Latency.Seconds() + float64(cfg.Burst)
	if limit > math.MaxUint32 || cfg.Burst > math.MaxUint32 {
		return "", fmt.Errorf("testnet: tbf limit %g bytes too large", limit)
	}
	q := &netlink.Tbf{
		QdiscAttrs: netlink.QdiscAttrs{LinkIndex: link.Attrs().Index, Handle: netlink.MakeHandle(1, 0), Parent: netlink.HANDLE_ROOT},
		Rate:       rate,
		Limit:      uint32(limit),
		Buffer:     netlink.Xmittime(rate, uint32(cfg.Burst)),
	}
	if err := nh.QdiscAdd(q); err != nil {
		return "", fmt.Errorf("testnet: tbf on %s: %w", dev, err)
	}
	return fmt.Sprintf("tbf rate %dbit burst %d latency %dus", rate*8, cfg.Burst, cfg.Latency.Microseconds()), nil
}

// SetLink takes the veth pair down (up=false) or up again: a fault test's
// "link taken down mid-run".
func (p *Pair) SetLink(up bool) error {
	ns, err := netns.GetFromPath(p.A.Path)
	if err != nil {
		return err
	}
	defer ns.Close()
	nh, err := netlink.NewHandleAt(ns)
	if err != nil {
		return err
	}
	defer nh.Close()
	link, err := nh.LinkByName(p.A.Dev)
	if err != nil {
		return err
	}
	if up {
		return nh.LinkSetUp(link)
	}
	return nh.LinkSetDown(link)
}

// Close removes both namespaces (the veth pair and its qdiscs go with them).
// Safe to call more than once.
func (p *Pair) Close() error {
	var errs []error
	for _, name := range []string{p.A.Name, p.B.Name} {
		if name == "" {
			continue
		}
		if err := remove(name); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func remove(name string) error {
	path := filepath.Join(NetnsDir, name)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err := netns.DeleteNamed(name); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("testnet: remove %s: %w", name, err)
	}
	return nil
}

// Do runs f on an OS thread inside the host's namespace; the thread is
// returned to its own namespace afterwards (or retired if that fails).
func (h Host) Do(f func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := netns.Get()
		if err != nil {
			errc <- err
			return
		}
		defer orig.Close()
		target, err := netns.GetFromPath(h.Path)
		if err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("testnet: %s: %w", h.Name, err)
			return
		}
		defer target.Close()
		if err := netns.Set(target); err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("testnet: enter %s: %w", h.Name, err)
			return
		}
		ferr := f()
		if err := netns.Set(orig); err == nil {
			runtime.UnlockOSThread()
		} // else: stay locked; the thread exits with this goroutine
		errc <- ferr
	}()
	return <-errc
}

// Start starts cmd inside the host's namespace: the child is forked from a
// thread in that namespace and inherits it.
func (h Host) Start(cmd *exec.Cmd) error {
	return h.Do(cmd.Start)
}

// StartNamed is Start in a UTS namespace of the child's own, whose host
// name is hostname: a test host that names itself as a cluster node does.
// The thread that forks it enters a new UTS namespace for the fork and
// goes back to its own after.
func (h Host) StartNamed(cmd *exec.Cmd, hostname string) error {
	return h.Do(func() error {
		orig, err := unix.Open("/proc/thread-self/ns/uts", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("testnet: the thread's UTS namespace: %w", err)
		}
		defer unix.Close(orig)
		if err := unix.Unshare(unix.CLONE_NEWUTS); err != nil {
			return fmt.Errorf("testnet: unshare the UTS namespace: %w", err)
		}
		serr := unix.Sethostname([]byte(hostname))
		if serr == nil {
			serr = cmd.Start()
		}
		if err := unix.Setns(orig, unix.CLONE_NEWUTS); err != nil {
			panic("testnet: cannot return to the UTS namespace: " + err.Error())
		}
		return serr
	})
}

// Cleanup removes namespaces whose names start with Prefix and whose
// creating pid no longer runs (left by a run killed with SIGKILL). It
// returns the names removed.
func Cleanup() ([]string, error) {
	entries, err := os.ReadDir(NetnsDir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, e := range entries {
		pid, ok := OwnerPID(e.Name())
		if !ok || alive(pid) {
			continue
		}
		if err := remove(e.Name()); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, e.Name())
	}
	return removed, errors.Join(errs...)
}

// OwnerPID reads the creating pid out of a namespace name made here
// (gpupath-<pid>-...); ok is false for any other name.
func OwnerPID(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, Prefix)
	if !ok {
		return 0, false
	}
	num, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(num)
	if err != nil || pid <= 0 {
		return 0, false
	}
	return pid, true
}

func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
