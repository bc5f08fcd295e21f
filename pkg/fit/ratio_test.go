package fit

import (
	"errors"
	"math"
	"testing"
)

func TestRatioOfMedians(t *testing.T) {
	a := []float64{1.00, 1.02, 0.98, 1.01, 0.99, 1.03, 0.97, 1.00}
	b := make([]float64, len(a))
	for i, x := range a {
		b[i] = 2 * x
	}
	// b is a scaled by exactly 2: every resample ratio is near 2; the
	// medians are 1.00 and 2.00 (even counts: the mean of the middle two).
	iv, err := RatioOfMedians(a, b, Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(iv.Value-2) > 1e-12 || iv.Lo < 1.9 || iv.Hi > 2.1 || iv.Lo > iv.Value || iv.Hi < iv.Value {
		t.Errorf("%v", iv)
	}
	if a[1] != 1.02 {
		t.Error("the input was reordered")
	}
	// The same sample against itself: an interval around 1.
	iv, _ = RatioOfMedians(a, a, Options{Seed: 3})
	if iv.Value != 1 || iv.Lo > 1 || iv.Hi < 1 {
		t.Errorf("%v", iv)
	}
	// Deterministic for a seed.
	iv2, _ := RatioOfMedians(a, a, Options{Seed: 3})
	if iv != iv2 {
		t.Errorf("%v != %v", iv, iv2)
	}
	if _, err := RatioOfMedians([]float64{1}, a, Options{}); !errors.Is(err, ErrNoData) {
		t.Errorf("one value: %v", err)
	}
	if _, err := RatioOfMedians([]float64{1, -1}, a, Options{}); err == nil {
		t.Error("negative value accepted")
	}
}

func TestGeoMean(t *testing.T) {
	// exp(mean(log 2, log 8)) = 4.
	iv, err := GeoMean([]float64{2, 8}, Options{Seed: 1})
	if err != nil || math.Abs(iv.Value-4) > 1e-12 || iv.Lo < 2-1e-12 || iv.Hi > 8+1e-12 {
		t.Errorf("%v %v", iv, err)
	}
	iv, _ = GeoMean([]float64{1.5}, Options{})
	if iv.Value != 1.5 || iv.Lo != 1.5 || iv.Hi != 1.5 {
		t.Errorf("%v", iv)
	}
	if _, err := GeoMean(nil, Options{}); !errors.Is(err, ErrNoData) {
		t.Errorf("%v", err)
	}
}
