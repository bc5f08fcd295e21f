package report

import (
	"testing"
	"time"
)

func TestDirName(t *testing.T) {
	at := time.Date(2026, 12, 2, 7, 8, 9, 0, time.UTC)
	for in, want := range map[string]string{
		"default": "default", "<script>alert(1)</script>": "script-alert-1-script", "DGX H100 / NDR": "dgx-h100-ndr",
		"...": "scenario", "": "scenario", "a.b_c": "a.b_c",
	} {
		if got := DirName(in, at); got != want+"-2026-12-02T070809Z" {
			t.Errorf("DirName(%q) = %q, want %q", in, got, want+"-2026-12-02T070809Z")
		}
	}
}
