package units

import "testing"

func TestParseSizes(t *testing.T) {
	got, err := ParseSizes("1B:1KiB:x4")
	if err != nil || len(got) != 6 || got[0] != 1 || got[5] != 1024 {
		t.Errorf("range: %v %v", got, err)
	}
	got, err = ParseSizes("8,4096,1MiB")
	if err != nil || len(got) != 3 || got[2] != 1<<20 {
		t.Errorf("list: %v %v", got, err)
	}
	for _, bad := range []string{"", "0", "1:2", "1KiB:1B:x2", "1:1GiB:x1", "1:1GiB:xq", "-8", "1B:1TiB:x1.0001"} {
		if _, err := ParseSizes(bad); err == nil {
			t.Errorf("ParseSizes(%q) accepted", bad)
		}
	}
}
