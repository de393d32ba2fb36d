#include "textflag.h"

// AVX-512 loops of float64 and float32 add, sub, mul and div on contiguous
// slices: d = x op y with x, y vectors (VV), y a scalar (VS) or x a scalar
// (SV). Each processes the first n elements, n a multiple of 8 (float64) or
// 16 (float32); the Go wrappers do the rest. Vector IEEE arithmetic rounds
// exactly like the scalar loops, so results are bit-identical.
//
// Registers: DI = d, SI = x, DX = y, CX = n, AX = element index, Z7 = the
// broadcast scalar. The main loop does four registers (256 bytes) per step,
// the tail one register per step. S is the element size (8 or 4) and W the
// elements per register (8 or 16).

// ARITH is the loop shared by every form: LOAD(k, reg) loads operand
// register k from byte offset 64k and APPLY(k, reg) applies the op to it.
#define ARITH(LOAD, APPLY, S, W) \
	XORQ AX, AX \
	MOVQ CX, BX \
	ANDQ $-(4*W), BX \
	JZ   tail \
loop: \
	LOAD(0, Z0); LOAD(64, Z1); LOAD(128, Z2); LOAD(192, Z3) \
	APPLY(0, Z0); APPLY(64, Z1); APPLY(128, Z2); APPLY(192, Z3) \
	VMOVUPS Z0, (DI)(AX*S); VMOVUPS Z1, 64(DI)(AX*S); VMOVUPS Z2, 128(DI)(AX*S); VMOVUPS Z3, 192(DI)(AX*S) \
	ADDQ $(4*W), AX \
	CMPQ AX, BX \
	JB   loop \
tail: \
	CMPQ AX, CX \
	JAE  done \
tail1: \
	LOAD(0, Z0) \
	APPLY(0, Z0) \
	VMOVUPS Z0, (DI)(AX*S) \
	ADDQ $W, AX \
	CMPQ AX, CX \
	JB   tail1 \
done: \
	VZEROUPPER \
	RET

// Operand loads and op applications of the three forms.
#define LOADX8(off, R) VMOVUPS off(SI)(AX*8), R
#define LOADX4(off, R) VMOVUPS off(SI)(AX*4), R
#define LOADY8(off, R) VMOVUPS off(DX)(AX*8), R
#define LOADY4(off, R) VMOVUPS off(DX)(AX*4), R

// x op y[i] (memory operand), x[i] op s, s op y[i].
#define ADDPD_Y(off, R) VADDPD off(DX)(AX*8), R, R
#define SUBPD_Y(off, R) VSUBPD off(DX)(AX*8), R, R
#define MULPD_Y(off, R) VMULPD off(DX)(AX*8), R, R
#define DIVPD_Y(off, R) VDIVPD off(DX)(AX*8), R, R
#define ADDPS_Y(off, R) VADDPS off(DX)(AX*4), R, R
#define SUBPS_Y(off, R) VSUBPS off(DX)(AX*4), R, R
#define MULPS_Y(off, R) VMULPS off(DX)(AX*4), R, R
#define DIVPS_Y(off, R) VDIVPS off(DX)(AX*4), R, R
#define ADDPD_S(off, R) VADDPD Z7, R, R
#define SUBPD_S(off, R) VSUBPD Z7, R, R
#define MULPD_S(off, R) VMULPD Z7, R, R
#define DIVPD_S(off, R) VDIVPD Z7, R, R
#define ADDPS_S(off, R) VADDPS Z7, R, R
#define SUBPS_S(off, R) VSUBPS Z7, R, R
#define MULPS_S(off, R) VMULPS Z7, R, R
#define DIVPS_S(off, R) VDIVPS Z7, R, R
#define SUBPD_R(off, R) VSUBPD R, Z7, R
#define DIVPD_R(off, R) VDIVPD R, Z7, R
#define SUBPS_R(off, R) VSUBPS R, Z7, R
#define DIVPS_R(off, R) VDIVPS R, Z7, R

// Argument loading of the three forms (all frames are 32 bytes).
#define ARGS_VV MOVQ d+0(FP), DI; MOVQ x+8(FP), SI; MOVQ y+16(FP), DX; MOVQ n+24(FP), CX
#define ARGS_VS(BC) MOVQ d+0(FP), DI; MOVQ x+8(FP), SI; BC y+16(FP), Z7; MOVQ n+24(FP), CX
#define ARGS_SV(BC) MOVQ d+0(FP), DI; BC x+8(FP), Z7; MOVQ y+16(FP), DX; MOVQ n+24(FP), CX

// func addVV64(d, x, y *float64, n int)
TEXT ·addVV64(SB), NOSPLIT, $0-32
	ARGS_VV
	ARITH(LOADX8, ADDPD_Y, 8, 8)

// func addVS64(d, x *float64, y float64, n int)
TEXT ·addVS64(SB), NOSPLIT, $0-32
	ARGS_VS(VBROADCASTSD)
	ARITH(LOADX8, ADDPD_S, 8, 8)

// func addVV32(d, x, y *float32, n int)
TEXT ·addVV32(SB), NOSPLIT, $0-32
	ARGS_VV
	ARITH(LOADX4, ADDPS_Y, 4, 16)

// func addVS32(d, x *float32, y float32, n int)
TEXT ·addVS32(SB), NOSPLIT, $0-32
	ARGS_VS(VBROADCASTSS)
	ARITH(LOADX4, ADDPS_S, 4, 16)

// func subVV64(d, x, y *float64, n int)
TEXT ·subVV64(SB), NOSPLIT, $0-32
	ARGS_VV
	ARITH(LOADX8, SUBPD_Y, 8, 8)

// func subVS64(d, x *float64, y float64, n int)
TEXT ·subVS64(SB), NOSPLIT, $0-32
	ARGS_VS(VBROADCASTSD)
	ARITH(LOADX8, SUBPD_S, 8, 8)

// func subSV64(d *float64, x float64, y *float64, n int)
TEXT ·subSV64(SB), NOSPLIT, $0-32
	ARGS_SV(VBROADCASTSD)
	ARITH(LOADY8, SUBPD_R, 8, 8)

// func subVV32(d, x, y *float32, n int)
TEXT ·subVV32(SB), NOSPLIT, $0-32
	ARGS_VV
	ARITH(LOADX4, SUBPS_Y, 4, 16)

// func subVS32(d, x *float32, y float32, n int)
TEXT ·subVS32(SB), NOSPLIT, $0-32
	ARGS_VS(VBROADCASTSS)
	ARITH(LOADX4, SUBPS_S, 4, 16)

// func subSV32(d *float32, x float32, y *float32, n int)
TEXT ·subSV32(SB), NOSPLIT, $0-32
	ARGS_SV(VBROADCASTSS)
	ARITH(LOADY4, SUBPS_R, 4, 16)

// func mulVV64(d, x, y *float64, n int)
TEXT ·mulVV64(SB), NOSPLIT, $0-32
	ARGS_VV
	ARITH(LOADX8, MULPD_Y, 8, 8)

// func mulVS64(d, x *float64, y float64, n int)
TEXT ·mulVS64(SB), NOSPLIT, $0-32
	ARGS_VS(VBROADCASTSD)
	ARITH(LOADX8, MULPD_S, 8, 8)

// func mulVV32(d, x, y *float32, n int)
TEXT ·mulVV32(SB), NOSPLIT, $0-32
	ARGS_VV
	ARITH(LOADX4, MULPS_Y, 4, 16)

// func mulVS32(d, x *float32, y float32, n int)
TEXT ·mulVS32(SB), NOSPLIT, $0-32
	ARGS_VS(VBROADCASTSS)
	ARITH(LOADX4, MULPS_S, 4, 16)

// func divVV64(d, x, y *float64, n int)
TEXT ·divVV64(SB), NOSPLIT, $0-32
	ARGS_VV
	ARITH(LOADX8, DIVPD_Y, 8, 8)

// func divVS64(d, x *float64, y float64, n int)
TEXT ·divVS64(SB), NOSPLIT, $0-32
	ARGS_VS(VBROADCASTSD)
	ARITH(LOADX8, DIVPD_S, 8, 8)

// func divSV64(d *float64, x float64, y *float64, n int)
TEXT ·divSV64(SB), NOSPLIT, $0-32
	ARGS_SV(VBROADCASTSD)
	ARITH(LOADY8, DIVPD_R, 8, 8)

// func divVV32(d, x, y *float32, n int)
TEXT ·divVV32(SB), NOSPLIT, $0-32
	ARGS_VV
	ARITH(LOADX4, DIVPS_Y, 4, 16)

// func divVS32(d, x *float32, y float32, n int)
TEXT ·divVS32(SB), NOSPLIT, $0-32
	ARGS_VS(VBROADCASTSS)
	ARITH(LOADX4, DIVPS_S, 4, 16)

// func divSV32(d *float32, x float32, y *float32, n int)
TEXT ·divSV32(SB), NOSPLIT, $0-32
	ARGS_SV(VBROADCASTSS)
	ARITH(LOADY4, DIVPS_R, 4, 16)

// Unary float64 loops: d = f(x). UNARY reuses ARITH's loop with the operand
// loaded from x and the function applied in place.
DATA signBit<>+0(SB)/8, $0x8000000000000000
GLOBL signBit<>(SB), RODATA|NOPTR, $8
DATA absMask<>+0(SB)/8, $0x7fffffffffffffff
GLOBL absMask<>(SB), RODATA|NOPTR, $8

#define NEGPD(off, R) VXORPD.BCST signBit<>(SB), R, R
#define ABSPD(off, R) VANDPD.BCST absMask<>(SB), R, R
#define SQPD(off, R) VMULPD R, R, R
#define SQRTPD(off, R) VSQRTPD R, R
#define ARGS_UN MOVQ d+0(FP), DI; MOVQ x+8(FP), SI; MOVQ n+16(FP), CX

// func negV64(d, x *float64, n int)
TEXT ·negV64(SB), NOSPLIT, $0-24
	ARGS_UN
	ARITH(LOADX8, NEGPD, 8, 8)

// func absV64(d, x *float64, n int)
TEXT ·absV64(SB), NOSPLIT, $0-24
	ARGS_UN
	ARITH(LOADX8, ABSPD, 8, 8)

// func squareV64(d, x *float64, n int)
TEXT ·squareV64(SB), NOSPLIT, $0-24
	ARGS_UN
	ARITH(LOADX8, SQPD, 8, 8)

// func sqrtV64(d, x *float64, n int)
TEXT ·sqrtV64(SB), NOSPLIT, $0-24
	ARGS_UN
	ARITH(LOADX8, SQRTPD, 8, 8)
