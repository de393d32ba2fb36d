package ndarray

import "golang.org/x/sys/cpu"

// mmCoreHint is the OpenBLAS core type for this CPU's vector instructions:
// SkylakeX (AVX-512 kernels) when it has AVX-512 F, CD, BW, DQ and VL, else
// "" (OpenBLAS's own detection).
func mmCoreHint() string {
	x := cpu.X86
	if x.HasAVX512F && x.HasAVX512CD && x.HasAVX512BW && x.HasAVX512DQ && x.HasAVX512VL {
		return "SkylakeX"
	}
	return ""
}
