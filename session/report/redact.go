package report

import "linesman/session/hosts"

// redactedCommand is the server's argv as reports show it: arguments that
// look like secrets (an API key after --api-key, a URL with a password;
// see [hosts.SecretArg]) become "<redacted>", as reports are shared (CI
// artifacts, issues) and servers take keys on their command lines.
func redactedCommand(argv []string) []string {
	if len(argv) == 0 {
		return argv
	}
	out := append([]string{}, argv...)
	for i := 1; i < len(out); i++ {
		if hosts.SecretArg(argv[i-1], argv[i]) {
			out[i] = "<redacted>"
		}
	}
	return out
}
