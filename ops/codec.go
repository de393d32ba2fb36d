package ops

import (
	"bytes"
	"encoding"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ndarray/npy"
)

// The op codec writes an op as the JSON envelope
//
//	{"type": "<registered name>", "params": {<the op's exported fields>}}
//
// Fields are named by their json tags. It walks the op by reflection instead
// of using encoding/json directly because ops hold what encoding/json cannot
// carry: nested ops behind interfaces (Fused), arrays of client data
// (Literal, as base64 .npy), and non-finite floats (a NaN fill value, an
// infinite clip bound), which are written as the strings "NaN", "Infinity"
// and "-Infinity". Decoding is strict: an unknown type or field is an error
// that names it, so a typo cannot silently become a default.

var (
	arrayPtrType     = reflect.TypeFor[*ndarray.Array]()
	textMarshaler    = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshaler  = reflect.TypeFor[encoding.TextUnmarshaler]()
	chunkOpType      = reflect.TypeFor[ChunkOp]()
	tensorOpType     = reflect.TypeFor[TensorOp]()
	errNotRegistered = fmt.Errorf("not a registered op")
)

// MarshalOp encodes a registered op (a ChunkOp or a TensorOp) as its JSON envelope.
func MarshalOp(op any) ([]byte, error) {
	var b bytes.Buffer
	if err := encodeOp(&b, reflect.ValueOf(op)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// UnmarshalChunkOp decodes an op envelope that must hold a ChunkOp.
func UnmarshalChunkOp(data []byte) (ChunkOp, error) {
	op, err := UnmarshalOp(data)
	if err != nil {
		return nil, err
	}
	c, ok := op.(ChunkOp)
	if !ok {
		name, _ := RegisteredName(op)
		return nil, fmt.Errorf("op %q is a tensor op, not a chunk op", name)
	}
	return c, nil
}

// UnmarshalTensorOp decodes an op envelope that must hold a TensorOp.
func UnmarshalTensorOp(data []byte) (TensorOp, error) {
	op, err := UnmarshalOp(data)
	if err != nil {
		return nil, err
	}
	t, ok := op.(TensorOp)
	if !ok {
		name, _ := RegisteredName(op)
		return nil, fmt.Errorf("op %q is a chunk op, not a tensor op", name)
	}
	return t, nil
}

// UnmarshalOp decodes any registered op from its envelope.
func UnmarshalOp(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var x any
	if err := d.Decode(&x); err != nil {
		return nil, fmt.Errorf("op: malformed JSON: %w", err)
	}
	if d.More() {
		return nil, fmt.Errorf("op: trailing data after the op")
	}
	return DecodeOpValue(x)
}

// DecodeOpValue decodes an op envelope already parsed by encoding/json (with
// UseNumber, so integers stay exact), for codecs that embed ops.
func DecodeOpValue(x any) (any, error) {
	m, ok := x.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("op: want an object {\"type\": ..., \"params\": {...}}, got %s", jsonKind(x))
	}
	for k := range m {
		if k != "type" && k != "params" {
			return nil, fmt.Errorf("op: unknown key %q (an op is {\"type\": ..., \"params\": {...}})", k)
		}
	}
	name, ok := m["type"].(string)
	if !ok {
		return nil, fmt.Errorf("op: missing \"type\"")
	}
	t, ok := lookupType(name)
	if !ok {
		return nil, fmt.Errorf("unknown op %q (known: %s)", name, strings.Join(RegisteredNames(), ", "))
	}
	v := reflect.New(t).Elem()
	if p, ok := m["params"]; ok && p != nil {
		if err := decodeValue(v, p, "params"); err != nil {
			return nil, fmt.Errorf("op %q: %w", name, err)
		}
	}
	op := v.Interface()
	if c, ok := op.(Checker); ok {
		if err := c.Check(); err != nil {
			return nil, fmt.Errorf("op %q: %w", name, err)
		}
	}
	return op, nil
}

// Checker is implemented by ops whose decoded parameters must hold together
// (nested ops present, indexes in range) before anything uses them.
type Checker interface {
	Check() error
}

func encodeOp(b *bytes.Buffer, v reflect.Value) error {
	if !v.IsValid() {
		return fmt.Errorf("op: nil op")
	}
	name, ok := nameOfType(v.Type())
	if !ok {
		return fmt.Errorf("op: %v is %w", v.Type(), errNotRegistered)
	}
	b.WriteString(`{"type":`)
	writeString(b, name)
	b.WriteString(`,"params":`)
	if err := encodeValue(b, v); err != nil {
		return fmt.Errorf("op %q: %w", name, err)
	}
	b.WriteByte('}')
	return nil
}

func writeString(b *bytes.Buffer, s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			q, _ := json.Marshal(s) // a string always marshals
			b.Write(q)
			return
		}
	}
	// Plain printable ASCII (every op name and parameter): no escaping.
	b.WriteByte('"')
	b.WriteString(s)
	b.WriteByte('"')
}

func encodeFloat(b *bytes.Buffer, f float64, bits int) {
	switch {
	case math.IsNaN(f):
		b.WriteString(`"NaN"`)
	case math.IsInf(f, 1):
		b.WriteString(`"Infinity"`)
	case math.IsInf(f, -1):
		b.WriteString(`"-Infinity"`)
	default:
		b.Write(strconv.AppendFloat(b.AvailableBuffer(), f, 'g', -1, bits))
	}
}

// EncodeArray writes an array as base64 of its .npy bytes.
func EncodeArray(a *ndarray.Array) (string, error) {
	var buf bytes.Buffer
	if err := npy.Write(&buf, a); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}

// DecodeArray reads an array written by EncodeArray.
func DecodeArray(s string) (*ndarray.Array, error) {
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("array data is not base64: %w", err)
	}
	return npy.Read(bytes.NewReader(raw))
}

func encodeValue(b *bytes.Buffer, v reflect.Value) error {
	t := v.Type()
	if t == arrayPtrType {
		if v.IsNil() {
			b.WriteString("null")
			return nil
		}
		s, err := EncodeArray(v.Interface().(*ndarray.Array))
		if err != nil {
			return err
		}
		writeString(b, s)
		return nil
	}
	if t.Kind() != reflect.Interface && t.Kind() != reflect.Pointer && marshalsText(t) {
		txt, err := v.Interface().(encoding.TextMarshaler).MarshalText()
		if err != nil {
			return err
		}
		writeString(b, string(txt))
		return nil
	}
	switch t.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			b.WriteString("null")
			return nil
		}
		return encodeOp(b, v.Elem())
	case reflect.Bool:
		b.WriteString(strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		b.Write(strconv.AppendInt(b.AvailableBuffer(), v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		b.Write(strconv.AppendUint(b.AvailableBuffer(), v.Uint(), 10))
	case reflect.Float32:
		encodeFloat(b, v.Float(), 32)
	case reflect.Float64:
		encodeFloat(b, v.Float(), 64)
	case reflect.String:
		writeString(b, v.String())
	case reflect.Pointer:
		if v.IsNil() {
			b.WriteString("null")
			return nil
		}
		return encodeValue(b, v.Elem())
	case reflect.Slice:
		if v.IsNil() {
			b.WriteString("null")
			return nil
		}
		fallthrough
	case reflect.Array:
		b.WriteByte('[')
		for i := range v.Len() {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := encodeValue(b, v.Index(i)); err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
		}
		b.WriteByte(']')
	case reflect.Map:
		if v.IsNil() {
			b.WriteString("null")
			return nil
		}
		if t.Key().Kind() != reflect.String {
			return fmt.Errorf("cannot encode a map keyed by %v", t.Key())
		}
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k.String())
			b.WriteByte(':')
			if err := encodeValue(b, v.MapIndex(k)); err != nil {
				return fmt.Errorf("%s: %w", k.String(), err)
			}
		}
		b.WriteByte('}')
	case reflect.Struct:
		b.WriteByte('{')
		first := true
		for _, f := range fieldsOf(t) {
			fv := v.Field(f.index)
			if f.omitzero && fv.IsZero() || f.omitempty && isEmpty(fv) {
				continue
			}
			if !first {
				b.WriteByte(',')
			}
			first = false
			b.WriteString(f.key)
			if err := encodeValue(b, fv); err != nil {
				return fmt.Errorf("%s: %w", f.name, err)
			}
		}
		b.WriteByte('}')
	default:
		return fmt.Errorf("cannot encode a %v", t)
	}
	return nil
}

// isEmpty is encoding/json's omitempty test.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

type fieldInfo struct {
	index     int
	name      string
	key       string // the quoted name and colon, as written
	omitempty bool
	omitzero  bool
}

var fieldCache sync.Map // reflect.Type -> []fieldInfo

// textCache caches Implements, which walks the type's method set: asked
// for every value of every op encoded for dispatch.
var textCache sync.Map // reflect.Type -> bool

// marshalsText reports whether t is an encoding.TextMarshaler.
func marshalsText(t reflect.Type) bool {
	if t.NumMethod() == 0 {
		return false
	}
	if m, ok := textCache.Load(t); ok {
		return m.(bool)
	}
	m := t.Implements(textMarshaler)
	textCache.Store(t, m)
	return m
}

// fieldsOf lists a struct's wire fields: exported fields by json tag. An
// array field tagged "-" (Literal's data, which encoding/json must skip) is
// carried under its lower-cased name.
func fieldsOf(t reflect.Type) []fieldInfo {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.([]fieldInfo)
	}
	var fs []fieldInfo
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		f := fieldInfo{index: i, name: sf.Name}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			if sf.Type != arrayPtrType {
				continue
			}
			f.name = strings.ToLower(sf.Name)
			f.omitempty = true
		} else if tag != "" {
			parts := strings.Split(tag, ",")
			if parts[0] != "" {
				f.name = parts[0]
			}
			for _, o := range parts[1:] {
				switch o {
				case "omitempty":
					f.omitempty = true
				case "omitzero":
					f.omitzero = true
				}
			}
		}
		var kb bytes.Buffer
		writeString(&kb, f.name)
		kb.WriteByte(':')
		f.key = kb.String()
		fs = append(fs, f)
	}
	fieldCache.Store(t, fs)
	return fs
}

func jsonKind(x any) string {
	switch x.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", x)
}

// decodeValue assigns the parsed JSON x to v, reporting errors at path.
func decodeValue(v reflect.Value, x any, path string) error {
	t := v.Type()
	if t == arrayPtrType {
		if x == nil {
			v.SetZero()
			return nil
		}
		s, ok := x.(string)
		if !ok {
			return fmt.Errorf("%s: want base64 .npy data, got %s", path, jsonKind(x))
		}
		a, err := DecodeArray(s)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		v.Set(reflect.ValueOf(a))
		return nil
	}
	if t.Kind() != reflect.Interface && t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(textUnmarshaler) {
		s, ok := x.(string)
		if !ok {
			return fmt.Errorf("%s: want a string, got %s", path, jsonKind(x))
		}
		if err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return nil
	}
	switch t.Kind() {
	case reflect.Interface:
		if x == nil {
			v.SetZero()
			return nil
		}
		op, err := DecodeOpValue(x)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		ov := reflect.ValueOf(op)
		if !ov.Type().Implements(t) {
			want := t.String()
			switch t {
			case chunkOpType:
				want = "a chunk op"
			case tensorOpType:
				want = "a tensor op"
			}
			name, _ := RegisteredName(op)
			return fmt.Errorf("%s: op %q is not %s", path, name, want)
		}
		v.Set(ov)
	case reflect.Bool:
		bv, ok := x.(bool)
		if !ok {
			return fmt.Errorf("%s: want a boolean, got %s", path, jsonKind(x))
		}
		v.SetBool(bv)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := x.(json.Number)
		if !ok {
			return fmt.Errorf("%s: want an integer, got %s", path, jsonKind(x))
		}
		i, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil || v.OverflowInt(i) {
			return fmt.Errorf("%s: %s is not an integer of %v", path, n, t)
		}
		v.SetInt(i)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := x.(json.Number)
		if !ok {
			return fmt.Errorf("%s: want an unsigned integer, got %s", path, jsonKind(x))
		}
		u, err := strconv.ParseUint(string(n), 10, 64)
		if err != nil || v.OverflowUint(u) {
			return fmt.Errorf("%s: %s is not an unsigned integer of %v", path, n, t)
		}
		v.SetUint(u)
	case reflect.Float32, reflect.Float64:
		var f float64
		switch n := x.(type) {
		case json.Number:
			var err error
			if f, err = strconv.ParseFloat(string(n), 64); err != nil {
				return fmt.Errorf("%s: %s is not a number", path, n)
			}
		case string:
			switch n {
			case "NaN":
				f = math.NaN()
			case "Infinity":
				f = math.Inf(1)
			case "-Infinity":
				f = math.Inf(-1)
			default:
				return fmt.Errorf("%s: want a number (or \"NaN\", \"Infinity\", \"-Infinity\"), got %q", path, n)
			}
		default:
			return fmt.Errorf("%s: want a number, got %s", path, jsonKind(x))
		}
		v.SetFloat(f)
	case reflect.String:
		s, ok := x.(string)
		if !ok {
			return fmt.Errorf("%s: want a string, got %s", path, jsonKind(x))
		}
		v.SetString(s)
	case reflect.Pointer:
		if x == nil {
			v.SetZero()
			return nil
		}
		p := reflect.New(t.Elem())
		if err := decodeValue(p.Elem(), x, path); err != nil {
			return err
		}
		v.Set(p)
	case reflect.Slice:
		if x == nil {
			v.SetZero()
			return nil
		}
		xs, ok := x.([]any)
		if !ok {
			return fmt.Errorf("%s: want an array, got %s", path, jsonKind(x))
		}
		s := reflect.MakeSlice(t, len(xs), len(xs))
		for i, e := range xs {
			if err := decodeValue(s.Index(i), e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		v.Set(s)
	case reflect.Array:
		xs, ok := x.([]any)
		if !ok || len(xs) != t.Len() {
			return fmt.Errorf("%s: want an array of %d, got %s", path, t.Len(), jsonKind(x))
		}
		for i, e := range xs {
			if err := decodeValue(v.Index(i), e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		if x == nil {
			v.SetZero()
			return nil
		}
		m, ok := x.(map[string]any)
		if !ok || t.Key().Kind() != reflect.String {
			return fmt.Errorf("%s: want an object, got %s", path, jsonKind(x))
		}
		mv := reflect.MakeMapWithSize(t, len(m))
		for k, e := range m {
			ev := reflect.New(t.Elem()).Elem()
			if err := decodeValue(ev, e, path+"."+k); err != nil {
				return err
			}
			mv.SetMapIndex(reflect.ValueOf(k).Convert(t.Key()), ev)
		}
		v.Set(mv)
	case reflect.Struct:
		m, ok := x.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: want an object, got %s", path, jsonKind(x))
		}
		fs := fieldsOf(t)
		for k, e := range m {
			f := -1
			for i := range fs {
				if fs[i].name == k {
					f = i
					break
				}
			}
			if f < 0 {
				names := make([]string, len(fs))
				for i := range fs {
					names[i] = fs[i].name
				}
				return fmt.Errorf("%s: unknown field %q (fields: %s)", path, k, strings.Join(names, ", "))
			}
			if err := decodeValue(v.Field(fs[f].index), e, path+"."+k); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("%s: cannot decode into %v", path, t)
	}
	return nil
}
