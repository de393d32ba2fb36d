package web

import (
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// jsonText draws a JSON value as text, in random spacing, of the kinds
// program arguments hold and some they do not.
func jsonText(rt *rapid.T, depth int, clean bool) string {
	sp := func() string { return rapid.SampledFrom([]string{"", "", " ", "\n  ", "\t"}).Draw(rt, "space") }
	kinds := 8
	if depth >= 3 {
		kinds = 6
	}
	switch rapid.IntRange(0, kinds-1).Draw(rt, "kind") {
	case 0:
		return rapid.StringMatching(`-?(0|[1-9][0-9]{0,19})`).Draw(rt, "int")
	case 1:
		return rapid.StringMatching(`-?(0|[1-9][0-9]{0,3})(\.[0-9]{1,4})?([eE][+-]?[0-9]{1,3})?`).Draw(rt, "number")
	case 2:
		return rapid.SampledFrom([]string{"true", "false", "null"}).Draw(rt, "literal")
	case 3:
		if clean {
			return rapid.SampledFrom([]string{`"nan"`, `"inf"`, `"-inf"`, `"a b"`, `""`}).Draw(rt, "string")
		}
		return rapid.SampledFrom([]string{`"\u00e9"`, `"é"`, `"tab\tin"`, `"q\"uote"`}).Draw(rt, "string")
	case 4:
		return "{" + sp() + `"ref"` + sp() + ":" + sp() + rapid.StringMatching(`[0-9]{1,3}`).Draw(rt, "ref") + sp() + "}"
	case 5:
		if clean || rapid.IntRange(0, 3).Draw(rt, "malformed?") > 0 {
			return "1"
		}
		return rapid.SampledFrom([]string{"01", "-", "1.", ".5", "+1", "tru", `"open`, "[1,]", "{,}", "1e", "nul"}).Draw(rt, "malformed")
	case 6:
		n := rapid.IntRange(0, 3).Draw(rt, "len")
		parts := make([]string, n)
		for i := range parts {
			parts[i] = sp() + jsonText(rt, depth+1, clean) + sp()
		}
		return "[" + strings.Join(parts, ",") + "]"
	default:
		n := rapid.IntRange(0, 3).Draw(rt, "fields")
		parts := make([]string, n)
		for i := range parts {
			parts[i] = sp() + `"` + rapid.SampledFrom([]string{"real", "imag", "slice", "k", "ref"}).Draw(rt, "key") + `"` + sp() + ":" + sp() + jsonText(rt, depth+1, clean) + sp()
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
}

// requestText draws a program request as text: the fields clients send,
// in any order and spacing, and now and then one they do not, twice, in
// another spelling, null, or with something after the object.
func requestText(rt *rapid.T) string {
	// Two requests in three have only what the hand reader takes.
	clean := rapid.IntRange(0, 2).Draw(rt, "clean") > 0
	pick := func(name string, good, odd []string) string {
		if clean || rapid.Bool().Draw(rt, name+" odd?") {
			return rapid.SampledFrom(good).Draw(rt, name)
		}
		return rapid.SampledFrom(odd).Draw(rt, name)
	}
	sp := func() string { return rapid.SampledFrom([]string{"", " ", "\n"}).Draw(rt, "space") }
	field := func(k, v string) string { return sp() + `"` + k + `"` + sp() + ":" + sp() + v + sp() }
	var nodes []string
	for range rapid.IntRange(0, 4).Draw(rt, "nodes") {
		var f []string
		if rapid.Bool().Draw(rt, "has fn") {
			f = append(f, field("fn", pick("fn", []string{`"arange"`, `"multiply"`, `"sum"`, `""`}, []string{`"a\u0062s"`})))
		}
		if rapid.Bool().Draw(rt, "has args") {
			var args []string
			for range rapid.IntRange(0, 4).Draw(rt, "args") {
				args = append(args, sp()+jsonText(rt, 0, clean)+sp())
			}
			f = append(f, field("args", "["+strings.Join(args, ",")+"]"))
		}
		if rapid.Bool().Draw(rt, "has kwargs") {
			var kw []string
			for range rapid.IntRange(0, 3).Draw(rt, "kwargs") {
				kw = append(kw, field(pick("kw", []string{"axis", "dtype", "keepdims"}, []string{"axis"}), jsonText(rt, 0, clean)))
			}
			f = append(f, field("kwargs", "{"+strings.Join(kw, ",")+"}"))
		}
		if !clean && rapid.IntRange(0, 3).Draw(rt, "odd node") == 0 {
			f = append(f, field(rapid.SampledFrom([]string{"data", "FN", "held", "args"}).Draw(rt, "odd node key"), rapid.SampledFrom([]string{`"AAAA"`, "null", "[]", `{"ref": 1}`}).Draw(rt, "odd node value")))
		}
		f = rapid.Permutation(f).Draw(rt, "node order")
		nodes = append(nodes, "{"+strings.Join(f, ",")+"}")
	}
	fields := []string{field("program", "{"+field("nodes", "["+strings.Join(nodes, ",")+"]")+"}")}
	if rapid.Bool().Draw(rt, "has results") {
		fields = append(fields, field("results", pick("results", []string{"[2]", "[]", "[0, 1]", "[-1]"}, []string{"[1.5]", `["a"]`})))
	}
	for _, k := range []string{"fuse", "release"} {
		if rapid.Bool().Draw(rt, "has "+k) {
			fields = append(fields, field(k, pick(k, []string{"true", "false"}, []string{"null", "1"})))
		}
	}
	if rapid.Bool().Draw(rt, "has wait") {
		fields = append(fields, field("wait", pick("wait", []string{"10", "0.5", "-1", "2.5e1"}, []string{"1e400", `"5"`})))
	}
	if rapid.Bool().Draw(rt, "has inline") {
		fields = append(fields, field("inline", pick("inline", []string{"65536", "0", "-3"}, []string{"1.5", "99999999999999999999"})))
	}
	if rapid.Bool().Draw(rt, "has into") {
		fields = append(fields, field("into", pick("into", []string{`["", "/dev/shm/x"]`, "[]"}, []string{`[1]`, `["\u00e9"]`})))
	}
	if !clean && rapid.IntRange(0, 3).Draw(rt, "odd key") == 0 {
		fields = append(fields, field(rapid.SampledFrom([]string{"Results", "unknown", "program", "wait"}).Draw(rt, "odd"), "1"))
	}
	fields = rapid.Permutation(fields).Draw(rt, "order")
	text := sp() + "{" + strings.Join(fields, ",") + "}" + sp()
	if !clean && rapid.IntRange(0, 3).Draw(rt, "trailing") == 0 {
		text += rapid.SampledFrom([]string{"x", "{}", " 1"}).Draw(rt, "after")
	}
	if !clean && rapid.IntRange(0, 3).Draw(rt, "cut") == 0 {
		text = text[:rapid.IntRange(0, len(text)).Draw(rt, "cut at")]
	}
	return text
}

// What the hand reader takes, it reads as encoding/json does.
func TestFastProgramRequestAsEncodingJSON(t *testing.T) {
	took := 0
	rapid.Check(t, func(rt *rapid.T) {
		body := requestText(rt)
		var fast ProgramRequest
		if !fastProgramRequest([]byte(body), &fast) {
			return
		}
		took++
		var std ProgramRequest
		if err := decodeBody([]byte(body), &std); err != nil {
			rt.Fatalf("the hand reader took %s, which encoding/json refuses: %v", body, err)
		}
		if !reflect.DeepEqual(fast, std) {
			rt.Fatalf("%s:\nhand reader   %+v\nencoding/json %+v", body, fast, std)
		}
	})
	if took == 0 {
		t.Error("the hand reader took none of the requests drawn")
	}
	t.Logf("the hand reader took %d of the requests drawn", took)
}

// The requests the Python client sends are read by hand.
func TestFastProgramRequestTakesClientRequests(t *testing.T) {
	for _, body := range []string{
		`{"program": {"nodes": [{"fn": "arange", "args": [0, 100, 1]}, {"fn": "multiply", "args": [{"ref": 0}, 2]}, {"fn": "sum", "args": [{"ref": 1}]}]}, "results": [2], "fuse": true, "wait": 10, "inline": 65536, "release": true}`,
		`{"program": {"nodes": [{"fn": "random.rand", "args": [1000, 1000], "kwargs": {"chunks": [100, 100], "seed": 7}}, {"fn": "mean", "args": [{"ref": 0}], "kwargs": {"axis": 0, "keepdims": false, "dtype": "float64"}}]}, "results": [1], "fuse": true, "wait": 10.5, "inline": 1048576, "release": false, "into": [""]}`,
	} {
		var req ProgramRequest
		if !fastProgramRequest([]byte(body), &req) {
			t.Errorf("not read by hand: %s", body)
			continue
		}
		var std ProgramRequest
		if err := decodeBody([]byte(body), &std); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(req, std) {
			t.Errorf("%s:\nhand reader   %+v\nencoding/json %+v", body, req, std)
		}
	}
}
