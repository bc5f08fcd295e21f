package measure

// canFlush says that flushLines evicts: amd64 has CLFLUSH in every CPU
// (it came with SSE2, which amd64 requires).
const canFlush = true

// flushLines writes back and evicts from every cache level, of this core
// and of the others, each 64-byte line that holds a byte of b (CLFLUSH),
// then waits for the flushes to finish (MFENCE). Implemented in
// memcpy_flush_amd64.s.
//
//go:noescape
func flushLines(b []byte)
