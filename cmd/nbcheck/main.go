// Command nbcheck executes the GoNB notebooks headless and fails when any of
// them fails: an error output, a panic, an "exit status N" line, a cell
// without output, a cell longer than 15 lines, a number typed by hand in
// Markdown, outputs stored in a committed notebook (with -exec), or (with
// -render) a figure the executed HTML does not show.
//
//	nbcheck -exec -render -out reports/notebooks -budget 3m notebooks/*.ipynb
//	nbcheck reports/notebooks/01-three-paths.ipynb            # check only
//	nbcheck -exec -expect panic,exit-status notebooks/testdata/failing.ipynb
//
// With -expect it inverts: it succeeds only when it finds every listed kind
// of failure and no other, which proves that the check catches them.
//
// scripts/notebooks.sh installs Jupyter and the GoNB kernel and runs it.
// Exit status: 0 clean (or as expected), 1 findings, 2 bad usage.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gpupath/gpupath/internal/nbcheck"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	var ue usageError
	switch {
	case err == nil:
	case errors.As(err, &ue):
		fmt.Fprintf(os.Stderr, "nbcheck: %v\n", err)
		os.Exit(2)
	default:
		fmt.Fprintf(os.Stderr, "nbcheck: %v\n", err)
		os.Exit(1)
	}
}

type usageError struct{ error }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("nbcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	execute := fs.Bool("exec", false, "execute the given source notebooks first (with jupyter nbconvert)")
	out := fs.String("out", "reports/notebooks", "with -exec: where the executed notebooks, HTML, logs and screenshots go")
	python := fs.String("python", "python3", "the python that has nbconvert")
	budget := fs.Duration("budget", 0, "with -exec: fail when all notebooks together take longer (0: no limit)")
	cellTimeout := fs.Duration("cell-timeout", 2*time.Minute, "with -exec: the longest one cell may run (a hung cell fails the notebook)")
	render := fs.Bool("render", false, "open each executed HTML in headless Chromium: check its figures, save NAME.png")
	chrome := fs.String("chrome", "", "browser executable for -render (default: chromium on the PATH)")
	expect := fs.String("expect", "", "comma-separated kinds of failure that must all be found, and no other: "+kindList())
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if fs.NArg() == 0 {
		return usageError{errors.New("no notebooks given")}
	}
	want, err := parseKinds(*expect)
	if err != nil {
		return usageError{err}
	}

	// Executed notebooks and their HTML.
	executed := fs.Args()
	var findings []nbcheck.Finding
	if *execute {
		for _, nb := range fs.Args() {
			src, err := nbcheck.ReadFile(nb)
			if err != nil {
				return err
			}
			findings = append(findings, nbcheck.CheckSource(src, nb)...)
		}
		executed = nil
		ex := nbcheck.Executor{Python: *python, OutDir: *out, CellTimeout: *cellTimeout}
		var total, cpu time.Duration
		for _, nb := range fs.Args() {
			r, err := ex.Execute(ctx, nb)
			if err != nil {
				return err
			}
			total += r.Elapsed
			cpu += r.CPU
			fmt.Fprintf(stdout, "executed %-28s %6.1f s (CPU %5.1f s)  → %s\n", filepath.Base(nb), r.Elapsed.Seconds(), r.CPU.Seconds(), r.HTML)
			executed = append(executed, r.Executed)
		}
		fmt.Fprintf(stdout, "executed %d notebook(s) in %.1f s (CPU %.1f s)", len(executed), total.Seconds(), cpu.Seconds())
		if *budget > 0 {
			fmt.Fprintf(stdout, " (budget %.0f s)", budget.Seconds())
		}
		fmt.Fprintln(stdout)
		if *budget > 0 && total > *budget {
			return fmt.Errorf("the notebooks took %.1f s, over the budget of %.0f s", total.Seconds(), budget.Seconds())
		}
	}

	figures := map[string]int{}
	for _, path := range executed {
		nb, err := nbcheck.ReadFile(path)
		if err != nil {
			return err
		}
		findings = append(findings, nbcheck.Check(nb, path)...)
		figures[path] = nbcheck.Figures(nb)
	}
	if *render {
		var htmls []string
		for _, p := range executed {
			htmls = append(htmls, strings.TrimSuffix(p, ".ipynb")+".html")
		}
		pages, err := nbcheck.Renderer{Chrome: *chrome}.Render(ctx, htmls...)
		if err != nil {
			return err
		}
		for i, p := range pages {
			png := strings.TrimSuffix(p.HTML, ".html") + ".png"
			if err := os.WriteFile(png, p.Screenshot, 0o644); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "rendered %-28s %d figure(s) drawn, %d displayed → %s\n",
				filepath.Base(p.HTML), visible(p.Figures), figures[executed[i]], png)
			findings = append(findings, nbcheck.CheckPage(p, figures[executed[i]], p.HTML)...)
		}
	}

	for _, f := range findings {
		fmt.Fprintln(stdout, f)
	}
	if want == nil {
		if len(findings) > 0 {
			return fmt.Errorf("%d finding(s) in %d notebook(s)", len(findings), len(executed))
		}
		fmt.Fprintf(stdout, "nbcheck: %d notebook(s) clean\n", len(executed))
		return nil
	}
	return compare(stdout, want, findings)
}

// visible counts the figures of non-zero size.
func visible(figs []nbcheck.Figure) int {
	n := 0
	for _, f := range figs {
		if f.Width >= 1 && f.Height >= 1 {
			n++
		}
	}
	return n
}

// compare checks that the findings are of exactly the wanted kinds.
func compare(stdout io.Writer, want []nbcheck.Kind, findings []nbcheck.Finding) error {
	found := map[nbcheck.Kind]bool{}
	for _, f := range findings {
		found[f.Kind] = true
	}
	var missing, extra []string
	for _, k := range want {
		if !found[k] {
			missing = append(missing, string(k))
		}
	}
	for k := range found {
		if !slices.Contains(want, k) {
			extra = append(extra, string(k))
		}
	}
	slices.Sort(extra)
	if len(missing) > 0 || len(extra) > 0 {
		return fmt.Errorf("expected failures not as expected: missing %v, unexpected %v", missing, extra)
	}
	fmt.Fprintf(stdout, "nbcheck: every expected failure was caught: %v\n", want)
	return nil
}

func parseKinds(list string) ([]nbcheck.Kind, error) {
	if list == "" {
		return nil, nil
	}
	var out []nbcheck.Kind
	for _, s := range strings.Split(list, ",") {
		k := nbcheck.Kind(strings.TrimSpace(s))
		if !slices.Contains(nbcheck.Kinds, k) {
			return nil, fmt.Errorf("-expect: unknown kind %q (kinds: %s)", k, kindList())
		}
		out = append(out, k)
	}
	return out, nil
}

func kindList() string {
	var s []string
	for _, k := range nbcheck.Kinds {
		s = append(s, string(k))
	}
	return strings.Join(s, ", ")
}
