#include "textflag.h"

// AVX-512 loops of float64 hypot, arctan2 and arctan, eight lanes at a time.
// Each is the scalar function of ufunc_math.go (glibc's hypot kernel, fdlibm's
// atan2 around Go's Cephes atan) written lane by lane with the same IEEE
// operations in the same order and no FMA, so results are bit-identical to
// the scalar ones; the branches of the scalar code become computations of
// every branch and a blend by mask. Lanes the common path does not cover
// (NaN, zeros, infinities, huge or tiny operands, |y/x| beyond 2**±60) are
// left to the scalar function: a loop stops at the first block of 8 that
// holds one and returns its index, and the Go wrapper runs that block
// scalar and calls the loop again after it.
//
// Registers: DI = d, SI and DX the operands, CX = n (a positive multiple of
// 8), AX = element index; constants live in the high Z registers.

// Constants (bit patterns of the scalar code's float64 constants).
DATA tconst<>+0x00(SB)/8, $0x7fffffffffffffff // |.| mask
DATA tconst<>+0x08(SB)/8, $0x5fe0000000000000 // 2**511
DATA tconst<>+0x10(SB)/8, $0x2340000000000000 // 2**-459
DATA tconst<>+0x18(SB)/8, $0x3c90000000000000 // 2**-54
DATA tconst<>+0x20(SB)/8, $0x4010000000000000 // 4
DATA tconst<>+0x28(SB)/8, $0x7fefffffffffffff // MaxFloat64
DATA tconst<>+0x30(SB)/8, $0x3fe51eb851eb851f // 0.66
DATA tconst<>+0x38(SB)/8, $0x4003504f333f9de6 // tan(3pi/8)
DATA tconst<>+0x40(SB)/8, $0x3ff0000000000000 // 1
DATA tconst<>+0x48(SB)/8, $0x3ff921fb54442d18 // pi/2
DATA tconst<>+0x50(SB)/8, $0x3fe921fb54442d18 // pi/4
DATA tconst<>+0x58(SB)/8, $0x3c91a62633145c07 // Morebits: pi/2 - float64(pi/2)
DATA tconst<>+0x60(SB)/8, $0x3c81a62633145c07 // Morebits/2
DATA tconst<>+0x68(SB)/8, $0x400921fb54442d18 // pi (high part)
DATA tconst<>+0x70(SB)/8, $0x3ca1a62633145c07 // pi - float64(pi)
DATA tconst<>+0x78(SB)/8, $0xbfec007fa1f72594 // P0 (Go's math.Atan)
DATA tconst<>+0x80(SB)/8, $0xc03028545b6b807a // P1
DATA tconst<>+0x88(SB)/8, $0xc052c08c36880273 // P2
DATA tconst<>+0x90(SB)/8, $0xc05eb8bf2d05ba25 // P3
DATA tconst<>+0x98(SB)/8, $0xc0503669fd28ec8e // P4
DATA tconst<>+0xa0(SB)/8, $0x4038dbc45b14603c // Q0
DATA tconst<>+0xa8(SB)/8, $0x4064a0dd43b8fa25 // Q1
DATA tconst<>+0xb0(SB)/8, $0x407b0e18d2e2be3b // Q2
DATA tconst<>+0xb8(SB)/8, $0x407e563f13b049ea // Q3
DATA tconst<>+0xc0(SB)/8, $0x4068519efbbd62ec // Q4
DATA tconst<>+0xc8(SB)/8, $60                 // fdlibm's bound on the exponent difference
DATA tconst<>+0xd0(SB)/8, $-60
GLOBL tconst<>(SB), RODATA|NOPTR, $0xd8

// ---- hypot ----

// func hypotVV64(d, x, y *float64, n int) int
TEXT ·hypotVV64(SB), NOSPLIT, $0-40
	MOVQ d+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	VBROADCASTSD tconst<>+0x00(SB), Z31
	VBROADCASTSD tconst<>+0x08(SB), Z30
	VBROADCASTSD tconst<>+0x10(SB), Z29
	VBROADCASTSD tconst<>+0x18(SB), Z28
	VBROADCASTSD tconst<>+0x20(SB), Z27
	XORQ AX, AX

hloop:
	VMOVUPD (SI)(AX*8), Z0
	VMOVUPD (DX)(AX*8), Z1
	VPANDQ  Z31, Z0, Z0
	VPANDQ  Z31, Z1, Z1

	// a, b = |x|, |y| swapped where |x| < |y| (NaN stays in a, as scalar).
	VCMPPD    $0x11, Z1, Z0, K1
	VBLENDMPD Z1, Z0, K1, Z2
	VBLENDMPD Z0, Z1, K1, Z3

	// The common case: a <= 2**511, b >= 2**-459, b > a*2**-54.
	VCMPPD $0x12, Z30, Z2, K2
	VCMPPD $0x1d, Z29, Z3, K2, K2
	VMULPD Z28, Z2, Z4
	VCMPPD $0x1e, Z4, Z3, K2, K2
	KMOVW  K2, BX
	CMPL   BX, $0xff
	JNE    hdone

	// h = sqrt(a*a + b*b), then Borges' correction of both branches.
	VMULPD  Z2, Z2, Z4
	VMULPD  Z3, Z3, Z5
	VADDPD  Z5, Z4, Z4
	VSQRTPD Z4, Z4
	VADDPD  Z3, Z3, Z5        // 2b
	VCMPPD  $0x12, Z5, Z4, K3 // h <= 2b

	// h <= 2b: delta = h-b, t1 = a*(2delta-a), t2 = (delta-2(a-b))*delta.
	VSUBPD Z3, Z4, Z6
	VADDPD Z6, Z6, Z7
	VSUBPD Z2, Z7, Z7
	VMULPD Z2, Z7, Z7
	VSUBPD Z3, Z2, Z8
	VADDPD Z8, Z8, Z8
	VSUBPD Z8, Z6, Z8
	VMULPD Z6, Z8, Z8
	VADDPD Z8, Z7, Z7

	// h > 2b: delta = h-a, t1 = 2delta*(a-2b), t2 = (4delta-b)*b + delta*delta.
	VSUBPD Z2, Z4, Z6
	VADDPD Z6, Z6, Z8
	VSUBPD Z5, Z2, Z9
	VMULPD Z9, Z8, Z8
	VMULPD Z27, Z6, Z9
	VSUBPD Z3, Z9, Z9
	VMULPD Z3, Z9, Z9
	VMULPD Z6, Z6, Z10
	VADDPD Z10, Z9, Z9
	VADDPD Z9, Z8, Z8

	// h - (t1+t2)/(2h)
	VBLENDMPD Z7, Z8, K3, Z7
	VADDPD    Z4, Z4, Z5
	VDIVPD    Z5, Z7, Z7
	VSUBPD    Z7, Z4, Z4
	VMOVUPD   Z4, (DI)(AX*8)

	ADDQ $8, AX
	CMPQ AX, CX
	JB   hloop

hdone:
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET

// ---- arctan ----

// ATAN_CONSTS loads the constants of SATAN.
#define ATAN_CONSTS \
	VBROADCASTSD tconst<>+0x00(SB), Z31 \
	VBROADCASTSD tconst<>+0x28(SB), Z30 \
	VBROADCASTSD tconst<>+0x30(SB), Z29 \
	VBROADCASTSD tconst<>+0x38(SB), Z28 \
	VBROADCASTSD tconst<>+0x40(SB), Z27 \
	VBROADCASTSD tconst<>+0x48(SB), Z26 \
	VBROADCASTSD tconst<>+0x50(SB), Z25 \
	VBROADCASTSD tconst<>+0x58(SB), Z24 \
	VBROADCASTSD tconst<>+0x60(SB), Z23 \
	VBROADCASTSD tconst<>+0x68(SB), Z22 \
	VBROADCASTSD tconst<>+0x70(SB), Z21 \
	VBROADCASTSD tconst<>+0x78(SB), Z20 \
	VBROADCASTSD tconst<>+0x80(SB), Z19 \
	VBROADCASTSD tconst<>+0x88(SB), Z18 \
	VBROADCASTSD tconst<>+0x90(SB), Z17 \
	VBROADCASTSD tconst<>+0x98(SB), Z16 \
	VBROADCASTSD tconst<>+0xa0(SB), Z15 \
	VBROADCASTSD tconst<>+0xa8(SB), Z14 \
	VBROADCASTSD tconst<>+0xb0(SB), Z13 \
	VBROADCASTSD tconst<>+0xb8(SB), Z12 \
	VBROADCASTSD tconst<>+0xc0(SB), Z11 \
	VPBROADCASTQ tconst<>+0xc8(SB), Z10 \
	VPBROADCASTQ tconst<>+0xd0(SB), Z9 \
	VPXORQ       Z8, Z8, Z8

// SATAN is Go's satan (math/atan.go) of Z2 > 0 (not NaN; +Inf allowed) into
// Z6, with Z3-Z5 and Z7, K4 and K5 as scratch:
//   t <= 0.66:        xatan(t)
//   t > tan(3pi/8):   pi/2 - xatan(1/t) + Morebits
//   else:             pi/4 + xatan((t-1)/(t+1)) + Morebits/2
// xatan(u) = u*(z*P(z)/Q(z)) + u with z = u*u. One division forms u in all
// three cases (t/1, 1/t, (t-1)/(t+1)).
#define SATAN \
	VCMPPD  $0x12, Z29, Z2, K4 \
	VCMPPD  $0x1e, Z28, Z2, K5 \
	VSUBPD  Z27, Z2, Z3 \
	VADDPD  Z27, Z2, Z4 \
	VMOVAPD Z2, K4, Z3 \
	VMOVAPD Z27, K4, Z4 \
	VMOVAPD Z27, K5, Z3 \
	VMOVAPD Z2, K5, Z4 \
	VDIVPD  Z4, Z3, Z3 \
	VMULPD  Z3, Z3, Z4 \
	VMULPD  Z20, Z4, Z5 \
	VADDPD  Z19, Z5, Z5 \
	VMULPD  Z4, Z5, Z5 \
	VADDPD  Z18, Z5, Z5 \
	VMULPD  Z4, Z5, Z5 \
	VADDPD  Z17, Z5, Z5 \
	VMULPD  Z4, Z5, Z5 \
	VADDPD  Z16, Z5, Z5 \
	VADDPD  Z15, Z4, Z6 \
	VMULPD  Z4, Z6, Z6 \
	VADDPD  Z14, Z6, Z6 \
	VMULPD  Z4, Z6, Z6 \
	VADDPD  Z13, Z6, Z6 \
	VMULPD  Z4, Z6, Z6 \
	VADDPD  Z12, Z6, Z6 \
	VMULPD  Z4, Z6, Z6 \
	VADDPD  Z11, Z6, Z6 \
	VMULPD  Z5, Z4, Z5 \
	VDIVPD  Z6, Z5, Z5 \
	VMULPD  Z3, Z5, Z5 \
	VADDPD  Z3, Z5, Z5 \
	VADDPD  Z25, Z5, Z6 \
	VADDPD  Z23, Z6, Z6 \
	VSUBPD  Z5, Z26, Z7 \
	VADDPD  Z24, Z7, Z7 \
	VMOVAPD Z7, K5, Z6 \
	VMOVAPD Z5, K4, Z6

// func atan2VV64(d, y, x *float64, n int) int
TEXT ·atan2VV64(SB), NOSPLIT, $0-40
	MOVQ d+0(FP), DI
	MOVQ y+8(FP), SI
	MOVQ x+16(FP), DX
	MOVQ n+24(FP), CX
	ATAN_CONSTS
	XORQ AX, AX

aloop:
	VMOVUPD (SI)(AX*8), Z0
	VMOVUPD (DX)(AX*8), Z1
	VPANDQ  Z31, Z0, Z2
	VPANDQ  Z31, Z1, Z3

	// Finite nonzero operands (ordered compares: false for NaN) ...
	VCMPPD $0x1e, Z8, Z3, K1
	VCMPPD $0x1e, Z8, Z2, K1, K1
	VCMPPD $0x12, Z30, Z3, K1, K1
	VCMPPD $0x12, Z30, Z2, K1, K1

	// ... whose exponents differ by at most 60: fdlibm's k, the difference
	// of the high words shifted by 20.
	VPSRLQ $32, Z2, Z4
	VPSRLQ $32, Z3, Z5
	VPSUBQ Z5, Z4, Z4
	VPSRAQ $20, Z4, Z4
	VPCMPQ $2, Z10, Z4, K1, K1
	VPCMPQ $5, Z9, Z4, K1, K1
	KMOVW  K1, BX
	CMPL   BX, $0xff
	JNE    adone

	// z = atan(|y|/|x|); pi - (z - pilo) where x < 0; y's sign.
	VDIVPD  Z3, Z2, Z2
	SATAN
	VCMPPD  $0x11, Z8, Z1, K2
	VSUBPD  Z21, Z6, Z7
	VSUBPD  Z7, Z22, Z7
	VMOVAPD Z7, K2, Z6
	VPANDNQ Z0, Z31, Z7
	VPORQ   Z7, Z6, Z6
	VMOVUPD Z6, (DI)(AX*8)

	ADDQ $8, AX
	CMPQ AX, CX
	JB   aloop

adone:
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET

// func atanV64(d, x *float64, n int) int
TEXT ·atanV64(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	ATAN_CONSTS
	XORQ AX, AX

tloop:
	// Zeros and NaN go to the scalar function (atan(±0) = ±0 and NaN's
	// payload); ±Inf takes the common path (1/Inf = 0, so pi/2).
	VMOVUPD (SI)(AX*8), Z0
	VPANDQ  Z31, Z0, Z2
	VCMPPD  $0x1e, Z8, Z2, K1
	KMOVW   K1, BX
	CMPL    BX, $0xff
	JNE     tdone

	SATAN
	VPANDNQ Z0, Z31, Z7
	VPORQ   Z7, Z6, Z6
	VMOVUPD Z6, (DI)(AX*8)

	ADDQ $8, AX
	CMPQ AX, CX
	JB   tloop

tdone:
	MOVQ AX, ret+24(FP)
	VZEROUPPER
	RET
