#include "textflag.h"

// AVX-512 loops of float64 exp and sin, eight lanes at a time: ewExp and
// ewSin written lane by lane with the same IEEE operations in the same order
// (FMAs exactly where the scalar code calls math.FMA), so results are
// bit-identical; branches become both sides and a blend, ewExp's table
// lookups permutes. A block holding a lane the common path does not cover
// (exp: |x| < 2**-54, |x| >= 512, NaN; sin: |x| >= 2**43, infinities, NaN)
// makes the loop return its index, and the Go wrapper runs it scalar.
//
// Registers: DI = d, SI = x, CX = n (a positive multiple of 8), AX = element
// index; constants live in the high Z registers.

DATA econst<>+0x00(SB)/8, $0x7fffffffffffffff // |.| mask
DATA econst<>+0x08(SB)/8, $0x3c90000000000000 // 2**-54
DATA econst<>+0x10(SB)/8, $0x4080000000000000 // 512
DATA econst<>+0x18(SB)/8, $0x40371547652b82fe // invLn2N
DATA econst<>+0x20(SB)/8, $0x4338000000000000 // shift 0x1.8p52
DATA econst<>+0x28(SB)/8, $0xbfa62e42fefa0000 // negLn2hiN
DATA econst<>+0x30(SB)/8, $0xbd3cf79abc9e3b3a // negLn2loN
DATA econst<>+0x38(SB)/8, $0x3fe0000000000000 // c2
DATA econst<>+0x40(SB)/8, $0x3fc5555555555555 // c3
DATA econst<>+0x48(SB)/8, $0x3fa5555555555555 // c4
DATA econst<>+0x50(SB)/8, $0x3f81111111111111 // c5
DATA econst<>+0x58(SB)/8, $0x3f56c16c16c16c17 // c6
DATA econst<>+0x60(SB)/8, $0x3f2a01a01a01a01a // c7
GLOBL econst<>(SB), RODATA|NOPTR, $0x68

// ---- exp ----

// func expV64(d, x *float64, n int) int
//
// ewExp16 holds the tails of 2^(j/16) (j = 0..15), then their scale bits:
// sixteen entries sit in two registers, and VPERMI2PD/VPERMI2Q look a lane
// up by the low four bits of its ki, which are ki%16.
TEXT ·expV64(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	LEAQ ·ewExp16(SB), R8
	VBROADCASTSD econst<>+0x00(SB), Z31
	VBROADCASTSD econst<>+0x08(SB), Z30
	VBROADCASTSD econst<>+0x10(SB), Z29
	VBROADCASTSD econst<>+0x18(SB), Z28
	VBROADCASTSD econst<>+0x20(SB), Z27
	VBROADCASTSD econst<>+0x28(SB), Z26
	VBROADCASTSD econst<>+0x30(SB), Z25
	VBROADCASTSD econst<>+0x38(SB), Z24
	VBROADCASTSD econst<>+0x40(SB), Z23
	VBROADCASTSD econst<>+0x48(SB), Z22
	VBROADCASTSD econst<>+0x50(SB), Z21
	VBROADCASTSD econst<>+0x58(SB), Z20
	VBROADCASTSD econst<>+0x60(SB), Z19
	VMOVDQU64    0(R8), Z18
	VMOVDQU64    64(R8), Z17
	VMOVDQU64    128(R8), Z16
	VMOVDQU64    192(R8), Z15
	XORQ AX, AX

eloop:
	VMOVUPD (SI)(AX*8), Z0

	// Off the common path: |x| < 2**-54 or NaN (K1), |x| >= 512 (K2).
	VPANDQ   Z31, Z0, Z1
	VCMPPD   $0x19, Z30, Z1, K1
	VCMPPD   $0x1d, Z29, Z1, K2
	KORTESTW K1, K2
	JNE      edone

	// ki (Z3), kd (Z4), r (Z5)
	VMOVAPD     Z27, Z3
	VFMADD231PD Z28, Z0, Z3
	VSUBPD      Z27, Z3, Z4
	VMOVAPD     Z0, Z5
	VFMADD231PD Z26, Z4, Z5
	VFMADD231PD Z25, Z4, Z5

	// tail (Z9), sbits = scale bits + ki<<48 (Z10)
	VMOVDQA64 Z3, Z9
	VPERMI2PD Z17, Z18, Z9
	VMOVDQA64 Z3, Z10
	VPERMI2Q  Z15, Z16, Z10
	VPSLLQ    $48, Z3, Z8
	VPADDQ    Z8, Z10, Z10

	// q = (c4 + r c5) + r2 (c6 + r c7) (Z13); p = c2 + r c3 (Z14)
	VMULPD      Z5, Z5, Z11
	VMOVAPD     Z20, Z12
	VFMADD231PD Z19, Z5, Z12
	VMOVAPD     Z22, Z13
	VFMADD231PD Z21, Z5, Z13
	VFMADD231PD Z12, Z11, Z13
	VMOVAPD     Z24, Z14
	VFMADD231PD Z23, Z5, Z14

	// tmp = (tail + r) + r2 p + r4 q
	VADDPD      Z5, Z9, Z9
	VFMADD231PD Z14, Z11, Z9
	VMULPD      Z11, Z11, Z12
	VFMADD231PD Z13, Z12, Z9

	// scale*tmp + scale
	VFMADD213PD Z10, Z10, Z9
	VMOVUPD     Z9, (DI)(AX*8)

	ADDQ $8, AX
	CMPQ AX, CX
	JB   eloop

edone:
	MOVQ AX, ret+24(FP)
	VZEROUPPER
	RET

// ---- sin ----

DATA sconst<>+0x00(SB)/8, $0x42a0000000000000 // 2**43
DATA sconst<>+0x08(SB)/8, $0x3fe45f306dc9c883 // 2/pi
DATA sconst<>+0x10(SB)/8, $0x3ff921fb54442d18 // pi/2: A
DATA sconst<>+0x18(SB)/8, $0x3c91a62633145c07 // B
DATA sconst<>+0x20(SB)/8, $0xb91f1976b7ed8fbc // C
DATA sconst<>+0x28(SB)/8, $0x3fe0000000000000 // 0.5
DATA sconst<>+0x30(SB)/8, $0x3ff0000000000000 // 1
DATA sconst<>+0x38(SB)/8, $0x0000000000000001 // int 1
DATA sconst<>+0x40(SB)/8, $0x8000000000000000 // sign bit
DATA sconst<>+0x48(SB)/8, $0xbfc5555555555549 // S1
DATA sconst<>+0x50(SB)/8, $0x3f8111111110f8a6 // S2
DATA sconst<>+0x58(SB)/8, $0xbf2a01a019c161d5 // S3
DATA sconst<>+0x60(SB)/8, $0x3ec71de357b1fe7d // S4
DATA sconst<>+0x68(SB)/8, $0xbe5ae5e68a2b9ceb // S5
DATA sconst<>+0x70(SB)/8, $0x3de5d93a5acfd57c // S6
DATA sconst<>+0x78(SB)/8, $0x3fa555555555554c // C1
DATA sconst<>+0x80(SB)/8, $0xbf56c16c16c15177 // C2
DATA sconst<>+0x88(SB)/8, $0x3efa01a019cb1590 // C3
DATA sconst<>+0x90(SB)/8, $0xbe927e4f809c52ad // C4
DATA sconst<>+0x98(SB)/8, $0x3e21ee9ebdb4b1c4 // C5
DATA sconst<>+0xa0(SB)/8, $0xbda8fae9be8838d4 // C6
GLOBL sconst<>(SB), RODATA|NOPTR, $0xa8

// func sinV64(d, x *float64, n int, q uint64) int
// sin(x + q*π/2): q 0 is sine, 1 cosine (the quadrant k moves on by q).
TEXT ·sinV64(SB), NOSPLIT, $0-40
	MOVQ d+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	VPBROADCASTQ q+24(FP), Z20
	VBROADCASTSD econst<>+0x00(SB), Z31
	VBROADCASTSD sconst<>+0x00(SB), Z30
	VBROADCASTSD sconst<>+0x08(SB), Z29
	VBROADCASTSD sconst<>+0x10(SB), Z28
	VBROADCASTSD sconst<>+0x18(SB), Z27
	VBROADCASTSD sconst<>+0x20(SB), Z26
	VBROADCASTSD sconst<>+0x28(SB), Z25
	VBROADCASTSD sconst<>+0x30(SB), Z24
	VPBROADCASTQ sconst<>+0x38(SB), Z23
	VPBROADCASTQ sconst<>+0x40(SB), Z22
	VBROADCASTSD econst<>+0x20(SB), Z21
	XORQ AX, AX

sloop:
	VMOVUPD (SI)(AX*8), Z0

	// Off the common path: |x| >= 2**43, infinite or NaN.
	VPANDQ   Z31, Z0, Z1
	VCMPPD   $0x15, Z30, Z1, K1
	KORTESTW K1, K1
	JNE      sdone

	// ki (Z2), kd (Z3), r1 (Z0), kd*C (Z7), p (Z5), pl (Z3)
	VMULPD       Z29, Z0, Z2
	VADDPD       Z21, Z2, Z2
	VSUBPD       Z21, Z2, Z3
	VFNMADD231PD Z28, Z3, Z0
	VMULPD       Z26, Z3, Z7
	VMULPD       Z27, Z3, Z5
	VFMSUB213PD  Z5, Z27, Z3

	// rh (Z8), rl (Z10)
	VSUBPD Z5, Z0, Z8
	VSUBPD Z0, Z8, Z9
	VSUBPD Z9, Z8, Z10
	VSUBPD Z10, Z0, Z10
	VADDPD Z9, Z5, Z11
	VSUBPD Z11, Z10, Z10
	VSUBPD Z3, Z10, Z10
	VSUBPD Z7, Z10, Z10

	// z (Z11), w (Z12)
	VMULPD Z8, Z8, Z11
	VMULPD Z11, Z11, Z12

	// __kernel_sin(rh, rl, 1) into Z15: r (Z13), s (Z14)
	VBROADCASTSD     sconst<>+0x60(SB), Z13
	VFMADD213PD.BCST sconst<>+0x58(SB), Z11, Z13
	VFMADD213PD.BCST sconst<>+0x50(SB), Z11, Z13
	VBROADCASTSD     sconst<>+0x70(SB), Z14
	VFMADD213PD.BCST sconst<>+0x68(SB), Z11, Z14
	VMULPD           Z12, Z11, Z15
	VFMADD231PD      Z14, Z15, Z13
	VMULPD           Z8, Z11, Z14
	VMULPD           Z25, Z10, Z15
	VFNMADD231PD     Z13, Z14, Z15
	VFMSUB213PD      Z10, Z11, Z15
	VFNMADD231PD.BCST sconst<>+0x48(SB), Z14, Z15
	VSUBPD           Z15, Z8, Z15

	// __kernel_cos(rh, rl) into Z16: r (Z13), hz (Z14), c (Z16)
	VBROADCASTSD     sconst<>+0x88(SB), Z13
	VFMADD213PD.BCST sconst<>+0x80(SB), Z11, Z13
	VFMADD213PD.BCST sconst<>+0x78(SB), Z11, Z13
	VMULPD           Z13, Z11, Z13
	VBROADCASTSD     sconst<>+0xa0(SB), Z14
	VFMADD213PD.BCST sconst<>+0x98(SB), Z11, Z14
	VFMADD213PD.BCST sconst<>+0x90(SB), Z11, Z14
	VMULPD           Z12, Z12, Z16
	VFMADD231PD      Z14, Z16, Z13
	VMULPD           Z25, Z11, Z14
	VSUBPD           Z14, Z24, Z16
	VSUBPD           Z16, Z24, Z17
	VSUBPD           Z14, Z17, Z17
	VMULPD           Z10, Z8, Z18
	VFMSUB213PD      Z18, Z11, Z13
	VADDPD           Z13, Z17, Z17
	VADDPD           Z17, Z16, Z16

	// cos where k+q is odd; negated where (k+q)&2
	VPADDQ     Z20, Z2, Z2
	VPTESTMQ   Z23, Z2, K2
	VMOVAPD    Z16, K2, Z15
	VPSLLQ     $62, Z2, Z2
	VPTERNLOGQ $0x78, Z22, Z2, Z15
	VMOVUPD    Z15, (DI)(AX*8)

	ADDQ $8, AX
	CMPQ AX, CX
	JB   sloop

sdone:
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET
