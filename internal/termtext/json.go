package termtext

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The one JSON writer: every JSON gpupath writes (a run's manifest and
// records, a command's --format json, a report's data files, a frame to a
// peer) is encoded here, without HTML escaping (so <, > and & stay
// readable) and through JSON, so that no raw control or invisible format
// character from outside (a hostname's U+202E, a label's U+200B) reaches
// a file that a person or a parser reads.

// NewJSONEncoder returns a json.Encoder writing to w through JSON. Each
// Encode writes one whole value in one Write, so every value is rewritten
// whole; SetIndent may be called on it as on any encoder.
func NewJSONEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(jsonWriter{w})
	enc.SetEscapeHTML(false)
	return enc
}

type jsonWriter struct{ w io.Writer }

func (j jsonWriter) Write(p []byte) (int, error) {
	if _, err := j.w.Write(JSON(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// NewJSONWriter returns a writer that passes a JSON document written to it
// in pieces of any size (pkg/model's streamed --format json) through JSON
// on its way to w: the one writer for JSON that is not encoded here. An
// escape or a character cut in two by a Write is held back until the
// next; a whole document leaves nothing held.
func NewJSONWriter(w io.Writer) io.Writer { return &jsonStreamWriter{w: w} }

type jsonStreamWriter struct {
	w   io.Writer
	s   jsonStream
	out []byte
}

func (j *jsonStreamWriter) Write(p []byte) (int, error) {
	j.out = j.s.rewrite(j.out[:0], p)
	if _, err := j.w.Write(j.out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// jsonStream is JSON's rewrite as a state machine over the bytes of a
// document: whether it is inside a string, and the bytes of an escape or a
// UTF-8 sequence not yet complete.
type jsonStream struct {
	inString bool
	pend     []byte
}

// rewrite appends to out the rewrite of p, after what was held back, and
// holds back an incomplete escape or character at its end.
func (s *jsonStream) rewrite(out, p []byte) []byte {
	data := p
	if len(s.pend) > 0 {
		data = append(s.pend, p...)
		s.pend = nil
	}
	start, i := 0, 0
	for i < len(data) {
		c := data[i]
		if !s.inString {
			s.inString = c == '"'
			i++
			continue
		}
		r, n := rune(-1), 1 // r: a character to escape, n: the bytes it takes
		switch {
		case c == '"':
			s.inString = false
		case c == '\\':
			var held bool
			r, n, held = jsonEscape(data[i:])
			if held {
				s.pend = append([]byte(nil), data[i:]...)
				return append(out, data[start:i]...)
			}
		case c < 0x20 || c == 0x7f:
			r = rune(c)
		case c >= 0x80:
			if !utf8.FullRune(data[i:]) {
				s.pend = append([]byte(nil), data[i:]...)
				return append(out, data[start:i]...)
			}
			var d rune
			d, n = utf8.DecodeRune(data[i:])
			if d == utf8.RuneError && n == 1 {
				out = append(append(out, data[start:i]...), fmt.Sprintf(`\\x%02x`, c)...)
				i++
				start = i
				continue
			}
			if IsControl(d) {
				r = d
			}
		}
		if r >= 0 && r != '\n' && r != '\t' {
			out = append(append(out, data[start:i]...), escapeRune(r)...)
			i += n
			start = i
			continue
		}
		i += n
	}
	return append(out, data[start:]...)
}

// jsonEscape reads the escape at the start of b (a backslash): the
// character it stands for when that is one to escape (-1 otherwise), its
// length, and whether b ends before the escape does.
func jsonEscape(b []byte) (r rune, n int, held bool) {
	if len(b) < 2 {
		return -1, 0, true
	}
	switch b[1] {
	case 'r':
		return '\r', 2, false
	case 'b':
		return '\b', 2, false
	case 'f':
		return '\f', 2, false
	case 'u':
	default:
		return -1, 2, false // \" \\ \/ \n \t
	}
	h, ok := hex4(b[2:])
	if !ok {
		return -1, 2, len(b) < 6
	}
	if !utf16.IsSurrogate(h) || h >= 0xdc00 {
		return ctl(h), 6, false
	}
	// A high surrogate: its pair may follow.
	switch {
	case len(b) > 6 && b[6] != '\\', len(b) > 7 && b[7] != 'u':
		return -1, 6, false
	case len(b) < 12:
		return -1, 0, true
	}
	lo, ok := hex4(b[8:])
	if d := utf16.DecodeRune(h, lo); ok && d != utf8.RuneError {
		return ctl(d), 12, false
	}
	return -1, 6, false
}

// ctl is r when it is a character to escape, -1 otherwise.
func ctl(r rune) rune {
	if IsControl(r) {
		return r
	}
	return -1
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b[:4]), 16, 16)
	return rune(v), err == nil
}

// escapeRune is Clean's escape of r as the inside of a JSON string: its
// backslash escaped.
func escapeRune(r rune) string { return strings.ReplaceAll(Clean(string(r)), `\`, `\\`) }

// MarshalJSON is json.Marshal through the one writer: one line, no
// newline at the end.
func MarshalJSON(v any) ([]byte, error) { return MarshalJSONIndent(v, "", "") }

// MarshalJSONIndent is json.MarshalIndent through the one writer (an
// empty indent writes one line); no newline at the end.
func MarshalJSONIndent(v any, prefix, indent string) ([]byte, error) {
	var b bytes.Buffer
	enc := NewJSONEncoder(&b)
	if indent != "" || prefix != "" {
		enc.SetIndent(prefix, indent)
	}
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
