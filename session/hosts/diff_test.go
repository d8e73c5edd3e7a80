package hosts

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// The edit script is a shortest one (as long as a longest common
// subsequence says), and it turns a into b.
func TestEditScriptIsShortest(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	lines := func() []string {
		out := make([]string, r.IntN(12))
		for i := range out {
			out[i] = string(rune('a' + r.IntN(3)))
		}
		return out
	}
	for range 3000 {
		a, b := lines(), lines()
		script := editScript(a, b)
		var got []string
		i, j, edits := 0, 0, 0
		for _, c := range []byte(script) {
			switch c {
			case ' ':
				if a[i] != b[j] {
					t.Fatalf("%q -> %q: %q keeps %q as %q", a, b, script, a[i], b[j])
				}
				got = append(got, a[i])
				i, j = i+1, j+1
			case '-':
				i, edits = i+1, edits+1
			case '+':
				got = append(got, b[j])
				j, edits = j+1, edits+1
			}
		}
		if i != len(a) || strings.Join(got, "") != strings.Join(b, "") {
			t.Fatalf("%q -> %q: %q does not make b", a, b, script)
		}
		if want := len(a) + len(b) - 2*lcsLength(a, b); edits != want {
			t.Fatalf("%q -> %q: %q has %d edits, want %d", a, b, script, edits, want)
		}
	}
}

func lcsLength(a, b []string) int {
	t := make([][]int, len(a)+1)
	for i := range t {
		t[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	return t[0][0]
}

// A wrap's diff of a file of 300,000 lines (a ~/.claude.json with years of
// history) changes a line at each end and shows just those: a table of
// every pair of lines, as the diff once kept, would hold 9·10¹⁰ cells (2.1
// GB and 2.5 s for 16,000 lines, 24 GB and 8 minutes for 76 MB).
func TestDiffOfAHugeFileIsItsChanges(t *testing.T) {
	var a strings.Builder
	for i := range 300000 {
		a.WriteString(`    {"display": "prompt `)
		a.WriteString(strings.Repeat("x", i%7))
		a.WriteString("\"},\n")
	}
	x := "\"command\": \"npx\",\n" + a.String() + "\"command\": \"uvx\",\n"
	y := "\"command\": \"/opt/linesman\",\n" + a.String() + "\"command\": \"/opt/linesman\",\n"
	d := Diff("big.json", []byte(x), []byte(y))
	if strings.Count(d, "\n-") != 2 || strings.Count(d, "\n+") != 3 || strings.Count(d, "@@ -") != 2 {
		t.Errorf("diff:\n%s", d)
	}
	// Past maxEdits the lines are shown removed, then added: still a diff.
	var p, q strings.Builder
	for i := range 3000 {
		p.WriteString(strings.Repeat("p", i%5+1) + "\n")
		q.WriteString(strings.Repeat("q", i%5+1) + "\n")
	}
	if d := Diff("f", []byte(p.String()), []byte(q.String())); strings.Count(d, "\n-") != 3000 || strings.Count(d, "\n+") != 3001 {
		t.Errorf("a diff past %d edits: %d lines", maxEdits, strings.Count(d, "\n"))
	}
}

// apply makes its edits in one pass as if from the last to the first: of
// two at one offset, the later one's text first, and those that overlap
// as made in turn.
func TestApplyAsInTurn(t *testing.T) {
	src := []byte("0123456789")
	for _, edits := range [][]edit{
		{{1, 2, "a"}, {5, 7, "bb"}, {9, 9, "c"}},
		{{3, 3, "x"}, {3, 3, "y"}, {3, 5, "z"}},
		{{7, 7, "t"}, {2, 4, "u"}, {7, 9, "v"}},
		nil,
	} {
		want := applyInTurn(src, slices.Clone(edits))
		if got := apply(src, slices.Clone(edits)); string(got) != string(want) {
			t.Errorf("%v: %q, want %q", edits, got, want)
		}
	}
}
