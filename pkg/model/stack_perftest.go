package model

import (
	"fmt"
	"slices"

	"github.com/gpupath/gpupath/pkg/units"
)

func init() {
	mustRegisterStack(Stack{Name: StackPerftest, Title: "perftest", Order: 10,
		Story: "linux-rdma/perftest: the benchmark posts from its own thread and polls its own completions, never flushes, and sends host payloads inline up to its default for the test (perftest.test: 220 B for ib_write_lat, 236 B for ib_send_lat, none for the bandwidth tests or from GPU memory).",
		Wrap:  wrapPerftest})
}

// The perftest programs of perftest.test.
const (
	PerftestWriteLat = "write_lat"
	PerftestSendLat  = "send_lat"
	PerftestWriteBW  = "write_bw"
	PerftestSendBW   = "send_bw"
)

// PerftestTests lists the values of perftest.test.
var PerftestTests = []string{PerftestWriteLat, PerftestSendLat, PerftestWriteBW, PerftestSendBW}

// perftestInline is the inline size perftest chooses when -I is not given
// (linux-rdma/perftest 00b55b66, src/perftest_parameters.c,
// ctx_set_max_inline: latency tests take DEF_INLINE_WRITE = 220 B for RDMA
// writes and DEF_INLINE_SEND_RC_UC = 236 B for RC sends, from
// src/perftest_parameters.h; every other test, and every test of device
// memory, 0), with where it comes from.
func perftestInline(test string) (units.Bytes, string) {
	switch test {
	case PerftestWriteLat:
		return 220, "ib_write_lat inlines up to DEF_INLINE_WRITE = 220 B (linux-rdma/perftest 00b55b66, src/perftest_parameters.h; ctx_set_max_inline in src/perftest_parameters.c)"
	case PerftestSendLat:
		return 236, "ib_send_lat over RC inlines up to DEF_INLINE_SEND_RC_UC = 236 B (linux-rdma/perftest 00b55b66, src/perftest_parameters.h)"
	}
	return 0, "perftest's bandwidth tests send nothing inline unless -I is given (ctx_set_max_inline, src/perftest_parameters.c at linux-rdma/perftest 00b55b66)"
}

// wrapPerftest names perftest's posting and polling on the RDMA paths: the
// bare transport is what perftest runs; its inline size comes from the
// rule that derives nic.inline_size from perftest.test.
func wrapPerftest(s *Scenario, p Path, bare []Stage) ([]Stage, string, string) {
	if stageIndex(bare, "B") < 0 || bare[stageIndex(bare, "B")].Name != "post work request" {
		return bare, fmt.Sprintf("perftest runs verbs only: %s is shown as the bare transport", p.Name), ""
	}
	prog := "ib_" + s.Perftest.Test
	st := slices.Clone(bare)
	i, j := stageIndex(st, "B"), lastIndex(st, "F")
	st[i].Name = prog + " posts"
	st[i].What = fmt.Sprintf("%s posts the work request from its own thread and rings the doorbell (nic.post_cost)", prog)
	st[j].Name = prog + " polls"
	st[j].What = fmt.Sprintf("%s polls for the message on the receiving side from its own thread (nic.poll_cost); it never flushes", prog)
	return st, "", ""
}
