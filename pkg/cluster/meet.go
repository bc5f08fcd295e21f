package cluster

import (
	"context"
	"net"
	"path/filepath"
	"strconv"
	"time"
)

// Meeting is how the ranks of a run find rank 0: the flags given (empty
// when not) over the launcher's environment (Rank).
type Meeting struct {
	Rank Rank
	// Peer is rank 0's control address as given to the other ranks (the
	// launcher may give every rank the same line: srun, mpirun); Listen
	// rank 0's own; Rendezvous a directory the ranks share.
	Peer, Listen, Rendezvous string
	// DefaultPort is rank 0's port when nothing names one.
	DefaultPort int
	// Wait bounds the wait for the rendezvous file.
	Wait time.Duration
}

// ListenAddr is rank 0's control address: Listen, else the port of Peer,
// MASTER_PORT+PortOffset under torchrun, any port with a rendezvous
// directory, else DefaultPort.
func (m Meeting) ListenAddr() string {
	mp, ok := m.Rank.MasterPeer()
	switch {
	case m.Listen != "":
		return m.Listen
	case m.Peer != "":
		mp = m.Peer
	case !ok && m.Rendezvous != "":
		return ":0"
	case !ok:
		return ":" + strconv.Itoa(m.DefaultPort)
	}
	_, port, _ := net.SplitHostPort(mp)
	return ":" + port
}

// Publisher is rank 0's way of telling the others where it listens: with
// a rendezvous directory, a function that writes the address listened on
// (an unspecified host: this host's first address, AdvertiseIP) to the
// job's file, and the file, which the caller removes when done; nil and
// "" without one.
func (m Meeting) Publisher() (func(addr string) error, string) {
	if m.Rendezvous == "" {
		return nil, ""
	}
	file := RendezvousFile(m.Rendezvous, m.Rank.Job)
	return func(addr string) error {
		h, port, _ := net.SplitHostPort(addr)
		if ip := net.ParseIP(h); ip == nil || ip.IsUnspecified() {
			h = AdvertiseIP()
		}
		return Publish(file, net.JoinHostPort(h, port))
	}, file
}

// Rank0 is where a rank other than 0 finds rank 0, and how it was found:
// Peer, torchrun's MASTER_ADDR:MASTER_PORT+PortOffset, or the rendezvous
// file (waited for). ErrNoPeer when nothing says.
func (m Meeting) Rank0(ctx context.Context) (addr, found string, err error) {
	if m.Peer != "" {
		return m.Peer, "flag", nil
	}
	if mp, ok := m.Rank.MasterPeer(); ok {
		return mp, "torchrun MASTER_ADDR:MASTER_PORT+1", nil
	}
	if m.Rendezvous == "" {
		return "", "", ErrNoPeer
	}
	file := RendezvousFile(m.Rendezvous, m.Rank.Job)
	a, err := Await(ctx, file, m.Wait)
	if err != nil {
		return "", "", err
	}
	return a, "rendezvous " + filepath.Base(file), nil
}
