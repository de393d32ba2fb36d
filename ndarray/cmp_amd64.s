#include "textflag.h"

// AVX-512 float64 comparisons to 0/1 bytes (d[i] = x[i] op y[i], or op y a
// scalar), eight at a time: VCMPPD with the ordered-quiet predicates (false
// when either side is NaN) and unordered for "not equal" (true with a NaN),
// as Go's and NumPy's scalar comparisons. n is a positive multiple of 8.
// DI = d, SI = x, DX = y, CX = n, Z7 = the broadcast scalar.

// CMPLOOP compares with COMPARE (which sets K1 from Z0) and stores the mask
// as bytes: VPMOVM2B gives 0xFF per true lane, VPABSB turns that into 1.
#define CMPLOOP(COMPARE) \
	XORQ AX, AX \
loop: \
	VMOVUPD  (SI)(AX*8), Z0 \
	COMPARE \
	VPMOVM2B K1, X0 \
	VPABSB   X0, X0 \
	MOVQ     X0, (DI)(AX*1) \
	ADDQ     $8, AX \
	CMPQ     AX, CX \
	JB       loop \
	VZEROUPPER \
	RET

#define CMP_VV(P) VCMPPD $P, (DX)(AX*8), Z0, K1
#define CMP_VS(P) VCMPPD $P, Z7, Z0, K1
#define ARGS_VV MOVQ d+0(FP), DI; MOVQ x+8(FP), SI; MOVQ y+16(FP), DX; MOVQ n+24(FP), CX
#define ARGS_VS MOVQ d+0(FP), DI; MOVQ x+8(FP), SI; VBROADCASTSD y+16(FP), Z7; MOVQ n+24(FP), CX

// Predicates: LT_OQ 0x11, LE_OQ 0x12, GT_OQ 0x1e, GE_OQ 0x1d, EQ_OQ 0, NEQ_UQ 4.

// func ltVV64(d *uint8, x, y *float64, n int)
TEXT ·ltVV64(SB), NOSPLIT, $0-32
	ARGS_VV
	CMPLOOP(CMP_VV(0x11))

// func ltVS64(d *uint8, x *float64, y float64, n int)
TEXT ·ltVS64(SB), NOSPLIT, $0-32
	ARGS_VS
	CMPLOOP(CMP_VS(0x11))

// func leVV64(d *uint8, x, y *float64, n int)
TEXT ·leVV64(SB), NOSPLIT, $0-32
	ARGS_VV
	CMPLOOP(CMP_VV(0x12))

// func leVS64(d *uint8, x *float64, y float64, n int)
TEXT ·leVS64(SB), NOSPLIT, $0-32
	ARGS_VS
	CMPLOOP(CMP_VS(0x12))

// func gtVV64(d *uint8, x, y *float64, n int)
TEXT ·gtVV64(SB), NOSPLIT, $0-32
	ARGS_VV
	CMPLOOP(CMP_VV(0x1e))

// func gtVS64(d *uint8, x *float64, y float64, n int)
TEXT ·gtVS64(SB), NOSPLIT, $0-32
	ARGS_VS
	CMPLOOP(CMP_VS(0x1e))

// func geVV64(d *uint8, x, y *float64, n int)
TEXT ·geVV64(SB), NOSPLIT, $0-32
	ARGS_VV
	CMPLOOP(CMP_VV(0x1d))

// func geVS64(d *uint8, x *float64, y float64, n int)
TEXT ·geVS64(SB), NOSPLIT, $0-32
	ARGS_VS
	CMPLOOP(CMP_VS(0x1d))

// func eqVV64(d *uint8, x, y *float64, n int)
TEXT ·eqVV64(SB), NOSPLIT, $0-32
	ARGS_VV
	CMPLOOP(CMP_VV(0x00))

// func eqVS64(d *uint8, x *float64, y float64, n int)
TEXT ·eqVS64(SB), NOSPLIT, $0-32
	ARGS_VS
	CMPLOOP(CMP_VS(0x00))

// func neVV64(d *uint8, x, y *float64, n int)
TEXT ·neVV64(SB), NOSPLIT, $0-32
	ARGS_VV
	CMPLOOP(CMP_VV(0x04))

// func neVS64(d *uint8, x *float64, y float64, n int)
TEXT ·neVS64(SB), NOSPLIT, $0-32
	ARGS_VS
	CMPLOOP(CMP_VS(0x04))

// pairPerm reorders [s0 s4 s1 s5 s2 s6 s3 s7] (what VUNPCKLPD/VUNPCKHPD
// and one add leave) into [s0 .. s7].
DATA pairPerm<>+0(SB)/8, $0
DATA pairPerm<>+8(SB)/8, $2
DATA pairPerm<>+16(SB)/8, $4
DATA pairPerm<>+24(SB)/8, $6
DATA pairPerm<>+32(SB)/8, $1
DATA pairPerm<>+40(SB)/8, $3
DATA pairPerm<>+48(SB)/8, $5
DATA pairPerm<>+56(SB)/8, $7
GLOBL pairPerm<>(SB), RODATA|NOPTR, $64

// func pairSums64(d, x *float64, n int)
// d[r] = x[2r] + x[2r+1] for r < n; n is a positive multiple of 8.
TEXT ·pairSums64(SB), NOSPLIT, $0-24
	MOVQ      d+0(FP), DI
	MOVQ      x+8(FP), SI
	MOVQ      n+16(FP), CX
	VMOVDQU64 pairPerm<>(SB), Z5
	XORQ      AX, AX
loop:
	VMOVUPD   (SI), Z0
	VMOVUPD   64(SI), Z1
	VUNPCKLPD Z1, Z0, Z2
	VUNPCKHPD Z1, Z0, Z3
	VADDPD    Z3, Z2, Z2
	VPERMPD   Z2, Z5, Z4
	VMOVUPD   Z4, (DI)(AX*8)
	ADDQ      $128, SI
	ADDQ      $8, AX
	CMPQ      AX, CX
	JB        loop
	VZEROUPPER
	RET

// func devSqBlock64(x *float64, n int, m float64, r *[8]float64)
// r[j] += (x[i] - m)² over i ≡ j (mod 8), i < n; n a positive multiple of 8.
// Subtract, multiply and add round separately (no FMA), as in the Go loop.
TEXT ·devSqBlock64(SB), NOSPLIT, $0-32
	MOVQ         x+0(FP), SI
	MOVQ         n+8(FP), CX
	VBROADCASTSD m+16(FP), Z7
	MOVQ         r+24(FP), DI
	VMOVUPD      (DI), Z1
	XORQ         AX, AX
loop:
	VMOVUPD (SI)(AX*8), Z0
	VSUBPD  Z7, Z0, Z0
	VMULPD  Z0, Z0, Z0
	VADDPD  Z0, Z1, Z1
	ADDQ    $8, AX
	CMPQ    AX, CX
	JB      loop
	VMOVUPD Z1, (DI)
	VZEROUPPER
	RET
