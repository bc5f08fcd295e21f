package calib

import (
	"math"
	"sort"
	"strings"

	"github.com/gpupath/gpupath/internal/stats"
	"github.com/gpupath/gpupath/pkg/record"
)

// inSituKey names the record field (record.Result.Extra) that holds a stage
// row's own time inside the staged store-and-forward transfer: the D2H
// copy, the send-to-receive time of the socket transfer, the H2D copy; ""
// for a row the staged probe does not time.
func inSituKey(row StageRow) string {
	switch {
	case row.Letter == "A":
		return "insitu_d2h_s"
	case row.Letter == "G":
		return "insitu_h2d_s"
	case strings.Contains(row.Name, "(measured)"):
		return "insitu_tcp_s"
	}
	return ""
}

// inSitu fills each stage row's InSitu from the staged store-and-forward
// records: the stage's time inside the transfer at StageSizes (the median
// over runs at each recorded size, read log–log between sizes).
func (c *Calibration) inSitu(runs []*record.RunData) {
	by := map[string]map[float64][]float64{}
	for _, run := range runs {
		for _, r := range run.Results {
			if r.Probe != "staged" || r.Variant != "store-and-forward" || r.Bytes <= 0 {
				continue
			}
			for k, v := range r.Extra {
				if !strings.HasPrefix(k, "insitu_") || !(v > 0) || math.IsInf(v, 0) {
					continue
				}
				if by[k] == nil {
					by[k] = map[float64][]float64{}
				}
				by[k][float64(r.Bytes)] = append(by[k][float64(r.Bytes)], v)
			}
		}
	}
	for i := range c.Stages {
		m := by[inSituKey(c.Stages[i])]
		if len(m) == 0 {
			continue
		}
		var sizes []float64
		for n := range m {
			sizes = append(sizes, n)
		}
		sort.Float64s(sizes)
		meds := make([]float64, len(sizes))
		for j, n := range sizes {
			meds[j] = stats.Median(m[n])
		}
		row := &c.Stages[i]
		row.InSitu = make([]float64, len(StageSizes))
		for j, n := range StageSizes {
			row.InSitu[j] = interpolate(sizes, meds, n)
		}
	}
}
