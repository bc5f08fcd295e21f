package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/gpupath/gpupath/pkg/units"
)

// TestSweepContext: a done context stops the sweep and the JSON writer at
// their next check, with its error and nothing written; a live one gives
// what Sweep and WriteJSON give.
func TestSweepContext(t *testing.T) {
	s := Default()
	var sizes []units.Bytes
	for n := units.Bytes(1); len(sizes) < 4*CheckEvery; n += 7 {
		sizes = append(sizes, n)
	}
	ps, err := ParsePaths("all")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if rs, err := SweepContext(ctx, s, ps, sizes); !errors.Is(err, context.Canceled) || rs != nil {
		t.Errorf("canceled sweep: %d results, error %v", len(rs), err)
	}
	rs, err := SweepContext(context.Background(), s, ps, sizes)
	if err != nil || len(rs) != len(ps)*len(sizes) {
		t.Fatalf("sweep: %d results, error %v", len(rs), err)
	}
	var b bytes.Buffer
	if err := WriteJSONContext(ctx, &b, s, rs); !errors.Is(err, context.Canceled) || b.Len() != 0 {
		t.Errorf("canceled JSON: %d bytes written, error %v", b.Len(), err)
	}
	// The JSON made result by result is the document encoded at once.
	for _, n := range []int{0, 1, len(rs)} {
		var got bytes.Buffer
		if err := WriteJSONContext(context.Background(), &got, s, rs[:n]); err != nil {
			t.Fatal(err)
		}
		want := jsonAtOnce(t, s, rs[:n])
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%d results: the JSON differs from one indented encoding", n)
		}
	}
}

// jsonAtOnce is gpupath model --format json as one indented encoding (how
// WriteJSON made it before it encoded result by result).
func jsonAtOnce(t *testing.T, s *Scenario, results []Result) []byte {
	t.Helper()
	out := struct {
		Scenario map[string]any `json:"scenario"`
		Results  []JSONResult   `json:"results"`
		Base     string         `json:"base,omitempty"`
		Given    []JSONGiven    `json:"given,omitempty"`
		Warnings []string       `json:"warnings,omitempty"`
	}{Scenario: s.Map(), Results: make([]JSONResult, len(results)), Base: s.Base(), Given: jsonGiven(s), Warnings: s.Warnings()}
	for i, r := range results {
		out.Results[i] = r.JSON()
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
