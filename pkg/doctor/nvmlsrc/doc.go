// Package nvmlsrc gives doctor the GPU facts from NVML (go-nvml, cgo): the
// GPUs, their PCIe links, NVLink state per link and the GPU×GPU classes.
// It lives apart from package doctor so that a program that only models and
// renders never links go-nvml or cgo; it reads the inventory through
// pkg/measure's NVML code and could move to pkg/measure/gpu with it.
//
// Without cgo, New returns a source that says so.
package nvmlsrc
