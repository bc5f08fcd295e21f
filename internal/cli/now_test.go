package cli

import (
	"testing"
	"time"
)

// SOURCE_DATE_EPOCH is a whole number of seconds in years 1970–9999 or
// bad input; unset, Now is the clock.
func TestSourceDateEpoch(t *testing.T) {
	for _, bad := range []string{"abc", "-1", "1.5", "99999999999999999", "253402300800"} {
		t.Setenv("SOURCE_DATE_EPOCH", bad)
		if err := CheckEnv(); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	t.Setenv("SOURCE_DATE_EPOCH", " 1764806400 ")
	if err := CheckEnv(); err != nil || !Now().Equal(time.Unix(1764806400, 0)) {
		t.Errorf("%v %v", err, Now())
	}
}
