package termtext

import (
	"bytes"
	"encoding/json"
	"io"
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
