package model

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteCatalogJSON writes catalog entries (or one) as indented JSON.
func WriteCatalogJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WriteCatalogList writes one line per entry: kind, name, its number of
// facts and its summary.
func WriteCatalogList(w io.Writer, entries []CatalogEntry) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tNAME\tFACTS\tSUMMARY")
	for _, e := range entries {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", e.Kind, e.Name, len(e.Facts), e.Summary)
	}
	return tw.Flush()
}

// WriteCatalogEntry writes an entry: name, kind, summary and aliases,
// every fact (key, value, source) and every note with its source.
func WriteCatalogEntry(w io.Writer, e CatalogEntry) error {
	fmt.Fprintf(w, "%s (%s)\n%s\n", e.Name, e.Kind, e.Summary)
	if len(e.Aliases) > 0 {
		fmt.Fprintf(w, "also written: %s\n", strings.Join(e.Aliases, ", "))
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tVALUE\tSOURCE")
	for _, f := range e.Facts {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", f.Key, f.Value, f.Source)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(e.Notes) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "notes:")
		for _, n := range e.Notes {
			fmt.Fprintf(w, "  %s (%s)\n", n.Fact, n.Source)
		}
	}
	return nil
}
