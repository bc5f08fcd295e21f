package nccltests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/gpupath/gpupath/pkg/importers/obs"
	"github.com/gpupath/gpupath/pkg/model"
)

// The -J file, as src/util.cu writes it (nccl-tests ≥ 2.17, JSON_FILE_VERSION
// 1): one object on one line with the arguments, the configuration and
// devices, one entry per size with out_of_place and in_place (and, with -I,
// *_per_iter with every iteration's time), and the footer figures.
type jsonDoc struct {
	Version     int      `json:"version"`
	StartTime   string   `json:"start_time"`
	Args        []string `json:"args"`
	NCCLVersion int      `json:"nccl_version"`
	Config      struct {
		Iterations int64 `json:"iterations"`
		Devices    []struct {
			Rank       int    `json:"rank"`
			Hostname   string `json:"hostname"`
			Device     int    `json:"device"`
			DeviceInfo string `json:"device_info"`
		} `json:"devices"`
	} `json:"config"`
	Results []struct {
		Size       int64     `json:"size"`
		Count      int64     `json:"count"`
		Type       string    `json:"type"`
		Redop      string    `json:"redop"`
		Root       string    `json:"root"`
		OutOfPlace *jsonBody `json:"out_of_place"`
		InPlace    *jsonBody `json:"in_place"`
		OutPerIter *jsonIter `json:"out_of_place_per_iter"`
		InPerIter  *jsonIter `json:"in_place_per_iter"`
		Iterations int64     `json:"actual_iterations"`
	} `json:"results"`
	OutOfBounds *struct {
		Count int   `json:"count"`
		Okay  jbool `json:"okay"`
	} `json:"out_of_bounds"`
	Errors []string `json:"errors"`
}

type jsonBody struct {
	Time    *jnum `json:"time"`
	CPUTime *jnum `json:"cpu_time"`
	AlgBW   jnum  `json:"alg_bw"`
	BusBW   jnum  `json:"bus_bw"`
	NWrong  *jnum `json:"nwrong"`
}

type jsonIter struct {
	Skipped int    `json:"skipped_iterations"`
	Min     jnum   `json:"min_us"`
	Max     jnum   `json:"max_us"`
	Avg     jnum   `json:"avg_us"`
	P50     jnum   `json:"p50_us"`
	P99     jnum   `json:"p99_us"`
	Stdev   jnum   `json:"stdev_us"`
	Times   []jnum `json:"times_us"`
}

// jnum is a number as the writer prints it: a JSON number, or "nan" (its
// spelling of NaN), or null; the last two read as NaN.
type jnum float64

func (n *jnum) UnmarshalJSON(b []byte) error {
	s := string(bytes.TrimSpace(b))
	if s == "null" || strings.EqualFold(strings.Trim(s, `"`), "nan") || strings.EqualFold(strings.Trim(s, `"`), "-nan") {
		*n = jnum(math.NaN())
		return nil
	}
	v, err := strconv.ParseFloat(strings.Trim(s, `"`), 64)
	if err != nil {
		return fmt.Errorf("not a number: %s", s)
	}
	*n = jnum(v)
	return nil
}

// jbool is a boolean as the writer prints it: jsonBool writes the strings
// "true" and "false"; a JSON boolean is read too.
type jbool bool

func (v *jbool) UnmarshalJSON(b []byte) error {
	switch strings.Trim(string(bytes.TrimSpace(b)), `"`) {
	case "true":
		*v = true
	case "false", "null", "unchecked":
		*v = false
	default:
		return fmt.Errorf("not a boolean: %s", b)
	}
	return nil
}

// ok returns the value and whether it is a finite, non-negative number.
func (n jnum) ok() (float64, bool) {
	v := float64(n)
	return v, v >= 0 && !math.IsInf(v, 0)
}

// nonJSON are the number spellings C's printf gives for infinities, which
// the writer does not quote (it quotes only NaN, as "nan").
var nonJSON = regexp.MustCompile(`([:\[,]\s*)-?inf\b`)

func parseJSON(name string, b []byte) (*obs.Output, error) {
	b = nonJSON.ReplaceAll(b, []byte("${1}null"))
	var d jsonDoc
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&d); err != nil {
		line := 1
		if se, ok := err.(*json.SyntaxError); ok {
			line += bytes.Count(b[:min(int(se.Offset), len(b))], []byte{'\n'})
		}
		return nil, fmt.Errorf("%s: line %d: not a JSON document of -J: %v", Tool, line, err)
	}
	if d.Results == nil && d.Config.Devices == nil {
		return nil, obs.NotRecognized(Tool, "a JSON document without results or devices")
	}
	out := &obs.Output{Tool: Tool, Command: strings.Join(d.Args, " ")}
	if d.NCCLVersion > 0 {
		// NCCL_VERSION_CODE: major*10000 + minor*100 + patch (since 2.9).
		out.Version = fmt.Sprintf("%d.%d.%d", d.NCCLVersion/10000, d.NCCLVersion/100%100, d.NCCLVersion%100)
	}
	test := ""
	if len(d.Args) > 0 {
		test = testIn(d.Args[0])
	}
	if test == "" {
		test = testIn(name)
	}
	out.Test = test
	hw := &out.Hardware
	for _, dv := range d.Config.Devices {
		hw.AddHost(dv.Hostname)
		hw.GPUs = append(hw.GPUs, dv.DeviceInfo)
	}
	if n := len(d.Config.Devices); n > 0 {
		hw.Ranks, hw.Nodes, hw.MemoryGPU = n, len(hw.Hosts), true
		if n%hw.Nodes == 0 {
			hw.GPUsPerNode = n / hw.Nodes
		}
	}
	for _, r := range d.Results {
		root, _ := strconv.Atoi(strings.TrimSpace(r.Root))
		base := obs.Record{Line: 1, Test: test, Op: OpOf(test), Bytes: r.Size, Count: r.Count, Type: r.Type, Redop: r.Redop,
			Root: &root, Iterations: r.Iterations}
		if base.Test == "" {
			base.Test = "nccl-tests"
		}
		if base.Iterations == 0 {
			base.Iterations = d.Config.Iterations
		}
		for _, part := range []struct {
			variant string
			body    *jsonBody
			iter    *jsonIter
		}{{"out-of-place", r.OutOfPlace, r.OutPerIter}, {"in-place", r.InPlace, r.InPerIter}} {
			if part.body == nil {
				continue
			}
			rec := base
			rec.Variant = part.variant
			t := part.body.Time
			rec.Central = "mean"
			if t == nil {
				t, rec.Central = part.body.CPUTime, "mean (CPU time, -C)"
			}
			var tv, alg, bus float64
			okT, okA, okB := false, false, false
			if t != nil {
				tv, okT = t.ok()
			}
			alg, okA = part.body.AlgBW.ok()
			bus, okB = part.body.BusBW.ok()
			if !okT || tv == 0 || !okA || !okB {
				out.Problems = append(out.Problems, obs.Problem{Line: 1, Reason: fmt.Sprintf("size %d %s: no usable time or bandwidth", r.Size, part.variant)})
				continue
			}
			rec.Time, rec.Rate, rec.BusRate = tv*1e-6, alg*1e9, bus*1e9
			rec.Metric = obs.Bandwidth
			if rec.Bytes == 0 {
				rec.Metric, rec.Rate, rec.BusRate = obs.Latency, 0, 0
			} else if rec.Rate == 0 {
				rec.Rate = float64(rec.Bytes) / rec.Time
				if f, _, ok := model.BusFactor(rec.Op, hw.Ranks); ok && rec.BusRate == 0 {
					rec.BusRate = rec.Rate * f
				}
			}
			rec.Wrong = "N/A"
			if w := part.body.NWrong; w != nil {
				if v, ok := w.ok(); ok {
					rec.Wrong = strconv.FormatFloat(v, 'g', -1, 64)
					if v > 0 {
						out.Failures = append(out.Failures, obs.Problem{Line: 1, Reason: fmt.Sprintf("%s: %v wrong elements at %d B (the results were not correct)", part.variant, v, r.Size)})
					}
				}
			}
			if it := part.iter; it != nil {
				us := func(n jnum) float64 {
					if v, ok := n.ok(); ok {
						return v * 1e-6
					}
					return 0
				}
				rec.Min, rec.Max, rec.P50, rec.P99, rec.Stdev = us(it.Min), us(it.Max), us(it.P50), us(it.P99), us(it.Stdev)
				for _, x := range it.Times {
					if v := us(x); v > 0 {
						rec.Samples = append(rec.Samples, v)
					}
				}
			}
			out.Add(rec)
		}
	}
	if ob := d.OutOfBounds; ob != nil && (!ob.Okay || ob.Count > 0) {
		out.Failures = append(out.Failures, obs.Problem{Line: 1, Reason: fmt.Sprintf("nccl-tests found %d out-of-bounds values", ob.Count)})
	}
	for _, e := range d.Errors {
		if strings.TrimSpace(e) == "" {
			continue // writeErrors lists ncclGetLastError's "" when there was none
		}
		out.Failures = append(out.Failures, obs.Problem{Line: 1, Text: e, Reason: "nccl-tests reported an error"})
	}
	if len(d.Results) == 0 {
		out.Failures = append(out.Failures, obs.Problem{Line: 1, Reason: "no results in the document"})
	}
	return out, nil
}
