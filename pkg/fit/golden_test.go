package fit

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/gpupath/gpupath/internal/golden"
)

// TestGolden pins the JSON of a few results — field names, warnings, and
// the bootstrap's output for a fixed seed — in testdata/*_golden.json.
// Numbers are rounded to 6 significant digits, so that a last-bit
// difference in floating point (fused multiply-add on some architectures)
// does not break it. `go test -run Golden -update` rewrites the files.
func TestGolden(t *testing.T) {
	cases := []struct {
		name string
		run  func() (any, error)
	}{
		{"alphabeta", func() (any, error) {
			return AlphaBeta(synth(1, []float64{8, 512, 32768, 1 << 20, 1 << 24}, 5, 0.03, alphaBetaCurve(trueAlpha, trueBeta)), Options{Seed: 1})
		}},
		{"alphabeta_unresolved", func() (any, error) {
			return AlphaBeta(noisy(1, 10, 0.05, 4, 8, 16, 32, 64, 128, 256), Options{Seed: 1})
		}},
		{"pipelined", func() (any, error) {
			return Pipelined(synth(1, []float64{4096, 65536, 1 << 20, 4 << 20, 16 << 20, 64 << 20}, 5, 0.03,
				pipeCurve(pipeAlpha, pipeBeta, pipeChunk, pipePeriod)), pipeChunk, Options{Seed: 1})
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := c.run()
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", c.name+"_golden.json"), roundedJSON(t, v))
		})
	}
}

// roundedJSON marshals v, rounds every number to 6 significant digits and
// indents it.
func roundedJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		t.Fatal(err)
	}
	var round func(x any) any
	round = func(x any) any {
		switch x := x.(type) {
		case json.Number:
			f, _ := x.Float64()
			if f == 0 || math.IsInf(f, 0) {
				return f
			}
			r, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'g', 6, 64), 64)
			return r
		case map[string]any:
			for k, v := range x {
				x[k] = round(v)
			}
		case []any:
			for i, v := range x {
				x[i] = round(v)
			}
		}
		return x
	}
	out, err := json.MarshalIndent(round(tree), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}
