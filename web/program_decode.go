package web

import (
	"encoding/json"
	"strconv"

	"github.com/phobos-tensor/phobos/calls"
)

// A program request is read by hand when it has the form the clients
// send: encoding/json's reflection was a large part of a small graph's
// time in the handler after a pause (docs/interactive.md, round 12). The
// hand reader takes only what it reads exactly as encoding/json would: the
// request's own keys, spelled as ProgramRequest names them, once each; the
// program's nodes with "fn", "args" and "kwargs" alone; no nulls, no
// escapes in the strings it makes Go strings of, nothing after the object.
// Each argument is kept as its raw bytes, checked to be one JSON value, as
// json.RawMessage is. Anything else (client arrays, uploads, a misspelt
// key, malformed JSON) is read by encoding/json, which gives the errors.

// maxFastDepth bounds the nesting fastProgramRequest follows in an
// argument; deeper ones go to encoding/json.
const maxFastDepth = 64

// fastProgramRequest reads body into req if it has the form above.
func fastProgramRequest(body []byte, req *ProgramRequest) bool {
	p := jsonReader{b: body}
	var seen [7]bool
	ok := p.object(func(key string) bool {
		switch key {
		case "program":
			return once(&seen[0]) && p.program(&req.Program)
		case "results":
			return once(&seen[1]) && p.ints(&req.Results)
		case "fuse":
			var b bool
			if !once(&seen[2]) || !p.bool(&b) {
				return false
			}
			req.Fuse = &b
			return true
		case "wait":
			return once(&seen[3]) && p.float(&req.Wait)
		case "inline":
			return once(&seen[4]) && p.int64(&req.Inline)
		case "release":
			return once(&seen[5]) && p.bool(&req.Release)
		case "into":
			return once(&seen[6]) && p.strings(&req.Into)
		}
		return false
	})
	p.space()
	return ok && p.i == len(p.b)
}

// jsonReader reads JSON from b at i; each method reports whether what it
// met had the form it takes.
type jsonReader struct {
	b []byte
	i int
}

// once marks a key seen, false if it was: encoding/json keeps the last
// of a repeated key, which is left to it.
func once(seen *bool) bool {
	if *seen {
		return false
	}
	*seen = true
	return true
}

func (p *jsonReader) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// peek is the next byte after whitespace, 0 at the end.
func (p *jsonReader) peek() byte {
	p.space()
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

func (p *jsonReader) eat(c byte) bool {
	if p.peek() != c {
		return false
	}
	p.i++
	return true
}

// object reads {"key": value, ...}, value by field.
func (p *jsonReader) object(field func(key string) bool) bool {
	if !p.eat('{') {
		return false
	}
	if p.eat('}') {
		return true
	}
	for {
		var key string
		if !p.plainString(&key) || !p.eat(':') || !field(key) {
			return false
		}
		if p.eat('}') {
			return true
		}
		if !p.eat(',') {
			return false
		}
	}
}

// array reads [value, ...], each by elem.
func (p *jsonReader) array(elem func() bool) bool {
	if !p.eat('[') {
		return false
	}
	if p.eat(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if p.eat(']') {
			return true
		}
		if !p.eat(',') {
			return false
		}
	}
}

// plainString reads a string of printable ASCII without escapes.
func (p *jsonReader) plainString(s *string) bool {
	if !p.eat('"') {
		return false
	}
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			*s = string(p.b[start:p.i])
			p.i++
			return true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return false
		}
		p.i++
	}
	return false
}

// list reads an array into *out, each element by read; an empty array is
// an empty slice, not nil, as encoding/json makes it.
func list[T any](p *jsonReader, out *[]T, read func(*T) bool) bool {
	v := []T{}
	ok := p.array(func() bool {
		var x T
		if !read(&x) {
			return false
		}
		v = append(v, x)
		return true
	})
	*out = v
	return ok
}

func (p *jsonReader) strings(out *[]string) bool { return list(p, out, p.plainString) }

func (p *jsonReader) bool(b *bool) bool {
	switch p.peek() {
	case 't':
		if p.literal("true") {
			*b = true
			return true
		}
	case 'f':
		if p.literal("false") {
			*b = false
			return true
		}
	}
	return false
}

func (p *jsonReader) literal(lit string) bool {
	if len(p.b)-p.i < len(lit) || string(p.b[p.i:p.i+len(lit)]) != lit {
		return false
	}
	p.i += len(lit)
	return true
}

// number reads a JSON number and returns its text.
func (p *jsonReader) number() ([]byte, bool) {
	p.space()
	start := p.i
	if p.i < len(p.b) && p.b[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(p.b) && p.b[p.i] == '0':
		p.i++
	case p.i < len(p.b) && p.b[p.i] >= '1' && p.b[p.i] <= '9':
		p.digits()
	default:
		return nil, false
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if !p.digits() {
			return nil, false
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if !p.digits() {
			return nil, false
		}
	}
	return p.b[start:p.i], true
}

// digits reads one or more decimal digits.
func (p *jsonReader) digits() bool {
	start := p.i
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
	}
	return p.i > start
}

func (p *jsonReader) float(f *float64) bool {
	t, ok := p.number()
	if !ok {
		return false
	}
	v, err := strconv.ParseFloat(string(t), 64)
	*f = v
	return err == nil
}

func (p *jsonReader) int64(i *int64) bool {
	t, ok := p.number()
	if !ok {
		return false
	}
	v, err := strconv.ParseInt(string(t), 10, 64)
	*i = v
	return err == nil
}

func (p *jsonReader) ints(out *[]int) bool {
	return list(p, out, func(i *int) bool {
		var v int64
		ok := p.int64(&v)
		*i = int(v)
		return ok
	})
}

func (p *jsonReader) program(prog *calls.Program) bool {
	return p.object(func(key string) bool {
		if key != "nodes" || prog.Nodes != nil {
			return false
		}
		prog.Nodes = []calls.Node{}
		return p.array(func() bool {
			var n calls.Node
			if !p.node(&n) {
				return false
			}
			prog.Nodes = append(prog.Nodes, n)
			return true
		})
	})
}

func (p *jsonReader) node(n *calls.Node) bool {
	var seenFn, seenArgs, seenKwargs bool
	return p.object(func(key string) bool {
		switch key {
		case "fn":
			return once(&seenFn) && p.plainString(&n.Fn)
		case "args":
			if !once(&seenArgs) {
				return false
			}
			n.Args = []json.RawMessage{}
			return p.array(func() bool {
				v, ok := p.raw()
				n.Args = append(n.Args, v)
				return ok
			})
		case "kwargs":
			if !once(&seenKwargs) {
				return false
			}
			n.Kwargs = map[string]json.RawMessage{}
			return p.object(func(k string) bool {
				if _, dup := n.Kwargs[k]; dup {
					return false
				}
				v, ok := p.raw()
				n.Kwargs[k] = v
				return ok
			})
		}
		return false
	})
}

// raw reads one JSON value, checked, and returns its bytes (a copy, as
// json.RawMessage holds).
func (p *jsonReader) raw() (json.RawMessage, bool) {
	p.space()
	start := p.i
	if !p.skip(0) {
		return nil, false
	}
	return append(json.RawMessage(nil), p.b[start:p.i]...), true
}

// skip reads one JSON value of any kind, checking its grammar.
func (p *jsonReader) skip(depth int) bool {
	if depth > maxFastDepth {
		return false
	}
	switch c := p.peek(); {
	case c == '{':
		return p.object(func(string) bool { return p.skip(depth + 1) })
	case c == '[':
		return p.array(func() bool { return p.skip(depth + 1) })
	case c == '"':
		var s string
		return p.plainString(&s)
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	case c == 'n':
		return p.literal("null")
	default:
		_, ok := p.number()
		return ok
	}
}
