package measure

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/gpupath/gpupath/internal/rawsock"
)

// Client is the sending end of the TCP probe. It talks to a Server (in this
// process or on a peer host) and times ping-pong round trips and streams.
type Client struct {
	// Addr is the server's host:port.
	Addr string
	// Netns names the network namespace to connect from (empty: this one).
	Netns string
	// Timeout bounds the connect and every read and write (default 5s).
	Timeout time.Duration
	// Socket options for the connection.
	Socket SocketOptions
	// StreamIteration is the wall time one stream sample aims at (default
	// 50ms): the chunk of bytes between two acks is sized from a first
	// calibration run so that one chunk takes about this long.
	StreamIteration time.Duration
	// BusyWait is how long a connection keeps trying a peer that answers
	// "busy", with exponential backoff and jitter (default 30s; negative:
	// one try).
	BusyWait time.Duration
	// Until, when set, is the end of the probe's budget: a busy peer is not
	// waited for past it, and the wait that reaches it ends the probe's
	// sweep with ErrBudgetSpent (a partial probe), not a failure.
	Until time.Time
}

// DefaultBusyWait is how long a Client keeps trying a busy peer unless told
// otherwise.
const DefaultBusyWait = 30 * time.Second

// CPUTime is CPU seconds spent in user and system mode.
type CPUTime struct {
	User float64 `json:"user_s"`
	Sys  float64 `json:"sys_s"`
}

// Total is user plus system time.
func (c CPUTime) Total() float64 { return c.User + c.Sys }

// Exchange is what one TCP measurement (one size, one mode) found.
type Exchange struct {
	// Stats of the recorded samples: half round trips (ping-pong) or seconds
	// per chunk (stream).
	Stats   Stats
	Samples []float64
	// Size is the message (ping-pong) or write (stream) size in bytes.
	Size int64
	// Chunk is the bytes per stream sample (stream only).
	Chunk int64
	// Messages counts all round trips (ping-pong) or writes (stream) on the
	// measured connection, warm-up included: the CPU times below cover them.
	Messages int64
	// Bytes is the payload the client sent on the measured connection.
	Bytes int64
	// Client is the CPU time of the client's thread, Server that of the
	// server's thread as the server reported it, over the whole connection.
	Client, Server CPUTime
	// MSS is the sender's maximum segment size (TCP_INFO snd_mss) and
	// Timestamps whether the TCP timestamp option is on (12 more header bytes
	// per segment); Retransmits is the connection's total_retrans.
	MSS         int
	Timestamps  bool
	Retransmits int
}

// TCPHeaderBytes is the IPv4 plus TCP header bytes of one full segment of the
// exchange: 20 + 20, plus 12 with timestamps.
func (e *Exchange) TCPHeaderBytes() int {
	h := 40
	if e.Timestamps {
		h += 12
	}
	return h
}

func (c *Client) timeout() time.Duration {
	if c.Timeout <= 0 {
		return 5 * time.Second
	}
	return c.Timeout
}

// open connects and performs the hello/welcome handshake.
func (c *Client) open(ctx context.Context, mode uint16, size, chunk int64) (*rawsock.Conn, error) {
	return c.openWith(ctx, mode, size, chunk, 0)
}

// openWith is open with the hello's last word set (a staged transfer's
// flow). A "busy" peer is tried again, after 50 ms, then twice as long each
// time up to 2 s, each wait jittered by up to half of it, for BusyWait in
// all; past it, one error says so.
func (c *Client) openWith(ctx context.Context, mode uint16, size, chunk int64, word uint64) (*rawsock.Conn, error) {
	budget := c.BusyWait
	if budget == 0 {
		budget = DefaultBusyWait
	}
	start := time.Now()
	backoff := 50 * time.Millisecond
	for tries := 1; ; tries++ {
		conn, err := c.openOnce(ctx, mode, size, chunk, word)
		if !errors.Is(err, ErrBusy) {
			return conn, err
		}
		wait := backoff/2 + rand.N(backoff/2+1)
		if !c.Until.IsZero() && time.Now().Add(wait).After(c.Until) {
			return nil, fmt.Errorf("peer %s stayed busy for %s over %d tries, until the probe's budget ended (all its sessions or its buffer memory are taken): %w (%w)",
				c.Addr, humanDuration(time.Since(start)), tries, ErrBudgetSpent, ErrBusy)
		}
		if time.Since(start)+wait > budget {
			if tries == 1 {
				return nil, err
			}
			return nil, fmt.Errorf("peer %s stayed busy for %s over %d tries (all its sessions or its buffer memory are taken); try again later: %w",
				c.Addr, humanDuration(time.Since(start)), tries, ErrBusy)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		backoff = min(2*backoff, 2*time.Second)
	}
}

// openOnce connects once and performs the handshake.
func (c *Client) openOnce(ctx context.Context, mode uint16, size, chunk int64, word uint64) (*rawsock.Conn, error) {
	conn, err := rawsock.Dial(ctx, c.Addr, c.Netns, c.timeout(), c.Socket)
	if err != nil {
		return nil, err
	}
	var hello [helloLen]byte
	copy(hello[:], magicHello[:])
	binary.LittleEndian.PutUint16(hello[4:], protoVersion)
	binary.LittleEndian.PutUint16(hello[6:], mode)
	binary.LittleEndian.PutUint64(hello[8:], uint64(size))
	binary.LittleEndian.PutUint64(hello[16:], uint64(chunk))
	binary.LittleEndian.PutUint64(hello[24:], word)
	if err := conn.WriteAll(hello[:]); err != nil {
		conn.Close()
		return nil, err
	}
	var w [8]byte
	if err := conn.ReadFull(w[:]); err != nil {
		conn.Close()
		if errors.Is(err, ErrTimeout) {
			return nil, fmt.Errorf("peer %s did not answer the gpupath handshake within %s: %w", c.Addr, humanDuration(c.timeout()), ErrTimeout)
		}
		return nil, fmt.Errorf("peer %s: handshake: %w", c.Addr, err)
	}
	if [4]byte(w[:4]) != magicHello {
		conn.Close()
		return nil, fmt.Errorf("peer %s is not a gpupath server", c.Addr)
	}
	if v := binary.LittleEndian.Uint16(w[4:]); v != protoVersion {
		conn.Close()
		return nil, fmt.Errorf("peer %s speaks protocol version %d, want %d", c.Addr, v, protoVersion)
	}
	switch st := binary.LittleEndian.Uint16(w[6:]); st {
	case welcomeOK:
	case welcomeBusy:
		conn.Close()
		return nil, fmt.Errorf("peer %s is busy (all its sessions or its buffer memory are taken): %w", c.Addr, ErrBusy)
	default:
		conn.Close()
		return nil, fmt.Errorf("peer %s refused the request (size %d bytes)", c.Addr, size)
	}
	return conn, nil
}

// finish ends the stream and reads the server's trailer.
func (c *Client) finish(conn *rawsock.Conn) (count uint64, server CPUTime, err error) {
	if err := conn.CloseWrite(); err != nil {
		return 0, CPUTime{}, err
	}
	var tr [trailerLen]byte
	if err := conn.ReadFull(tr[:]); err != nil {
		return 0, CPUTime{}, fmt.Errorf("peer %s: reading its CPU report: %w", c.Addr, err)
	}
	if [4]byte(tr[:4]) != magicTrailer {
		return 0, CPUTime{}, fmt.Errorf("peer %s: bad trailer", c.Addr)
	}
	count = binary.LittleEndian.Uint64(tr[8:])
	server.User = float64(binary.LittleEndian.Uint64(tr[16:])) * 1e-9
	server.Sys = float64(binary.LittleEndian.Uint64(tr[24:])) * 1e-9
	return count, server, nil
}

// PingPong times round trips of size-byte messages and returns half round
// trips as samples. The goroutine is locked to its OS thread for the run, so
// the thread's CPU time is the cost of this connection.
func (c *Client) PingPong(ctx context.Context, size int64, cfg RepeatConfig) (*Exchange, error) {
	if size < 1 || size > maxMessage {
		return nil, fmt.Errorf("ping-pong size %d out of range [1, %d]", size, maxMessage)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	conn, err := c.open(ctx, modePingPong, size, 0)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	buf := make([]byte, size)
	for i := range buf {
		buf[i] = byte(i)
	}
	var trips int64
	u0, s0 := ThreadCPU()
	st, samples, err := Repeat(ctx, cfg, func() (float64, error) {
		t0 := time.Now()
		if err := conn.WriteAll(buf); err != nil {
			return 0, err
		}
		if err := conn.ReadFull(buf); err != nil {
			return 0, err
		}
		trips++
		return time.Since(t0).Seconds() / 2, nil
	})
	u1, s1 := ThreadCPU()
	if err != nil {
		return nil, err
	}
	ex := &Exchange{Stats: st, Samples: samples, Size: size, Messages: trips, Bytes: trips * size,
		Client: CPUTime{u1 - u0, s1 - s0}}
	ex.tcpInfo(conn)
	n, server, err := c.finish(conn)
	if err != nil {
		return nil, err
	}
	if int64(n) != trips {
		return nil, fmt.Errorf("peer %s echoed %d messages, client sent %d", c.Addr, n, trips)
	}
	ex.Server = server
	return ex, nil
}

// Stream times the transfer of chunks of bytes sent in writes of size bytes,
// each chunk ending when the server acknowledges its last byte: a sample is
// the application-to-application goodput time of one chunk, so queues on the
// way (socket buffers, a shaping qdisc) are drained inside it.
func (c *Client) Stream(ctx context.Context, size int64, cfg RepeatConfig) (*Exchange, error) {
	if size < 1 || size > maxMessage {
		return nil, fmt.Errorf("stream write size %d out of range [1, %d]", size, maxMessage)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	buf := make([]byte, size)
	for i := range buf {
		buf[i] = byte(i)
	}
	target := c.StreamIteration
	if target <= 0 {
		target = 50 * time.Millisecond
	}
	// Calibrate the chunk on a first connection: send growing chunks for
	// about target/2, take the rate of the last, and size the chunk so that
	// one takes about target.
	rate, err := c.calibrate(ctx, buf, target/2)
	if err != nil {
		return nil, err
	}
	chunk := int64(rate * target.Seconds())
	chunk = max(size, (chunk+size-1)/size*size)
	// What a chunk takes at that rate: Repeat skips even the first warm-up
	// when the probe's deadline leaves no room for it and a sample.
	cfg.expect = time.Duration(float64(chunk) / rate * float64(time.Second))
	conn, err := c.open(ctx, modeStream, size, chunk)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	var ack [8]byte
	var writes int64
	u0, s0 := ThreadCPU()
	st, samples, err := Repeat(ctx, cfg, func() (float64, error) {
		t0 := time.Now()
		for sent := int64(0); sent < chunk; sent += size {
			if err := conn.WriteAll(buf[:min(size, chunk-sent)]); err != nil {
				return 0, err
			}
			writes++
		}
		if err := conn.ReadFull(ack[:]); err != nil {
			return 0, err
		}
		return time.Since(t0).Seconds(), nil
	})
	u1, s1 := ThreadCPU()
	if err != nil {
		return nil, err
	}
	sentBytes := int64(len(samples)) * chunk
	ex := &Exchange{Stats: st, Samples: samples, Size: size, Chunk: chunk, Messages: writes,
		Client: CPUTime{u1 - u0, s1 - s0}}
	ex.tcpInfo(conn)
	n, server, err := c.finish(conn)
	if err != nil {
		return nil, err
	}
	// Warm-up chunks were sent too: the server's count is the true total.
	if n%uint64(chunk) != 0 || int64(n) < sentBytes {
		return nil, fmt.Errorf("peer %s received %d bytes, not a whole number of %d-byte chunks", c.Addr, n, chunk)
	}
	ex.Bytes = int64(n)
	ex.Server = server
	return ex, nil
}

// calibrationChunk is the first chunk of a stream's calibration (or one
// write, when larger).
const calibrationChunk = 64 << 10

// calibrate streams for about d on one connection, one chunk per ack,
// doubling the chunk (from 64 KiB or one write) while a chunk takes under a
// quarter of d, and returns the rate of the last chunk in bytes per second.
func (c *Client) calibrate(ctx context.Context, buf []byte, d time.Duration) (float64, error) {
	size := int64(len(buf))
	chunk := max(size, calibrationChunk/size*size)
	// The server acks every `unit` bytes; a chunk is a whole number of units.
	unit := chunk
	conn, err := c.open(ctx, modeStream, size, unit)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	var ack [8]byte
	start := time.Now()
	var rate float64
	for i := 0; i < 64; i++ {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		t0 := time.Now()
		for s := int64(0); s < chunk; s += size {
			if err := conn.WriteAll(buf[:min(size, chunk-s)]); err != nil {
				return 0, err
			}
		}
		for a := int64(0); a < chunk/unit; a++ {
			if err := conn.ReadFull(ack[:]); err != nil {
				return 0, err
			}
		}
		el := time.Since(t0)
		if el > 0 {
			rate = float64(chunk) / el.Seconds()
		}
		if time.Since(start) >= d {
			break
		}
		if el < d/4 {
			chunk *= 2
		}
	}
	if _, _, err := c.finish(conn); err != nil {
		return 0, err
	}
	if rate <= 0 {
		return 0, errors.New("stream calibration measured no rate")
	}
	return rate, nil
}

func (e *Exchange) tcpInfo(conn *rawsock.Conn) {
	ti, err := conn.TCPInfo()
	if err != nil {
		return
	}
	e.MSS = int(ti.Snd_mss)
	e.Timestamps = ti.Options&1 != 0 // TCPI_OPT_TIMESTAMPS
	e.Retransmits = int(ti.Total_retrans)
}

// perMessage divides a CPU time over n messages; NaN when there are none.
func perMessage(c CPUTime, n float64) CPUTime {
	if n <= 0 {
		return CPUTime{math.NaN(), math.NaN()}
	}
	return CPUTime{c.User / n, c.Sys / n}
}
