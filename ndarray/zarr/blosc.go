package zarr

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// Blosc frame (c-blosc 1.x, as numcodecs writes it): a 16-byte header, then
// either the data as is (memcpyed) or one offset per block and the blocks,
// each split into typesize streams when blosc split it, each stream its
// compressed size and bytes (stored raw when that size equals the stream's).
const (
	bloscShuffle    = 0x1
	bloscMemcpyed   = 0x2
	bloscBitShuffle = 0x4
	bloscDontSplit  = 0x10
	bloscMaxSplits  = 16
	bloscMinBuffer  = 128
)

var bloscCodecs = [...]string{0: "blosclz", 1: "lz4", 2: "snappy", 3: "zlib", 4: "zstd"}

// bloscDecode decompresses a blosc frame of at most limit bytes.
func bloscDecode(src []byte, limit int) ([]byte, error) { return bloscDecodeTo(nil, src, limit) }

// bloscDecodeTo is bloscDecode writing into dst when it has room for the
// frame (every byte of the frame's length is written), else into a new
// buffer.
func bloscDecodeTo(dst, src []byte, limit int) ([]byte, error) {
	if len(src) < 16 {
		return nil, fmt.Errorf("blosc: frame of %d bytes, shorter than its header", len(src))
	}
	flags, typesize := src[2], int(src[3])
	nbytes := int(binary.LittleEndian.Uint32(src[4:]))
	blocksize := int(binary.LittleEndian.Uint32(src[8:]))
	cbytes := int(binary.LittleEndian.Uint32(src[12:]))
	switch {
	case src[0] != 1 && src[0] != 2:
		return nil, fmt.Errorf("blosc: format version %d", src[0])
	case nbytes > limit:
		return nil, fmt.Errorf("blosc: frame of %d bytes, more than the chunk's %d", nbytes, limit)
	case cbytes > len(src) || cbytes < 16:
		return nil, fmt.Errorf("blosc: frame says %d bytes, has %d (truncated)", cbytes, len(src))
	case typesize == 0:
		return nil, errors.New("blosc: type size 0")
	}
	src = src[:cbytes]
	var out []byte
	if cap(dst) >= nbytes {
		out = dst[:nbytes]
	} else {
		out = make([]byte, nbytes)
	}
	if nbytes == 0 {
		return out, nil
	}
	if flags&bloscMemcpyed != 0 {
		if len(src) < 16+nbytes {
			return nil, fmt.Errorf("blosc: stored frame of %d bytes holds %d", nbytes, len(src)-16)
		}
		copy(out, src[16:16+nbytes])
		return out, nil
	}
	if blocksize <= 0 || blocksize > nbytes {
		return nil, fmt.Errorf("blosc: block size %d for %d bytes", blocksize, nbytes)
	}
	codec := int(flags >> 5)
	if codec >= len(bloscCodecs) {
		return nil, fmt.Errorf("blosc: compressor code %d", codec)
	}
	nblocks := (nbytes + blocksize - 1) / blocksize
	if 16+4*nblocks > len(src) {
		return nil, errors.New("blosc: truncated block offsets")
	}
	tmp := make([]byte, blocksize)
	for b := range nblocks {
		bsize := blocksize
		last := b == nblocks-1 && nbytes%blocksize != 0
		if last {
			bsize = nbytes % blocksize
		}
		start := int(binary.LittleEndian.Uint32(src[16+4*b:]))
		if start < 16 || start > len(src) {
			return nil, fmt.Errorf("blosc: block %d starts at %d of %d", b, start, len(src))
		}
		nsplits := 1
		if flags&bloscDontSplit == 0 && typesize <= bloscMaxSplits && blocksize/typesize >= bloscMinBuffer && !last {
			nsplits = typesize
		}
		neblock := bsize / nsplits
		dst := tmp[:bsize]
		pos := start
		for s := range nsplits {
			if pos+4 > len(src) {
				return nil, fmt.Errorf("blosc: block %d stream %d truncated", b, s)
			}
			cs := int(int32(binary.LittleEndian.Uint32(src[pos:])))
			pos += 4
			if cs < 0 || pos+cs > len(src) {
				return nil, fmt.Errorf("blosc: block %d stream %d of %d bytes (frame has %d)", b, s, cs, len(src)-pos)
			}
			part := dst[s*neblock : (s+1)*neblock]
			if cs == neblock {
				copy(part, src[pos:pos+cs])
			} else if err := bloscInner(bloscCodecs[codec], src[pos:pos+cs], part); err != nil {
				return nil, fmt.Errorf("blosc: block %d stream %d: %w", b, s, err)
			}
			pos += cs
		}
		block := out[b*blocksize : b*blocksize+bsize]
		switch {
		case flags&bloscBitShuffle != 0:
			bitUnshuffle(block, dst, typesize)
		case flags&bloscShuffle != 0 && typesize > 1:
			byteUnshuffle(block, dst, typesize)
		default:
			copy(block, dst)
		}
	}
	return out, nil
}

// bloscInner decompresses one stream into dst, which it must fill exactly.
func bloscInner(codec string, src, dst []byte) error {
	switch codec {
	case "lz4":
		n, err := lz4.UncompressBlock(src, dst)
		if err != nil {
			return err
		}
		if n != len(dst) {
			return fmt.Errorf("lz4 gave %d bytes, want %d", n, len(dst))
		}
		return nil
	case "zlib":
		r, err := zlib.NewReader(bytes.NewReader(src))
		if err != nil {
			return err
		}
		return readFull(r, dst)
	case "zstd":
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return err
		}
		defer d.Close()
		got, err := d.DecodeAll(src, dst[:0:len(dst)])
		if err != nil {
			return err
		}
		if len(got) != len(dst) {
			return fmt.Errorf("zstd gave %d bytes, want %d", len(got), len(dst))
		}
		copy(dst, got)
		return nil
	}
	return fmt.Errorf("inner compressor %s is not supported (lz4, lz4hc, zlib and zstd are)", codec)
}

// readFull fills dst from r and checks r has nothing more.
func readFull(r io.Reader, dst []byte) error {
	if _, err := io.ReadFull(r, dst); err != nil {
		return fmt.Errorf("decompressed data shorter than %d bytes: %w", len(dst), err)
	}
	var one [1]byte
	if n, _ := r.Read(one[:]); n > 0 {
		return fmt.Errorf("decompressed data longer than %d bytes", len(dst))
	}
	return nil
}

// byteUnshuffle undoes blosc's byte shuffle of a block: byte j of every
// element was stored together; a tail shorter than an element is as is.
func byteUnshuffle(dst, src []byte, ts int) {
	n := len(src) / ts
	if ts == 8 {
		unshuffle8(dst, src, n)
		copy(dst[n*ts:], src[n*ts:])
		return
	}
	for j := range ts {
		row := src[j*n : (j+1)*n]
		for i, v := range row {
			dst[i*ts+j] = v
		}
	}
	copy(dst[n*ts:], src[n*ts:])
}

// unshuffle8 is byteUnshuffle of n 8-byte elements (float64, int64): eight
// elements at a time, as an 8x8 byte matrix (a word from each of the 8
// byte rows) transposed in registers, instead of one byte store per byte.
func unshuffle8(dst, src []byte, n int) {
	s0, s1, s2, s3 := src[:n], src[n:2*n], src[2*n:3*n], src[3*n:4*n]
	s4, s5, s6, s7 := src[4*n:5*n], src[5*n:6*n], src[6*n:7*n], src[7*n:8*n]
	const m1, m2, m4 = 0x00ff00ff00ff00ff, 0x0000ffff0000ffff, 0x00000000ffffffff
	le := binary.LittleEndian
	i := unshuffle8Vec(dst, src, n) // AVX-512, 64 elements a step, where it runs
	for ; i+8 <= n; i += 8 {
		r0, r1, r2, r3 := le.Uint64(s0[i:]), le.Uint64(s1[i:]), le.Uint64(s2[i:]), le.Uint64(s3[i:])
		r4, r5, r6, r7 := le.Uint64(s4[i:]), le.Uint64(s5[i:]), le.Uint64(s6[i:]), le.Uint64(s7[i:])
		// Swap ever larger blocks across the diagonal: bytes between rows
		// one apart, byte pairs between rows two apart, then halves
		// between rows four apart. Afterwards byte j of r_e is byte e of
		// row j: element i+e.
		r0, r1 = r0&m1|(r1&m1)<<8, (r0>>8)&m1|r1&^m1
		r2, r3 = r2&m1|(r3&m1)<<8, (r2>>8)&m1|r3&^m1
		r4, r5 = r4&m1|(r5&m1)<<8, (r4>>8)&m1|r5&^m1
		r6, r7 = r6&m1|(r7&m1)<<8, (r6>>8)&m1|r7&^m1
		r0, r2 = r0&m2|(r2&m2)<<16, (r0>>16)&m2|r2&^m2
		r1, r3 = r1&m2|(r3&m2)<<16, (r1>>16)&m2|r3&^m2
		r4, r6 = r4&m2|(r6&m2)<<16, (r4>>16)&m2|r6&^m2
		r5, r7 = r5&m2|(r7&m2)<<16, (r5>>16)&m2|r7&^m2
		r0, r4 = r0&m4|(r4&m4)<<32, (r0>>32)&m4|r4&^m4
		r1, r5 = r1&m4|(r5&m4)<<32, (r1>>32)&m4|r5&^m4
		r2, r6 = r2&m4|(r6&m4)<<32, (r2>>32)&m4|r6&^m4
		r3, r7 = r3&m4|(r7&m4)<<32, (r3>>32)&m4|r7&^m4
		d := dst[i*8 : i*8+64]
		le.PutUint64(d[0:], r0)
		le.PutUint64(d[8:], r1)
		le.PutUint64(d[16:], r2)
		le.PutUint64(d[24:], r3)
		le.PutUint64(d[32:], r4)
		le.PutUint64(d[40:], r5)
		le.PutUint64(d[48:], r6)
		le.PutUint64(d[56:], r7)
	}
	for ; i < n; i++ {
		for j := range 8 {
			dst[i*8+j] = src[j*n+i]
		}
	}
}

// bitUnshuffle undoes blosc's bitshuffle of a block: bit k of byte j of
// every element was stored together, in rows of n bits (row j*8+k). Blosc
// bitshuffles only blocks of a multiple of 8 elements; others are as is.
func bitUnshuffle(dst, src []byte, ts int) {
	n := len(src) / ts
	if n%8 != 0 {
		copy(dst, src)
		return
	}
	clear(dst[:n*ts])
	rowBytes := n / 8
	for j := range ts {
		for k := range 8 {
			row := src[(j*8+k)*rowBytes : (j*8+k+1)*rowBytes]
			for i := range n {
				if row[i/8]>>(i%8)&1 != 0 {
					dst[i*ts+j] |= 1 << k
				}
			}
		}
	}
	copy(dst[n*ts:], src[n*ts:])
}
