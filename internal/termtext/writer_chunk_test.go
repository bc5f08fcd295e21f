package termtext

import (
	"strings"
	"testing"
)

// TestWriterChunks: a Write larger than a chunk, with multi-byte runes and
// control characters across the chunk boundaries, comes out as CleanText
// of the whole.
func TestWriterChunks(t *testing.T) {
	var in strings.Builder
	for in.Len() < 3*chunk+17 {
		in.WriteString("µs ✓ \x1b[31m x\n")
	}
	var out strings.Builder
	w := &Writer{W: &out}
	if _, err := w.Write([]byte(in.String())); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if out.String() != CleanText(in.String()) {
		t.Errorf("chunked output differs from CleanText of the whole (%d vs %d bytes)", out.Len(), len(CleanText(in.String())))
	}
}
