package hosts

import (
	"fmt"
	"strings"
)

// Diff returns a unified diff (3 lines of context) from a to b, labelled
// with path; "" when they are equal. Config files are small: the line
// match is a plain longest-common-subsequence table.
func Diff(path string, a, b []byte) string {
	if string(a) == string(b) {
		return ""
	}
	x, y := splitLines(string(a)), splitLines(string(b))
	// lcs[i][j]: length of the LCS of x[i:] and y[j:].
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []op
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			ops = append(ops, op{' ', x[i], i + 1, j + 1})
			i, j = i+1, j+1
		case i < len(x) && (j == len(y) || lcs[i+1][j] >= lcs[i][j+1]):
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
	if err != nil || f.toml { // TOML is never rewritten, nor shown
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
