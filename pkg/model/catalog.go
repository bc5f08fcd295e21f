package model

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/agnivade/levenshtein"

	"go.yaml.in/yaml/v3"
)

// The hardware catalog: what a product name implies, every fact with its
// source. One YAML file per kind under catalog/, embedded and parsed once.
// A fact is a scenario key and its value as a scenario file writes it
// ("gen4x16", "2.039TB/s", "true"), so that naming a product
// (gpu.model: A100-SXM4-80GB) can set the keys it implies; a note is a
// fact about the product that no scenario key holds (compute capability,
// ASIC, ports).

//go:embed catalog/*.yaml
var catalogFS embed.FS

// Catalog kinds, in the order `gpupath catalog list` prints them.
const (
	CatalogGPU        = "gpu"
	CatalogNIC        = "nic"
	CatalogCPU        = "cpu"
	CatalogSwitch     = "switch"
	CatalogInfiniBand = "infiniband"
)

// CatalogKinds lists the kinds of catalog entries, in print order.
var CatalogKinds = []string{CatalogGPU, CatalogNIC, CatalogCPU, CatalogSwitch, CatalogInfiniBand}

// catalogFiles names the embedded file of each kind.
var catalogFiles = map[string]string{
	CatalogGPU:        "catalog/gpus.yaml",
	CatalogNIC:        "catalog/nics.yaml",
	CatalogCPU:        "catalog/cpus.yaml",
	CatalogSwitch:     "catalog/switches.yaml",
	CatalogInfiniBand: "catalog/infiniband.yaml",
}

// CatalogEntry is one product (or one InfiniBand generation) of the
// catalog: its canonical name, the other spellings people write, a one-line
// summary, the scenario keys it implies (Facts) and what else is known of
// it (Notes), each with its source.
type CatalogEntry struct {
	Kind    string   `json:"kind"`
	Name    string   `json:"name"`
	Aliases []string `json:"aliases,omitempty"`
	Summary string   `json:"summary"`
	Facts   []Fact   `json:"facts"`
	Notes   []Note   `json:"notes,omitempty"`
}

// Fact is one scenario key that a catalog entry implies: the key, its value
// as a scenario file writes it (Scenario.Set accepts it), and the source
// of the value.
type Fact struct {
	Key    string `json:"key" yaml:"key"`
	Value  string `json:"value" yaml:"value"`
	Source string `json:"source" yaml:"source"`
}

// Note is a fact about a catalog entry that no scenario key holds.
type Note struct {
	Fact   string `json:"fact" yaml:"fact"`
	Source string `json:"source" yaml:"source"`
}

// Fact returns the value of key among e's facts.
func (e CatalogEntry) Fact(key string) (Fact, bool) {
	for _, f := range e.Facts {
		if f.Key == key {
			return f, true
		}
	}
	return Fact{}, false
}

type catalogYAML struct {
	Name    string   `yaml:"name"`
	Aliases []string `yaml:"aliases"`
	Summary string   `yaml:"summary"`
	Facts   []Fact   `yaml:"facts"`
	Notes   []Note   `yaml:"notes"`
}

var (
	catalogOnce    sync.Once
	catalogEntries map[string][]CatalogEntry
	catalogErr     error
)

func loadCatalog() {
	catalogEntries = map[string][]CatalogEntry{}
	for _, kind := range CatalogKinds {
		file := catalogFiles[kind]
		data, err := catalogFS.ReadFile(file)
		if err != nil {
			catalogErr = err
			return
		}
		entries, err := parseCatalog(kind, file, data)
		if err != nil {
			catalogErr = err
			return
		}
		catalogEntries[kind] = entries
	}
}

// parseCatalog decodes and checks one kind's file: every entry has a name,
// a summary and at least one fact; every fact's key is a scenario key whose
// parser accepts the value (its bounds included); every fact and note has
// a source; no name or alias is written twice within the kind (after
// normalization, as LookupCatalog compares them).
func parseCatalog(kind, file string, data []byte) ([]CatalogEntry, error) {
	var raw []catalogYAML
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	seen := map[string]string{}
	var out []CatalogEntry
	for i, r := range raw {
		where := fmt.Sprintf("%s: entry %d (%s)", file, i+1, r.Name)
		if strings.TrimSpace(r.Name) == "" || strings.TrimSpace(r.Summary) == "" {
			return nil, fmt.Errorf("%s: a name and a summary are required", where)
		}
		if len(r.Facts) == 0 {
			return nil, fmt.Errorf("%s: no facts", where)
		}
		for _, n := range append([]string{r.Name}, r.Aliases...) {
			key := normalizeCatalogName(n)
			if key == "" {
				return nil, fmt.Errorf("%s: the name %q is empty once normalized", where, n)
			}
			if prev, dup := seen[key]; dup {
				return nil, fmt.Errorf("%s: %q is also a name of %q", where, n, prev)
			}
			seen[key] = r.Name
		}
		keys := map[string]bool{}
		for _, f := range r.Facts {
			k, ok := lookupKey(f.Key)
			if !ok {
				return nil, fmt.Errorf("%s: %s: %v", where, f.Key, unknownKeyErr(f.Key))
			}
			if keys[f.Key] {
				return nil, fmt.Errorf("%s: %s is given twice", where, f.Key)
			}
			keys[f.Key] = true
			var s Scenario
			if err := k.parse(&s, f.Value); err != nil {
				return nil, fmt.Errorf("%s: %s: %v", where, f.Key, err)
			}
			if strings.TrimSpace(f.Source) == "" {
				return nil, fmt.Errorf("%s: %s has no source", where, f.Key)
			}
		}
		for _, n := range r.Notes {
			if strings.TrimSpace(n.Fact) == "" || strings.TrimSpace(n.Source) == "" {
				return nil, fmt.Errorf("%s: a note needs a fact and a source (%q)", where, n.Fact)
			}
		}
		out = append(out, CatalogEntry{Kind: kind, Name: r.Name, Aliases: r.Aliases, Summary: r.Summary, Facts: r.Facts, Notes: r.Notes})
	}
	return out, nil
}

// CheckCatalog returns the error of the embedded catalog's data, if any
// (then Catalog returns nothing).
func CheckCatalog() error {
	catalogOnce.Do(loadCatalog)
	return catalogErr
}

// Catalog returns the entries of one kind (CatalogKinds) in file order, or
// of every kind, kind by kind, for "". The entries are copies.
func Catalog(kind string) []CatalogEntry {
	catalogOnce.Do(loadCatalog)
	if catalogErr != nil {
		return nil
	}
	var out []CatalogEntry
	for _, k := range CatalogKinds {
		if kind == "" || kind == k {
			for _, e := range catalogEntries[k] {
				out = append(out, e.clone())
			}
		}
	}
	return out
}

func (e CatalogEntry) clone() CatalogEntry {
	e.Aliases = append([]string(nil), e.Aliases...)
	e.Facts = append([]Fact(nil), e.Facts...)
	e.Notes = append([]Note(nil), e.Notes...)
	return e
}

// LookupCatalog finds the entry of a kind ("" for any kind) that name
// names.
//
// Names compare case-insensitively, ignoring spaces, hyphens and
// underscores, the marks (R), (TM), ® and ™, leading vendor words (NVIDIA,
// Mellanox, Tesla, Intel, AMD, Broadcom, HPE, Google, AWS), and the words
// /proc/cpuinfo adds to a CPU model ("CPU", "Processor", a final
// "64-Core", and all from "@" on): "NVIDIA A100-SXM4-80GB", "a100 sxm4
// 80gb" and "A100_SXM4_80GB" are one name, and so are "Intel(R) Xeon(R)
// CPU E5-2698 v4 @ 2.20GHz" and "Xeon E5-2698 v4".
//
// Partial names: when no name or alias equals name, a name that is the
// first words of exactly one entry's name or aliases (whole words, split
// at spaces, hyphens and underscores) finds that entry: "K80" finds
// "K80", "H200" finds "H200-SXM-141GB". A partial name that begins the
// names of several entries finds none: "A100" (four A100 entries) and
// "ConnectX-7" (one entry per speed) are ambiguous; NearCatalogNames lists
// the candidates. Letters inside a word never match partially: "B2" is
// not "B200".
func LookupCatalog(kind, name string) (CatalogEntry, bool) {
	catalogOnce.Do(loadCatalog)
	if catalogErr != nil {
		return CatalogEntry{}, false
	}
	q := catalogWords(name)
	if len(q) == 0 {
		return CatalogEntry{}, false
	}
	qs := strings.Join(q, "")
	var exact, partial []CatalogEntry
	for _, e := range catalogOf(kind) {
		isExact, isPartial := false, false
		for _, n := range e.names() {
			w := catalogWords(n)
			if strings.Join(w, "") == qs {
				isExact = true
				break
			}
			for k := 1; k < len(w); k++ {
				if strings.Join(w[:k], "") == qs {
					isPartial = true
				}
			}
		}
		if isExact {
			exact = append(exact, e)
		} else if isPartial {
			partial = append(partial, e)
		}
	}
	switch {
	case len(exact) == 1:
		return exact[0].clone(), true
	case len(exact) == 0 && len(partial) == 1:
		return partial[0].clone(), true
	}
	return CatalogEntry{}, false
}

// NearCatalogNames lists the canonical names of the entries of a kind (""
// for any kind) whose names are near name, at most ten, nearest first:
// those that name partly spells (its words are a run of an entry's words,
// as "A100" is of "A100-SXM4-80GB", or an entry's words a run of its own)
// and, only when there are none, those within a few typing errors of the
// start of an entry's name ("ConectX-7" of "ConnectX-7 NDR"). It is what
// a warning about an unknown or ambiguous name lists.
func NearCatalogNames(kind, name string) []string {
	catalogOnce.Do(loadCatalog)
	if catalogErr != nil {
		return nil
	}
	q := catalogWords(name)
	qs := strings.Join(q, "")
	if qs == "" {
		return nil
	}
	type near struct {
		name    string
		d, full int // d: 0 the name, 1 partly, 1+n n typing errors; full: distance to the name's start, one letter longer
	}
	var found []near
	partly := false
	for _, e := range catalogOf(kind) {
		best, bestFull := -1, 0
		for _, n := range e.names() {
			w := catalogWords(n)
			ns := strings.Join(w, "")
			d := -1
			switch {
			case ns == qs:
				d = 0
			case wordRun(w, qs) || wordRun(q, ns):
				d = 1
			default:
				cut := ns
				if len(cut) > len(qs) {
					cut = cut[:len(qs)]
				}
				if e := levenshtein.ComputeDistance(qs, cut); e <= max(1, len(qs)/4) {
					d = 1 + e
				}
			}
			if d < 0 {
				continue
			}
			full := levenshtein.ComputeDistance(qs, ns[:min(len(ns), len(qs)+1)])
			if best < 0 || d < best || (d == best && full < bestFull) {
				best, bestFull = d, full
			}
		}
		if best >= 0 {
			found = append(found, near{e.Name, best, bestFull})
			partly = partly || best <= 1
		}
	}
	sort.SliceStable(found, func(i, j int) bool {
		if found[i].d != found[j].d {
			return found[i].d < found[j].d
		}
		return found[i].full < found[j].full
	})
	var out []string
	for _, f := range found {
		if len(out) == 10 || (partly && f.d > 1) {
			break
		}
		out = append(out, f.name)
	}
	return out
}

// wordRun reports whether s is the concatenation of a run of consecutive
// words of ws.
func wordRun(ws []string, s string) bool {
	for i := range ws {
		run := ""
		for _, w := range ws[i:] {
			run += w
			if run == s {
				return true
			}
			if len(run) >= len(s) {
				break
			}
		}
	}
	return false
}

// ErrCatalogKind is returned by ParseCatalogKind for a kind that is not one
// of CatalogKinds.
var ErrCatalogKind = errors.New("unknown catalog kind")

// ParseCatalogKind checks a kind name (any case; "switches", "gpus" and
// the like are accepted for the kind they name).
func ParseCatalogKind(s string) (string, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	for _, k := range CatalogKinds {
		if t == k || t == k+"s" || t == k+"es" {
			return k, nil
		}
	}
	if t == "ib" {
		return CatalogInfiniBand, nil
	}
	return "", fmt.Errorf("%w %q (kinds: %s)", ErrCatalogKind, s, strings.Join(CatalogKinds, ", "))
}

func catalogOf(kind string) []CatalogEntry {
	if kind != "" {
		return catalogEntries[kind]
	}
	var all []CatalogEntry
	for _, k := range CatalogKinds {
		all = append(all, catalogEntries[k]...)
	}
	return all
}

func (e CatalogEntry) names() []string { return append([]string{e.Name}, e.Aliases...) }

// vendorWords are the leading words LookupCatalog ignores.
var vendorWords = map[string]bool{
	"nvidia": true, "mellanox": true, "tesla": true, "intel": true, "amd": true,
	"broadcom": true, "hpe": true, "google": true, "aws": true,
}

// catalogWords splits a name into the lower-case words LookupCatalog
// compares: marks and leading vendor words dropped, and what /proc/cpuinfo
// appends to a CPU model ("CPU @ 2.00GHz", "64-Core Processor") cut.
func catalogWords(name string) []string {
	s := strings.ToLower(name)
	for _, m := range []string{"(r)", "(tm)", "®", "™"} {
		s = strings.ReplaceAll(s, m, " ")
	}
	if i := strings.Index(s, "@"); i >= 0 {
		s = s[:i]
	}
	words := strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || r == '-' || r == '_'
	})
	for len(words) > 0 && vendorWords[words[0]] {
		words = words[1:]
	}
	// cpuinfo's words: "Xeon(R) CPU E5-2698 v4", "... 8480C CPU",
	// "... 64-Core Processor".
	var kept []string
	for i, w := range words {
		switch {
		case len(words) > 1 && (w == "cpu" || w == "processor"):
		case w == "core" && len(kept) > 1 && isDigits(kept[len(kept)-1]) && onlyCPUWords(words[i+1:]):
			kept = kept[:len(kept)-1]
		default:
			kept = append(kept, w)
		}
	}
	return kept
}

// onlyCPUWords reports whether ws holds only the words "cpu" and
// "processor" (what follows "64-Core" in cpuinfo).
func onlyCPUWords(ws []string) bool {
	for _, w := range ws {
		if w != "cpu" && w != "processor" {
			return false
		}
	}
	return true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// normalizeCatalogName is the comparison form of a name: its words joined.
func normalizeCatalogName(name string) string { return strings.Join(catalogWords(name), "") }
