package calls

import (
	"encoding/json"
	"strconv"
	"testing"

	"pgregory.net/rapid"
)

// jsonInt and refIndex read what they take as encoding/json does, and
// leave to it whatever they do not take.
func TestFastArgsAsEncodingJSON(t *testing.T) {
	spaces := rapid.SampledFrom([]string{"", " ", "  ", "\n", "\t ", "\r\n"})
	rapid.Check(t, func(rt *rapid.T) {
		// Integers of every size, and digit strings JSON refuses (leading
		// zeros) or int64 cannot hold.
		var lit string
		switch rapid.IntRange(0, 2).Draw(rt, "kind") {
		case 0:
			lit = strconv.FormatInt(rapid.Int64().Draw(rt, "i"), 10)
		case 1:
			lit = rapid.StringMatching(`-?[0-9]{1,25}`).Draw(rt, "digits")
		default:
			lit = rapid.SampledFrom([]string{"-", "-0", "0", "1.5", "1e3", "true", `"3"`, "+4", "0x10"}).Draw(rt, "other")
		}
		var want int64
		wantErr := json.Unmarshal([]byte(lit), &want)
		if got, ok := jsonInt([]byte(lit)); ok && (wantErr != nil || got != want) {
			rt.Fatalf("jsonInt(%q) = %d; encoding/json: %d, %v", lit, got, want, wantErr)
		}
		// {"ref": N} in any spacing, and objects that are not it.
		s := func(name string) string { return spaces.Draw(rt, name) }
		obj := s("s0") + "{" + s("s1") + `"ref"` + s("s2") + ":" + s("s3") + lit + s("s4") + "}" + s("s5")
		if rapid.Bool().Draw(rt, "other key") {
			obj = `{"ref": ` + lit + `, "x": 1}`
		}
		var ref struct {
			Ref *int `json:"ref"`
		}
		wantErr = json.Unmarshal([]byte(obj), &ref)
		got, ok := refIndex([]byte(obj))
		if !ok {
			return
		}
		if wantErr != nil || ref.Ref == nil || *ref.Ref != got || got < 0 {
			rt.Fatalf("refIndex(%q) = %d; encoding/json: %v, %v", obj, got, ref.Ref, wantErr)
		}
	})
}

// The forms a client sends are taken by the fast paths.
func TestFastArgsTakeTheUsualForms(t *testing.T) {
	for _, c := range []struct {
		v    string
		want int64
	}{{"0", 0}, {"100", 100}, {"-7", -7}, {"123456789012345678", 123456789012345678}} {
		if got, ok := jsonInt([]byte(c.v)); !ok || got != c.want {
			t.Errorf("jsonInt(%s) = %d, %v; want %d", c.v, got, ok, c.want)
		}
	}
	for _, c := range []struct {
		v    string
		want int
	}{{`{"ref": 0}`, 0}, {`{"ref":12}`, 12}, {` { "ref" : 3 } `, 3}} {
		if got, ok := refIndex([]byte(c.v)); !ok || got != c.want {
			t.Errorf("refIndex(%s) = %d, %v; want %d", c.v, got, ok, c.want)
		}
	}
}
