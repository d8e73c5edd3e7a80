package hosts

import (
	"net/url"
	"slices"
	"strings"
	"sync"
)

// Redaction is what stands in place of a secret wherever linesman shows
// or keeps one: listings, diffs, reports, transcripts and captures.
const Redaction = "<redacted>"

// RedactArgs returns a copy of args where each argument that looks like a
// secret (see [SecretArg]) or holds a value read from a file (see
// [HoldsFileValue]) is "<redacted>": for showing a server's command line
// in a listing or a report, which people share.
func RedactArgs(args []string) []string {
	out := make([]string, len(args))
	prev := ""
	for i, a := range args {
		out[i] = a
		if SecretArg(prev, a) || HoldsFileValue(a) {
			out[i] = Redaction
		}
		prev = a
	}
	return out
}

// RedactFileValues is RedactCommand for the values read from files only:
// for a command line kept as the user gave it (a capture of check, which
// a replay runs again) but which a config's file filled in.
func RedactFileValues(argv []string) []string {
	out := slices.Clone(argv)
	for i := 1; i < len(out); i++ {
		if HoldsFileValue(out[i]) {
			out[i] = Redaction
		}
	}
	return out
}

// RedactEnv returns a copy of env (KEY=VALUE) where each value that holds
// a value read from a file is "<redacted>".
func RedactEnv(env []string) []string {
	out := slices.Clone(env)
	for i, kv := range out {
		if k, v, ok := strings.Cut(kv, "="); ok && HoldsFileValue(v) {
			out[i] = k + "=" + Redaction
		}
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
// RedactCommand redacts, each once, and then every value read from a file:
// the values to keep out of whatever else holds the command line (or the
// environment) as text.
func SecretValues(argv []string) []string {
	var out []string
	for i, a := range RedactCommand(argv) {
		if a == Redaction && argv[i] != Redaction && !slices.Contains(out, argv[i]) {
			out = append(out, argv[i])
		}
	}
	for _, v := range FileValues() {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// FileValueSecrets is SecretValues for the values read from files only:
// the arguments of argv that hold one, then the values themselves.
func FileValueSecrets(argv []string) []string {
	var out []string
	for _, a := range argv[min(1, len(argv)):] {
		if HoldsFileValue(a) && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	for _, v := range FileValues() {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// minFileValue is the shortest value read from a file that counts as a
// secret: a shorter one (an envFile's DEBUG=1, an empty file) would
// redact every argument and every text that holds the same digit.
const minFileValue = 4

// fileValues are the values the resolvers of this process read from
// files — opencode's {file:…}, Windsurf's ${file:…}, the values of an
// envFile — each of which is a secret wherever linesman shows or keeps a
// server's command line or environment. A process resolves before it
// starts its server, and its reports and captures redact after.
var fileValues struct {
	sync.Mutex
	list []string
}

// rememberFileValue records v, read from a file, and each of its lines.
func rememberFileValue(v string) {
	fileValues.Lock()
	defer fileValues.Unlock()
	for _, s := range append([]string{v}, strings.Split(v, "\n")...) {
		s = strings.TrimSpace(s)
		if len(s) >= minFileValue && !slices.Contains(fileValues.list, s) {
			fileValues.list = append(fileValues.list, s)
		}
	}
}

// FileValues returns the values the resolvers of this process read from
// files (of minFileValue bytes or more), each once.
func FileValues() []string {
	fileValues.Lock()
	defer fileValues.Unlock()
	return slices.Clone(fileValues.list)
}

// HoldsFileValue reports whether s contains a value a resolver of this
// process read from a file.
func HoldsFileValue(s string) bool {
	fileValues.Lock()
	defer fileValues.Unlock()
	for _, v := range fileValues.list {
		if strings.Contains(s, v) {
			return true
		}
	}
	return false
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
