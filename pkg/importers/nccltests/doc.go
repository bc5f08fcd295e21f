// Package nccltests reads the output of NVIDIA's nccl-tests
// (all_reduce_perf, all_gather_perf, sendrecv_perf, ...): the text tables
// every version prints and the JSON file of -J.
//
// The text reader finds its columns by their header names, so it reads the
// old layout (an "error" column of maximum errors, no root column), the
// current one (#wrong, N/A when validation is off), -C (cputime), -I
// (per-iteration i_min, i_max, i_p99, i_cv%), -S (a timestamp after each
// row), several tables in one file, and lines prefixed by Open MPI's
// --tag-output ("[1,0]<stdout>:"); NCCL_DEBUG lines between the rows are
// left to the NCCL log reader. Sizes are bytes, times seconds (nccl-tests
// prints µs), rates bytes per second (its GB/s is 10⁹ B/s: baseBw =
// bytes / 1.0E9 / sec in every test's GetBw).
//
// Each row becomes two records, out-of-place and in-place, with algbw as
// Rate and busbw as BusRate; model.BusFactor gives busbw's factor per collective.
package nccltests
