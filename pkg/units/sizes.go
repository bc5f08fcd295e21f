package units

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// MaxSizes bounds how many sizes one list may give.
const MaxSizes = 10000

// ParseSizes parses a size list: "8,4096,1MiB", a geometric range
// "1B:1GiB:x2" (from, to, factor) or several of both, comma-separated.
// Sizes must be at least 1 byte; a list gives at most MaxSizes sizes. A
// size given twice is an error (it would be measured or printed twice); a
// range's sizes that round to one it gave already are given once.
func ParseSizes(list string) ([]Bytes, error) {
	list = strings.TrimSpace(list)
	if list == "" {
		return nil, errors.New("no sizes given")
	}
	var out []Bytes
	seen := map[Bytes]bool{}
	for _, part := range strings.Split(list, ",") {
		part = strings.TrimSpace(part)
		if strings.Contains(part, ":") {
			f := strings.Split(part, ":")
			if len(f) != 3 || !strings.HasPrefix(f[2], "x") {
				return nil, fmt.Errorf("%q: a range looks like 1B:1GiB:x2", part)
			}
			from, err := ParseBytes(f[0])
			if err != nil {
				return nil, err
			}
			to, err := ParseBytes(f[1])
			if err != nil {
				return nil, err
			}
			factor, err := strconv.ParseFloat(strings.TrimPrefix(f[2], "x"), 64)
			if err != nil || !(factor > 1) || factor > 1e6 {
				return nil, fmt.Errorf("%q: the factor must be a number > 1", f[2])
			}
			if from < 1 || to < from {
				return nil, fmt.Errorf("%q: need 1 ≤ from ≤ to", part)
			}
			for v := float64(from); v <= float64(to)*(1+1e-12); v *= factor {
				if b := Bytes(math.Round(v)); !seen[b] {
					seen[b] = true
					out = append(out, b)
				}
				if len(out) > MaxSizes {
					return nil, fmt.Errorf("%q gives more than %d sizes", part, MaxSizes)
				}
			}
			continue
		}
		b, err := ParseBytes(part)
		if err != nil {
			return nil, err
		}
		if b < 1 {
			return nil, fmt.Errorf("%q: sizes must be at least 1 byte", part)
		}
		if seen[b] {
			return nil, fmt.Errorf("%q: the size %s is given twice", part, b.Human())
		}
		seen[b] = true
		out = append(out, b)
		if len(out) > MaxSizes {
			return nil, fmt.Errorf("the list gives more than %d sizes", MaxSizes)
		}
	}
	return out, nil
}
