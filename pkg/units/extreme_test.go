package units

import (
	"math"
	"strings"
	"testing"
)

// TestFormatNonFinite: NaN and ±Inf format as text, never a panic (a
// calibrated value of NaN reached Seconds.String through the model's error
// message and panicked in shiftedDecimal).
func TestFormatNonFinite(t *testing.T) {
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 5e-324, -5e-324, 1e300} {
		for _, s := range []string{Seconds(v).String(), Rate(v).String(), Seconds(v).Human(), Seconds(v).Compact(), Rate(v).Human()} {
			if s == "" {
				t.Errorf("%v: empty text", v)
			}
		}
	}
	if s := Seconds(math.NaN()).String(); s != "NaNs" {
		t.Errorf("NaN seconds: %q", s)
	}
	if s := Seconds(math.Inf(1)).String(); s != "+Infs" {
		t.Errorf("+Inf seconds: %q", s)
	}
}

// TestSizeListCapped: a list is capped like a range, and the error names
// the cap.
func TestSizeListCapped(t *testing.T) {
	list := strings.Repeat("1,", MaxSizes) + "1"
	if _, err := ParseSizes(list); err == nil || !strings.Contains(err.Error(), "10000") {
		t.Errorf("%d sizes: error %v", MaxSizes+1, err)
	}
	if bs, err := ParseSizes(strings.Repeat("8,", MaxSizes-1) + "8"); err != nil || len(bs) != MaxSizes {
		t.Errorf("%d sizes: %d, %v", MaxSizes, len(bs), err)
	}
}
