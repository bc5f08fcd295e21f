// Package nb holds the helpers that the GoNB notebooks in notebooks/ call, so
// that every cell stays a few lines long and the code behind it is tested
// here: figures as SVG strings sized for a notebook cell, tables as HTML,
// conclusions as Markdown computed from the model's numbers (a notebook never
// types a number by hand), the what-if tables (crossover sizes, CPU cores at
// line rate), the sensitivity of each path to its main parameters, and
// finding the repository and its measured runs from inside a notebook.
// Figures and charts are pkg/plots' (Chart, SizeChart, SizePanel, Curve and
// RefLine are kept here as names of plots' for pkg/nb/measured); the fastest
// paths and crossovers of the what-if tables are pkg/model's (Fastest). The
// package draws no plot and searches no crossover of its own.
//
// Sub-package measured holds what the notebooks that show measured runs
// need (reading runs, the host, the copies, the calibration). It imports
// pkg/measure and pkg/calib, and so cgo (NVML): kept out of this package,
// it leaves the notebooks that only model free of them, and each of their
// cells links in about half the time.
//
// Every function returns a string (or data) and an error; Must turns an
// error into a panic, which the notebook check (cmd/nbcheck) catches in an
// executed notebook. The package does not import the GoNB kernel's packages:
// cells display what it returns with gonbui.DisplayHTML or DisplayMarkdown.
// It reads files only in Root, FindRuns and Host, and never prints.
package nb
