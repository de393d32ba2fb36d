#include "textflag.h"
#include "mix_amd64.h"

// The AVX-512 bodies of FillUniform and FillUniform32: eight counters per
// step, the same SplitMix64 mix and the same float arithmetic (no FMA) as the
// scalar loops, so the values are bit-identical to them.

// SETUP loads the counters (Z0), their step (Z1) and the two multipliers
// of the mix (Z2, Z3: 0xbf58476d1ce4e5b9 and 0x94d049bb133111eb, written
// as signed immediates).
#define SETUP \
	MOVQ         ctr+16(FP), SI \
	VMOVDQU64    (SI), Z0 \
	VPBROADCASTQ step+24(FP), Z1 \
	MOVQ         $-4658895280553007687, AX \
	VPBROADCASTQ AX, Z2 \
	MOVQ         $-7723592293110705685, AX \
	VPBROADCASTQ AX, Z3

// func uniform64AVX512(dst *float64, n int, ctr *[8]uint64, step uint64, lo, scale float64)
// n must be a positive multiple of 8; ctr holds the counters of dst[0..7].
TEXT ·uniform64AVX512(SB), NOSPLIT, $0-48
	MOVQ         dst+0(FP), DI
	MOVQ         n+8(FP), CX
	SETUP
	VBROADCASTSD lo+32(FP), Z4
	VBROADCASTSD scale+40(FP), Z5
	SHRQ         $3, CX

loop64:
	MIX(Z0, Z6, Z7, Z2, Z3)
	VPSRLQ    $11, Z6, Z6
	VCVTQQ2PD Z6, Z6
	VMULPD    Z5, Z6, Z6
	VADDPD    Z4, Z6, Z6
	VMOVUPD   Z6, (DI)
	VPADDQ    Z1, Z0, Z0
	ADDQ      $64, DI
	DECQ      CX
	JNZ       loop64
	VZEROUPPER
	RET

// func uniform32AVX512(dst *float32, n int, ctr *[8]uint64, step uint64, lo, scale float32)
TEXT ·uniform32AVX512(SB), NOSPLIT, $0-40
	MOVQ         dst+0(FP), DI
	MOVQ         n+8(FP), CX
	SETUP
	VBROADCASTSS lo+32(FP), Y4
	VBROADCASTSS scale+36(FP), Y5
	SHRQ         $3, CX

loop32:
	MIX(Z0, Z6, Z7, Z2, Z3)
	VPSRLQ    $40, Z6, Z6
	VCVTQQ2PS Z6, Y6
	VMULPS    Y5, Y6, Y6
	VADDPS    Y4, Y6, Y6
	VMOVUPS   Y6, (DI)
	VPADDQ    Z1, Z0, Z0
	ADDQ      $32, DI
	DECQ      CX
	JNZ       loop32
	VZEROUPPER
	RET
