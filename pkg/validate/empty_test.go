package validate

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// A table of which no row is modeled is no pass: the line says so, the
// JSON's errors are null (not 0) and Empty is an error.
func TestNothingModeled(t *testing.T) {
	rep := NewReport(nil)
	if rep.Empty() == nil || !strings.Contains(modeLine(Full, rep.Summary), "no row modeled") {
		t.Errorf("%v %q", rep.Empty(), modeLine(Full, rep.Summary))
	}
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		All map[string]any `json:"all"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if v, ok := doc.All["median_error"]; !ok || v != nil {
		t.Errorf("median_error %v (present %v), want null", v, ok)
	}
}
