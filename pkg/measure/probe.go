package measure

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/gpupath/gpupath/internal/rawsock"
	"github.com/gpupath/gpupath/pkg/record"
)

// ErrUnavailable marks a probe that cannot run on this machine (no GPU, no
// driver, no RDMA device, no permission). It is an ordinary outcome: the
// runner records "not measured: <reason>" and goes on.
var ErrUnavailable = errors.New("not measured")

// Unavailable returns an error wrapping ErrUnavailable with the reason.
func Unavailable(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUnavailable, fmt.Sprintf(format, args...))
}

// Probe measures one part of the real machine.
//
// Available says cheaply whether the probe can run here; a nil error means it
// may (Run can still find out otherwise and return ErrUnavailable). Run
// measures according to plan and hands every result to emit as soon as it is
// measured; it honours ctx between iterations and returns ctx.Err() when
// cancelled, keeping what it already emitted.
type Probe interface {
	Name() string
	Available() error
	Run(ctx context.Context, plan Plan, emit func(record.Result) error) error
}

// Plan is what the runner asks of a probe: the record format's plan
// (pkg/record), which the manifest keeps.
type Plan = record.Plan

var registry = map[string]func() Probe{}

// Register adds a probe constructor under its name. It is called from the
// init function of each probe's file; registering a name twice panics (a
// programming error, found by any test).
func Register(name string, newProbe func() Probe) {
	if _, dup := registry[name]; dup {
		panic("measure: probe registered twice: " + name)
	}
	registry[name] = newProbe
}

// Names lists the registered probes, sorted.
func Names() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// New returns a new instance of the named probe.
func New(name string) (Probe, error) {
	f, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("unknown probe %q (probes: %v)", name, Names())
	}
	return f(), nil
}

// SocketOptions are the settings applied to every socket of the network
// probes (buffer sizes; TCP_NODELAY is always on).
type SocketOptions = rawsock.Options

// ErrTimeout is returned (wrapped) when a peer does not answer within the
// configured timeout.
var ErrTimeout = rawsock.ErrTimeout

// ErrBusy is returned (wrapped) when a server has no session slot or buffer
// memory free for a request (its welcome says busy).
var ErrBusy = errors.New("server busy")

// InventoryReporter is implemented by probes that also find out what
// hardware is there (devices, links, topology). After Run, Inventory
// returns a JSON-able value for the manifest, next to the probe's status.
// The runner may ignore it; nothing in the results depends on it.
type InventoryReporter interface {
	Inventory() any
}

// Verboser is implemented by probes that can report diagnostics while they
// run (what was loaded, allocated, skipped). The command line sets it for
// its diagnostic mode; libraries never print by themselves.
type Verboser interface {
	SetLog(func(format string, args ...any))
}
