//go:build !cgo || !nvml

package gpu

// nvmlBuiltIn says whether this build has the NVML probe (build tag nvml).
const nvmlBuiltIn = false
