package model

import (
	"bytes"
	"io"
	"strconv"
	"strings"
)

// YAMLDoc is a scenario file to write: a comment at the top, top-level
// fields (base, name, description), then keys grouped by section, each with
// its comment. It is the one scenario-YAML writer: the full scenario
// (Scenario.YAML), the calibrated scenario of gpupath fit and the host
// scenario of gpupath measure all go through WriteYAML, so every file reads
// back with Parse.
type YAMLDoc struct {
	// Head is the comment at the top, wrapped at Width.
	Head []string
	// Fields are top-level keys in order; Quote forces quotes on a value.
	Fields []YAMLField
	// Entries are dotted keys (section.key) in order; a section's entries
	// must be consecutive.
	Entries []YAMLEntry
	// Width wraps comments (default 96 characters of text).
	Width int
	// Inline puts each entry's comment after its value on the same line
	// (unwrapped) instead of above it.
	Inline bool
}

// YAMLField is one top-level key.
type YAMLField struct {
	Key, Value string
	Quote      bool
}

// YAMLEntry is one section.key, its value as Set accepts it, and a comment.
type YAMLEntry struct {
	Key, Value, Comment string
}

// WriteYAML writes d. Values are quoted where YAML would read them as
// something else.
func WriteYAML(w io.Writer, d YAMLDoc) error {
	var b bytes.Buffer
	width := d.Width
	if width <= 0 {
		width = 96
	}
	comment := func(text, indent string) {
		for _, line := range WrapText(text, width) {
			b.WriteString(indent + "# " + line + "\n")
		}
	}
	for _, h := range d.Head {
		comment(h, "")
	}
	for _, f := range d.Fields {
		v := yamlScalar(f.Value)
		if f.Quote {
			v = strconv.Quote(f.Value)
		}
		b.WriteString(f.Key + ": " + v + "\n")
	}
	section := ""
	for _, e := range d.Entries {
		sec, leaf, ok := strings.Cut(e.Key, ".")
		if !ok {
			sec, leaf = "", e.Key
		}
		if sec != section && sec != "" {
			b.WriteString(sec + ":\n")
		}
		section = sec
		indent := ""
		if sec != "" {
			indent = "  "
		}
		if !d.Inline && e.Comment != "" {
			comment(e.Comment, indent)
		}
		b.WriteString(indent + leaf + ": " + yamlScalar(e.Value))
		if d.Inline && e.Comment != "" {
			b.WriteString("  # " + e.Comment)
		}
		b.WriteByte('\n')
	}
	_, err := w.Write(b.Bytes())
	return err
}

// WrapText breaks s at spaces into lines of at most width characters (a
// longer word gets a line of its own): comments in scenario files and
// notes in text output.
func WrapText(s string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = w
			continue
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
