package measure

import (
	"fmt"
	"net/netip"
	"sync"
	"time"

	"github.com/gpupath/gpupath/internal/termtext"
	"github.com/gpupath/gpupath/pkg/units"
)

// The server's log (ServerConfig.Log): one line when a session is admitted
// (the client's address, what it asked for), one when it ends (what it
// moved, in how long, and why when it was cut), and one for a connection
// refused or closed before its session (a bad hello, busy, no hello in
// time, evicted). Nothing a client does can flood it:
//
//   - refusals are logged at most once per source address every
//     ServerConfig.LogEvery (default 10 s), the next line counting those
//     not logged, and at most maxRefusalLines per LogEvery from all
//     addresses together;
//   - sessions are logged at most maxSessionLines per LogEvery (a
//     measuring client opens one or two connections per size: a full tcp
//     sweep is about 60 lines in 30 s);
//   - the addresses remembered are bounded (maxLogSources).
//
// What was not logged is counted, and said on the next line logged and when
// the server stops. A client's own bytes (a hello that is not gpupath's)
// are escaped (termtext.Clean) before they are formatted.

// DefaultLogEvery is how often one source address's refusals are logged
// at most, unless ServerConfig.LogEvery says otherwise.
const DefaultLogEvery = 10 * time.Second

const (
	// maxRefusalLines bounds the refusal lines of all sources in one
	// LogEvery: 1,000 addresses refused at once log 16 lines.
	maxRefusalLines = 16
	// maxSessionLines bounds the session lines (admitted, ended) in one
	// LogEvery.
	maxSessionLines = 200
	// maxLogSources bounds the source addresses whose last refusal line
	// is remembered; past it, refusals from a new address count as not
	// logged.
	maxLogSources = 4096
)

// serverLog is a Server's log with its limits.
type serverLog struct {
	log   func(format string, args ...any)
	every time.Duration
	now   func() time.Time

	mu sync.Mutex
	// src: per source address, when its last refusal was logged and how
	// many were refused since without a line.
	src map[netip.Addr]*srcRefusals
	// The current window of LogEvery: its start and the lines of each
	// kind in it.
	window         time.Time
	refusalLines   int
	sessionLines   int
	droppedRefused int // refusals not logged and not yet said (other addresses, the window full)
	droppedSession int // session lines not logged and not yet said
	// All refusals and session lines not logged, for the last line.
	totalRefused, totalSession int
}

type srcRefusals struct {
	last    time.Time
	skipped int
}

func newServerLog(log func(string, ...any), every time.Duration) *serverLog {
	if every <= 0 {
		every = DefaultLogEvery
	}
	return &serverLog{log: log, every: every, now: time.Now, src: map[netip.Addr]*srcRefusals{}}
}

// roll starts a new window when the current one is over; mu is held.
func (l *serverLog) roll(now time.Time) {
	if now.Sub(l.window) >= l.every {
		l.window, l.refusalLines, l.sessionLines = now, 0, 0
	}
}

// session logs one line of a session (admitted, ended) unless the window's
// session lines are spent.
func (l *serverLog) session(format string, args ...any) {
	if l == nil || l.log == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.roll(l.now())
	if l.sessionLines >= maxSessionLines {
		l.droppedSession++
		l.totalSession++
		return
	}
	l.sessionLines++
	line := fmt.Sprintf(format, args...)
	if l.droppedSession > 0 {
		line += fmt.Sprintf(" (%d session lines before it not logged: over %d in %s)", l.droppedSession, maxSessionLines, humanDuration(l.every))
		l.droppedSession = 0
	}
	l.log("%s", line)
}

// refused logs that a connection from addr was refused or closed before
// its session, and why: once per source address per window of LogEvery,
// counting the ones in between, and at most maxRefusalLines per window in
// all.
func (l *serverLog) refused(addr netip.AddrPort, why string) {
	if l == nil || l.log == nil {
		return
	}
	src := addr.Addr().Unmap()
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.roll(now)
	e := l.src[src]
	if e != nil && now.Sub(e.last) < l.every {
		e.skipped++
		l.totalRefused++
		return
	}
	if e == nil {
		if len(l.src) >= maxLogSources {
			for a, old := range l.src {
				if now.Sub(old.last) >= l.every {
					l.droppedRefused += old.skipped
					delete(l.src, a)
				}
			}
		}
		if len(l.src) >= maxLogSources {
			l.droppedRefused++
			l.totalRefused++
			return
		}
	}
	if l.refusalLines >= maxRefusalLines {
		l.droppedRefused++
		l.totalRefused++
		return
	}
	if e == nil {
		e = &srcRefusals{}
		l.src[src] = e
	}
	l.refusalLines++
	line := "refused " + addr.String() + ": " + why
	if e.skipped > 0 {
		line += fmt.Sprintf(" (and %d more from %s since %s, not logged)", e.skipped, src, e.last.Format("15:04:05"))
	}
	if l.droppedRefused > 0 {
		line += fmt.Sprintf(" (%d refusals of other addresses not logged: over %d lines in %s)", l.droppedRefused, maxRefusalLines, humanDuration(l.every))
		l.droppedRefused = 0
	}
	e.last, e.skipped = now, 0
	l.log("%s", line)
}

// stopped logs what was left unsaid when the server stops.
func (l *serverLog) stopped() {
	if l == nil || l.log == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.totalRefused+l.totalSession > 0 {
		l.log("stopped; not logged: %d refusals (one line per address every %s, at most %d lines in %s) and %d session lines (at most %d in %s)",
			l.totalRefused, humanDuration(l.every), maxRefusalLines, humanDuration(l.every), l.totalSession, maxSessionLines, humanDuration(l.every))
	}
}

// request says what a hello asked for: "pingpong of 64B messages",
// "stream of 128KiB writes in 43.7 MiB chunks", "staged 64MiB in 1 MiB
// chunks, flow 1 of 4" (sizes exact, chunks as a person reads them).
func request(mode uint16, size, chunk uint64, flow, flows int) string {
	switch mode {
	case modePingPong:
		return fmt.Sprintf("pingpong of %s messages", units.Bytes(size))
	case modeStream:
		return fmt.Sprintf("stream of %s writes in %s chunks", units.Bytes(size), units.Bytes(chunk).Human())
	default:
		return fmt.Sprintf("staged %s in %s chunks, flow %d of %d", units.Bytes(size), units.Bytes(chunk).Human(), flow+1, flows)
	}
}

// moved says what a session moved: round trips and bytes both ways, or
// bytes received, and the time.
func moved(mode uint16, size, count uint64, wall time.Duration) string {
	d := humanDuration(wall)
	if mode == modePingPong {
		return fmt.Sprintf("%d round trips, %s each way, in %s", count, units.Bytes(count*size).Human(), d)
	}
	return fmt.Sprintf("%s received in %s", units.Bytes(count).Human(), d)
}

// badHello says what is wrong with a hello, quoting what a client that is
// not gpupath sent (escaped).
func badHello(hello [helloLen]byte) string {
	if [4]byte(hello[:4]) != magicHello {
		n := len(hello)
		for n > 0 && hello[n-1] == 0 {
			n--
		}
		return "not a gpupath hello: it began \"" + termtext.Clean(string(hello[:min(n, 16)])) + "\""
	}
	return "a gpupath hello it does not take (another version, or a size or mode out of range)"
}
