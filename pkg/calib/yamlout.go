package calib

import (
	"io"

	"github.com/gpupath/gpupath/internal/termtext"
	"github.com/gpupath/gpupath/pkg/model"
)

// writeYAML is calib's one scenario-file writer (fit's calibrated scenario,
// measure's host scenario): model.WriteYAML after every text from outside
// in d — a run's hostname in the title and the name, a CPU or GPU model in
// a value, a source in a comment — has gone through termtext: comments
// through YAMLComment (one line, no control character the YAML parser
// refuses), values through Name. The file reads back with model.Parse and
// its name holds no control character.
func writeYAML(w io.Writer, d model.YAMLDoc) error {
	return model.WriteYAML(w, cleanDoc(d))
}

func cleanDoc(d model.YAMLDoc) model.YAMLDoc {
	head := make([]string, len(d.Head))
	for i, h := range d.Head {
		head[i] = termtext.YAMLComment(h)
	}
	fields := make([]model.YAMLField, len(d.Fields))
	for i, f := range d.Fields {
		f.Value = termtext.Name(f.Value)
		fields[i] = f
	}
	entries := make([]model.YAMLEntry, len(d.Entries))
	for i, e := range d.Entries {
		e.Value, e.Comment = termtext.Name(e.Value), termtext.YAMLComment(e.Comment)
		entries[i] = e
	}
	d.Head, d.Fields, d.Entries = head, fields, entries
	return d
}
