//go:build !amd64

package measure

// canFlush says that this architecture has no cache flush here: the cold
// memcpy variant reads an eviction buffer instead.
const canFlush = false

// flushLines does nothing where canFlush is false.
func flushLines([]byte) {}
