#include "textflag.h"

// AVX-512 float64 natural logarithm, eight lanes at a time, the same
// operations as ewLog (ufunc_log.go) so the same bits. A block holding a
// lane that is not a normal positive finite number (zero, negative,
// subnormal, infinite, NaN) stops the loop; the caller runs it scalar.

DATA lconst<>+0x00(SB)/8, $0x0010000000000000 // smallest normal
DATA lconst<>+0x08(SB)/8, $0x7fe0000000000000 // +Inf - smallest normal
DATA lconst<>+0x10(SB)/8, $0x00095f6200000000 // 1 - √2/2, high word
DATA lconst<>+0x18(SB)/8, $0x000fffffffffffff // mantissa
DATA lconst<>+0x20(SB)/8, $0x3fe6a09e00000000 // √2/2, high word
DATA lconst<>+0x28(SB)/8, $0x4337fffffffffc01 // bits of 0x1.8p52 - 0x3ff
DATA lconst<>+0x30(SB)/8, $0x4338000000000000 // 0x1.8p52
DATA lconst<>+0x38(SB)/8, $0x3ff0000000000000 // 1
DATA lconst<>+0x40(SB)/8, $0x4000000000000000 // 2
DATA lconst<>+0x48(SB)/8, $0x3fe0000000000000 // 0.5
DATA lconst<>+0x50(SB)/8, $0x3fe62e42fee00000 // ln2 hi
DATA lconst<>+0x58(SB)/8, $0x3dea39ef35793c76 // ln2 lo
DATA lconst<>+0x60(SB)/8, $0x3fe5555555555593 // L1
DATA lconst<>+0x68(SB)/8, $0x3fd999999997fa04 // L2
DATA lconst<>+0x70(SB)/8, $0x3fd2492494229359 // L3
DATA lconst<>+0x78(SB)/8, $0x3fcc71c51d8e78af // L4
DATA lconst<>+0x80(SB)/8, $0x3fc7466496cb03de // L5
DATA lconst<>+0x88(SB)/8, $0x3fc39a09d078c69f // L6
DATA lconst<>+0x90(SB)/8, $0x3fc2f112df3e5244 // L7
DATA lconst<>+0x98(SB)/8, $0x3ff7154765200000 // 1/ln2 hi
DATA lconst<>+0xa0(SB)/8, $0x3de705fc2eefa200 // 1/ln2 lo
DATA lconst<>+0xa8(SB)/8, $0xffffffff00000000 // high word
DATA lconst<>+0xb0(SB)/8, $0xbff0000000000000 // -1
DATA lconst<>+0xb8(SB)/8, $0x3c90000000000000 // 2**-54
DATA lconst<>+0xc0(SB)/8, $0x7ff0000000000000 // +Inf
DATA lconst<>+0xc8(SB)/8, $0x7fffffffffffffff // |.| mask
GLOBL lconst<>(SB), RODATA|NOPTR, $0xd0

// LOGCONSTS loads the constants both loops use.
#define LOGCONSTS \
	VPBROADCASTQ lconst<>+0x00(SB), Z31; \
	VPBROADCASTQ lconst<>+0x08(SB), Z30; \
	VPBROADCASTQ lconst<>+0x10(SB), Z29; \
	VPBROADCASTQ lconst<>+0x18(SB), Z28; \
	VPBROADCASTQ lconst<>+0x20(SB), Z27; \
	VPBROADCASTQ lconst<>+0x28(SB), Z26; \
	VBROADCASTSD lconst<>+0x30(SB), Z25; \
	VBROADCASTSD lconst<>+0x38(SB), Z24; \
	VBROADCASTSD lconst<>+0x40(SB), Z23; \
	VBROADCASTSD lconst<>+0x48(SB), Z22

// LOGCORE takes the bits of x in Z0, jumps to done when a lane is not a
// normal positive finite number, and leaves k as a double in Z2, f in Z3,
// s in Z4, hfsq in Z9 and R in Z7 (ewLogParts).
#define LOGCORE(done) \
	VPSUBQ   Z31, Z0, Z1; \
	VPCMPUQ  $5, Z30, Z1, K1; \
	KORTESTW K1, K1; \
	JNE      done; \
	VPADDQ Z29, Z0, Z1; \
	VPSRLQ $52, Z1, Z2; \
	VPADDQ Z26, Z2, Z2; \
	VSUBPD Z25, Z2, Z2; \
	VPANDQ Z28, Z1, Z1; \
	VPADDQ Z27, Z1, Z1; \
	VSUBPD Z24, Z1, Z3; \
	VADDPD Z23, Z3, Z4; \
	VDIVPD Z4, Z3, Z4; \
	VMULPD Z4, Z4, Z5; \
	VMULPD Z5, Z5, Z6; \
	VBROADCASTSD     lconst<>+0x90(SB), Z7; \
	VFMADD213PD.BCST lconst<>+0x80(SB), Z6, Z7; \
	VFMADD213PD.BCST lconst<>+0x70(SB), Z6, Z7; \
	VFMADD213PD.BCST lconst<>+0x60(SB), Z6, Z7; \
	VMULPD           Z7, Z5, Z7; \
	VBROADCASTSD     lconst<>+0x88(SB), Z8; \
	VFMADD213PD.BCST lconst<>+0x78(SB), Z6, Z8; \
	VFMADD213PD.BCST lconst<>+0x68(SB), Z6, Z8; \
	VMULPD           Z8, Z6, Z8; \
	VMULPD           Z22, Z3, Z9; \
	VMULPD           Z3, Z9, Z9; \
	VADDPD           Z8, Z7, Z7

// func logV64(d, x *float64, n int) int
TEXT ·logV64(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	LOGCONSTS
	VBROADCASTSD lconst<>+0x50(SB), Z21
	VBROADCASTSD lconst<>+0x58(SB), Z20
	XORQ AX, AX

lloop:
	VMOVDQU64 (SI)(AX*8), Z0
	LOGCORE(ldone)

	// dk*ln2hi - ((hfsq - (s*(hfsq + R) + dk*ln2lo)) - f)
	VADDPD      Z7, Z9, Z10
	VMULPD      Z20, Z2, Z11
	VFMADD231PD Z10, Z4, Z11
	VSUBPD      Z11, Z9, Z11
	VSUBPD      Z3, Z11, Z11
	VMULPD      Z21, Z2, Z12
	VSUBPD      Z11, Z12, Z12
	VMOVUPD     Z12, (DI)(AX*8)

	ADDQ $8, AX
	CMPQ AX, CX
	JB   lloop

ldone:
	MOVQ AX, ret+24(FP)
	VZEROUPPER
	RET

// func log2V64(d, x *float64, n int) int
TEXT ·log2V64(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	LOGCONSTS
	VBROADCASTSD lconst<>+0x98(SB), Z21
	VBROADCASTSD lconst<>+0xa0(SB), Z20
	VPBROADCASTQ lconst<>+0xa8(SB), Z19
	XORQ AX, AX

l2loop:
	VMOVDQU64 (SI)(AX*8), Z0
	LOGCORE(l2done)

	// r = s*(hfsq + R) (Z10); hi = (f - hfsq) cut to its high word (Z11);
	// lo = ((f - hi) - hfsq) + r (Z12)
	VADDPD Z7, Z9, Z10
	VMULPD Z10, Z4, Z10
	VSUBPD Z9, Z3, Z11
	VPANDQ Z19, Z11, Z11
	VSUBPD Z11, Z3, Z12
	VSUBPD Z9, Z12, Z12
	VADDPD Z10, Z12, Z12

	// valHi = hi*ivhi (Z13); valLo = (lo + hi)*ivlo + lo*ivhi (Z14)
	VMULPD Z21, Z11, Z13
	VADDPD Z11, Z12, Z14
	VMULPD Z20, Z14, Z14
	VMULPD Z21, Z12, Z15
	VADDPD Z15, Z14, Z14

	// w = k + valHi (Z15); valLo += (k - w) + valHi; valLo + w
	VADDPD  Z13, Z2, Z15
	VSUBPD  Z15, Z2, Z16
	VADDPD  Z13, Z16, Z16
	VADDPD  Z16, Z14, Z14
	VADDPD  Z15, Z14, Z14
	VMOVUPD Z14, (DI)(AX*8)

	ADDQ $8, AX
	CMPQ AX, CX
	JB   l2loop

l2done:
	MOVQ AX, ret+24(FP)
	VZEROUPPER
	RET

// func log1pV64(d, x *float64, n int) int
TEXT ·log1pV64(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	LOGCONSTS
	VBROADCASTSD lconst<>+0x50(SB), Z21
	VBROADCASTSD lconst<>+0x58(SB), Z20
	VBROADCASTSD lconst<>+0xb0(SB), Z19
	VBROADCASTSD lconst<>+0xb8(SB), Z18
	VBROADCASTSD lconst<>+0xc0(SB), Z17
	VPBROADCASTQ lconst<>+0xc8(SB), Z16
	XORQ AX, AX

l1loop:
	VMOVUPD (SI)(AX*8), Z13

	// Off the common path: x <= -1 or NaN, |x| < 2**-54, +Inf.
	VCMPPD   $0x1a, Z19, Z13, K1
	VPANDQ   Z16, Z13, Z14
	VCMPPD   $0x11, Z18, Z14, K2
	VCMPPD   $0x00, Z17, Z13, K3
	KORW     K1, K2, K1
	KORW     K1, K3, K1
	KORTESTW K1, K1
	JNE      l1done

	// u = 1 + x (Z0), c = 1 + x - u exactly (Z14)
	VADDPD Z24, Z13, Z0
	VSUBPD Z24, Z0, Z14
	VSUBPD Z14, Z0, Z15
	VSUBPD Z15, Z24, Z15
	VSUBPD Z14, Z13, Z14
	VADDPD Z14, Z15, Z14
	VDIVPD Z0, Z14, Z14
	LOGCORE(l1done)

	// dk*ln2hi - ((hfsq - (s*(hfsq + R) + (dk*ln2lo + c/u))) - f)
	VADDPD      Z7, Z9, Z10
	VMULPD      Z20, Z2, Z11
	VADDPD      Z14, Z11, Z11
	VFMADD231PD Z10, Z4, Z11
	VSUBPD      Z11, Z9, Z11
	VSUBPD      Z3, Z11, Z11
	VMULPD      Z21, Z2, Z12
	VSUBPD      Z11, Z12, Z12
	VMOVUPD     Z12, (DI)(AX*8)

	ADDQ $8, AX
	CMPQ AX, CX
	JB   l1loop

l1done:
	MOVQ AX, ret+24(FP)
	VZEROUPPER
	RET
