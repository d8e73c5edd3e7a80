package hosts

import (
	"fmt"
	"path/filepath"
	"strings"
)

// A PlainServer is one line of a plain list of servers (see
// [ReadPlainList]).
type PlainServer struct {
	Name    string
	Command []string
	Env     []string // KEY=VALUE words written before the command
	Line    int      // its line in the file, from 1
}

// IsPlainList reports whether a --config file is a plain list of servers
// rather than a host's config: its name ends in .txt or .list.
func IsPlainList(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext == ".txt" || ext == ".list"
}

// ReadPlainList reads a plain list of servers: one a line, its name, then
// its command as a shell splits words ('single' and "double" quotes group
// words, a backslash escapes the next character outside single quotes);
// KEY=VALUE words before the command set environment variables. Blank
// lines and lines whose first non-blank character is # are skipped.
//
//	weather  python3 server.py --stdio
//	github   GITHUB_TOKEN=test npx -y @modelcontextprotocol/server-github
func ReadPlainList(path string) ([]PlainServer, error) {
	data, err := ReadFileLimited(path, "a server list", MaxConfigFile)
	if err != nil {
		return nil, err
	}
	var out []PlainServer
	seen := map[string]int{}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		words, err := shellWords(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, i+1, err)
		}
		e := PlainServer{Name: words[0], Line: i + 1}
		if prev, dup := seen[e.Name]; dup {
			return nil, fmt.Errorf("%s:%d: the name %q is taken by line %d", path, i+1, e.Name, prev)
		}
		seen[e.Name] = i + 1
		rest := words[1:]
		for len(rest) > 0 && isAssignment(rest[0]) {
			e.Env, rest = append(e.Env, rest[0]), rest[1:]
		}
		if len(rest) == 0 {
			return nil, fmt.Errorf("%s:%d: server %q has no command", path, i+1, e.Name)
		}
		e.Command = rest
		out = append(out, e)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s lists no server", path)
	}
	return out, nil
}

// isAssignment reports whether w is KEY=VALUE with a shell variable name.
func isAssignment(w string) bool {
	k, _, ok := strings.Cut(w, "=")
	if !ok || k == "" {
		return false
	}
	for i, c := range k {
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// shellWords splits a line into words the way a POSIX shell does for
// quotes and backslashes (no expansion of any kind).
func shellWords(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	escaped := false
	for _, c := range line {
		switch {
		case escaped:
			cur.WriteRune(c)
			escaped = false
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				cur.WriteRune(c)
			}
		case c == '\\':
			escaped, inWord = true, true
		case quote == '"':
			if c == '"' {
				quote = 0
			} else {
				cur.WriteRune(c)
			}
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == ' ' || c == '\t':
			if inWord {
				words, inWord = append(words, cur.String()), false
				cur.Reset()
			}
		default:
			cur.WriteRune(c)
			inWord = true
		}
	}
	if quote != 0 || escaped {
		return nil, fmt.Errorf("an unterminated quote or a trailing backslash")
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
