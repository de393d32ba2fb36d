#include "textflag.h"

// func unshuffle8x64(dst, src *byte, n, blocks int)
//
// Undoes blosc's byte shuffle of 8-byte elements, 64 elements a step:
// byte j of element e is src[j*n+e]; it goes to dst[8e+j]. The 8 rows of
// 64 bytes are one 8x64 byte matrix, transposed by three rounds of
// unpacks (bytes, words, double words: within each 128-bit lane) and two
// of 128-bit lane shuffles. Needs AVX512F and AVX512BW.
TEXT ·unshuffle8x64(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), R8
	MOVQ n+16(FP), DX
	MOVQ blocks+24(FP), CX
	LEAQ (R8)(DX*1), R9
	LEAQ (R9)(DX*1), R10
	LEAQ (R10)(DX*1), R11
	LEAQ (R11)(DX*1), R12
	LEAQ (R12)(DX*1), R13
	LEAQ (R13)(DX*1), R14
	LEAQ (R14)(DX*1), BX
	XORQ AX, AX

loop:
	TESTQ CX, CX
	JZ    done
	VMOVDQU64 (R8)(AX*1), Z0
	VMOVDQU64 (R9)(AX*1), Z1
	VMOVDQU64 (R10)(AX*1), Z2
	VMOVDQU64 (R11)(AX*1), Z3
	VMOVDQU64 (R12)(AX*1), Z4
	VMOVDQU64 (R13)(AX*1), Z5
	VMOVDQU64 (R14)(AX*1), Z6
	VMOVDQU64 (BX)(AX*1), Z7

	// Bytes of rows (0,1), (2,3), (4,5), (6,7) interleaved.
	VPUNPCKLBW Z1, Z0, Z8
	VPUNPCKHBW Z1, Z0, Z9
	VPUNPCKLBW Z3, Z2, Z10
	VPUNPCKHBW Z3, Z2, Z11
	VPUNPCKLBW Z5, Z4, Z12
	VPUNPCKHBW Z5, Z4, Z13
	VPUNPCKLBW Z7, Z6, Z14
	VPUNPCKHBW Z7, Z6, Z15

	// Byte pairs: rows 0-3 and 4-7 of elements 0-3, 4-7, 8-11, 12-15
	// of each lane.
	VPUNPCKLWD Z10, Z8, Z0
	VPUNPCKHWD Z10, Z8, Z1
	VPUNPCKLWD Z11, Z9, Z2
	VPUNPCKHWD Z11, Z9, Z3
	VPUNPCKLWD Z14, Z12, Z4
	VPUNPCKHWD Z14, Z12, Z5
	VPUNPCKLWD Z15, Z13, Z6
	VPUNPCKHWD Z15, Z13, Z7

	// Whole elements: lane L of Z(8+k) holds elements 16L+2k, 16L+2k+1.
	VPUNPCKLDQ Z4, Z0, Z8
	VPUNPCKHDQ Z4, Z0, Z9
	VPUNPCKLDQ Z5, Z1, Z10
	VPUNPCKHDQ Z5, Z1, Z11
	VPUNPCKLDQ Z6, Z2, Z12
	VPUNPCKHDQ Z6, Z2, Z13
	VPUNPCKLDQ Z7, Z3, Z14
	VPUNPCKHDQ Z7, Z3, Z15

	// Elements 16L..16L+7 are lane L of Z8..Z11; 16L+8..16L+15 of
	// Z12..Z15: gather each lane of four registers into one.
	VSHUFI64X2 $0x44, Z9, Z8, Z16
	VSHUFI64X2 $0xEE, Z9, Z8, Z17
	VSHUFI64X2 $0x44, Z11, Z10, Z18
	VSHUFI64X2 $0xEE, Z11, Z10, Z19
	VSHUFI64X2 $0x88, Z18, Z16, Z20
	VSHUFI64X2 $0xDD, Z18, Z16, Z21
	VSHUFI64X2 $0x88, Z19, Z17, Z22
	VSHUFI64X2 $0xDD, Z19, Z17, Z23
	VMOVDQU64 Z20, 0(DI)
	VMOVDQU64 Z21, 128(DI)
	VMOVDQU64 Z22, 256(DI)
	VMOVDQU64 Z23, 384(DI)

	VSHUFI64X2 $0x44, Z13, Z12, Z16
	VSHUFI64X2 $0xEE, Z13, Z12, Z17
	VSHUFI64X2 $0x44, Z15, Z14, Z18
	VSHUFI64X2 $0xEE, Z15, Z14, Z19
	VSHUFI64X2 $0x88, Z18, Z16, Z20
	VSHUFI64X2 $0xDD, Z18, Z16, Z21
	VSHUFI64X2 $0x88, Z19, Z17, Z22
	VSHUFI64X2 $0xDD, Z19, Z17, Z23
	VMOVDQU64 Z20, 64(DI)
	VMOVDQU64 Z21, 192(DI)
	VMOVDQU64 Z22, 320(DI)
	VMOVDQU64 Z23, 448(DI)

	ADDQ $64, AX
	ADDQ $512, DI
	DECQ CX
	JMP  loop

done:
	VZEROUPPER
	RET
