package model

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/gpupath/gpupath/pkg/units"
)

// Stack is a software stack that drives a path's transport: the program
// or library between the application and the verbs or sockets (perftest,
// UCX, NCCL, NVSHMEM), chosen by software.stack. A path's Build gives the
// bare transport — the application posts from its own thread and polls
// its own completions, as perftest's verbs do; a stack adds its own named
// stages on top of them (a proxy thread's hand-off, a bounce copy, a
// rendezvous handshake) or changes who does the posting. Stacks are data,
// like paths: each is one file of this package that registers itself
// (RegisterStack).
type Stack struct {
	Name  string
	Title string
	// Story says in a sentence what the stack adds to the bare transport.
	Story string
	// Order places the stack in presentation order (ascending).
	Order int
	// Wrap puts the stack on path p's bare stages on s: it returns the
	// stages to evaluate, a note for the reader ("" when none; also where
	// the stack leaves a path it does not drive bare), or the reason the
	// path is infeasible under the stack. A nil Wrap leaves every path
	// bare.
	Wrap func(s *Scenario, p Path, bare []Stage) (stages []Stage, note, reason string)
}

// The built-in stacks' names (software.stack).
const (
	StackNone     = "none"
	StackPerftest = "perftest"
	StackUCX      = "ucx"
	StackNCCL     = "nccl"
	StackNVSHMEM  = "nvshmem"
)

var (
	stacksMu sync.RWMutex
	stacks   []Stack // in presentation order
)

// RegisterStack adds a stack to the registry, in its Order among the
// others, and returns a function that removes it again (for tests). It is
// an error to register a name twice or a stack without a name.
func RegisterStack(st Stack) (unregister func(), err error) {
	if st.Name == "" || strings.ContainsAny(st.Name, ", ") {
		return nil, fmt.Errorf("model: stack name %q: a name is one word without commas", st.Name)
	}
	stacksMu.Lock()
	defer stacksMu.Unlock()
	for _, q := range stacks {
		if q.Name == st.Name {
			return nil, fmt.Errorf("model: stack %s is registered twice", st.Name)
		}
	}
	i := len(stacks)
	for i > 0 && stacks[i-1].Order > st.Order {
		i--
	}
	stacks = slices.Insert(stacks, i, st)
	return func() {
		stacksMu.Lock()
		defer stacksMu.Unlock()
		stacks = slices.DeleteFunc(stacks, func(q Stack) bool { return q.Name == st.Name })
	}, nil
}

func mustRegisterStack(st Stack) {
	if _, err := RegisterStack(st); err != nil {
		panic(err)
	}
}

// Stacks lists every software stack in presentation order.
func Stacks() []Stack {
	stacksMu.RLock()
	defer stacksMu.RUnlock()
	return slices.Clone(stacks)
}

// StackNames lists the stack names in presentation order.
func StackNames() []string {
	out := []string{}
	for _, st := range Stacks() {
		out = append(out, st.Name)
	}
	return out
}

// LookupStack finds a stack by name.
func LookupStack(name string) (Stack, error) {
	for _, st := range Stacks() {
		if st.Name == name {
			return st, nil
		}
	}
	return Stack{}, fmt.Errorf("unknown software stack %q (stacks: %s)", name, strings.Join(StackNames(), ", "))
}

func init() {
	mustRegisterStack(Stack{Name: StackNone, Title: "the bare transport", Order: 0,
		Story: "No stack: the application posts its work requests from its own thread, polls its own completions and sends host payloads inline up to nic.inline_size — the transport as perftest's verbs run it, without perftest's own choices."})
}

// wrap puts s's software stack on p's bare stages.
func (s *Scenario) wrap(p Path, bare []Stage) ([]Stage, string, string) {
	st, err := LookupStack(s.Software.Stack)
	if err != nil || st.Wrap == nil {
		return bare, "", ""
	}
	return st.Wrap(s, p, bare)
}

// WithStack returns a copy of s whose software stack is name (the collective
// model runs its inter-node hops under NCCL). It does not resolve the
// scenario again: the stack's own keys keep their values.
func (s *Scenario) WithStack(name string) *Scenario {
	c := s.Clone()
	c.Software.Stack = name
	return c
}

// stageIndex finds the first stage with the letter, or -1.
func stageIndex(stages []Stage, letter string) int {
	for i, st := range stages {
		if st.Letter == letter {
			return i
		}
	}
	return -1
}

// lastIndex finds the last stage with the letter, or -1.
func lastIndex(stages []Stage, letter string) int {
	for i := len(stages) - 1; i >= 0; i-- {
		if stages[i].Letter == letter {
			return i
		}
	}
	return -1
}

// insertStages returns stages with more inserted before index i.
func insertStages(stages []Stage, i int, more ...Stage) []Stage {
	return slices.Insert(slices.Clone(stages), i, more...)
}

// cpuStage is a step the host CPU runs on one side for every message: a
// fixed cost that keeps the side's cores busy for as long.
func cpuStage(name, letter string, side Side, cost units.Seconds, what string) Stage {
	res := "cpu:sender"
	if side == Receiver {
		res = "cpu:receiver"
	}
	return Stage{Name: name, Letter: letter, Side: side, OnCPU: true, What: what,
		Alpha: cost, Occupancy: cost, CPUPerMessage: cost, Uses: []Use{{Resource: res, PerMessage: float64(cost)}}}
}
