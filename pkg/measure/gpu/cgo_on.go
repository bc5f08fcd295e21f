//go:build cgo

package gpu

const cgoEnabled = true
