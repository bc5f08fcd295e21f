package model

import (
	"fmt"

	"github.com/gpupath/gpupath/pkg/units"
)

func init() {
	mustRegister(Path{Name: "tcp", Title: "TCP/IP, host-staged", Order: 10, Role: RoleCompared, HostStaged: true,
		Style: Style{Color: "#d55e00", Dash: DashSolid, Glyph: GlyphCircle, Filled: true}, // Okabe–Ito vermillion
		Story: "GPU → cudaMemcpy → DDR → user-to-kernel copy → TCP/IP stack on the CPU → NIC → wire → NIC → DDR → receive stack → kernel-to-user copy → cudaMemcpy → GPU. Four explicit copies; the CPU works at every step.",
		Build: buildTCP})
}

func buildTCP(s *Scenario) ([]Stage, string) {
	// The CPU's socket copies read and write the bounce buffer: its copies
	// are cached-buffer copies.
	st := []Stage{s.handoff(s.cached(s.copyD2H()))}
	st = append(st, s.hostTCPStages(atBounce)...)
	return append(st, s.handoff(s.cached(s.copyH2D()))), ""
}

// handoff adds stack.handoff to a copy stage of the tcp path: the thread
// that runs the copy also runs the socket system calls before or after it.
func (s *Scenario) handoff(c Stage) Stage {
	h := s.Stack.Handoff
	if h <= 0 {
		return c
	}
	c.Alpha += h
	c.Occupancy += h
	c.CPUPerMessage += h
	for i := range c.Uses {
		if c.Uses[i].PerMessage > 0 {
			c.Uses[i].PerMessage += float64(h)
		}
	}
	c.What += fmt.Sprintf("; plus %s of hand-off between the copy and the socket calls on one thread (stack.handoff)", h.Human())
	return c
}

// cached turns a copy stage into a copy of a buffer the CPU has in its
// caches, when the scenario says what that costs (gpu.cached_copy_*).
func (s *Scenario) cached(c Stage) Stage {
	if s.GPU.CachedLatency == 0 && s.GPU.CachedRate == 0 {
		return c
	}
	if s.GPU.CachedLatency > 0 {
		c.Alpha = s.GPU.CachedLatency
	}
	if s.GPU.CachedRate > 0 {
		plain := c.PerByte
		c.PerByte = units.Seconds(1 / float64(s.GPU.CachedRate))
		if s.GPU.CachedKnee > 0 {
			c.Knee, c.PerByteBeyond = s.GPU.CachedKnee, plain
		}
	}
	c.What += "; the CPU has the host buffer in its caches (its socket copy touched it), so the DMA snoops them"
	return c
}
