package measure

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/netip"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// logLines collects a server's log lines.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) log(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logLines) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

// waitLines waits (at most 10 s) until f holds for the lines.
func (l *logLines) waitLines(t *testing.T, what string, f func([]string) bool) []string {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if ls := l.all(); f(ls) {
			return ls
		}
	}
	ls := l.all()
	t.Fatalf("%s: log %q", what, ls)
	return ls
}

func count(lines []string, sub string) int {
	n := 0
	for _, l := range lines {
		if strings.Contains(l, sub) {
			n++
		}
	}
	return n
}

// TestServeLogsSessions: the server logs a client's session when it is
// admitted (address, what it asked for) and when it ends (what it moved,
// how long it took); a hello that is not gpupath's is refused with what it
// began with, escaped; a silent connection is closed, logged too.
func TestServeLogsSessions(t *testing.T) {
	var l logLines
	s, err := Listen(context.Background(), ServerConfig{Timeout: time.Second, HelloTimeout: 200 * time.Millisecond, Log: l.log})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	go s.Serve(context.Background())
	cl := &Client{Addr: s.Addr(), Timeout: time.Second}
	if _, err := cl.PingPong(context.Background(), 64, RepeatConfig{Warmup: 1, MinIterations: 3, MaxIterations: 3}); err != nil {
		t.Fatal(err)
	}
	lines := l.waitLines(t, "a ping-pong session", func(ls []string) bool { return count(ls, "ended") == 1 })
	accepted := regexp.MustCompile(`^accepted 127\.0\.0\.1:\d+: pingpong of 64B messages \(session 1 of 16\)$`)
	ended := regexp.MustCompile(`^ended 127\.0\.0\.1:\d+: pingpong of 64B messages: 4 round trips, 256 B each way, in \d.* (ns|µs|ms|s)$`)
	if len(lines) != 2 || !accepted.MatchString(lines[0]) || !ended.MatchString(lines[1]) {
		t.Errorf("a ping-pong session logged %q", lines)
	}

	// Not gpupath, with an escape sequence in its first bytes.
	c, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	c.Write(append([]byte("GET /\x1b]0;pwned\x07 HTTP/1.1\r\n"), make([]byte, helloLen)...))
	io.ReadAll(c)
	c.Close()
	lines = l.waitLines(t, "a bad hello", func(ls []string) bool { return count(ls, "refused") == 1 })
	want := `: not a gpupath hello: it began "GET /\x1b]0;pwned\x07 "`
	if got := lines[len(lines)-1]; !strings.HasPrefix(got, "refused 127.0.0.1:") || !strings.HasSuffix(got, want) || strings.ContainsRune(got, 0x1b) {
		t.Errorf("a bad hello logged %q, want …%s", got, want)
	}

	// Silent: no hello within the hello timeout. (Another address than
	// the bad hello's, whose refusals are logged once in 10 s.)
	c, err = dialFrom(context.Background(), "127.0.0.2", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	lines = l.waitLines(t, "a silent connection", func(ls []string) bool { return count(ls, "no hello within 200 ms") == 1 })
	if got := lines[len(lines)-1]; !strings.HasPrefix(got, "refused 127.0.0.2:") {
		t.Errorf("a silent connection logged %q", got)
	}
}

// TestServeLogBounded: 1,000 connections refused as busy log one line for
// their address; from many addresses, at most maxRefusalLines in one
// window; the lines not logged are counted on the next line of their
// address and when the server stops.
func TestServeLogBounded(t *testing.T) {
	var l logLines
	// The held session waits for its first message as long as the test runs.
	s, err := Listen(context.Background(), ServerConfig{Timeout: time.Minute, MaxConns: 1, MaxPending: 64, MaxPendingPerSource: 16, Log: l.log})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	// Hold the one session.
	hold, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Close()
	hold.Write(helloBytes(8))
	var w [8]byte
	if _, err := io.ReadFull(hold, w[:]); err != nil || binary.LittleEndian.Uint16(w[6:]) != welcomeOK {
		t.Fatalf("welcome %v %v", w, err)
	}
	const n = 1000
	var busy atomic.Int64
	var wg sync.WaitGroup
	for a := range 10 { // ten addresses of 127/8, 100 connections each
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range n / 10 {
				c, err := dialFrom(context.Background(), fmt.Sprintf("127.0.1.%d", 1+a), s.Addr())
				if err != nil {
					t.Error(err)
					return
				}
				c.Write(helloBytes(4096))
				var w [8]byte
				if _, err := io.ReadFull(c, w[:]); err == nil && binary.LittleEndian.Uint16(w[6:]) == welcomeBusy {
					busy.Add(1)
				}
				c.Close()
			}
		}()
	}
	wg.Wait()
	if busy.Load() != n {
		t.Fatalf("%d of %d connections answered busy", busy.Load(), n)
	}
	l.waitLines(t, "refusals", func(ls []string) bool { return count(ls, "refused") >= 10 })
	time.Sleep(50 * time.Millisecond) // a straggler would show
	lines := l.all()
	if r := count(lines, "refused"); r != 10 || count(lines, "busy: all 1 sessions are taken; it asked for a pingpong of 4KiB messages") != 10 {
		t.Errorf("%d refused connections from 10 addresses logged %d refusal lines, want 10:\n%s", n, r, strings.Join(lines, "\n"))
	}
	cancel()
	<-done
	s.Close()
	lines = l.all()
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "stopped; not logged: 990 refusals (one line per address every 10 s, at most 16 lines in 10 s) and 0 session lines") {
		t.Errorf("last line %q", last)
	}
	if len(lines) > 14 {
		t.Errorf("%d lines for %d refused connections:\n%s", len(lines), n, strings.Join(lines, "\n"))
	}
}

// TestServerLogLimits: the limits of the log on a fake clock: one line per
// address per window, counting the refusals in between; maxRefusalLines in
// all per window, however many addresses; session lines bounded too; and
// the addresses remembered bounded.
func TestServerLogLimits(t *testing.T) {
	var l logLines
	lg := newServerLog(l.log, 10*time.Second)
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	lg.now = func() time.Time { return now }
	a := netip.MustParseAddrPort("192.0.2.7:40000")
	for range 1000 {
		lg.refused(a, "busy")
	}
	now = now.Add(10 * time.Second)
	lg.refused(a, "busy")
	lines := l.all()
	if len(lines) != 2 || lines[0] != "refused 192.0.2.7:40000: busy" ||
		lines[1] != "refused 192.0.2.7:40000: busy (and 999 more from 192.0.2.7 since 12:00:00, not logged)" {
		t.Errorf("one address:\n%s", strings.Join(lines, "\n"))
	}

	// 100,000 addresses in one window: maxRefusalLines lines, and the map
	// of addresses stays bounded.
	l.lines = nil
	now = now.Add(time.Hour)
	for i := range 100000 {
		lg.refused(netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), 1), "busy")
	}
	if got := len(l.all()); got != maxRefusalLines {
		t.Errorf("100,000 addresses: %d lines, want %d", got, maxRefusalLines)
	}
	if len(lg.src) > maxLogSources {
		t.Errorf("%d addresses remembered, at most %d", len(lg.src), maxLogSources)
	}
	now = now.Add(10 * time.Second)
	lg.refused(a, "busy")
	if last := l.all()[len(l.all())-1]; !strings.Contains(last, "(99984 refusals of other addresses not logged: over 16 lines in 10 s)") {
		t.Errorf("the next window's first line: %q", last)
	}

	// Sessions: maxSessionLines per window.
	l.lines = nil
	for i := range 3 * maxSessionLines {
		lg.session("accepted %d", i)
	}
	now = now.Add(10 * time.Second)
	lg.session("accepted again")
	lines = l.all()
	if len(lines) != maxSessionLines+1 || lines[maxSessionLines] != fmt.Sprintf("accepted again (%d session lines before it not logged: over %d in 10 s)", 2*maxSessionLines, maxSessionLines) {
		t.Errorf("%d session lines, the last %q", len(lines), lines[len(lines)-1])
	}
}
