// Package nvmlsrc gives doctor the GPU inventory from NVML (go-nvml, cgo),
// in the nvml probe's form (record.GPUInventory): the GPUs, their PCIe
// links, NVLink state per link and the GPU×GPU classes. It lives apart from
// package doctor so that a program that only models and renders never links
// go-nvml or cgo; it reads the inventory through pkg/measure/gpu's NVML
// code and could move there with it.
//
// Without cgo, New returns a source that says so.
package nvmlsrc
