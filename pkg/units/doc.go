// Package units is gpupath's one vocabulary of quantities: sizes in bytes,
// times in seconds, data rates in bytes per second, clock frequencies in
// hertz, cable lengths in metres and counts per second, each a named type in
// base units (float64 seconds, not time.Duration: per-byte costs are far
// below a nanosecond).
//
// Every quantity has a parser and three spellings: String is exact (it
// parses back to the same float64: "7.581180846139795us", "64KiB"), Human is
// rounded for reading ("7.58 µs", "55.4 GB/s") and Compact is Human without
// the space, in the spelling scenario keys and labels use ("7.58us"). Link
// rates are decimal (1 Gbit/s = 1e9 bit/s); sizes are binary (KiB = 1024 B)
// unless written with a decimal prefix (kB = 1000 B). ParseSizes reads the
// size-list grammar every --sizes flag takes ("8,4096,1MiB",
// "1B:1GiB:x2").
//
// It imports no other package of this module: everything else builds on it.
package units
