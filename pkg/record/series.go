package record

import (
	"cmp"
	"slices"
)

// Field names a field of a record that a series can be grouped by.
type Field uint8

// The fields of a SeriesKey.
const (
	ByProbe Field = 1 << iota
	ByVariant
	ByStage
	ByPath
	ByTarget
	ByTimer
)

// SeriesKey names a measured curve: the fields that stay the same along it.
// Fields not grouped by are empty.
type SeriesKey struct {
	Probe, Variant, Stage, Path, Target, Timer string
}

// Series is a measured curve: the records of one key, in ascending size
// (records of the same size in the order they were read).
type Series struct {
	SeriesKey
	Results []Result
}

// keyOf is r's key on the fields in by.
func keyOf(r Result, by Field) SeriesKey {
	var k SeriesKey
	if by&ByProbe != 0 {
		k.Probe = r.Probe
	}
	if by&ByVariant != 0 {
		k.Variant = r.Variant
	}
	if by&ByStage != 0 {
		k.Stage = r.Stage
	}
	if by&ByPath != 0 {
		k.Path = r.Path
	}
	if by&ByTarget != 0 {
		k.Target = r.Target
	}
	if by&ByTimer != 0 {
		k.Timer = r.Timer
	}
	return k
}

// Group gathers records into series by the fields in by, in the order in
// which each series' first record appears; within a series the records are
// sorted by size, stably. It is the one mapping from records to the curves
// that fitting (pkg/calib), the report's measured figures (gpupath report)
// and the notebooks (pkg/nb/measured) draw; each filters the records it
// wants first.
func Group(rs []Result, by Field) []Series {
	idx := map[SeriesKey]int{}
	var out []Series
	for _, r := range rs {
		k := keyOf(r, by)
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, Series{SeriesKey: k})
		}
		out[i].Results = append(out[i].Results, r)
	}
	for _, s := range out {
		slices.SortStableFunc(s.Results, func(a, b Result) int { return cmp.Compare(a.Bytes, b.Bytes) })
	}
	return out
}
