package web

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/phobos-tensor/phobos/ndarray"
	pb "github.com/phobos-tensor/phobos/rpc/phobosv1"
)

// axisSel is the selection along one axis of a result: out positions
// 0..n-1 read source positions start + o*step. drop: an integer index, the
// axis is left out of the output shape.
type axisSel struct {
	start, step, n int
	drop           bool
}

// parseSlice reads NumPy basic indexing, one item per axis separated by
// commas: "i" (an integer, negative from the end) or "start:stop[:step]"
// with any part omitted. Missing trailing axes are whole.
func parseSlice(spec string, shape []int) ([]axisSel, error) {
	sel := make([]axisSel, len(shape))
	for ax, n := range shape {
		sel[ax] = axisSel{start: 0, step: 1, n: n}
	}
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return sel, nil
	}
	items := strings.Split(spec, ",")
	if len(items) > len(shape) {
		return nil, fmt.Errorf("slice %q has %d items for a result of %d axes (shape %v)", spec, len(items), len(shape), shape)
	}
	for ax, item := range items {
		item = strings.TrimSpace(item)
		n := shape[ax]
		if !strings.Contains(item, ":") {
			i, err := strconv.Atoi(item)
			if err != nil {
				return nil, fmt.Errorf("slice item %d %q: want an integer or start:stop:step", ax, item)
			}
			if i < -n || i >= n {
				return nil, fmt.Errorf("slice item %d: index %d is out of bounds for axis %d of length %d", ax, i, ax, n)
			}
			if i < 0 {
				i += n
			}
			sel[ax] = axisSel{start: i, step: 1, n: 1, drop: true}
			continue
		}
		parts := strings.Split(item, ":")
		if len(parts) > 3 {
			return nil, fmt.Errorf("slice item %d %q: too many colons", ax, item)
		}
		var v [3]int
		var has [3]bool
		for k, p := range parts {
			p = strings.TrimSpace(p)
			if p == "" {
				continue
			}
			x, err := strconv.Atoi(p)
			if err != nil {
				return nil, fmt.Errorf("slice item %d %q: %q is not an integer", ax, item, p)
			}
			v[k], has[k] = x, true
		}
		step := 1
		if has[2] {
			step = v[2]
		}
		r, err := ndarray.SliceRange(n, v[0], v[1], step, has[0], has[1])
		if err != nil {
			return nil, fmt.Errorf("slice item %d %q: %w", ax, item, err)
		}
		sel[ax] = axisSel{start: r.Start, step: r.Step, n: r.Len}
	}
	return sel, nil
}

// segment is the part of one axis's selection inside one chunk: out
// positions [lo, hi) read the chunk from local position first, by step.
type segment struct {
	chunk, lo, hi, first int
	whole                bool // the segment is the whole chunk, in order
}

func floorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// segments splits an axis selection by the chunks it crosses, in output order.
func segments(s axisSel, splits []int) []segment {
	var out []segment
	off := 0
	for c, size := range splits {
		lo, hi := off, off+size
		off = hi
		var olo, ohi int
		if s.step > 0 {
			olo = -floorDiv(-(lo - s.start), s.step) // ceil
			ohi = -floorDiv(-(hi - s.start), s.step)
		} else {
			st := -s.step
			olo = floorDiv(s.start-hi, st) + 1
			ohi = floorDiv(s.start-lo, st) + 1
		}
		olo, ohi = max(olo, 0), min(ohi, s.n)
		if olo >= ohi {
			continue
		}
		first := s.start + olo*s.step - lo
		out = append(out, segment{chunk: c, lo: olo, hi: ohi, first: first,
			whole: s.step == 1 && first == 0 && ohi-olo == size})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].lo < out[j].lo })
	return out
}

// layoutGrid reads a result's layout: its shape, the chunk lengths along
// each axis and the number of chunks along each.
func layoutGrid(lay *pb.ResultLayout) (shape []int, nsplits [][]int, grid []int) {
	shape = make([]int, len(lay.Shape))
	for i, d := range lay.Shape {
		shape[i] = int(d)
	}
	nsplits = make([][]int, len(lay.Nsplits))
	grid = make([]int, len(lay.Nsplits))
	for i, sp := range lay.Nsplits {
		for _, n := range sp.Sizes {
			nsplits[i] = append(nsplits[i], int(n))
		}
		grid[i] = len(sp.Sizes)
	}
	return shape, nsplits, grid
}

// streamResult writes a result (or a slice of it) as .npy, assembled from
// its chunks on the workers one band of chunk rows at a time: the whole
// result is never in the web process's memory. A band that is exactly one
// whole chunk is copied straight from the worker's response.
func (s *Server) streamResult(ctx context.Context, w http.ResponseWriter, lay *pb.ResultLayout, spec string) error {
	var dt ndarray.DType
	if err := dt.UnmarshalText([]byte(lay.Dtype)); err != nil {
		return err
	}
	shape, nsplits, grid := layoutGrid(lay)
	sel, err := parseSlice(spec, shape)
	if err != nil {
		return badRequest(err)
	}
	var outShape []int
	for _, a := range sel {
		if !a.drop {
			outShape = append(outShape, a.n)
		}
	}
	hdr, err := npyHeader(dt, outShape)
	if err != nil {
		return err
	}
	total := ndarray.Size(outShape) * dt.Size()
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.Itoa(len(hdr)+total))
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(hdr); err != nil {
		return errAborted
	}
	if total == 0 {
		return nil
	}
	if len(shape) == 0 {
		a, err := s.fetchChunk(ctx, lay.Chunks[0].Url)
		if err != nil {
			return errAborted
		}
		if _, err := w.Write(a.Bytes()); err != nil {
			return errAborted
		}
		return nil
	}
	segs := make([][]segment, len(shape))
	for ax := range shape {
		segs[ax] = segments(sel[ax], nsplits[ax])
	}
	if err := s.writeBands(ctx, w, dt, lay, grid, sel, segs); err != nil {
		s.log.Warn("result stream cut short", "err", err)
		return errAborted
	}
	return nil
}
