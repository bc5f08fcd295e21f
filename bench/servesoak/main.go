// Command servesoak is the denial-of-service soak of `gpupath serve`: it
// starts the real server as its own process on loopback and, for each mode,
// points hostile clients at it beside one honest client that connects every
// -every and completes a 64-byte ping-pong (10 round trips, one attempt per
// round, no retry):
//
//	idle16, idle64  16 or 64 sockets that connect and send nothing, and
//	                reconnect as soon as the server closes them
//	trickle8        8 clients that each announce a 256 MiB ping-pong, then
//	                trickle 1,000 bytes every 2 s, and reconnect when cut off
//
// Per mode it prints the honest rounds completed of those attempted, the
// worst wait, and what became of the hostile connections; it fails unless
// every honest round completes within -max-wait.
//
//	go build -o bin/gpupath ./cmd/gpupath && go run ./bench/servesoak -gpupath bin/gpupath -for 30s
//
// The hostile clients come from -hostile-from (default the honest client's
// own address, the hardest case: a per-source limit cannot tell them
// apart). Traffic goes to 127.0.0.0/8 only; every loop is bounded by -for.
package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"
)

// The probe's wire protocol (pkg/measure/tcpserver.go): a 32-byte hello
// ("GPTP", version u16, mode u16, size u64, chunk u64, 0 u64), an 8-byte
// welcome ("GPTP", version u16, status u16), messages, shutdown, a 32-byte
// trailer.
const (
	protoVersion = 1
	modePingPong = 1
)

func hello(size uint64) []byte {
	b := make([]byte, 32)
	copy(b, "GPTP")
	binary.LittleEndian.PutUint16(b[4:], protoVersion)
	binary.LittleEndian.PutUint16(b[6:], modePingPong)
	binary.LittleEndian.PutUint64(b[8:], size)
	return b
}

func main() {
	bin := flag.String("gpupath", "bin/gpupath", "the gpupath binary to serve")
	dur := flag.Duration("for", 30*time.Second, "how long each mode runs")
	modes := flag.String("modes", "idle16,idle64,trickle8", "comma-separated modes: idleN, trickleN")
	every := flag.Duration("every", 500*time.Millisecond, "the honest client's period")
	from := flag.String("hostile-from", "127.0.0.1", "the hostile clients' source address (127.0.0.0/8)")
	maxWait := flag.Duration("max-wait", time.Second, "an honest round must complete within this")
	flag.Parse()
	failed := false
	for _, m := range strings.Split(*modes, ",") {
		var kind string
		var n int
		if _, err := fmt.Sscanf(strings.Replace(strings.Replace(m, "idle", "idle ", 1), "trickle", "trickle ", 1), "%s %d", &kind, &n); err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "servesoak: mode %q: want idleN or trickleN\n", m)
			os.Exit(2)
		}
		if err := run(*bin, m, kind, n, *dur, *every, *from, *maxWait); err != nil {
			fmt.Fprintln(os.Stderr, "servesoak:", m+":", err)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

// fate is what became of the hostile connections of one mode.
type fate struct {
	mu                             sync.Mutex
	opened, admitted, refused, cut int
	lives                          []time.Duration // of those the server ended
}

func (f *fate) add(what string, life time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch what {
	case "opened":
		f.opened++
	case "admitted":
		f.admitted++
	case "refused":
		f.refused++
	case "cut":
		f.cut++
		f.lives = append(f.lives, life)
	}
}

func (f *fate) lifeStats() string {
	if len(f.lives) == 0 {
		return "none ended by the server"
	}
	slices.Sort(f.lives)
	return fmt.Sprintf("median life %.2f s, longest %.2f s", f.lives[len(f.lives)/2].Seconds(), f.lives[len(f.lives)-1].Seconds())
}

func run(bin, mode, kind string, n int, dur, every time.Duration, from string, maxWait time.Duration) error {
	// A free port: listen, note it, close, hand it to the server.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	addr := l.Addr().String()
	l.Close()
	srv := exec.Command(bin, "serve", "--listen", addr, "--for", (dur + 10*time.Second).String())
	out, _ := srv.StdoutPipe()
	srv.Stderr = os.Stderr
	if err := srv.Start(); err != nil {
		return err
	}
	defer func() { srv.Process.Kill(); srv.Wait() }()
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil {
		return fmt.Errorf("server did not start: %v", err)
	} else {
		fmt.Printf("== %s: %d hostile from %s beside one honest client every %v, %v\nserver: %s", mode, n, from, every, dur, line)
	}
	go io.Copy(io.Discard, out)

	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	dialer := &net.Dialer{Timeout: 2 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	var f fate
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				var ok bool
				if kind == "idle" {
					ok = idle(ctx, dialer, addr, &f)
				} else {
					ok = trickle(ctx, dialer, addr, &f)
				}
				if !ok {
					sleep(ctx, 50*time.Millisecond) // a failed dial: do not spin
				}
			}
		}()
	}
	time.Sleep(500 * time.Millisecond) // let the hostile clients in first
	var worst time.Duration
	rounds, done := 0, 0
	tick := time.NewTicker(every)
	defer tick.Stop()
	for ctx.Err() == nil {
		start := time.Now()
		err := honest(addr, maxWait+4*time.Second)
		wait := time.Since(start)
		rounds++
		if err == nil && wait <= maxWait {
			done++
		} else {
			if err == nil {
				err = errors.New("too slow")
			}
			fmt.Printf("honest round %3d: %8.3f ms FAIL %v\n", rounds, wait.Seconds()*1e3, err)
		}
		worst = max(worst, wait)
		select {
		case <-ctx.Done():
		case <-tick.C:
		}
	}
	cancel()
	wg.Wait()
	fmt.Printf("honest rounds: %d of %d completed, worst wait %.3f ms (limit %v)\n", done, rounds, worst.Seconds()*1e3, maxWait)
	if kind == "idle" {
		fmt.Printf("hostile: %d connections opened, %d closed by the server (%s), %d got a welcome\n", f.opened, f.cut, f.lifeStats(), f.admitted)
	} else {
		fmt.Printf("hostile: %d connections opened, %d admitted, %d cut off by the server (%s), %d refused as busy\n", f.opened, f.admitted, f.cut, f.lifeStats(), f.refused)
	}
	if done < rounds || rounds == 0 {
		return errors.New("the honest client was kept out")
	}
	return nil
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// idle is one idle connection: connect, send nothing, wait for the server
// to close it or the mode to end.
func idle(ctx context.Context, d *net.Dialer, addr string, f *fate) bool {
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	defer c.Close()
	f.add("opened", 0)
	start := time.Now()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	var b [8]byte
	if _, err := io.ReadFull(c, b[:]); err == nil {
		f.add("admitted", 0) // a welcome to a connection that sent nothing
		io.Copy(io.Discard, c)
	}
	if ctx.Err() == nil {
		f.add("cut", time.Since(start))
	}
	return true
}

// trickle is one hostile connection: a 256 MiB ping-pong announced, then
// 1,000 bytes every 2 s until the server cuts it off or the mode ends.
func trickle(ctx context.Context, d *net.Dialer, addr string, f *fate) bool {
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	defer c.Close()
	f.add("opened", 0)
	start := time.Now()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	if _, err := c.Write(hello(256 << 20)); err != nil {
		return true
	}
	var w [8]byte
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(c, w[:]); err != nil || binary.LittleEndian.Uint16(w[6:]) != 0 {
		if ctx.Err() == nil {
			f.add("refused", 0) // a busy answer, or closed without a welcome
			sleep(ctx, 200*time.Millisecond)
		}
		return true
	}
	f.add("admitted", 0)
	// Watch for the server's close while trickling.
	closed := make(chan struct{})
	go func() {
		c.SetReadDeadline(time.Time{})
		io.Copy(io.Discard, c)
		close(closed)
	}()
	junk := make([]byte, 1000)
	for ctx.Err() == nil {
		if _, err := c.Write(junk); err != nil {
			break
		}
		select {
		case <-closed:
		case <-ctx.Done():
		case <-time.After(2 * time.Second):
			continue
		}
		break
	}
	if ctx.Err() == nil {
		f.add("cut", time.Since(start))
	}
	return true
}

// honest is one honest round: connect, 10 round trips of 64 bytes, the
// trailer.
func honest(addr string, limit time.Duration) error {
	c, err := net.DialTimeout("tcp", addr, limit)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(limit))
	if _, err := c.Write(hello(64)); err != nil {
		return err
	}
	var w [8]byte
	if _, err := io.ReadFull(c, w[:]); err != nil {
		return fmt.Errorf("no welcome: %w", err)
	}
	if s := binary.LittleEndian.Uint16(w[6:]); s != 0 {
		return fmt.Errorf("welcome status %d (2: busy)", s)
	}
	msg := []byte(strings.Repeat("x", 64))
	back := make([]byte, 64)
	for i := 0; i < 10; i++ {
		if _, err := c.Write(msg); err != nil {
			return err
		}
		if _, err := io.ReadFull(c, back); err != nil {
			return err
		}
	}
	c.(*net.TCPConn).CloseWrite()
	var tr [32]byte
	if _, err := io.ReadFull(c, tr[:]); err != nil {
		return fmt.Errorf("no trailer: %w", err)
	}
	if string(tr[:4]) != "GPTE" || binary.LittleEndian.Uint64(tr[8:]) != 10 {
		return fmt.Errorf("bad trailer %q", tr[:12])
	}
	return nil
}
