package units

import (
	"math"
	"strconv"
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
	many := func(n int) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			if i > 1 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(i))
		}
		return b.String()
	}
	if _, err := ParseSizes(many(MaxSizes + 1)); err == nil || !strings.Contains(err.Error(), "10000") {
		t.Errorf("%d sizes: error %v", MaxSizes+1, err)
	}
	if bs, err := ParseSizes(many(MaxSizes)); err != nil || len(bs) != MaxSizes {
		t.Errorf("%d sizes: %d, %v", MaxSizes, len(bs), err)
	}
}

// A size given twice is an error; a range's sizes that round to one it
// gave are given once.
func TestSizeGivenTwice(t *testing.T) {
	for _, bad := range []string{"8,8", "8, 16,8", "1KiB,1024"} {
		if _, err := ParseSizes(bad); err == nil || !strings.Contains(err.Error(), "twice") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	bs, err := ParseSizes("1B:64B:x1.01")
	seen := map[Bytes]bool{}
	for _, b := range bs {
		if seen[b] {
			t.Errorf("1B:64B:x1.01 gives %v twice", b)
		}
		seen[b] = true
	}
	if err != nil || len(bs) < 60 {
		t.Errorf("1B:64B:x1.01: %d sizes, %v", len(bs), err)
	}
}
