#include "textflag.h"
#include "mix_amd64.h"

// The AVX-512 body of FillNormal: eight Box-Muller draws per step, with
// exactly the operations of normalAt, logUnit and cos2pi (mathx.go) in the
// same order, each rounded separately (no FMA; IEEE add and mul are
// commutative, so operand order within one operation does not matter), so
// the values are bit-identical to the scalar loop.

DATA ln2Hi<>+0(SB)/8, $0x3fe62e42fee00000
GLOBL ln2Hi<>(SB), RODATA|NOPTR, $8
DATA ln2Lo<>+0(SB)/8, $0x3dea39ef35793c76
GLOBL ln2Lo<>(SB), RODATA|NOPTR, $8
DATA lg1<>+0(SB)/8, $0x3fe5555555555593
GLOBL lg1<>(SB), RODATA|NOPTR, $8
DATA lg2<>+0(SB)/8, $0x3fd999999997fa04
GLOBL lg2<>(SB), RODATA|NOPTR, $8
DATA lg3<>+0(SB)/8, $0x3fd2492494229359
GLOBL lg3<>(SB), RODATA|NOPTR, $8
DATA lg4<>+0(SB)/8, $0x3fcc71c51d8e78af
GLOBL lg4<>(SB), RODATA|NOPTR, $8
DATA lg5<>+0(SB)/8, $0x3fc7466496cb03de
GLOBL lg5<>(SB), RODATA|NOPTR, $8
DATA lg6<>+0(SB)/8, $0x3fc39a09d078c69f
GLOBL lg6<>(SB), RODATA|NOPTR, $8
DATA lg7<>+0(SB)/8, $0x3fc2f112df3e5244
GLOBL lg7<>(SB), RODATA|NOPTR, $8
DATA s1<>+0(SB)/8, $0xbfc5555555555549
GLOBL s1<>(SB), RODATA|NOPTR, $8
DATA s2<>+0(SB)/8, $0x3f8111111110f8a6
GLOBL s2<>(SB), RODATA|NOPTR, $8
DATA s3<>+0(SB)/8, $0xbf2a01a019c161d5
GLOBL s3<>(SB), RODATA|NOPTR, $8
DATA s4<>+0(SB)/8, $0x3ec71de357b1fe7d
GLOBL s4<>(SB), RODATA|NOPTR, $8
DATA s5<>+0(SB)/8, $0xbe5ae5e68a2b9ceb
GLOBL s5<>(SB), RODATA|NOPTR, $8
DATA s6<>+0(SB)/8, $0x3de5d93a5acfd57c
GLOBL s6<>(SB), RODATA|NOPTR, $8
DATA c1<>+0(SB)/8, $0x3fa555555555554c
GLOBL c1<>(SB), RODATA|NOPTR, $8
DATA c2<>+0(SB)/8, $0xbf56c16c16c15177
GLOBL c2<>(SB), RODATA|NOPTR, $8
DATA c3<>+0(SB)/8, $0x3efa01a019cb1590
GLOBL c3<>(SB), RODATA|NOPTR, $8
DATA c4<>+0(SB)/8, $0xbe927e4f809c52ad
GLOBL c4<>(SB), RODATA|NOPTR, $8
DATA c5<>+0(SB)/8, $0x3e21ee9ebdb4b1c4
GLOBL c5<>(SB), RODATA|NOPTR, $8
DATA c6<>+0(SB)/8, $0xbda8fae9be8838d4
GLOBL c6<>(SB), RODATA|NOPTR, $8
DATA unit<>+0(SB)/8, $0x3cc921fb54442d18
GLOBL unit<>(SB), RODATA|NOPTR, $8
DATA inv53<>+0(SB)/8, $0x3ca0000000000000
GLOBL inv53<>(SB), RODATA|NOPTR, $8
DATA oneF<>+0(SB)/8, $0x3ff0000000000000
GLOBL oneF<>(SB), RODATA|NOPTR, $8
DATA twoF<>+0(SB)/8, $0x4000000000000000
GLOBL twoF<>(SB), RODATA|NOPTR, $8
DATA half<>+0(SB)/8, $0x3fe0000000000000
GLOBL half<>(SB), RODATA|NOPTR, $8
DATA minus2<>+0(SB)/8, $0xc000000000000000
GLOBL minus2<>(SB), RODATA|NOPTR, $8
DATA oneI<>+0(SB)/8, $0x0000000000000001
GLOBL oneI<>(SB), RODATA|NOPTR, $8
DATA logAdd<>+0(SB)/8, $0x00095f6200000000
GLOBL logAdd<>(SB), RODATA|NOPTR, $8
DATA c3ff<>+0(SB)/8, $0x00000000000003ff
GLOBL c3ff<>(SB), RODATA|NOPTR, $8
DATA mantMask<>+0(SB)/8, $0x000fffffffffffff
GLOBL mantMask<>(SB), RODATA|NOPTR, $8
DATA logBase<>+0(SB)/8, $0x3fe6a09e00000000
GLOBL logBase<>(SB), RODATA|NOPTR, $8
DATA two50<>+0(SB)/8, $0x0004000000000000
GLOBL two50<>(SB), RODATA|NOPTR, $8

// func normal64AVX512(dst *float64, n int, ctr *[8]uint64, step, gamma uint64, mean, std float64)
// n is a positive multiple of 8; ctr holds the first counters of dst[0..7]
// (the counter of element j is 2(start+j)g after the key), step is 16g.
TEXT ·normal64AVX512(SB), NOSPLIT, $0-56
	MOVQ         dst+0(FP), DI
	MOVQ         n+8(FP), CX
	MOVQ         ctr+16(FP), SI
	VMOVDQU64    (SI), Z0
	VPBROADCASTQ step+24(FP), Z1
	VPBROADCASTQ gamma+32(FP), Z2
	MOVQ         $-4658895280553007687, AX // 0xbf58476d1ce4e5b9
	VPBROADCASTQ AX, Z3
	MOVQ         $-7723592293110705685, AX // 0x94d049bb133111eb
	VPBROADCASTQ AX, Z4
	VBROADCASTSD oneF<>(SB), Z29
	VBROADCASTSD mean+40(FP), Z30
	VBROADCASTSD std+48(FP), Z31
	SHRQ         $3, CX

loop:
	// the two 64-bit draws of each element: counters x and x+g
	MIX(Z0, Z5, Z7, Z3, Z4)
	VPADDQ Z2, Z0, Z6
	MIX(Z6, Z8, Z7, Z3, Z4)

	// u1 = float64(int64(x1>>11)+1) * 2^-53, in (0, 1]
	VPSRLQ          $11, Z5, Z5
	VPADDQ.BCST     oneI<>(SB), Z5, Z5
	VCVTQQ2PD       Z5, Z5
	VMULPD.BCST     inv53<>(SB), Z5, Z5

	// logUnit(u1): u1 = 2^k (1+f), k from the exponent bits
	VPADDQ.BCST     logAdd<>(SB), Z5, Z10
	VPSRLQ          $52, Z10, Z11
	VPSUBQ.BCST     c3ff<>(SB), Z11, Z11
	VCVTQQ2PD       Z11, Z11               // dk
	VPANDQ.BCST     mantMask<>(SB), Z10, Z10
	VPADDQ.BCST     logBase<>(SB), Z10, Z10
	VSUBPD.BCST     oneF<>(SB), Z10, Z10   // f
	VMULPD.BCST     half<>(SB), Z10, Z12
	VMULPD          Z10, Z12, Z12          // hfsq = (0.5*f)*f
	VADDPD.BCST     twoF<>(SB), Z10, Z13
	VDIVPD          Z13, Z10, Z13          // s = f/(2+f)
	VMULPD          Z13, Z13, Z14          // z = s*s
	VMULPD          Z14, Z14, Z15          // w = z*z
	VMULPD.BCST     lg6<>(SB), Z15, Z16
	VADDPD.BCST     lg4<>(SB), Z16, Z16
	VMULPD          Z15, Z16, Z16
	VADDPD.BCST     lg2<>(SB), Z16, Z16
	VMULPD          Z15, Z16, Z16          // t1 = w*(lg2+w*(lg4+w*lg6))
	VMULPD.BCST     lg7<>(SB), Z15, Z17
	VADDPD.BCST     lg5<>(SB), Z17, Z17
	VMULPD          Z15, Z17, Z17
	VADDPD.BCST     lg3<>(SB), Z17, Z17
	VMULPD          Z15, Z17, Z17
	VADDPD.BCST     lg1<>(SB), Z17, Z17
	VMULPD          Z14, Z17, Z17          // t2 = z*(lg1+w*(lg3+w*(lg5+w*lg7)))
	VADDPD          Z16, Z17, Z17          // r = t2+t1
	VADDPD          Z17, Z12, Z17          // hfsq+r
	VMULPD          Z17, Z13, Z17          // s*(hfsq+r)
	VMULPD.BCST     ln2Lo<>(SB), Z11, Z18
	VADDPD          Z18, Z17, Z17          // + dk*ln2Lo
	VSUBPD          Z12, Z17, Z17          // - hfsq
	VADDPD          Z10, Z17, Z17          // + f
	VMULPD.BCST     ln2Hi<>(SB), Z11, Z18
	VADDPD          Z18, Z17, Z17          // + dk*ln2Hi: ln(u1)
	VMULPD.BCST     minus2<>(SB), Z17, Z17
	VSQRTPD         Z17, Z17               // radius sqrt(-2 ln u1)

	// cos2pi(m), m = x2>>11: nearest quarter turn q, remainder angle x
	VPSRLQ          $11, Z8, Z8
	VPADDQ.BCST     two50<>(SB), Z8, Z19
	VPSRLQ          $51, Z19, Z19          // q
	VPSLLQ          $51, Z19, Z20
	VPSUBQ          Z20, Z8, Z20           // r = m - q<<51
	VCVTQQ2PD       Z20, Z20
	VMULPD.BCST     unit<>(SB), Z20, Z20   // x
	VMULPD          Z20, Z20, Z21          // z = x*x
	VMULPD          Z21, Z21, Z22          // w = z*z
	VMULPD.BCST     s6<>(SB), Z21, Z23
	VADDPD.BCST     s5<>(SB), Z23, Z23
	VMULPD          Z21, Z23, Z23
	VADDPD.BCST     s4<>(SB), Z23, Z23
	VMULPD          Z21, Z23, Z23
	VADDPD.BCST     s3<>(SB), Z23, Z23
	VMULPD          Z21, Z23, Z23
	VADDPD.BCST     s2<>(SB), Z23, Z23     // sr
	VMULPD          Z20, Z21, Z24          // v = z*x
	VMULPD          Z21, Z23, Z23
	VADDPD.BCST     s1<>(SB), Z23, Z23
	VMULPD          Z23, Z24, Z23
	VADDPD          Z23, Z20, Z23          // sin = x + v*(s1+z*sr)
	VMULPD.BCST     c3<>(SB), Z21, Z24
	VADDPD.BCST     c2<>(SB), Z24, Z24
	VMULPD          Z21, Z24, Z24
	VADDPD.BCST     c1<>(SB), Z24, Z24
	VMULPD          Z21, Z24, Z24          // z*(c1+z*(c2+z*c3))
	VMULPD.BCST     c6<>(SB), Z21, Z25
	VADDPD.BCST     c5<>(SB), Z25, Z25
	VMULPD          Z21, Z25, Z25
	VADDPD.BCST     c4<>(SB), Z25, Z25
	VMULPD          Z22, Z22, Z26          // w*w
	VMULPD          Z26, Z25, Z25
	VADDPD          Z25, Z24, Z24          // cr
	VMULPD.BCST     half<>(SB), Z21, Z25   // hz
	VSUBPD          Z25, Z29, Z26          // w = 1-hz
	VSUBPD          Z26, Z29, Z27          // 1-w
	VSUBPD          Z25, Z27, Z27          // 1-w-hz
	VMULPD          Z24, Z21, Z28          // z*cr
	VADDPD          Z28, Z27, Z27
	VADDPD          Z27, Z26, Z27          // cos = w + ((1-w-hz) + z*cr)
	// odd q takes sin; q = 1, 2 negate
	VPANDQ.BCST     oneI<>(SB), Z19, Z24
	VPTESTMQ        Z24, Z24, K1
	VMOVAPD         Z23, K1, Z27
	VPADDQ.BCST     oneI<>(SB), Z19, Z24
	VPSRLQ          $1, Z24, Z24
	VPANDQ.BCST     oneI<>(SB), Z24, Z24
	VPSLLQ          $63, Z24, Z24
	VPXORQ          Z24, Z27, Z27          // cos 2pi m/2^53

	VMULPD          Z27, Z17, Z17          // standard normal
	VMULPD          Z31, Z17, Z17          // std*z
	VADDPD          Z17, Z30, Z17          // mean + std*z
	VMOVUPD         Z17, (DI)
	VPADDQ          Z1, Z0, Z0
	ADDQ            $64, DI
	DECQ            CX
	JNZ             loop
	VZEROUPPER
	RET
