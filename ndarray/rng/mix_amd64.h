// MIX is SplitMix64's output function (Stafford's variant 13) of the eight
// counters in IN, into OUT; T is scratch, M1 and M2 hold the broadcast
// multipliers 0xbf58476d1ce4e5b9 and 0x94d049bb133111eb.
#define MIX(IN, OUT, T, M1, M2) \
	VPSRLQ  $30, IN, OUT \
	VPXORQ  IN, OUT, OUT \
	VPMULLQ M1, OUT, OUT \
	VPSRLQ  $27, OUT, T \
	VPXORQ  OUT, T, OUT \
	VPMULLQ M2, OUT, OUT \
	VPSRLQ  $31, OUT, T \
	VPXORQ  OUT, T, OUT
