package hosts

import (
	"net/url"
	"slices"
	"strings"
)

// Redaction is what stands in place of a secret wherever linesman shows
// or keeps one: listings, diffs, reports, transcripts and captures.
const Redaction = "<redacted>"

// RedactArgs returns a copy of args where each argument that looks like a
// secret (see [SecretArg]) is "<redacted>": for showing a server's command
// line in a listing or a report, which people share.
func RedactArgs(args []string) []string {
	out := make([]string, len(args))
	prev := ""
	for i, a := range args {
		out[i] = a
		if SecretArg(prev, a) {
			out[i] = Redaction
		}
		prev = a
	}
	return out
}

// RedactCommand is RedactArgs of an argv's arguments, argv[0] kept.
func RedactCommand(argv []string) []string {
	if len(argv) == 0 {
		return argv
	}
	return append([]string{argv[0]}, RedactArgs(argv[1:])...)
}

// SecretValues returns the arguments of argv (argv[0] aside) that
// RedactCommand redacts, each once: the values to keep out of whatever
// else holds the command line as text.
func SecretValues(argv []string) []string {
	var out []string
	for i, a := range RedactCommand(argv) {
		if a == Redaction && argv[i] != Redaction && !slices.Contains(out, argv[i]) {
			out = append(out, argv[i])
		}
	}
	return out
}

// SecretArg reports whether a command-line argument, after prev, looks
// like a secret, as servers take API keys on their command lines
// (`--api-key sk-…`, `--token=…`, a URL with a key in it): the value
// after a flag, or in a flag, whose name says key, token, secret,
// password, auth or credential; a URL with a user and password, or with
// such a name in its query; and the shapes of well-known keys.
func SecretArg(prev, arg string) bool {
	if name, _, ok := strings.Cut(arg, "="); ok && strings.HasPrefix(name, "-") && secretName(name) {
		return true
	}
	if strings.HasPrefix(prev, "-") && !strings.Contains(prev, "=") && secretName(prev) && !strings.HasPrefix(arg, "-") {
		return true
	}
	if u, err := url.Parse(arg); err == nil && u.Scheme != "" && u.Host != "" {
		if _, hasPass := u.User.Password(); hasPass {
			return true
		}
		for k := range u.Query() {
			if secretName(k) {
				return true
			}
		}
		return false
	}
	for _, p := range []string{"sk-", "sk_live_", "sk_test_", "ghp_", "gho_", "ghs_", "github_pat_", "glpat-", "xoxb-", "xoxp-", "xapp-", "AKIA", "AIza", "hf_", "npm_"} {
		if strings.HasPrefix(arg, p) && len(arg) >= len(p)+12 && !strings.ContainsAny(arg, " /") {
			return true
		}
	}
	return false
}

// secretName reports whether a flag or parameter name says it carries a
// secret.
func secretName(name string) bool {
	n := strings.ToLower(strings.TrimLeft(name, "-"))
	for _, w := range []string{"key", "token", "secret", "password", "passwd", "auth", "credential", "cookie"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}
