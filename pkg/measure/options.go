package measure

import (
	"errors"
	"fmt"
	"math"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gpupath/gpupath/pkg/units"
)

// OptionKind says how the value of a probe option is read. Sizes, durations
// and rates are read by pkg/units' parsers, in the units of the scenario
// files: "512KiB", "200ms", "1Gbit/s".
type OptionKind string

// The kinds of option values.
const (
	OptText     OptionKind = "text"     // anything
	OptWords    OptionKind = "words"    // a comma-separated list of names
	OptInt      OptionKind = "int"      // a whole number
	OptSize     OptionKind = "size"     // units.ParseBytes
	OptDuration OptionKind = "duration" // units.ParseDuration ("0" is none)
	OptRate     OptionKind = "rate"     // units.ParseRate
)

// Option is one setting that a probe reads from Plan.Options (key=value on
// the command line, `--opt key=value`).
type Option struct {
	Name string
	Kind OptionKind
	// Default is the value the probe uses when the option is not given, as
	// text; empty when the probe decides from the machine.
	Default string
	// Off is true when the option also takes "off" (a switch, or "off" for
	// a duration that turns a step off).
	Off bool
	// Doc says what the option does, in a few words.
	Doc string
	// Min and Max bound a number's value, both ends included, in the
	// kind's unit (a count, bytes, seconds, bytes per second); there is no
	// bound unless Max > Min. Above makes Min exclusive (a timeout above
	// 0). Choices are the names an OptWords list may hold (any, if none).
	Min, Max float64
	Above    bool
	Choices  []string
}

// Check reads v as the option's kind and checks it against the option's
// range or choices; the error names the option, the value and what it
// must be. The command checks every option up front (CheckOptions) and
// the probe reads it through the same declaration (Number, Words), so the
// two cannot differ.
func (o Option) Check(v string) error {
	_, err := o.number(v)
	if o.Kind == OptWords {
		_, err = o.words(v)
	}
	return err
}

// number reads v (trimmed) as the option's kind, within its range; "off"
// (when the option takes it) is 0.
func (o Option) number(v string) (float64, error) {
	v = strings.TrimSpace(v)
	if o.Off && v == "off" {
		return 0, nil
	}
	var x float64
	var err error
	switch o.Kind {
	case OptInt:
		var n int
		n, err = strconv.Atoi(v)
		x = float64(n)
	case OptSize:
		var b units.Bytes
		b, err = units.ParseBytes(v)
		x = float64(b)
	case OptDuration:
		var d units.Seconds
		d, err = units.ParseDuration(v)
		x = float64(d)
	case OptRate:
		var r units.Rate
		r, err = units.ParseRate(v)
		x = float64(r)
	default:
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("option %s=%s: want %s (%v)", o.Name, v, kindWords[o.Kind], err)
	}
	if o.Max > o.Min && (x < o.Min || x > o.Max || o.Above && x == o.Min) {
		open := "["
		if o.Above {
			open = "("
		}
		return 0, fmt.Errorf("option %s=%s: out of range %s%s, %s]", o.Name, v, open, o.format(o.Min), o.format(o.Max))
	}
	return x, nil
}

// format writes a bound in the option's units.
func (o Option) format(x float64) string {
	switch o.Kind {
	case OptSize:
		return units.Bytes(x).String()
	case OptDuration:
		return units.Seconds(x).String()
	case OptRate:
		return units.Rate(x).String()
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}

// words reads v as a comma-separated list of the option's choices.
func (o Option) words(v string) ([]string, error) {
	var out []string
	for _, w := range strings.Split(v, ",") {
		w = strings.TrimSpace(w)
		switch {
		case w == "":
			return nil, fmt.Errorf("option %s=%s: want %s (an empty name in the list)", o.Name, v, kindWords[o.Kind])
		case len(o.Choices) > 0 && !slices.Contains(o.Choices, w):
			return nil, fmt.Errorf("option %s=%s: unknown %q (want %s)", o.Name, v, w, strings.Join(o.Choices, ", "))
		default:
			out = append(out, w)
		}
	}
	return out, nil
}

// Number reads the option from plan as a number in the kind's unit (see
// Check), def when it is not set or empty.
func (o Option) Number(plan Plan, def float64) (float64, error) {
	v, ok := plan.Options[o.Name]
	if !ok || strings.TrimSpace(v) == "" {
		return def, nil
	}
	return o.number(v)
}

// Words reads the option from plan as a list of its choices; def when it
// is not set, or gives no name.
func (o Option) Words(plan Plan, def []string) ([]string, error) {
	v, ok := plan.Options[o.Name]
	if !ok {
		return def, nil
	}
	w, err := o.words(v)
	if len(w) == 0 {
		w = def
	}
	return w, err
}

// declared is the option named name of decl (a probe's Options()); a probe
// that reads an option it does not declare is a bug.
func declared(decl []Option, name string) Option {
	for _, o := range decl {
		if o.Name == name {
			return o
		}
	}
	panic("measure: option " + name + " is not declared")
}

var kindWords = map[OptionKind]string{
	OptText: "text", OptWords: "a list of names", OptInt: "a whole number",
	OptSize: "a size like 512KiB", OptDuration: "a duration like 2s", OptRate: "a rate like 1Gbit/s",
}

// Optioner is implemented by probes that read Plan.Options: they declare
// what they read, so that a misspelt key is refused rather than ignored.
type Optioner interface {
	Options() []Option
}

// ProbeOptions lists the options the named probes declare, by name (an
// option that several probes read, such as gpus or variants, is listed
// with the first of them). Unknown probe names are an error.
func ProbeOptions(probes []string) ([]Option, error) {
	seen := map[string]bool{}
	var out []Option
	for _, n := range probes {
		p, err := New(n, Env{})
		if err != nil {
			return nil, err
		}
		o, ok := p.(Optioner)
		if !ok {
			continue
		}
		for _, opt := range o.Options() {
			if !seen[opt.Name] {
				seen[opt.Name] = true
				out = append(out, opt)
			}
		}
	}
	slices.SortFunc(out, func(a, b Option) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// CheckOptions checks options against what the named probes declare: a
// key that none of them reads is an error that lists the keys they do,
// and a value that does not read as its kind is an error that names it.
// Keys are checked in sorted order, so the error is the same each time.
func CheckOptions(probes []string, opts map[string]string) error {
	decl, err := ProbeOptions(probes)
	if err != nil {
		return err
	}
	byName := map[string]Option{}
	var names []string
	for _, o := range decl {
		byName[o.Name] = o
		names = append(names, o.Name)
	}
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		o, ok := byName[k]
		if !ok {
			valid := "none"
			if len(names) > 0 {
				valid = strings.Join(names, ", ")
			}
			return fmt.Errorf("unknown option %q for probes %s (valid: %s)", k, strings.Join(probes, ","), valid)
		}
		if err := o.Check(opts[k]); err != nil {
			return err
		}
	}
	// An option that several probes read is checked against each one's
	// declaration: its range there may differ.
	for _, n := range probes {
		p, _ := New(n, Env{})
		if op, ok := p.(Optioner); ok {
			for _, o := range op.Options() {
				if v, ok := opts[o.Name]; ok {
					if err := o.Check(v); err != nil {
						return fmt.Errorf("%s: %w", n, err)
					}
				}
			}
		}
	}
	return nil
}

// DurationOption reads a duration option of plan with units.ParseDuration
// ("2s", "200ms"; "0" and "off" are zero); def when it is not set. A
// negative duration is an error.
func DurationOption(plan Plan, name string, def time.Duration) (time.Duration, error) {
	v, ok := plan.Options[name]
	if !ok || v == "" {
		return def, nil
	}
	if v == "off" {
		return 0, nil
	}
	d, err := units.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("option %s=%s: want a duration like 2s, or 0", name, v)
	}
	return time.Duration(math.Round(float64(d) * float64(time.Second))), nil
}

// SizeOption reads a size option of plan with units.ParseBytes ("512KiB",
// "1MiB", "4096"); def when it is not set. A size below one byte is an
// error.
func SizeOption(plan Plan, name string, def int64) (int64, error) {
	v, ok := plan.Options[name]
	if !ok || v == "" {
		return def, nil
	}
	n, err := units.ParseBytes(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("option %s=%s: want a size like 512KiB", name, v)
	}
	return int64(n), nil
}

// SizeRanger is implemented by probes that measure at the sizes of
// Plan.Sizes (--sizes): the sizes they accept, in bytes, both ends
// included. The command checks every --sizes against the probes that run
// (CheckSizes) before anything runs; each probe checks its sizes again
// with the same range (checkSizeRange).
type SizeRanger interface {
	SizeRange() (lo, hi int64)
}

// CheckSizes checks sizes against the range each named probe declares
// (SizeRanger; nil probes: every probe). The error names the probe, the
// first size out of its range and the range.
func CheckSizes(probes []string, sizes []int64) error {
	if probes == nil {
		probes = Names()
	}
	for _, n := range probes {
		p, err := New(n, Env{})
		if err != nil {
			return err
		}
		if r, ok := p.(SizeRanger); ok {
			lo, hi := r.SizeRange()
			if err := checkSizeRange(n, lo, hi, sizes); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkSizeRange refuses the first size outside [lo, hi] for probe name.
func checkSizeRange(name string, lo, hi int64, sizes []int64) error {
	for _, s := range sizes {
		if s < lo || s > hi {
			return fmt.Errorf("%s: size %s out of range [%s, %s]", name, units.Bytes(s), units.Bytes(lo), units.Bytes(hi))
		}
	}
	return nil
}

// CheckAddr refuses an address that is not host:port with a port in
// [1, 65535] (0 too when listen: any free port), and, when not listen, one
// without a host: the checks a command makes of --peer and --listen before
// anything runs.
func CheckAddr(addr string, listen bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		var ae *net.AddrError
		if errors.As(err, &ae) {
			err = errors.New(ae.Err)
		}
		return fmt.Errorf("%q: want host:port (%v)", addr, err)
	}
	lo := 1
	if listen {
		lo = 0
	}
	if n, err := strconv.Atoi(port); err != nil || n < lo || n > 65535 {
		return fmt.Errorf("%q: port %q out of range [%d, 65535]", addr, port, lo)
	}
	if !listen && host == "" {
		return fmt.Errorf("%q: no host", addr)
	}
	return nil
}
