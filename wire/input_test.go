package wire

import (
	"strings"
	"testing"
)

func TestInputFrames(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"{\"a\":1}\n\n{\"b\":2}\r\n", `{"a":1}|{"b":2}`},
		{"{\n  \"a\": [1,\n 2]\n}\nnext\n", `{"a":[1,2]}|next`},
		// Not completed by the lines that follow: each line as written.
		{"{\"id\":1,\n{\"m\":2}\n", `{"id":1,|{"m":2}`},
		{"{\"id\":\n", `{"id":`},
		// Something after the value on its last line: as written.
		{"{\n\"a\":1} x\n", `{|"a":1} x`},
		{"not json\n  \n", `not json`},
		// Brackets inside strings do not count; a deep value joins too.
		{"{\"a\":\n\"}]\"\n}\n", `{"a":"}]"}`},
		{"[[\n[1]]\n]\n", `[[[1]]]`},
	} {
		var got []string
		for _, f := range InputFrames([]byte(c.in)) {
			got = append(got, string(f))
		}
		if strings.Join(got, "|") != c.want {
			t.Errorf("InputFrames(%q) = %q, want %q", c.in, strings.Join(got, "|"), c.want)
		}
	}
}
