package record

import (
	"strings"
	"testing"
)

// TestManifestNamesBounded: a host's names longer than MaxNameBytes (a
// hostname of 100,000 bytes made a report's figure 9,261 pt tall and fail
// after the work) are refused when the manifest is read, naming the field.
func TestManifestNamesBounded(t *testing.T) {
	long := strings.Repeat("h", MaxNameBytes+1)
	for _, field := range []string{`"hostname"`, `"cpu_model"`, `"os"`} {
		m := `{"format":1,"status":"complete","start":"2026-11-29T10:00:00Z","host":{` + field + `:"` + long + `"}}`
		if _, err := ParseManifest([]byte(m)); err == nil || !strings.Contains(err.Error(), "a name is at most") {
			t.Errorf("%s of %d bytes: error %v", field, len(long), err)
		}
	}
	ok := `{"format":1,"status":"complete","start":"2026-11-29T10:00:00Z","host":{"hostname":"` + long[:MaxNameBytes] + `"}}`
	if _, err := ParseManifest([]byte(ok)); err != nil {
		t.Errorf("a name of %d bytes: %v", MaxNameBytes, err)
	}
	peer := `{"format":1,"status":"complete","start":"2026-11-29T10:00:00Z","host":{"hostname":"a"},"peer":{"hostname":"` + long + `"}}`
	if _, err := ParseManifest([]byte(peer)); err == nil || !strings.Contains(err.Error(), "peer.hostname") {
		t.Errorf("a peer's long hostname: %v", err)
	}
}
