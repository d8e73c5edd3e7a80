package hosts

import (
	"fmt"
	"slices"
	"strings"
)

// Diff returns a unified diff (3 lines of context) from a to b, labelled
// with path; "" when they are equal. The lines both share at the start and
// at the end are set aside, and the rest matched by Myers's O(ND)
// algorithm, which keeps O(D²) of its steps: a wrap changes a few lines
// (D small) of files that can hold a million (a ~/.claude.json with years
// of history), where a table of every pair of lines would hold 10¹².
func Diff(path string, a, b []byte) string {
	if string(a) == string(b) {
		return ""
	}
	x, y := splitLines(string(a)), splitLines(string(b))
	pre := 0
	for pre < len(x) && pre < len(y) && x[pre] == y[pre] {
		pre++
	}
	suf := 0
	for suf < len(x)-pre && suf < len(y)-pre && x[len(x)-1-suf] == y[len(y)-1-suf] {
		suf++
	}
	script := strings.Repeat(" ", pre) + editScript(x[pre:len(x)-suf], y[pre:len(y)-suf]) + strings.Repeat(" ", suf)
	ops := make([]op, 0, len(script))
	i, j := 0, 0
	for k := 0; k < len(script); k++ {
		switch script[k] {
		case ' ':
			ops = append(ops, op{' ', x[i], i + 1, j + 1})
			i, j = i+1, j+1
		case '-':
			ops = append(ops, op{'-', x[i], i + 1, j + 1})
			i++
		default:
			ops = append(ops, op{'+', y[j], i + 1, j + 1})
			j++
		}
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s (wrapped)\n", path, path)
	writeHunks(&out, ops)
	return out.String()
}

// maxEdits bounds the edits [editScript] looks for (its memory grows as
// their square); past it, the lines are shown all removed, then all added.
const maxEdits = 2000

// editScript is a shortest edit script from a to b by Myers's algorithm
// ("An O(ND) Difference Algorithm and Its Variations", 1986): one byte a
// line, ' ' kept, '-' removed from a, '+' added from b.
func editScript(a, b []string) string {
	n, m := len(a), len(b)
	limit := min(n+m, maxEdits)
	off := limit + 1
	v := make([]int, 2*limit+3) // v[k+off]: the furthest x reached on diagonal k, -1 none
	var trace [][]int           // trace[d][k+d]: v after step d, for k in [-d, d]
	for d := 0; d <= limit; d++ {
		for k := -d; k <= d; k += 2 {
			x, _ := myersStep(func(k int) int { return v[k+off] }, k, d, n, m)
			if x >= 0 {
				for y := x - k; x < n && y < m && a[x] == b[y]; y++ {
					x++
				}
			}
			v[k+off] = x
			if x == n && x-k == m {
				trace = append(trace, append([]int(nil), v[off-d:off+d+1]...))
				return backtrack(trace, n, m)
			}
		}
		trace = append(trace, append([]int(nil), v[off-d:off+d+1]...))
	}
	return strings.Repeat("-", n) + strings.Repeat("+", m)
}

// myersStep is where step d of editScript starts on diagonal k, from the
// furthest points of step d-1 (prev): down from diagonal k+1 (an
// addition) or right from k-1 (a removal), whichever goes further without
// leaving the n×m grid; from is that diagonal, x -1 when neither can.
func myersStep(prev func(int) int, k, d, n, m int) (x, from int) {
	if d == 0 {
		return 0, 0
	}
	x, from = -1, 0
	if k < d {
		if px := prev(k + 1); px >= 0 && px-k <= m {
			x, from = px, k+1
		}
	}
	if k > -d {
		if px := prev(k-1) + 1; px > 0 && px <= n && px-k <= m && px > x {
			x, from = px, k-1
		}
	}
	return x, from
}

// backtrack reads the edit script ending at (n, m) out of editScript's trace.
func backtrack(trace [][]int, n, m int) string {
	script := make([]byte, 0, n+m)
	x, y := n, m
	for d := len(trace) - 1; d > 0; d-- {
		prev := trace[d-1]
		k := x - y
		sx, from := myersStep(func(k int) int { return prev[k+d-1] }, k, d, n, m)
		for x > sx {
			script = append(script, ' ')
			x, y = x-1, y-1
		}
		if from == k+1 {
			script = append(script, '+')
			y--
		} else {
			script = append(script, '-')
			x--
		}
	}
	for ; x > 0; x-- {
		script = append(script, ' ')
	}
	slices.Reverse(script)
	return string(script)
}

// op is one line of an edit script.
type op struct {
	kind byte // ' ', '-', '+'
	text string
	ai   int // line number in a (1-based) of ' ' and '-'
	bi   int // in b, of ' ' and '+'
}

// writeHunks prints the changed lines of ops with 3 lines of context.
func writeHunks(out *strings.Builder, ops []op) {
	const ctx = 3
	for k := 0; k < len(ops); {
		if ops[k].kind == ' ' {
			k++
			continue
		}
		start := max(0, k-ctx)
		end := k
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			n := end
			for n < len(ops) && ops[n].kind == ' ' {
				n++
			}
			if n-end > 2*ctx || n == len(ops) {
				end = min(n, end+ctx)
				break
			}
			end = n
		}
		var na, nb int
		for _, o := range ops[start:end] {
			if o.kind != '+' {
				na++
			}
			if o.kind != '-' {
				nb++
			}
		}
		fmt.Fprintf(out, "@@ -%d,%d +%d,%d @@\n", ops[start].ai, na, ops[start].bi, nb)
		for _, o := range ops[start:end] {
			out.WriteByte(o.kind)
			out.WriteString(o.text)
			if !strings.HasSuffix(o.text, "\n") {
				out.WriteString("\n\\ No newline at end of file\n")
			}
		}
		k = end
	}
}

func splitLines(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// Redacted returns data with every string value replaced by
// "<redacted>" but the few a diff of a wrap needs and that carry no
// secret: each server's command, its type, and its arguments, but those
// that look like a secret (see [SecretArg]). Everything else goes: env,
// headers and urls, and whatever else the file holds beside its servers —
// a Zed extension's settings with a token, the API key and the account's
// e-mail of a one-line ~/.claude.json, which a diff shows as context (or
// as the changed line itself). Keys, numbers and literals are kept. Data
// that does not parse is returned as it is unparsed: nothing of it can be
// told apart, so callers must not print it.
func Redacted(path string, data []byte, h Host) ([]byte, bool) {
	f, err := Parse(path, data, h)
	if err != nil || f.toml || f.yaml { // TOML and YAML are never rewritten, nor shown
		return nil, false
	}
	root, err := parseJSONC(data)
	if err != nil {
		return nil, false
	}
	shown := map[int]bool{} // the offsets of the strings shown as written
	for _, e := range f.Entries {
		for _, key := range []string{e.commandKey(), "type", "transportType"} {
			if v := e.obj.get(key); v != nil && v.kind == '"' {
				shown[v.start] = true
			}
		}
		for _, key := range []string{"args", "command"} { // command: opencode's whole command line
			args := e.obj.get(key)
			if args == nil || args.kind != '[' {
				continue
			}
			prev := ""
			for _, a := range args.elems {
				if a.kind == '"' && !SecretArg(prev, a.str) {
					shown[a.start] = true
				}
				prev = a.str
			}
		}
	}
	var edits []edit
	root.walk(func(n *node) {
		if n.kind == '"' && !shown[n.start] {
			edits = append(edits, edit{n.start, n.end, quote(Redaction)})
		}
	})
	return apply(data, edits), true
}

// walk calls fn for n and every value within it, in file order.
func (n *node) walk(fn func(*node)) {
	fn(n)
	for _, m := range n.members {
		m.value.walk(fn)
	}
	for _, e := range n.elems {
		e.walk(fn)
	}
}
