// Command servesoak is the soak test of `gpupath serve` (issue 12): it
// starts the real server as its own process on loopback, points 8 hostile
// clients at it — each announces a 256 MiB ping-pong, then trickles 1,000
// bytes every 2 s, and reconnects when cut off — and one honest client that
// connects every second and completes a 64-byte ping-pong (10 round trips).
// It prints every honest round's wait and the worst, and fails unless every
// honest round completes within -max-wait.
//
//	go build -o bin/gpupath ./cmd/gpupath && go run ./bench/servesoak -gpupath bin/gpupath -for 60s
//
// Traffic goes to 127.0.0.1 only; every loop is bounded by -for.
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
	"strings"
	"sync"
	"sync/atomic"
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
	dur := flag.Duration("for", 60*time.Second, "how long the soak runs")
	hostile := flag.Int("hostile", 8, "hostile slow clients")
	maxWait := flag.Duration("max-wait", time.Second, "an honest round must complete within this")
	flag.Parse()
	if err := run(*bin, *dur, *hostile, *maxWait); err != nil {
		fmt.Fprintln(os.Stderr, "servesoak:", err)
		os.Exit(1)
	}
}

func run(bin string, dur time.Duration, hostile int, maxWait time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	// A free port: listen, note it, close, hand it to the server.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	addr := l.Addr().String()
	l.Close()
	srv := exec.Command(bin, "serve", "--listen", addr, "--for", (dur + 5*time.Second).String())
	out, _ := srv.StdoutPipe()
	srv.Stderr = os.Stderr
	if err := srv.Start(); err != nil {
		return err
	}
	defer srv.Process.Kill()
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil {
		return fmt.Errorf("server did not start: %v", err)
	} else {
		fmt.Print("server: ", line)
	}
	go io.Copy(io.Discard, out)

	var admitted, refused, cut atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < hostile; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				switch trickle(ctx, addr) {
				case "cut":
					admitted.Add(1)
					cut.Add(1)
				case "admitted":
					admitted.Add(1)
				case "refused":
					refused.Add(1)
					sleep(ctx, 200*time.Millisecond)
				default:
					sleep(ctx, 200*time.Millisecond)
				}
			}
		}()
	}
	time.Sleep(500 * time.Millisecond) // let the hostile clients in first
	var worst time.Duration
	rounds, failed := 0, 0
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for ctx.Err() == nil {
		start := time.Now()
		err := honest(addr, maxWait+4*time.Second)
		wait := time.Since(start)
		rounds++
		status := "ok"
		if err != nil || wait > maxWait {
			failed++
			status = fmt.Sprintf("FAIL %v", err)
		}
		worst = max(worst, wait)
		fmt.Printf("honest round %2d: %8.3f ms %s\n", rounds, wait.Seconds()*1e3, status)
		select {
		case <-ctx.Done():
		case <-tick.C:
		}
	}
	cancel()
	wg.Wait()
	fmt.Printf("hostile connections: %d admitted (%d of them cut off by the server before the end), %d refused as busy\n", admitted.Load(), cut.Load(), refused.Load())
	fmt.Printf("honest rounds: %d, failed %d, worst wait %.3f ms (limit %v)\n", rounds, failed, worst.Seconds()*1e3, maxWait)
	if failed > 0 || rounds == 0 {
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

// trickle is one hostile connection: a 256 MiB ping-pong announced, then
// 1,000 bytes every 2 s until the server cuts it off or the soak ends.
func trickle(ctx context.Context, addr string) string {
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return "dial"
	}
	defer c.Close()
	go func() { <-ctx.Done(); c.Close() }()
	if _, err := c.Write(hello(256 << 20)); err != nil {
		return "dial"
	}
	var w [8]byte
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(c, w[:]); err != nil {
		return "refused" // closed without a welcome: no slot
	}
	if binary.LittleEndian.Uint16(w[6:]) != 0 {
		return "refused"
	}
	junk := make([]byte, 1000)
	for ctx.Err() == nil {
		if _, err := c.Write(junk); err != nil {
			if ctx.Err() != nil {
				return "admitted"
			}
			return "cut"
		}
		sleep(ctx, 2*time.Second)
	}
	return "admitted"
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
		return fmt.Errorf("welcome status %d", s)
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
