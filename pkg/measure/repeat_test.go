package measure

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	st := Summarize([]float64{5, 1, 4, 2, 3})
	if st.Iterations != 5 || st.Min != 1 || st.Median != 3 || st.P25 != 2 || st.P75 != 4 || math.Abs(st.P99-4.96) > 1e-12 || st.Mean != 3 || st.Spread != 2.0/3 {
		t.Errorf("Summarize = %+v", st)
	}
	if st := Summarize(nil); st.Iterations != 0 {
		t.Errorf("Summarize(nil) = %+v", st)
	}
}

func TestRepeatStopsWhenStable(t *testing.T) {
	n := 0
	st, samples, err := Repeat(context.Background(), RepeatConfig{Budget: 5 * time.Second}, func() (float64, error) {
		n++
		return 1e-6, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !st.Stable || st.Median != 1e-6 || len(samples) != st.Iterations {
		t.Fatalf("stats %+v, %d samples", st, len(samples))
	}
	if st.Iterations > 50 {
		t.Errorf("constant timings took %d iterations to settle", st.Iterations)
	}
	if n != st.Iterations+3 {
		t.Errorf("op ran %d times, want %d recorded + 3 warm-up", n, st.Iterations)
	}
}

func TestRepeatHonoursBudgetAndContext(t *testing.T) {
	// Ever-growing timings never settle: the budget must end the loop.
	i := 0
	start := time.Now()
	st, _, err := Repeat(context.Background(), RepeatConfig{Budget: 50 * time.Millisecond, Tolerance: 1e-9}, func() (float64, error) {
		i++
		time.Sleep(time.Millisecond)
		return float64(i), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 500*time.Millisecond {
		t.Errorf("budget of 50ms took %v", el)
	}
	if st.Stable {
		t.Error("noisy timings reported stable")
	}
	ctx, cancel := context.WithCancel(context.Background())
	k := 0
	st, samples, err := Repeat(ctx, RepeatConfig{Budget: time.Hour, Tolerance: 1e-12, MinIterations: 1}, func() (float64, error) {
		k++
		if k == 20 {
			cancel()
		}
		return float64(k), nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if len(samples) == 0 || st.Iterations != len(samples) {
		t.Errorf("cancelled run kept %d samples (stats %d)", len(samples), st.Iterations)
	}
}

func TestRepeatPropagatesErrors(t *testing.T) {
	boom := errors.New("boom")
	_, _, err := Repeat(context.Background(), RepeatConfig{}, func() (float64, error) { return 0, boom })
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	_, _, err = Repeat(context.Background(), RepeatConfig{Warmup: 1}, func() (float64, error) { return math.NaN(), nil })
	if err == nil {
		t.Fatal("NaN timing accepted")
	}
}

func TestKeepSamples(t *testing.T) {
	if KeepSamples(nil, 1) != nil {
		t.Error("no samples should give nil")
	}
	in := make([]float64, 1000)
	for i := range in {
		in[i] = float64(i)
	}
	out := KeepSamples(in, 2)
	if len(out) != MaxSamples || out[0] != 0 || out[1] != 2*3 || out[MaxSamples-1] != 2*996 {
		t.Errorf("thinned: len %d, %v ... %v", len(out), out[:3], out[MaxSamples-1])
	}
	if got := KeepSamples([]float64{1, 2, 3}, 1); len(got) != 3 || got[2] != 3 {
		t.Errorf("short: %v", got)
	}
}
