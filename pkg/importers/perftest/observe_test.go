package perftest

import "testing"

func TestObservationsGolden(t *testing.T) { fx.CheckGolden(t) }

// Hand-read: the 16-QP --use_cuda run measures GPU memory (gdr); its last
// row is 8388608 B at 385.01 Gb/s average.
func TestObservations(t *testing.T) {
	o := parseFile(t, "moc-ib_write_bw-a-gbits-use_cuda-cuMemAlloc-dmabuf-16qp-h100-client-raw.txt").Observations()
	last := o.Records[len(o.Records)-1]
	if o.Records[0].Path != "gdr" || !o.Hardware.MemoryGPU || last.Bytes != 8388608 || last.Test != "ib_write_bw" ||
		o.Hardware.NICs[0].LinkLayer != "RoCE" || o.Hardware.NICs[0].Name != "mlx5_2" || last.Variant != "16 QPs" {
		t.Errorf("%+v\n%+v", o.Hardware, last)
	}
	if !near(last.Time, float64(last.Bytes)/last.Rate) {
		t.Errorf("time per message %v", last.Time)
	}
	o = parseFile(t, "moc-ib_read_lat-a-client-roce-rdma_cm-tos41-raw.txt").Observations()
	if r := o.Records[0]; r.Metric != "latency" || !near(r.Time, 5.45e-6) || r.Extra["round_trip"] != 1 || r.Path != "host-rdma" {
		t.Errorf("%+v", r)
	}
	o = parseFile(t, "dranet-ib_write_bw-a-gbits-gke-h200-roce-completion-error.txt").Observations()
	if len(o.Failures) != 3 || len(o.Records) != 16 {
		t.Errorf("%d failures, %d records", len(o.Failures), len(o.Records))
	}
}
