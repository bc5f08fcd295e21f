package qperf

import (
	"math"
	"testing"

	"github.com/gpupath/gpupath/pkg/importers/internal/importtest"
)

// fx is the format's fixtures: the shared qperf outputs.
var fx = importtest.Format{Tool: "qperf", Detect: Detect, Parse: Parse}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

func TestGolden(t *testing.T) { fx.CheckGolden(t) }

func TestHandRead(t *testing.T) {
	o := fx.Output(t, "jm-vvs-tcp_bw-tcp_lat-azure-cni-same-node.txt")
	bw, lat := o.Records[0], o.Records[1]
	if len(o.Records) != 2 || bw.Test != "tcp_bw" || !near(bw.Rate, 2.82e9) || !near(bw.MsgRate, 43.1e3) || bw.Path != "host-tcp" ||
		bw.Extra["send_msgs"] != 430972 || !near(bw.Extra["send_bytes_bytes"], 28.2e9) || bw.Line != 2 {
		t.Errorf("bw %+v", bw)
	}
	if lat.Test != "tcp_lat" || !near(lat.Time, 16.9e-6) || lat.Line != 9 {
		t.Errorf("lat %+v", lat)
	}
	o = fx.Output(t, "begin-again-v-tcp_bw-udp_bw-tcp_lat-udp_lat-rpi3b.txt")
	if len(o.Records) != 4 || !near(o.Records[0].Extra["send_cost_s_per_B"], 244e-9) || o.Records[1].Variant != "receiver" ||
		!near(o.Records[1].Rate, 2.23e6) || !near(o.Records[2].Time, 7.39e-3) || o.Records[1].Path != "" {
		t.Errorf("%+v", o.Records)
	}
	o = fx.Output(t, "ntrdma-rc_lat-rc_rdma_write_lat-rc_rdma_read_lat.txt")
	if len(o.Records) != 3 || o.Records[2].Path != "host-rdma" || !near(o.Records[2].Time, 21.4e-6) {
		t.Errorf("%+v", o.Records)
	}
	o = fx.Output(t, "learningRDMA-rc_bi_bw-rc_lat-rxe-error-client.txt")
	if len(o.Records) != 0 || len(o.Failures) != 2 || o.Failures[1].Text != "server: failed to modify QP to RTR: Invalid argument" {
		t.Errorf("%+v", o.Failures)
	}
}

// FuzzParse checks that Parse never panics and that what it reads passes validation.
func FuzzParse(f *testing.F) { fx.Fuzz(f) }

// Every fixture is detected (fx.Output checks it); other text is not.
func TestDetect(t *testing.T) {
	if Detect([]byte("server: x\ny\n")) {
		t.Error("detected")
	}
}
