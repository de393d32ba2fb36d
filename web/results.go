package web

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/rpc"
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

// streamResult writes a result (or a slice of it) as .npy, assembled from
// its chunks on the workers one band of chunk rows at a time: the whole
// result is never in the web process's memory. A band that is exactly one
// whole chunk is copied straight from the worker's response.
func (s *Server) streamResult(ctx context.Context, w http.ResponseWriter, lay *pb.ResultLayout, spec string) error {
	var dt ndarray.DType
	if err := dt.UnmarshalText([]byte(lay.Dtype)); err != nil {
		return err
	}
	shape := make([]int, len(lay.Shape))
	for i, d := range lay.Shape {
		shape[i] = int(d)
	}
	nsplits := make([][]int, len(lay.Nsplits))
	grid := make([]int, len(lay.Nsplits))
	for i, sp := range lay.Nsplits {
		for _, n := range sp.Sizes {
			nsplits[i] = append(nsplits[i], int(n))
		}
		grid[i] = len(sp.Sizes)
	}
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
		a, err := rpc.FetchChunk(ctx, s.http, lay.Chunks[0].Url)
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
	for _, s0 := range segs[0] {
		if err := s.writeBand(ctx, w, dt, lay, grid, sel, segs, s0); err != nil {
			s.log.Warn("result stream cut short", "err", err)
			return errAborted
		}
	}
	return nil
}

// writeBand writes the out rows of one axis-0 segment.
func (s *Server) writeBand(ctx context.Context, w io.Writer, dt ndarray.DType, lay *pb.ResultLayout, grid []int, sel []axisSel, segs [][]segment, s0 segment) error {
	nd := len(grid)
	// The chunks of the band: every combination of the other axes' segments.
	var combos [][]segment
	cur := make([]segment, nd)
	cur[0] = s0
	var walk func(ax int)
	walk = func(ax int) {
		if ax == nd {
			combos = append(combos, append([]segment(nil), cur...))
			return
		}
		for _, sg := range segs[ax] {
			cur[ax] = sg
			walk(ax + 1)
		}
	}
	walk(1)
	flat := func(c []segment) int {
		f := 0
		for ax, sg := range c {
			f = f*grid[ax] + sg.chunk
		}
		return f
	}
	if len(combos) == 1 {
		whole := true
		for _, sg := range combos[0] {
			whole = whole && sg.whole
		}
		if whole {
			cs, err := rpc.OpenChunk(ctx, s.http, lay.Chunks[flat(combos[0])].Url)
			if err != nil {
				return err
			}
			defer cs.Body.Close()
			n, err := io.Copy(w, cs.Body)
			if err == nil && n != int64(cs.Nbytes()) {
				err = fmt.Errorf("chunk body: %d of %d bytes", n, cs.Nbytes())
			}
			return err
		}
	}
	bandShape := make([]int, nd)
	bandShape[0] = s0.hi - s0.lo
	for ax := 1; ax < nd; ax++ {
		bandShape[ax] = sel[ax].n
	}
	band, err := ndarray.New(dt, bandShape...)
	if err != nil {
		return err
	}
	// Fetch the band's chunks a few at a time and copy each into place.
	var wg sync.WaitGroup
	var mu sync.Mutex
	var ferr error
	sem := make(chan struct{}, 8)
	for _, c := range combos {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			a, err := rpc.FetchChunk(ctx, s.http, lay.Chunks[flat(c)].Url)
			if err == nil {
				src := make([]ndarray.Range, nd)
				dst := make([]ndarray.Range, nd)
				for ax, sg := range c {
					src[ax] = ndarray.Range{Start: sg.first, Step: sel[ax].step, Len: sg.hi - sg.lo}
					dst[ax] = ndarray.Range{Start: sg.lo, Step: 1, Len: sg.hi - sg.lo}
				}
				dst[0].Start = 0
				var sv, dv *ndarray.Array
				if sv, err = a.Slice(src); err == nil {
					if dv, err = band.Slice(dst); err == nil {
						ndarray.CopyInto(dv, sv) // disjoint regions of band: safe in parallel
					}
				}
			}
			if err != nil {
				mu.Lock()
				ferr = err
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if ferr != nil {
		return ferr
	}
	_, err = w.Write(band.Bytes())
	return err
}
