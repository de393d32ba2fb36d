#include "textflag.h"

// AVX-512 loops of float64 hypot, arctan2 and arctan, eight lanes at a time.
// Each is the scalar function of ufunc_math.go (glibc's hypot kernel; our
// ewAtan2) written lane by lane with the same IEEE operations in the same
// order (FMAs where the scalar code calls math.FMA, none elsewhere), so
// results are bit-identical to the scalar ones; the branches of the scalar
// code become computations of every branch and a blend by mask, its table
// lookups VPERMQ. Lanes the common path does not cover (NaN, zeros,
// infinities; for hypot also huge, tiny and very unequal operands) are left
// to the scalar function: a loop stops at the first block of 8 that holds
// one and returns its index, and the Go wrapper runs that block scalar and
// calls the loop again after it.
//
// Registers: DI = d, SI and DX the operands, CX = n (a positive multiple of
// 8), AX = element index; constants live in the high Z registers.

// Constants (bit patterns of the scalar code's float64 constants).
DATA tconst<>+0x00(SB)/8, $0x7fffffffffffffff // |.| mask
DATA tconst<>+0x08(SB)/8, $0x5fe0000000000000 // 2**511
DATA tconst<>+0x10(SB)/8, $0x2340000000000000 // 2**-459
DATA tconst<>+0x18(SB)/8, $0x3c90000000000000 // 2**-54
DATA tconst<>+0x20(SB)/8, $0x4010000000000000 // 4
DATA tconst<>+0x28(SB)/8, $0x7830000000000000 // 2**900
DATA tconst<>+0x30(SB)/8, $0x07b0000000000000 // 2**-900
DATA tconst<>+0x38(SB)/8, $0x3fe0000000000000 // 0.5
DATA tconst<>+0x40(SB)/8, $0x3ff0000000000000 // 1
DATA tconst<>+0x48(SB)/8, $0xbfd5555555555555 // P[0]
DATA tconst<>+0x50(SB)/8, $0x3fc999999999998e // P[1]
DATA tconst<>+0x58(SB)/8, $0xbfc2492492491932 // P[2]
DATA tconst<>+0x60(SB)/8, $0x3fbc71c71c68a0c5 // P[3]
DATA tconst<>+0x68(SB)/8, $0xbfb745d172701e87 // P[4]
DATA tconst<>+0x70(SB)/8, $0x3fb3b13ad5571f07 // P[5]
DATA tconst<>+0x78(SB)/8, $0xbfb1110befb7253c // P[6]
DATA tconst<>+0x80(SB)/8, $0x3fae1d8a9bad8600 // P[7]
DATA tconst<>+0x88(SB)/8, $0xbfaaecb542412942 // P[8]
DATA tconst<>+0x90(SB)/8, $0x3fa837a52499d8b8 // P[9]
DATA tconst<>+0x98(SB)/8, $0xbfa56b2f82e012dd // P[10]
DATA tconst<>+0xa0(SB)/8, $0x3fa166a8732cc738 // P[11]
DATA tconst<>+0xa8(SB)/8, $0xbf9633de283fb773 // P[12]
DATA tconst<>+0xb0(SB)/8, $0x3f7f5c3523066ab0 // P[13]
DATA tconst<>+0xb8(SB)/8, $0x0000000000000002 // int 2
DATA tconst<>+0xc0(SB)/8, $0x0000000000000004 // int 4
GLOBL tconst<>(SB), RODATA|NOPTR, $0xc8

// ewAtanBaseHi, ewAtanBaseLo and ewAtanNeg (as a sign bit), indexed by k
// (ewAtanNeg is the parity of k, the same in either order of its bits).
DATA atanbh<>+0x0(SB)/8, $0x0000000000000000
DATA atanbh<>+0x8(SB)/8, $0x400921fb54442d18
DATA atanbh<>+0x10(SB)/8, $0x3ff921fb54442d18
DATA atanbh<>+0x18(SB)/8, $0x3ff921fb54442d18
DATA atanbh<>+0x20(SB)/8, $0x3fe921fb54442d18
DATA atanbh<>+0x28(SB)/8, $0x4002d97c7f3321d2
DATA atanbh<>+0x30(SB)/8, $0x3fe921fb54442d18
DATA atanbh<>+0x38(SB)/8, $0x4002d97c7f3321d2
GLOBL atanbh<>(SB), RODATA|NOPTR, $64
DATA atanbl<>+0x0(SB)/8, $0x0000000000000000
DATA atanbl<>+0x8(SB)/8, $0x3ca1a62633145c07
DATA atanbl<>+0x10(SB)/8, $0x3c91a62633145c07
DATA atanbl<>+0x18(SB)/8, $0x3c91a62633145c07
DATA atanbl<>+0x20(SB)/8, $0x3c81a62633145c07
DATA atanbl<>+0x28(SB)/8, $0x3c9a79394c9e8a0a
DATA atanbl<>+0x30(SB)/8, $0x3c81a62633145c07
DATA atanbl<>+0x38(SB)/8, $0x3c9a79394c9e8a0a
GLOBL atanbl<>(SB), RODATA|NOPTR, $64
DATA atanneg<>+0x0(SB)/8, $0x0000000000000000
DATA atanneg<>+0x8(SB)/8, $0x8000000000000000
DATA atanneg<>+0x10(SB)/8, $0x8000000000000000
DATA atanneg<>+0x18(SB)/8, $0x0000000000000000
DATA atanneg<>+0x20(SB)/8, $0x8000000000000000
DATA atanneg<>+0x28(SB)/8, $0x0000000000000000
DATA atanneg<>+0x30(SB)/8, $0x0000000000000000
DATA atanneg<>+0x38(SB)/8, $0x8000000000000000
GLOBL atanneg<>(SB), RODATA|NOPTR, $64

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

// ---- arctan2 and arctan ----

// ATAN_CONSTS loads the constants ATAN2 keeps in registers.
#define ATAN_CONSTS \
	VBROADCASTSD tconst<>+0x00(SB), Z31 \
	VPXORQ       Z29, Z29, Z29 \
	VBROADCASTSD tconst<>+0x28(SB), Z28 \
	VBROADCASTSD tconst<>+0x30(SB), Z26 \
	VBROADCASTSD tconst<>+0x38(SB), Z23 \
	VBROADCASTSD tconst<>+0x40(SB), Z22

// ATAN2 is ewAtan2 of y in Z0 and x in Z1, into Z4, for blocks whose |x|
// and |y| are all in [2**-900, 2**900], where ewAtan2 scales nothing; for
// others (zeros, infinities and NaN among them) it jumps to SPECIAL.
// Comments name the scalar code's variables.
#define ATAN2(SPECIAL) \
	VPANDQ          Z31, Z0, Z2 \
	VPANDQ          Z31, Z1, Z3 \
	/* n (Z4), d (Z5): a NaN lands in one of them */ \
	VCMPPD          $0x1e, Z3, Z2, K2 \
	VBLENDMPD       Z3, Z2, K2, Z4 \
	VBLENDMPD       Z2, Z3, K2, Z5 \
	/* a lane off the common path: n < 2**-900, d > 2**900 or NaN */ \
	VCMPPD          $0x19, Z26, Z4, K1 \
	VCMPPD          $0x16, Z28, Z5, K4 \
	KORTESTW        K1, K4 \
	JNE             SPECIAL \
	/* k: x's sign bit, + 2 if swapped */ \
	VPSRLQ          $63, Z1, Z10 \
	VPADDQ.BCST     tconst<>+0xb8(SB), Z10, K2, Z10 \
	/* num (Z4), den (Z5), dl (Z8); k + 4 if reduced (K5) */ \
	VMULPD          Z23, Z5, Z6 \
	VCMPPD          $0x1e, Z6, Z4, K5 \
	VADDPD          Z4, Z5, Z7 \
	VSUBPD          Z7, Z5, Z8 \
	VADDPD.Z        Z4, Z8, K5, Z8 \
	VSUBPD          Z4, Z5, K5, Z4 \
	VMOVAPD         Z7, K5, Z5 \
	VPADDQ.BCST     tconst<>+0xc0(SB), Z10, K5, Z10 \
	/* num = -num where atan(u) is subtracted */ \
	VPERMQ          atanneg<>(SB), Z10, Z21 \
	VPXORQ          Z21, Z4, Z4 \
	/* inv (Z6), t (Z7), tl (Z9) */ \
	VDIVPD          Z5, Z22, Z6 \
	VMULPD          Z6, Z4, Z7 \
	VFNMADD213PD    Z4, Z7, Z5 \
	VFNMADD231PD    Z7, Z8, Z5 \
	VMULPD          Z6, Z5, Z9 \
	/* z (Z11), z*z (Z12), p (Z13), s (Z9), h1 (Z19), lo (Z20) */ \
	VMULPD          Z7, Z7, Z11 \
	VMULPD          Z11, Z11, Z12 \
	VBROADCASTSD    tconst<>+0xb0(SB), Z13 \
	VBROADCASTSD    tconst<>+0xa8(SB), Z15 \
	VFMADD213PD.BCST tconst<>+0xa0(SB), Z12, Z13 \
	VFMADD213PD.BCST tconst<>+0x98(SB), Z12, Z15 \
	VFMADD213PD.BCST tconst<>+0x90(SB), Z12, Z13 \
	VFMADD213PD.BCST tconst<>+0x88(SB), Z12, Z15 \
	VFMADD213PD.BCST tconst<>+0x80(SB), Z12, Z13 \
	VFMADD213PD.BCST tconst<>+0x78(SB), Z12, Z15 \
	VFMADD213PD.BCST tconst<>+0x70(SB), Z12, Z13 \
	VFMADD213PD.BCST tconst<>+0x68(SB), Z12, Z15 \
	VFMADD213PD.BCST tconst<>+0x60(SB), Z12, Z13 \
	VFMADD213PD.BCST tconst<>+0x58(SB), Z12, Z15 \
	VFMADD213PD.BCST tconst<>+0x50(SB), Z12, Z13 \
	VFMADD213PD.BCST tconst<>+0x48(SB), Z12, Z15 \
	VFMADD213PD     Z15, Z11, Z13 \
	VMULPD          Z11, Z7, Z14 \
	VFNMADD213PD    Z9, Z11, Z9 \
	VFMADD231PD     Z13, Z14, Z9 \
	VADDPD          Z9, Z7, Z19 \
	VSUBPD          Z19, Z7, Z20 \
	VADDPD          Z9, Z20, Z20 \
	/* (bh, bl) + (h1, lo); y's sign */ \
	VPERMQ          atanbh<>(SB), Z10, Z6 \
	VPERMQ          atanbl<>(SB), Z10, Z8 \
	VADDPD          Z19, Z6, Z4 \
	VSUBPD          Z4, Z6, Z5 \
	VADDPD          Z19, Z5, Z5 \
	VADDPD          Z8, Z5, Z5 \
	VADDPD          Z20, Z5, Z5 \
	VADDPD          Z5, Z4, Z4 \
	VPTERNLOGQ      $0xe2, Z0, Z31, Z4

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
	ATAN2(adone)
	VMOVUPD Z4, (DI)(AX*8)
	ADDQ    $8, AX
	CMPQ    AX, CX
	JB      aloop

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
	// arctan(x) = arctan2(x, 1): ewAtan.
	VMOVUPD (SI)(AX*8), Z0
	VMOVAPD Z22, Z1
	ATAN2(tdone)
	VMOVUPD Z4, (DI)(AX*8)
	ADDQ    $8, AX
	CMPQ    AX, CX
	JB      tloop

tdone:
	MOVQ AX, ret+24(FP)
	VZEROUPPER
	RET
