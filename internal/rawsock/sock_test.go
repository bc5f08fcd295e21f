package rawsock

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestDialListenTransfer(t *testing.T) {
	ctx := context.Background()
	ln, err := Listen(ctx, "127.0.0.1:0", "", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	acc := make(chan *Conn, 1)
	go func() {
		c, err := ln.Accept(2*time.Second, 200*time.Millisecond, Options{})
		if err != nil {
			t.Error(err)
		}
		acc <- c
	}()
	c, err := Dial(ctx, ln.Addr().String(), "", time.Second, Options{SendBuffer: 1 << 16})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := <-acc
	if s == nil {
		t.FailNow()
	}
	defer s.Close()
	msg := []byte(strings.Repeat("gpupath", 1000))
	if err := c.WriteAll(msg); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(msg))
	if err := s.ReadFull(got); err != nil || string(got) != string(msg) {
		t.Fatalf("read %d bytes, %v", len(got), err)
	}
	if ti, err := c.TCPInfo(); err != nil || ti == nil {
		t.Errorf("TCP_INFO: %v", err)
	}
	// Nothing more comes: the read times out, and says so.
	err = s.ReadFull(got[:1])
	if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "no answer within 200 ms") {
		t.Errorf("read without data: %v", err)
	}
	// FIN: the reader sees the end of the stream.
	if err := c.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	if n, err := s.ReadSome(got); n != 0 || err != io.EOF {
		t.Errorf("after FIN: %d, %v", n, err)
	}
	if err := c.Close(); err != nil || c.Close() != nil || c.FD() != -1 {
		t.Error("Close twice")
	}
}

func TestAcceptAndDialTimeouts(t *testing.T) {
	ln, err := Listen(context.Background(), "127.0.0.1:0", "", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	start := time.Now()
	if _, err := ln.Accept(50*time.Millisecond, time.Second, Options{}); !errors.Is(err, ErrTimeout) || time.Since(start) > 2*time.Second {
		t.Errorf("accept with nobody calling: %v after %v", err, time.Since(start))
	}
	if _, err := Listen(context.Background(), ln.Addr().String(), "", time.Second); err == nil || !strings.Contains(err.Error(), "port in use") {
		t.Errorf("second listener on one port: %v", err)
	}
	if _, err := Dial(context.Background(), "no-port", "", time.Second, Options{}); err == nil {
		t.Error("an address without a port accepted")
	}
}

func TestNewConnSocketpair(t *testing.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	a, err := NewConn(fds[0], "a", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewConn(fds[1], "b", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	defer b.Close()
	if err := a.WriteAll([]byte{7}); err != nil {
		t.Fatal(err)
	}
	one := make([]byte, 1)
	if err := b.ReadFull(one); err != nil || one[0] != 7 {
		t.Errorf("socketpair: %v %v", one, err)
	}
}

// TestAcceptedPeerUnreadReadNow: what a server reads of a connection before
// it waits on it: the peer's address, whether bytes have come (Unread), what
// came (ReadNow, without waiting), and a shorter socket timeout.
func TestAcceptedPeerUnreadReadNow(t *testing.T) {
	ctx := context.Background()
	ln, err := Listen(ctx, "127.0.0.1:0", "", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := Dial(ctx, ln.Addr().String(), "", time.Second, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := ln.Accept(2*time.Second, time.Second, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if p := s.PeerAddr(); !p.Addr().Unmap().IsLoopback() || p.Port() == 0 {
		t.Errorf("peer address %v", p)
	}
	b := make([]byte, 8)
	if s.Unread() || s.ReadNow(b) != 0 {
		t.Error("bytes before any were sent")
	}
	c.WriteAll([]byte("hello"))
	for start := time.Now(); !s.Unread(); time.Sleep(time.Millisecond) {
		if time.Since(start) > 5*time.Second {
			t.Fatal("the bytes sent never showed as unread")
		}
	}
	if n := s.ReadNow(b); string(b[:n]) != "hello" || s.Unread() {
		t.Errorf("ReadNow: %q", b[:n])
	}
	if err := s.SetTimeout(50 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := s.ReadFull(b[:1]); !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "no answer within 50 ms") {
		t.Errorf("read after SetTimeout(50ms): %v", err)
	}
}
