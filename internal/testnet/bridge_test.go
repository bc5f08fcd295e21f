//go:build linux

package testnet

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
)

// A bad tag or configuration is refused before anything is made, root or
// not.
func TestBridgeConfigRefused(t *testing.T) {
	for _, c := range []struct {
		tag  string
		cfg  BridgeConfig
		want string
	}{
		{"x", BridgeConfig{Hosts: 1}, "2 to 64"},
		{"x", BridgeConfig{Hosts: 65}, "2 to 64"},
		{"x", BridgeConfig{}, "2 to 64"},
		{"", BridgeConfig{Hosts: 2}, "tag"},
		{"a/b", BridgeConfig{Hosts: 2}, "tag"},
		{strings.Repeat("a", 33), BridgeConfig{Hosts: 2}, "tag"},
		{"x", BridgeConfig{Hosts: 2, Rate: -1}, "bad rate"},
		{"x", BridgeConfig{Hosts: 2, Rates: map[int]float64{2: 1e6}}, "host 2"},
		{"x", BridgeConfig{Hosts: 2, Rates: map[int]float64{-1: 1e6}}, "host -1"},
		{"x", BridgeConfig{Hosts: 2, Rates: map[int]float64{1: -5}}, "bad rate"},
		{"x", BridgeConfig{Hosts: 2, MTU: 67}, "MTU"},
	} {
		b, err := NewBridge(c.tag, c.cfg)
		if err == nil {
			b.Close()
			t.Errorf("NewBridge(%q, %+v) made a bridge", c.tag, c.cfg)
			continue
		}
		if errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewBridge(%q, %+v): %v; want an error saying %q", c.tag, c.cfg, err, c.want)
		}
	}
}

// TestBridge builds three hosts on one bridge, host 2 shaped to a third of
// the others' rate: every host reaches every other over TCP, a bulk
// transfer to or from host 2 runs at about a third of one between hosts 0
// and 1, and Close leaves no namespace and no link.
func TestBridge(t *testing.T) {
	need(t)
	const rate = 40e6
	b, err := NewBridge("bt", BridgeConfig{Hosts: 3, Rate: rate, Rates: map[int]float64{2: rate / 3}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for i, h := range append([]Host{b.Switch}, b.Hosts...) {
		if _, err := os.Stat(h.Path); err != nil {
			t.Fatalf("%s not mounted: %v", h.Name, err)
		}
		if i > 0 && b.Qdisc[i-1] == "" {
			t.Errorf("%s unshaped", h.Name)
		}
	}
	if b.Hosts[0].Addr == b.Hosts[1].Addr || b.Rates[2] != rate/3 || b.Rates[0] != rate {
		t.Fatalf("hosts %+v, rates %v", b.Hosts, b.Rates)
	}
	t.Logf("hosts %s %s %s; %s; host 2: %s", b.Hosts[0].Addr, b.Hosts[1].Addr, b.Hosts[2].Addr, b.Qdisc[0], b.Qdisc[2])

	checkEcho(t, b.Hosts)

	const n = 6 << 20
	fast01 := bulk(t, b.Hosts[0], b.Hosts[1], n)
	fast10 := bulk(t, b.Hosts[1], b.Hosts[0], n)
	slowOut := bulk(t, b.Hosts[2], b.Hosts[0], n)
	slowIn := bulk(t, b.Hosts[0], b.Hosts[2], n)
	t.Logf("goodput h0→h1 %.1f MB/s, h1→h0 %.1f, h2→h0 %.1f (%.2f×), h0→h2 %.1f (%.2f×)",
		fast01/1e6, fast10/1e6, slowOut/1e6, slowOut/fast01, slowIn/1e6, slowIn/fast10)
	// A third is expected; a busy machine slows the fast pair more than the
	// slow one (it needs three times the CPU), which raises the ratio.
	for _, r := range []struct {
		what  string
		ratio float64
	}{{"from the shaped host", slowOut / fast01}, {"to the shaped host", slowIn / fast10}} {
		if r.ratio >= 0.6 || r.ratio < 0.15 {
			t.Errorf("a transfer %s ran at %.2f× an unshaped pair's; want about 1/3", r.what, r.ratio)
		}
	}

	// Hold the switch's namespace past Close: once every host's namespace
	// is gone, so are their veths, and the switch keeps only lo and the
	// bridge.
	sw, err := netns.GetFromPath(b.Switch.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer sw.Close()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	checkGone(t, b)
	waitLinks(t, sw, b.Switch.Name, []string{"lo", b.Switch.Dev})
}

// TestBridgeCleanup leaves a bridge named for a pid that does not run, as a
// killed run would, and checks that Cleanup removes all of it: its
// namespaces, and with the switch's namespace the bridge and every veth.
func TestBridgeCleanup(t *testing.T) {
	need(t)
	var rnd [3]byte
	rand.Read(rnd[:])
	b, err := newBridge(999999999, "cl"+hex.EncodeToString(rnd[:]), BridgeConfig{Hosts: 3, Rates: map[int]float64{1: 1e6}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	// Hold host 0's namespace: its veth goes when the switch's namespace
	// (its peer's) goes.
	h0, err := netns.GetFromPath(b.Hosts[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	defer h0.Close()
	removed, err := Cleanup()
	if err != nil {
		t.Fatal(err)
	}
	// Another package's test process may run Cleanup at the same time and
	// remove some of them first.
	for _, name := range removed {
		if _, ok := OwnerPID(name); !ok {
			t.Errorf("Cleanup removed %s", name)
		}
	}
	checkGone(t, b)
	waitLinks(t, h0, b.Hosts[0].Name, []string{"lo"})
}

// checkGone checks that no namespace of b is left under NetnsDir and that
// the root namespace has none of its links.
func checkGone(t *testing.T, b *Bridge) {
	t.Helper()
	entries, err := os.ReadDir(NetnsDir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	base := strings.TrimSuffix(b.Switch.Name, "-sw") + "-"
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), base) {
			t.Errorf("%s left under %s", e.Name(), NetnsDir)
		}
	}
	links, err := netlink.LinkList()
	if err != nil {
		t.Fatal(err)
	}
	dev := strings.TrimSuffix(b.Switch.Dev, "br")
	for _, l := range links {
		if strings.HasPrefix(l.Attrs().Name, dev) {
			t.Errorf("link %s in the root namespace", l.Attrs().Name)
		}
	}
}

// waitLinks waits until the namespace ns holds the links want and no
// other: a removed namespace goes (with its links) once the kernel gets
// to it, which takes milliseconds on an idle machine.
func waitLinks(t *testing.T, ns netns.NsHandle, name string, want []string) {
	t.Helper()
	nh, err := netlink.NewHandleAt(ns)
	if err != nil {
		t.Fatal(err)
	}
	defer nh.Close()
	var got []string
	for deadline := time.Now().Add(30 * time.Second); ; {
		links, err := nh.LinkList()
		if err != nil {
			t.Fatal(err)
		}
		got = got[:0]
		for _, l := range links {
			got = append(got, l.Attrs().Name)
		}
		if fmt.Sprint(got) == fmt.Sprint(want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s holds links %v after Close, want %v", name, got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkEcho runs a TCP echo server on every host and has every host send a
// line to every other and read it back.
func checkEcho(t *testing.T, hosts []Host) {
	t.Helper()
	lns := make([]net.Listener, len(hosts))
	var wg sync.WaitGroup
	defer wg.Wait() // after the listeners' Close below
	for i, h := range hosts {
		if err := h.Do(func() (err error) { lns[i], err = net.Listen("tcp", h.Addr+":0"); return }); err != nil {
			t.Fatal(err)
		}
		defer lns[i].Close()
		wg.Go(func() {
			for {
				c, err := lns[i].Accept()
				if err != nil {
					return
				}
				wg.Go(func() {
					defer c.Close()
					c.SetDeadline(time.Now().Add(30 * time.Second))
					io.Copy(c, c)
				})
			}
		})
	}
	for i, from := range hosts {
		for j := range hosts {
			if i == j {
				continue
			}
			msg := fmt.Sprintf("h%d to h%d\n", i, j)
			var got []byte
			err := from.Do(func() error {
				c, err := net.DialTimeout("tcp", lns[j].Addr().String(), 10*time.Second)
				if err != nil {
					return err
				}
				defer c.Close()
				c.SetDeadline(time.Now().Add(30 * time.Second))
				if _, err := io.WriteString(c, msg); err != nil {
					return err
				}
				if err := c.(*net.TCPConn).CloseWrite(); err != nil {
					return err
				}
				got, err = io.ReadAll(c)
				return err
			})
			if err != nil {
				t.Errorf("h%d (%s) to h%d (%s): %v", i, from.Addr, j, hosts[j].Addr, err)
			} else if string(got) != msg {
				t.Errorf("h%d to h%d echoed %q, want %q", i, j, got, msg)
			}
		}
	}
}

// bulk sends 1 MiB and then n bytes from one host to another over TCP and
// returns the goodput of the n, timed at the receiver (the sender's writes
// return when the socket buffers take them).
func bulk(t *testing.T, from, to Host, n int64) float64 {
	t.Helper()
	var ln net.Listener
	if err := to.Do(func() (err error) { ln, err = net.Listen("tcp", to.Addr+":0"); return }); err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	type result struct {
		n       int64
		elapsed time.Duration
		err     error
	}
	got := make(chan result, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- result{err: err}
			return
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(60 * time.Second))
		buf := make([]byte, 64<<10)
		var r result
		var start time.Time
		for {
			k, err := c.Read(buf)
			r.n += int64(k)
			if start.IsZero() && r.n >= 1<<20 {
				start = time.Now()
			}
			if err != nil {
				if err != io.EOF {
					r.err = err
				}
				break
			}
		}
		r.elapsed = time.Since(start)
		got <- r
	}()
	err := from.Do(func() error {
		c, err := net.DialTimeout("tcp", ln.Addr().String(), 10*time.Second)
		if err != nil {
			return err
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(60 * time.Second))
		buf := make([]byte, 1<<20)
		for left := n + 1<<20; left > 0; left -= int64(len(buf)) {
			if _, err := c.Write(buf[:min(left, int64(len(buf)))]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("%s to %s: %v", from.Name, to.Name, err)
	}
	r := <-got
	if r.err != nil || r.n != n+1<<20 {
		t.Fatalf("%s to %s: received %d bytes, want %d: %v", from.Name, to.Name, r.n, n+1<<20, r.err)
	}
	return float64(n) / r.elapsed.Seconds()
}
