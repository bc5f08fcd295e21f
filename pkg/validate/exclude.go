package validate

// Rows left out of the figures, each with its reason. Two kinds: rows that
// measure something the model does not describe (rules, by path and
// quantity), and rows whose own source or notes say they do not measure
// the data path (by id, quoting the table's README or notes). No row is
// left out because the model misses it.

// ruleOut gives the reason a row's path or quantity is outside the model.
func ruleOut(r Row) string {
	switch {
	case r.Quantity == "map_time":
		return "gdr_map builds the CPU's page tables for a BAR1 mapping: its cost is set by how the gdrdrv version maps, not by the hardware the model carries — the row's own source (gdrcopy PR #129, 2020, an Ivy Bridge host) pays 7.9 µs per 64 KiB GPU page, linearly; the current README's V100-SXM2 host 3.6 µs for one page (0.92 ms for 16 MiB, 2.2× below the row); a newer gdrdrv on Bottlerocket 5.2 and 5.3 µs for 64 and 128 KiB (flat) — no constant from an independent source predicts it"
	}
	return ""
}

// byID are rows whose source says they are not the data path's figure.
var byID = map[string]string{
	"S03-02": s03staged, "S03-03": s03staged, "S03-05": s03staged, "S03-06": s03staged, "S03-08": s03staged,
	"S03-09": s03staged, "S03-11": s03staged, "S03-12": s03staged, "S03-14": s03staged, "S03-17": s03staged,
	"S03-01": s03dh, "S03-04": s03dh, "S03-07": s03dh, "S03-10": s03dh, "S03-13": s03dh,
	"S02-01": "the one row of S02 that cannot be the path it claims: 5.7 µs is 2.7× the modeled GPUDirect RDMA one-way latency on the same generation (2.1 µs: Kepler, FDR, one switch) and 2.1–2.3× the 2.5–2.8 µs that S04 measures D-D through UCX on newer hardware, while the same article's staged figures (S02-03, S02-05: cudaMemcpy + RDMA) sit within 20 % of the model — so the 3.6 µs surplus is not in the path the staged rows share: it is the unnamed 2015 CUDA-aware MPI's own per-message work on device buffers (the article does not break it out)",
	"S22-02": s22rdma, "S22-04": s22rdma,
	"S05-01": s05rate1, "S05-03": s05rate8k,
	"S06-03": "README: a pathological lower bound — no GPUDirect RDMA, the sender reads GPU memory through BAR1 with gdrcopy",
	"S09-01": "README: software-limited (the reporter says UCX and NIXL reach line rate on the same hardware); useful only as a caution",
	"S18-03": "a NIXL-level average including transfer preparation and posting (the notes: 'incl. prep/post'), not the data path's latency",
	"S20-03": "the NIC column's only rate is this row's own NTTTCP figure (25 Gb/s): no independent NIC rate to model it from",
	"S19-08": s19eth0, "S19-09": s19eth0,
}

const (
	s03staged = "README: a developer-filed bug report — 'the staged numbers show an UCX protocol-selection problem, not the best achievable staging'"
	s03dh     = "send buffer on the GPU, receive buffer on the host (the source's D->H table): a mixed path the model does not have (its gdr is GPU to GPU)"
	s05rate1  = "osu_bw of 1-byte messages is a message rate: 2.55 M messages/s, 0.39 µs each, set by the MPI library's and UCP's work per request (request objects, tag matching, progress), which UCX's own cost model — the ucx stack's per-message costs, 85 ns to post and 45 ns to receive (src/uct/ib/base/ib_iface.h, src/ucp/core/ucp_context.c) — does not carry: the model would give 9.5 MB/s; the eager protocol's transfer itself is modeled at 4 KiB (S05-02, within 3 %)"
	s05rate8k = "osu_bw at 8 KiB, the first size of UCX's rendezvous (the row's notes), is the rendezvous's message rate: 3.84 µs a message, against the 0.4 µs of CPU per message that UCX's own cost model gives the RTS, the RDMA read and the FIN (PROTO_OVERHEAD rndv_rts 275 ns and its transports' overheads, src/ucp/core/ucp_context.c): the rest is per-request work of UCP and the MPI library that no sourced constant names; from 64 KiB the wire sets the rate and the row's source is modeled (S05-04..07)"
	s19eth0   = "the source names the figure's bottleneck — 'bottlenecked by single eth0 NIC' — but not that NIC's rate (the nic column: speed n/s), and times PyTorch's all_reduce from a torchrun script rather than nccl-tests: 3.5 GB/s of bus bandwidth is a 28 Gbit/s NIC, which only the row itself says; on the preset's 200 Gbit/s NCCL's cost model picks a tree and gives 26.7 GB/s of bus bandwidth at 1 GiB and 70.2 µs at 64 KiB (NCCL sockets on a gVNIC: 4 flows)"
	s22rdma   = "the figure is the student library's ring buffer over RDMA, not the verbs path alone: its README at the row's commit ('Remarks') says every write produces a completion that must be polled ('we need to poll the queue or we run out of memory') and that how completions are reaped moves the round trips by ~50 %; its other README version gives 2.62 µs for the same LAN round trip. The modeled inline RDMA-write round trip on the default HCA (the row states none) is 1.56 µs LAN and 1.34 µs HCA loopback, 2.3× and 2.2× below"
)

func excluded(r Row) string {
	if why := ruleOut(r); why != "" {
		return why
	}
	return byID[r.ID]
}
