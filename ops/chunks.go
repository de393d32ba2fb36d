package ops

import (
	"fmt"
)

// DefaultChunkBytes is the auto chunk target, like Mars's chunk_store_limit.
const DefaultChunkBytes = 128 << 20

// ChunkSpec says how a tensor is split into chunks. The zero value is auto.
// Size gives a chunk size per axis (one value applies to every axis; -1 or a
// size of at least the axis length means one chunk); Splits gives explicit
// per-axis chunk sizes that must add up to the axis length.
type ChunkSpec struct {
	Size   []int   `json:"size,omitempty"`
	Splits [][]int `json:"splits,omitempty"`
	// Bytes is the auto target per chunk; 0 means DefaultChunkBytes.
	Bytes int64 `json:"bytes,omitempty"`
}

// IsAuto reports whether the spec asks for automatic chunking.
func (c ChunkSpec) IsAuto() bool { return len(c.Size) == 0 && len(c.Splits) == 0 }

// Validate checks the spec against a shape without building the splits
// (Resolve would allocate as many sizes as the spec asks for): every error
// Resolve would give, and a negative byte target.
func (c ChunkSpec) Validate(shape []int) error {
	nd := len(shape)
	switch {
	case c.Bytes < 0:
		return fmt.Errorf("chunks: %d bytes per chunk: want a positive size", c.Bytes)
	case len(c.Splits) > 0 && len(c.Size) > 0:
		return fmt.Errorf("chunks: both sizes %v and splits given", c.Size)
	case len(c.Splits) > 0:
		if len(c.Splits) != nd {
			return fmt.Errorf("chunks: %d explicit splits for %d axes of shape %v", len(c.Splits), nd, shape)
		}
		for i, sp := range c.Splits {
			sum := 0
			for _, s := range sp {
				if s < 0 || (s == 0 && shape[i] != 0) || s > shape[i] {
					return fmt.Errorf("chunks: bad chunk size %d in the splits of axis %d (length %d)", s, i, shape[i])
				}
				sum += s
				if sum > shape[i] {
					break
				}
			}
			if sum != shape[i] {
				return fmt.Errorf("chunks: the splits of axis %d add up to %d, not the axis length %d", i, sum, shape[i])
			}
		}
	case len(c.Size) > 0:
		if len(c.Size) != nd && len(c.Size) != 1 {
			return fmt.Errorf("chunks: %d chunk sizes %v for %d axes of shape %v", len(c.Size), c.Size, nd, shape)
		}
		for i, s := range c.Size {
			if s == 0 || s < -1 {
				return fmt.Errorf("chunks: bad chunk size %d for axis %d (want a positive size, or -1 for the whole axis)", s, i)
			}
		}
	}
	return nil
}

// Resolve turns the spec into per-axis chunk sizes for shape.
func (c ChunkSpec) Resolve(shape []int, itemsize int) ([][]int, error) {
	nd := len(shape)
	switch {
	case len(c.Splits) > 0:
		if len(c.Splits) != nd {
			return nil, fmt.Errorf("chunks: %d explicit splits for %d axes of shape %v", len(c.Splits), nd, shape)
		}
		out := make([][]int, nd)
		for i, sp := range c.Splits {
			sum := 0
			for _, s := range sp {
				if s < 0 || (s == 0 && shape[i] != 0) {
					return nil, fmt.Errorf("chunks: bad chunk size %d in splits %v of axis %d", s, sp, i)
				}
				sum += s
			}
			if sum != shape[i] {
				return nil, fmt.Errorf("chunks: splits %v of axis %d add up to %d, not the axis length %d", sp, i, sum, shape[i])
			}
			if len(sp) == 0 {
				sp = []int{0}
			}
			out[i] = append([]int(nil), sp...)
		}
		return out, nil
	case len(c.Size) > 0:
		sizes := c.Size
		if len(sizes) == 1 && nd != 1 {
			sizes = make([]int, nd)
			for i := range sizes {
				sizes[i] = c.Size[0]
			}
		}
		if len(sizes) != nd {
			return nil, fmt.Errorf("chunks: %d chunk sizes %v for %d axes of shape %v", len(sizes), c.Size, nd, shape)
		}
		out := make([][]int, nd)
		for i, s := range sizes {
			if s == 0 || s < -1 {
				return nil, fmt.Errorf("chunks: bad chunk size %d for axis %d (want a positive size, or -1 for the whole axis)", s, i)
			}
			if s == -1 {
				s = shape[i]
			}
			out[i] = SplitEven(shape[i], s)
		}
		return out, nil
	}
	target := c.Bytes
	if target <= 0 {
		target = DefaultChunkBytes
	}
	return AutoSplits(shape, itemsize, target), nil
}

// SplitEven splits n into chunks of size s, the last one shorter.
func SplitEven(n, s int) []int {
	if n == 0 {
		return []int{0}
	}
	if s <= 0 || s >= n {
		return []int{n}
	}
	out := make([]int, 0, (n+s-1)/s)
	for r := n; r > 0; r -= s {
		out = append(out, min(r, s))
	}
	return out
}

// AutoSplits chooses chunk sizes of about target bytes, keeping trailing axes
// whole where possible (their elements are contiguous) and balancing the
// chunks of the axis that has to be split.
func AutoSplits(shape []int, itemsize int, target int64) [][]int {
	nd := len(shape)
	out := make([][]int, nd)
	budget := target / int64(max(itemsize, 1))
	if budget < 1 {
		budget = 1
	}
	for i := nd - 1; i >= 0; i-- {
		n := shape[i]
		switch {
		case n == 0:
			out[i] = []int{0}
		case int64(n) <= budget:
			out[i] = []int{n}
			budget /= int64(n)
		default:
			k := (int64(n) + budget - 1) / budget // number of chunks
			s := (int64(n) + k - 1) / k           // balanced size
			out[i] = SplitEven(n, int(s))
			budget = 1
		}
	}
	return out
}
