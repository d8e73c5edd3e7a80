package ui

import (
	"fmt"
	"strings"
)

// URI templates (RFC 6570) of resources/templates/list, as far as the form
// needs them: the variables of each expression, expanded with the
// operators of level 3 (prefix and explode modifiers are read and ignored:
// the form's values are plain strings).

// uriVar is a variable of a URI template; required when its expression
// has no operator that may leave it out (?, &, ;, #).
type uriVar struct {
	name     string
	required bool
}

// uriOp is how an expression's operator expands (RFC 6570 appendix A).
type uriOp struct {
	first, sep string
	named      bool
	ifEmpty    string
	reserved   bool // reserved characters pass unencoded
}

var uriOps = map[byte]uriOp{
	0:   {"", ",", false, "", false},
	'+': {"", ",", false, "", true},
	'.': {".", ".", false, "", false},
	'/': {"/", "/", false, "", false},
	';': {";", ";", true, "", false},
	'?': {"?", "&", true, "=", false},
	'&': {"&", "&", true, "=", false},
	'#': {"#", ",", false, "", true},
}

// uriExpressions calls fn for each {expression} of tmpl with the text
// before it; it returns the text after the last.
func uriExpressions(tmpl string, fn func(lit string, op byte, names []string)) string {
	for {
		i := strings.IndexByte(tmpl, '{')
		j := strings.IndexByte(tmpl, '}')
		if i < 0 || j < i {
			return tmpl
		}
		expr := tmpl[i+1 : j]
		var op byte
		if expr != "" && strings.IndexByte("+./;?&#", expr[0]) >= 0 {
			op, expr = expr[0], expr[1:]
		}
		var names []string
		for _, n := range strings.Split(expr, ",") {
			n, _, _ = strings.Cut(strings.TrimSuffix(n, "*"), ":")
			if n != "" {
				names = append(names, n)
			}
		}
		fn(tmpl[:i], op, names)
		tmpl = tmpl[j+1:]
	}
}

// uriTemplateVars lists the variables of tmpl, each once, in order.
func uriTemplateVars(tmpl string) []uriVar {
	var out []uriVar
	seen := map[string]bool{}
	uriExpressions(tmpl, func(_ string, op byte, names []string) {
		for _, n := range names {
			if !seen[n] {
				seen[n] = true
				out = append(out, uriVar{n, strings.IndexByte("?&;#", op) < 0})
			}
		}
	})
	return out
}

// expandURITemplate expands tmpl with vals; a variable without a value
// (or an empty one where the operator allows) is left out, as RFC 6570
// says of undefined variables.
func expandURITemplate(tmpl string, vals map[string]string) string {
	var sb strings.Builder
	rest := uriExpressions(tmpl, func(lit string, op byte, names []string) {
		sb.WriteString(lit)
		o := uriOps[op]
		n := 0
		for _, name := range names {
			v, ok := vals[name]
			if !ok {
				continue
			}
			if n == 0 {
				sb.WriteString(o.first)
			} else {
				sb.WriteString(o.sep)
			}
			n++
			if o.named {
				sb.WriteString(uriEncode(name, false))
				if v == "" {
					sb.WriteString(o.ifEmpty)
					continue
				}
				sb.WriteByte('=')
			}
			sb.WriteString(uriEncode(v, o.reserved))
		}
	})
	sb.WriteString(rest)
	return sb.String()
}

// uriEncode percent-encodes s: all but the unreserved characters, or (with
// reserved) all but those and the reserved ones and %XX triplets.
func uriEncode(s string, reserved bool) string {
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', strings.IndexByte("-._~", c) >= 0:
			sb.WriteByte(c)
		case reserved && strings.IndexByte(":/?#[]@!$&'()*+,;=", c) >= 0:
			sb.WriteByte(c)
		case reserved && c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			sb.WriteByte(c)
		default:
			fmt.Fprintf(&sb, "%%%02X", c)
		}
	}
	return sb.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
