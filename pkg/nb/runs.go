package nb

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gpupath/gpupath/internal/safeio"
)

// Module is this repository's module path.
const Module = "github.com/gpupath/gpupath"

// Root returns the repository's root: the nearest directory at or above
// dir whose go.mod declares Module. An empty dir starts from $GONB_DIR
// (the notebook's directory, in a GoNB kernel) or else the working
// directory.
func Root(dir string) (string, error) {
	if dir == "" {
		dir = os.Getenv("GONB_DIR")
	}
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return "", err
		}
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if module(filepath.Join(d, "go.mod")) == Module {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("nb: no go.mod of %s at or above %s", Module, dir)
		}
	}
}

// module reads the module path of a go.mod, "" when there is none.
func module(gomod string) string {
	b, err := safeio.ReadFile(context.Background(), gomod, 1<<20)
	if err != nil {
		return ""
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

// FindRuns lists the measurement runs under dir: the directories that hold
// a manifest.json, sorted. A missing dir has no runs (and no error).
func FindRuns(dir string) ([]string, error) {
	var runs []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && path == dir {
				return fs.SkipAll
			}
			return err
		}
		if !d.IsDir() && d.Name() == "manifest.json" {
			runs = append(runs, filepath.Dir(path))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(runs)
	return runs, nil
}

// RunsNote says in Markdown what FindRuns found under dir; paths are shown
// relative to root.
func RunsNote(root, dir string, runs []string) string {
	rel := func(p string) string {
		if r, err := filepath.Rel(root, p); err == nil {
			return r
		}
		return p
	}
	if len(runs) == 0 {
		return fmt.Sprintf("No measured run found under `%s/`: showing the model only.", rel(dir))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Measured runs under `%s/`:\n", rel(dir))
	for _, r := range runs {
		fmt.Fprintf(&b, "- `%s`\n", rel(r))
	}
	return b.String()
}

// Progress is an HTML progress bar for a live cell (gonbui.UpdateHTML):
// done of total steps, with a label. Nothing to do (total ≤ 0) is done.
func Progress(label string, done, total int) string {
	if total <= 0 {
		done, total = 1, 1
	}
	done = min(max(done, 0), total)
	return fmt.Sprintf(`<div style="font-family:sans-serif;font-size:90%%">`+
		`<progress value="%d" max="%d" style="width:20em;vertical-align:middle"></progress> %.0f%% · %s</div>`,
		done, total, 100*float64(done)/float64(total), html.EscapeString(label))
}
