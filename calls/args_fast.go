package calls

import "strconv"

// The two argument forms nearly every call has, an integer and a
// reference to an earlier node, are read here without encoding/json's
// reflection, which a small program's build paid for each argument. Each
// takes only the one spelling it can read exactly as encoding/json would
// (the request was checked to be JSON when it was decoded); anything else
// goes the general way.

// maxFastDigits bounds the digits jsonInt parses: any such number fits
// an int64 (and an int, on the 64-bit platforms Phobos builds for).
const maxFastDigits = 18

// jsonInt reads v if it is a JSON integer of at most maxFastDigits
// digits: an optional minus, then 0 or digits not starting with 0.
func jsonInt(v []byte) (int64, bool) {
	d := v
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > maxFastDigits || (d[0] == '0' && len(d) > 1) {
		return 0, false
	}
	for _, c := range d {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	i, err := strconv.ParseInt(string(v), 10, 64)
	return i, err == nil
}

// refIndex reads v if it is exactly {"ref": N}, N a non-negative JSON
// integer, with any JSON whitespace between the tokens.
func refIndex(v []byte) (int, bool) {
	rest, ok := token(v, "{")
	if !ok {
		return 0, false
	}
	if rest, ok = token(rest, `"ref"`); !ok {
		return 0, false
	}
	if rest, ok = token(rest, ":"); !ok {
		return 0, false
	}
	rest = skipSpace(rest)
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	num := rest[:n]
	if rest, ok = token(rest[n:], "}"); !ok || len(skipSpace(rest)) != 0 {
		return 0, false
	}
	i, ok := jsonInt(num)
	if !ok || i < 0 {
		return 0, false
	}
	return int(i), true
}

// token strips leading JSON whitespace and then tok from v.
func token(v []byte, tok string) ([]byte, bool) {
	v = skipSpace(v)
	if len(v) < len(tok) || string(v[:len(tok)]) != tok {
		return nil, false
	}
	return v[len(tok):], true
}

func skipSpace(v []byte) []byte {
	for len(v) > 0 && (v[0] == ' ' || v[0] == '\t' || v[0] == '\n' || v[0] == '\r') {
		v = v[1:]
	}
	return v
}
