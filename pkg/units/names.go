package units

import (
	"fmt"
	"slices"
	"strings"
)

// SplitNames reads a comma-separated list of names, the one reading of
// every such flag (--paths, --probes): all is true for "all"; a list that
// names nothing ("", ","), an empty name in it and a name given twice are
// errors (kind names what the list holds: "path", "probe").
func SplitNames(list, kind string) (names []string, all bool, err error) {
	list = strings.TrimSpace(list)
	if strings.EqualFold(list, "all") {
		return nil, true, nil
	}
	if strings.Trim(list, ", ") == "" {
		return nil, false, fmt.Errorf("no %s in %q (all, or a list of them)", kind, list)
	}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		switch {
		case name == "":
			return nil, false, fmt.Errorf("an empty name in %q", list)
		case slices.Contains(names, name):
			return nil, false, fmt.Errorf("%s %q is listed twice", kind, name)
		}
		names = append(names, name)
	}
	return names, false, nil
}
