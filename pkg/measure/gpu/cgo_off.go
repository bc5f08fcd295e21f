//go:build !cgo

package gpu

const cgoEnabled = false
