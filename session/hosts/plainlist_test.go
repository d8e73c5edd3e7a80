package hosts

import (
	"reflect"
	"testing"
)

func TestShellWords(t *testing.T) {
	t.Parallel()
	for in, want := range map[string][]string{
		`a b  c`:               {"a", "b", "c"},
		`x 'a b' "c d" e\ f`:   {"x", "a b", "c d", "e f"},
		`K=v cmd --flag="x y"`: {"K=v", "cmd", "--flag=x y"},
		`'it''s' "q\"uote" ''`: {"its", `q"uote`, ""},
		"tab\tsep":             {"tab", "sep"},
		`unicode 'ü ✓'`:        {"unicode", "ü ✓"},
	} {
		got, err := shellWords(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("shellWords(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{`'open`, `"open`, `trailing\`} {
		if _, err := shellWords(in); err == nil {
			t.Errorf("shellWords(%q): no error", in)
		}
	}
}
