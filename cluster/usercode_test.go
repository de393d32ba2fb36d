package cluster

import (
	"errors"
	"testing"
)

// TestAllowUserCode: user code runs only on loopback with a token by
// default; true needs a token anywhere; false refuses it everywhere.
func TestAllowUserCode(t *testing.T) {
	for _, c := range []struct {
		flag, listen, token string
		want                bool
		err                 error
	}{
		{"auto", "127.0.0.1:0", "tok", true, nil},
		{"auto", "localhost:7000", "tok", true, nil},
		{"auto", "127.0.0.1:0", "", false, nil},
		{"auto", "0.0.0.0:7000", "tok", false, nil},
		{"auto", "10.1.2.3:7000", "tok", false, nil},
		{"true", "0.0.0.0:7000", "tok", true, nil},
		{"true", "127.0.0.1:0", "", false, ErrUserCodeNeedsToken},
		{"false", "127.0.0.1:0", "tok", false, nil},
	} {
		u, err := ParseUserCode(c.flag)
		if err != nil {
			t.Fatal(err)
		}
		got, err := allowUserCode(u, c.listen, c.token)
		if got != c.want || !errors.Is(err, c.err) {
			t.Errorf("--allow-user-code=%s on %s with token %q: %v, %v; want %v, %v", c.flag, c.listen, c.token, got, err, c.want, c.err)
		}
		if u.String() != c.flag {
			t.Errorf("%s reads back as %s", c.flag, u)
		}
	}
	if _, err := ParseUserCode("maybe"); err == nil {
		t.Error("--allow-user-code=maybe was accepted")
	}
}
