package fit

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

var (
	nan = math.NaN()
	inf = math.Inf(1)
)

// line is α = 2 µs, β = 10 GB/s at a few sizes, two repetitions each.
func line(sizes ...float64) []Observation {
	var obs []Observation
	for _, n := range sizes {
		t := 2e-6 + n/1e10
		obs = append(obs, Observation{n, []float64{t * 0.99, t * 1.01}})
	}
	return obs
}

// Degenerate inputs give one-line errors wrapping a sentinel, or a result
// with warnings; never a panic.
func TestDegenerateErrors(t *testing.T) {
	cases := []struct {
		name string
		obs  []Observation
		opt  Options
		err  error
	}{
		{"nil", nil, Options{}, ErrNoData},
		{"empty list", []Observation{}, Options{}, ErrNoData},
		{"no times", []Observation{{8, nil}, {16, []float64{}}}, Options{}, ErrNoData},
		{"all times NaN", []Observation{{8, []float64{nan}}, {16, []float64{nan, nan}}}, Options{}, ErrNoData},
		{"all times zero or negative", []Observation{{8, []float64{0}}, {16, []float64{-1e-6}}}, Options{}, ErrNoData},
		{"all sizes bad", []Observation{{nan, []float64{1e-6}}, {-8, []float64{1e-6}}, {inf, []float64{1e-6}}}, Options{}, ErrNoData},
		{"one size", []Observation{{4096, []float64{3e-6, 3.1e-6}}}, Options{}, ErrTooFewSizes},
		{"all sizes equal", []Observation{{64, []float64{3e-6}}, {64, []float64{3.2e-6}}, {64, []float64{3.1e-6}}}, Options{}, ErrTooFewSizes},
		{"one usable size", []Observation{{64, []float64{3e-6}}, {128, []float64{nan}}}, Options{}, ErrTooFewSizes},
		{"level above 1", line(8, 64, 512), Options{Level: 1.5}, ErrInput},
		{"level NaN", line(8, 64, 512), Options{Level: nan}, ErrInput},
		{"negative resamples", line(8, 64, 512), Options{Resamples: -1}, ErrInput},
		{"too many resamples", line(8, 64, 512), Options{Resamples: MaxResamples + 1}, ErrInput},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := AlphaBeta(c.obs, c.opt)
			checkErr(t, err, c.err)
		})
	}
}

func checkErr(t *testing.T, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("error %v, want %v", err, want)
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "fit: ") {
		t.Errorf("error %q is not one line starting with \"fit: \"", msg)
	}
	t.Log(err)
}

func TestPipelinedErrors(t *testing.T) {
	cases := []struct {
		name  string
		obs   []Observation
		chunk float64
		err   error
	}{
		{"zero chunk", line(8, 64, 512), 0, ErrInput},
		{"NaN chunk", line(8, 64, 512), nan, ErrInput},
		{"infinite chunk", line(8, 64, 512), inf, ErrInput},
		{"negative chunk", line(8, 64, 512), -4096, ErrInput},
		{"empty", nil, 4096, ErrNoData},
		{"nothing above the chunk", line(8, 64, 512, 4096), 4096, ErrTooFewSizes},
		{"nothing below the chunk", line(4096, 8192, 1<<20), 4096, ErrTooFewSizes},
		{"two sizes", line(8, 1<<20), 4096, ErrTooFewSizes},
		// 5 KiB and 6 KiB are both two chunks of 4 KiB: p is not separated
		// from α + c/β.
		{"above the chunk in equal chunk counts", line(8, 5<<10, 6<<10), 4096, ErrTooFewSizes},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Pipelined(c.obs, c.chunk, Options{})
			checkErr(t, err, c.err)
		})
	}
}

// Data that are still usable give a result with warnings.
func TestDegenerateWarnings(t *testing.T) {
	good := line(8, 512, 32768, 1<<20, 1<<24)
	cases := []struct {
		name string
		obs  []Observation
		want []Code
	}{
		{"clean", good, nil},
		{"a NaN time", append(line(8, 512, 32768, 1<<20, 1<<24), Observation{64, []float64{nan}}), []Code{CodeDropped}},
		{"an infinite and a negative time", append(line(8, 512, 32768, 1<<20, 1<<24), Observation{1 << 20, []float64{inf, -1}}), []Code{CodeDropped}},
		{"a zero time", append(line(8, 512, 32768, 1<<20, 1<<24), Observation{1 << 20, []float64{0}}), []Code{CodeDropped}},
		{"a NaN size", append(line(8, 512, 32768, 1<<20, 1<<24), Observation{nan, []float64{1e-6}}), []Code{CodeDropped}},
		{"a negative size", append(line(8, 512, 32768, 1<<20, 1<<24), Observation{-4096, []float64{1e-6}}), []Code{CodeDropped}},
		{"an observation without times", append(line(8, 512, 32768, 1<<20, 1<<24), Observation{4096, nil}), []Code{CodeDropped}},
		{"two sizes", line(8, 1<<20), []Code{CodeFewSizes}},
		// 4 to 256 B at 10 GB/s: n/β is at most 25.6 ns of 2 µs (1.3%),
		// under the ±1% spread of the repetitions.
		{"sizes too small for β", noisy(1, 10, 0.05, 4, 8, 16, 32, 64, 128, 256), []Code{CodeBetaUnresolved}},
		// 1 MiB to 256 MiB: α = 2 µs is 2% of the smallest time, under the
		// 5% noise.
		{"sizes too large for α", noisy(2, 10, 0.05, 1<<20, 4<<20, 16<<20, 64<<20, 256<<20), []Code{CodeAlphaUnresolved}},
		{"non-monotonic", []Observation{
			{8, []float64{2e-6, 2e-6}}, {64, []float64{2.1e-6, 2.1e-6}},
			{512, []float64{1.2e-6, 1.2e-6}}, // faster than 64 B
			{1 << 20, []float64{1e-4, 1e-4}}, {1 << 24, []float64{1.6e-3, 1.6e-3}},
		}, []Code{CodeNonMonotonic, CodeLargeResiduals}},
		// A protocol change: 2 µs + n/10 GB/s up to 8 KiB, then a
		// rendezvous costing 20 µs more.
		{"protocol change", protocolChange(), []Code{CodeLargeResiduals}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := AlphaBeta(c.obs, Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkCodes(t, r, c.want)
			checkSane(t, r)
			for _, w := range r.Warnings {
				if strings.Contains(w.Message, "\n") || w.Message == "" {
					t.Errorf("warning %q is not one sentence", w.Message)
				}
			}
		})
	}
}

func noisy(seed uint64, reps int, sigma float64, sizes ...float64) []Observation {
	return synth(seed, sizes, reps, sigma, alphaBetaCurve(2e-6, 1e10))
}

func protocolChange() []Observation {
	var obs []Observation
	for n := 4.0; n <= 1<<26; n *= 4 {
		t := 2e-6 + n/1e10
		if n > 8192 {
			t += 20e-6
		}
		obs = append(obs, Observation{n, []float64{t, t * 1.01, t * 0.99}})
	}
	return obs
}

// checkSane asserts the invariants every successful fit keeps.
func checkSane(t *testing.T, r Result) {
	t.Helper()
	for name, v := range map[string]Interval{"α": r.Alpha, "β": r.Beta, "p": r.Period, "stream": r.Stream} {
		for _, x := range []float64{v.Value, v.Lo, v.Hi} {
			if math.IsNaN(x) || x < 0 {
				t.Fatalf("%s interval %+v has a NaN or negative value", name, v)
			}
		}
		if !(v.Lo <= v.Value && v.Value <= v.Hi) {
			t.Fatalf("%s interval %+v does not hold its value", name, v)
		}
	}
	if math.IsInf(r.Alpha.Value, 0) || math.IsInf(r.Period.Value, 0) {
		t.Fatalf("α %v or p %v is infinite", r.Alpha, r.Period)
	}
	if r.Beta.Value == 0 {
		t.Fatalf("β is 0")
	}
	for _, res := range r.Residuals {
		if math.IsNaN(res.Predicted) || math.IsNaN(res.Relative) || res.Predicted < 0 {
			t.Fatalf("residual %+v", res)
		}
	}
	if math.IsNaN(r.MedianAPE) || math.IsNaN(r.WorstAPE) {
		t.Fatalf("APE median %v worst %v", r.MedianAPE, r.WorstAPE)
	}
}

func TestGroup(t *testing.T) {
	obs, err := Group([]float64{64, 8, 64, nan, 8}, []float64{3, 1, 4, 5, 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(obs) != 3 || obs[0].Bytes != 8 || obs[1].Bytes != 64 || !math.IsNaN(obs[2].Bytes) {
		t.Fatalf("Group = %+v", obs)
	}
	if got := obs[0].Seconds; len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Errorf("8 B times %v, want [1 2]", got)
	}
	if _, err := Group([]float64{1}, nil); !errors.Is(err, ErrInput) {
		t.Errorf("mismatched lengths: %v", err)
	}
}

// Duplicate sizes are merged: the same data split over two observations fit
// the same as one.
func TestMergeDuplicateSizes(t *testing.T) {
	a, err := AlphaBeta(line(8, 512, 1<<20), Options{})
	if err != nil {
		t.Fatal(err)
	}
	split := []Observation{}
	for _, o := range line(8, 512, 1<<20) {
		split = append(split, Observation{o.Bytes, o.Seconds[:1]}, Observation{o.Bytes, o.Seconds[1:]})
	}
	b, err := AlphaBeta(split, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a.Alpha != b.Alpha || a.Beta != b.Beta || b.Sizes != 3 || b.Repetitions != 6 {
		t.Errorf("merged fit %+v %+v differs from %+v %+v", b.Alpha, b.Beta, a.Alpha, a.Beta)
	}
}

// Many repetitions per size stay cheap: the noise estimate thins them and
// the bootstrap median is linear.
func TestManyRepetitions(t *testing.T) {
	obs := synth(3, []float64{8, 4096, 1 << 20, 1 << 24}, 20000, 0.05, alphaBetaCurve(trueAlpha, trueBeta))
	start := time.Now()
	r, err := AlphaBeta(obs, Options{Resamples: 100})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("4 sizes × 20000 repetitions × 100 resamples took %v", d)
	}
	// 80,000 times, past MaxTimes: thinned, and said so, with the same fit.
	if !near(r.Alpha.Value, trueAlpha, 0.01) || !near(r.Beta.Value, trueBeta, 0.01) || len(r.Warnings) != 1 || r.Warnings[0].Code != CodeThinned {
		t.Errorf("α %v β %v warnings %v", r.Alpha, r.Beta, r.Warnings)
	}
}

// A fit works on at most MaxTimes times whatever the run holds (thinned
// evenly within each size, the medians of all kept), and below it on all.
func TestThinnedToMaxTimes(t *testing.T) {
	sizes := make([]float64, 5000)
	for i := range sizes {
		sizes[i] = float64(64 + 64*i)
	}
	d, err := prepare(synth(5, sizes, 40, 0.05, alphaBetaCurve(trueAlpha, trueBeta)))
	if err != nil {
		t.Fatal(err)
	}
	if d.n > MaxTimes || len(d.reps[0]) != MaxTimes/len(sizes) || len(d.warns) != 1 || d.warns[0].Code != CodeThinned {
		t.Errorf("%d times kept, %d a size, warnings %v", d.n, len(d.reps[0]), d.warns)
	}
	all, _ := prepare(synth(5, sizes[:100], 40, 0.05, alphaBetaCurve(trueAlpha, trueBeta)))
	if all.n != 4000 || len(all.warns) != 0 {
		t.Errorf("below the bound: %d times, warnings %v", all.n, all.warns)
	}
}
