package termtext

import (
	"io"
	"strings"
	"unicode/utf8"
)

// Writer is the one terminal writer: what passes through it is escaped
// with CleanText (newlines and tabs stay; carriage returns too where
// KeepCR) and written at once, holding back only the bytes of a UTF-8
// sequence a Write cut in two. Text without control characters passes
// unchanged. Call Flush when done.
type Writer struct {
	W io.Writer
	// KeepCR keeps carriage returns: a progress bar that redraws its line.
	KeepCR bool
	buf    []byte
	err    error
}

func (t *Writer) Write(p []byte) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	// In pieces of chunk bytes: a document of hundreds of megabytes (model
	// --format json at 10,000 sizes) is not copied whole, twice.
	n := len(p)
	for len(p) > 0 && t.err == nil {
		c := min(len(p), chunk)
		t.buf = append(t.buf, p[:c]...)
		p = p[c:]
		if k := completeRunes(t.buf); k > 0 {
			t.err = t.put(string(t.buf[:k]))
			t.buf = append(t.buf[:0], t.buf[k:]...)
		}
	}
	return n, t.err
}

// chunk is the most a Write escapes at once.
const chunk = 64 << 10

func (t *Writer) put(s string) error {
	if t.KeepCR {
		parts := strings.Split(s, "\r")
		for i, p := range parts {
			parts[i] = CleanText(p)
		}
		s = strings.Join(parts, "\r")
	} else {
		s = CleanText(s)
	}
	_, err := io.WriteString(t.W, s)
	return err
}

// completeRunes is the length of b without a UTF-8 sequence cut short at
// its end (at most 3 bytes held back).
func completeRunes(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-3; i-- {
		if utf8.RuneStart(b[i]) {
			if b[i] >= 0x80 && !utf8.FullRune(b[i:]) {
				return i
			}
			break
		}
	}
	return len(b)
}

// Flush writes what is left.
func (t *Writer) Flush() error {
	if t.err == nil && len(t.buf) > 0 {
		t.err = t.put(string(t.buf))
		t.buf = t.buf[:0]
	}
	return t.err
}
