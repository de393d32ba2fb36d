package npy

import (
	"fmt"
	"strconv"
	"strings"
)

// hdr is the content of a .npy header dict.
type hdr struct {
	descr   string
	fortran bool
	shape   []int
}

// parseHeader parses the header dict, a Python literal such as
// {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }.
// Only the literal forms NumPy writes are accepted: strings, True/False,
// integers and tuples or lists of them.
func parseHeader(s string) (hdr, error) {
	p := &litParser{s: s}
	v, err := p.value()
	if err == nil {
		p.space()
		if p.i < len(p.s) {
			err = p.errf("unexpected %q after the dict", p.s[p.i:min(len(p.s), p.i+10)])
		}
	}
	if err != nil {
		return hdr{}, fmt.Errorf("npy: bad header %q: %w", strings.TrimSpace(s), err)
	}
	d, ok := v.(map[string]any)
	if !ok {
		return hdr{}, fmt.Errorf("npy: bad header %q: not a dict", strings.TrimSpace(s))
	}
	var h hdr
	for k := range d {
		if k != "descr" && k != "fortran_order" && k != "shape" {
			return hdr{}, fmt.Errorf("npy: header has unexpected key %q", k)
		}
	}
	switch x := d["descr"].(type) {
	case string:
		h.descr = x
	case nil:
		return hdr{}, fmt.Errorf("npy: header lacks 'descr'")
	case []any:
		return hdr{}, fmt.Errorf("npy: unsupported structured dtype %v", x)
	default:
		return hdr{}, fmt.Errorf("npy: header 'descr' is %v, not a string", x)
	}
	switch x := d["fortran_order"].(type) {
	case bool:
		h.fortran = x
	case nil:
		return hdr{}, fmt.Errorf("npy: header lacks 'fortran_order'")
	default:
		return hdr{}, fmt.Errorf("npy: header 'fortran_order' is %v, not True or False", x)
	}
	sh, ok := d["shape"].([]any)
	if !ok {
		if d["shape"] == nil {
			return hdr{}, fmt.Errorf("npy: header lacks 'shape'")
		}
		return hdr{}, fmt.Errorf("npy: header 'shape' is %v, not a tuple", d["shape"])
	}
	h.shape = make([]int, len(sh))
	for i, e := range sh {
		n, ok := e.(int)
		if !ok || n < 0 {
			return hdr{}, fmt.Errorf("npy: header shape %v has invalid dimension %v", sh, e)
		}
		h.shape[i] = n
	}
	return h, nil
}

type litParser struct {
	s     string
	i     int
	depth int
}

func (p *litParser) errf(format string, args ...any) error {
	return fmt.Errorf("at offset %d: "+format, append([]any{p.i}, args...)...)
}

func (p *litParser) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

// value parses one literal: dict -> map[string]any, tuple/list -> []any,
// string, bool, int, None -> nil.
func (p *litParser) value() (any, error) {
	p.space()
	if p.i >= len(p.s) {
		return nil, p.errf("unexpected end")
	}
	if p.depth > 32 {
		return nil, p.errf("nested too deeply")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		p.i++
		p.depth++
		defer func() { p.depth-- }()
		m := map[string]any{}
		for {
			p.space()
			if p.i < len(p.s) && p.s[p.i] == '}' {
				p.i++
				return m, nil
			}
			k, err := p.value()
			if err != nil {
				return nil, err
			}
			ks, ok := k.(string)
			if !ok {
				return nil, p.errf("dict key %v is not a string", k)
			}
			p.space()
			if p.i >= len(p.s) || p.s[p.i] != ':' {
				return nil, p.errf("expected ':'")
			}
			p.i++
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			if _, dup := m[ks]; dup {
				return nil, p.errf("duplicate key %q", ks)
			}
			m[ks] = v
			if err := p.sep('}'); err != nil {
				return nil, err
			}
		}
	case c == '(' || c == '[':
		end := byte(')')
		if c == '[' {
			end = ']'
		}
		p.i++
		p.depth++
		defer func() { p.depth-- }()
		l := []any{}
		for {
			p.space()
			if p.i < len(p.s) && p.s[p.i] == end {
				p.i++
				return l, nil
			}
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			l = append(l, v)
			if err := p.sep(end); err != nil {
				return nil, err
			}
		}
	case c == '\'' || c == '"':
		j := strings.IndexByte(p.s[p.i+1:], c)
		if j < 0 {
			return nil, p.errf("unterminated string")
		}
		v := p.s[p.i+1 : p.i+1+j]
		if strings.IndexByte(v, '\\') >= 0 {
			return nil, p.errf("escapes in strings are not supported")
		}
		p.i += j + 2
		return v, nil
	case c == '-' || (c >= '0' && c <= '9'):
		j := p.i + 1
		for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
			j++
		}
		n, err := strconv.Atoi(p.s[p.i:j])
		if err != nil {
			return nil, p.errf("bad integer %q", p.s[p.i:j])
		}
		if j < len(p.s) && (p.s[j] == 'L' || p.s[j] == 'l') {
			j++ // Python 2 long suffix, as NumPy's reader also tolerates
		}
		p.i = j
		return n, nil
	default:
		for _, w := range []struct {
			word string
			v    any
		}{{"True", true}, {"False", false}, {"None", nil}} {
			if strings.HasPrefix(p.s[p.i:], w.word) {
				p.i += len(w.word)
				return w.v, nil
			}
		}
		return nil, p.errf("unexpected %q", p.s[p.i:min(len(p.s), p.i+10)])
	}
}

// sep consumes a ',' or sees the closing bracket.
func (p *litParser) sep(end byte) error {
	p.space()
	if p.i >= len(p.s) {
		return p.errf("unexpected end, expected ',' or %q", end)
	}
	switch p.s[p.i] {
	case ',':
		p.i++
		return nil
	case end:
		return nil
	}
	return p.errf("expected ',' or %q, got %q", end, p.s[p.i])
}
