#include "textflag.h"

// dot4Rows: for each of m rows of a (k float64 each, the rows lda elements
// apart), its dot products with the four rows of b (4×k, rows k apart), to
// out[4i : 4i+4]. AVX2 and FMA: rows are taken two at a time, each read
// once, four lanes at a time, and multiplied into four accumulators (one
// per row of b); eight chains of fused multiply-adds keep the units busy
// where one row's four would wait on their latency. The last k%4 elements
// are read with a mask, so nothing past a row is touched.
//
// Registers: SI = first row of the pair, R14 = second, DI = out, CX = rows
// left, DX = k, R13 = k rounded down to 4, R8-R11 = rows of b, R12 = lda
// in bytes, BX = element index, Y0-Y3 and Y6-Y9 = the two rows'
// accumulators, Y4-Y5 = their lanes of a, Y10-Y13 = lanes of b, Y15 = the
// tail's mask.

// REDUCE sums each of the four accumulators A0-A3 across its lanes into
// one register, [a, b, c, d], stored at off(DI). Clobbers A0, A2, Y14, T.
#define REDUCE(A0, A1, A2, A3, T, off) \
	VHADDPD    A1, A0, A0 \ // [a0+a1, b0+b1, a2+a3, b2+b3]
	VHADDPD    A3, A2, A2 \ // the same of c and d
	VPERM2F128 $0x20, A2, A0, Y14 \ // the low halves
	VPERM2F128 $0x31, A2, A0, T \ // the high halves
	VADDPD     T, Y14, A0 \
	VMOVUPD    A0, off(DI)

// LOADU and LOADM load four lanes at addr into R: all of them, or (the
// tail) those the mask Y15 selects, the others zero.
#define LOADU(addr, R) VMOVUPD addr, R
#define LOADM(addr, R) VMASKMOVPD addr, Y15, R

// PAIRSTEP multiplies four lanes of the two rows (at BX) by the same lanes
// of the four rows of b into the eight accumulators.
#define PAIRSTEP(LOAD) \
	LOAD((SI)(BX*8), Y4) \
	LOAD((R14)(BX*8), Y5) \
	LOAD((R8)(BX*8), Y10) \
	VFMADD231PD Y10, Y4, Y0 \
	VFMADD231PD Y10, Y5, Y6 \
	LOAD((R9)(BX*8), Y11) \
	VFMADD231PD Y11, Y4, Y1 \
	VFMADD231PD Y11, Y5, Y7 \
	LOAD((R10)(BX*8), Y12) \
	VFMADD231PD Y12, Y4, Y2 \
	VFMADD231PD Y12, Y5, Y8 \
	LOAD((R11)(BX*8), Y13) \
	VFMADD231PD Y13, Y4, Y3 \
	VFMADD231PD Y13, Y5, Y9

// ROWSTEP is PAIRSTEP for one row.
#define ROWSTEP(LOAD) \
	LOAD((SI)(BX*8), Y4) \
	LOAD((R8)(BX*8), Y10) \
	VFMADD231PD Y10, Y4, Y0 \
	LOAD((R9)(BX*8), Y11) \
	VFMADD231PD Y11, Y4, Y1 \
	LOAD((R10)(BX*8), Y12) \
	VFMADD231PD Y12, Y4, Y2 \
	LOAD((R11)(BX*8), Y13) \
	VFMADD231PD Y13, Y4, Y3

// func dot4Rows(out, a *float64, lda, m int, b *float64, k int)
TEXT ·dot4Rows(SB), NOSPLIT, $0-48
	MOVQ out+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ lda+16(FP), R12
	SHLQ $3, R12
	MOVQ m+24(FP), CX
	MOVQ b+32(FP), R8
	MOVQ k+40(FP), DX
	LEAQ (R8)(DX*8), R9
	LEAQ (R9)(DX*8), R10
	LEAQ (R10)(DX*8), R11
	MOVQ DX, R13
	ANDQ $-4, R13
	MOVQ DX, AX
	ANDQ $3, AX
	SHLQ $5, AX
	LEAQ dot4Mask<>(SB), BX
	VMOVUPD (BX)(AX*1), Y15

pair:
	CMPQ CX, $2
	JB   single
	LEAQ (SI)(R12*1), R14
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	XORQ BX, BX
	CMPQ BX, R13
	JAE  ptail

pinner:
	PAIRSTEP(LOADU)
	ADDQ $4, BX
	CMPQ BX, R13
	JB   pinner

ptail:
	CMPQ BX, DX
	JAE  preduce
	PAIRSTEP(LOADM)

preduce:
	REDUCE(Y0, Y1, Y2, Y3, Y10, 0)
	REDUCE(Y6, Y7, Y8, Y9, Y11, 32)
	ADDQ $64, DI
	LEAQ (R14)(R12*1), SI
	SUBQ $2, CX
	JMP  pair

single:
	TESTQ CX, CX
	JZ    done
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	XORQ BX, BX
	CMPQ BX, R13
	JAE  stail

sinner:
	ROWSTEP(LOADU)
	ADDQ $4, BX
	CMPQ BX, R13
	JB   sinner

stail:
	CMPQ BX, DX
	JAE  sreduce
	ROWSTEP(LOADM)

sreduce:
	REDUCE(Y0, Y1, Y2, Y3, Y10, 0)

done:
	VZEROUPPER
	RET

// The tail's masks by k%4: the first k%4 lanes set.
DATA dot4Mask<>+0(SB)/8, $0
DATA dot4Mask<>+8(SB)/8, $0
DATA dot4Mask<>+16(SB)/8, $0
DATA dot4Mask<>+24(SB)/8, $0
DATA dot4Mask<>+32(SB)/8, $-1
DATA dot4Mask<>+40(SB)/8, $0
DATA dot4Mask<>+48(SB)/8, $0
DATA dot4Mask<>+56(SB)/8, $0
DATA dot4Mask<>+64(SB)/8, $-1
DATA dot4Mask<>+72(SB)/8, $-1
DATA dot4Mask<>+80(SB)/8, $0
DATA dot4Mask<>+88(SB)/8, $0
DATA dot4Mask<>+96(SB)/8, $-1
DATA dot4Mask<>+104(SB)/8, $-1
DATA dot4Mask<>+112(SB)/8, $-1
DATA dot4Mask<>+120(SB)/8, $0
GLOBL dot4Mask<>(SB), RODATA|NOPTR, $128
