package nccllog

import (
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/importers/internal/importtest"
)

// fx is the format's fixtures: the three shared nccl-tests outputs that
// carry NCCL's INFO log (the only real NCCL logs among the shared fixtures),
// and logs written by hand (testdata/handwritten).
var fx = importtest.Format{Tool: "nccl-tests", Only: []string{
	"moc-all_reduce_perf-2node-1gpu-h100-roce-step-bytes-with-NCCL_DEBUG-INFO.txt",
	"moc-sendrecv_perf-2node-1gpu-h100-roce-with-NCCL_DEBUG-INFO.txt",
	"moc-sendrecv_perf-2node-4gpu-each-h100-roce-with-NCCL_DEBUG-INFO.txt",
}, Local: "handwritten", Detect: Detect, Parse: Parse}

func TestGolden(t *testing.T) { fx.CheckGolden(t) }

// The verdicts of the logs: GPUDirect RDMA on, off, and sockets, each on a
// real log where one exists and on a hand-written one.
func TestVerdicts(t *testing.T) {
	for _, tc := range []struct {
		file  string
		path  string // between nodes
		intra string
		line  int // the line the verdict points at
		pxn   bool
		want  []string // in the verdict
	}{
		// Real: 8 ranks on 2 nodes, GDRDMA with PXN ("NET/IB/1(2)") and P2P inside the node.
		{"moc-sendrecv_perf-2node-4gpu-each-h100-roce-with-NCCL_DEBUG-INFO.txt", "gdr", "gpu-peer", 111, true,
			[]string{"GPUDirect RDMA", "NET/IB/1(2)/GDRDMA/Shared", "line 111", "PXN", "mlx5_5:1/RoCE"}},
		// Real: NET/IB without GDRDMA, "use ring PXN 0 GDR 0".
		{"moc-all_reduce_perf-2node-1gpu-h100-roce-step-bytes-with-NCCL_DEBUG-INFO.txt", "rdma", "", 50, false,
			[]string{"host-staged", "NET/IB/1", "line 50", "GDR 0 (line 55)", "mlx5_5:1/RoCE"}},
		{"moc-sendrecv_perf-2node-1gpu-h100-roce-with-NCCL_DEBUG-INFO.txt", "rdma", "", 50, false,
			[]string{"host-staged", "does not say why"}},
		// Hand-written: GPU Direct RDMA Enabled (distance 3 <= 4: PIX within PXB), PXN.
		{"handwritten/gdr-on-ib-2node-2xH100-pxn-nccl2.18.3.log", "gdr", "gpu-peer", 37, true, []string{"GPUDirect RDMA", "NET/IB/1/GDRDMA", "PXN"}},
		// Hand-written: disabled by distance 7 > 4 (SYS farther than PXB in 2.21).
		{"handwritten/gdr-off-distance-sys-2node-roce-nccl2.21.5.log", "rdma", "", 18, false,
			[]string{"host-staged", "distance 7 > 4 (SYS farther than PXB", "line 7"}},
		// Hand-written: no RDMA device, NET/Socket.
		{"handwritten/sockets-all_reduce_perf-2node-1xA100-100GbE-nccl2.19.3.txt", "tcp", "", 23, false,
			[]string{"TCP sockets", "NET/Socket/0", "network Socket, line 9", "NICs: eth0."}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			o := fx.Output(t, tc.file)
			p := o.Path
			if p.Path != tc.path || p.Intra != tc.intra || p.Line != tc.line || p.PXN != tc.pxn {
				t.Errorf("path %q intra %q line %d pxn %v\n%s", p.Path, p.Intra, p.Line, p.PXN, p.Verdict)
			}
			for _, w := range tc.want {
				if !strings.Contains(p.Verdict, w) {
					t.Errorf("verdict lacks %q:\n%s", w, p.Verdict)
				}
			}
		})
	}
}

func TestPathType(t *testing.T) {
	for _, tc := range []struct {
		v    string
		d    int
		want string
	}{
		{"2.8.4", 3, "PIX"}, {"2.8.4", 6, "SYS"}, {"2.18.3", 4, "PXB"}, {"2.18.3", 7, "SYS"}, {"2.21.5", 5, "PXN"},
		{"2.26.2+cuda.", 8, "SYS"}, {"2.26.2", 5, "PXB"}, {"2.27.3", 8, "PHB"}, {"2.28.9", 7, "PXN"}, {"2.28.9", 12, ""}, {"x", 3, ""},
	} {
		if got := PathType(tc.v, tc.d); got != tc.want {
			t.Errorf("PathType(%s, %d) = %q, want %q", tc.v, tc.d, got, tc.want)
		}
	}
}

func TestChannelForms(t *testing.T) {
	for _, tc := range []struct{ msg, path, net string }{
		{"Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0/GDRDMA", "gdr", "IB"},
		{"Channel 00 : 0[7000] -> 1[7000] [send] via NET/IB/0/GDRDMA", "gdr", "IB"}, // NCCL 2.8: bus ids, no conn index
		{"Channel 01/1 : 3[3] -> 4[0] [send] via NET/IB/1(2)/GDRDMA/Shared", "gdr", "IB"},
		{"Channel 00/0 : 1[0] -> 0[0] [receive] via NET/IB/1/Shared", "rdma", "IB"},
		{"Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0", "tcp", "Socket"},
		{"Channel 00/0 : 0[0] -> 1[0] [send] via NET/AWS Libfabric/0/GDRDMA", "gdr", "AWS Libfabric"},
		{"Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read", "gpu-peer", ""},
		{"Channel 00 : 0[0] -> 1[1] via SHM/direct/direct", "host", ""},
		{"Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0/GDRDMA(PCI)", "gdr", "IB"},
	} {
		c, err := channel(tc.msg, 1, "h")
		if err != nil || c.Path != tc.path || c.Net != tc.net {
			t.Errorf("%s: %+v %v", tc.msg, c, err)
		}
	}
	if _, err := channel("Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/x", 1, "h"); err == nil {
		t.Error("a bad transport was read")
	}
}

func FuzzParse(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := Parse(b)
		if err != nil {
			return
		}
		if err := o.Validate(); err != nil || o.Path == nil || o.Path.Verdict == "" {
			t.Fatalf("%v %+v", err, o.Path)
		}
	})
}
