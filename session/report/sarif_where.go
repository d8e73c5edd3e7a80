package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// ProjectURL is the web address of linesman's repository, set when it is
// built (go install -ldflags "-X linesman/session/report.ProjectURL=URL";
// the CI recipe of docs/ci.md sets it from the URL it clones): the module path
// is plain "linesman", so no address can be derived from it, and an
// invented one would send every reader of a SARIF log to a dead link.
var ProjectURL = ""

// InformationURI is tool.driver.informationUri in SARIF logs: the project's
// README, which introduces every mode and links the pages that document
// each flag and report ("" when ProjectURL
// was not set at build time: the property is then left out).
func InformationURI() string {
	if web := projectWebURL(); web != "" {
		return web + "#readme"
	}
	return ""
}

// RuleHelpURI is a rule's helpUri in SARIF logs: the README's section on
// the judge, which links its page of rule families ("" without ProjectURL;
// the README is the one page every host shows at a fixed address). linesman
// explain CODE prints the entry itself, which the rule's help holds.
func RuleHelpURI(code string) string {
	if web := projectWebURL(); web != "" {
		return web + "#the-protocol-judge"
	}
	return ""
}

// scpLike is git's scp-like address of a repository: [user@]host:path.
var scpLike = regexp.MustCompile(`^(?:[^@/:]+@)?([^@/:]+):([^/].*)$`)

// projectWebURL is ProjectURL as an https (or http) address a browser
// opens, or "" when it names none: a git URL over SSH (ssh://git@host/o/r,
// git@host:o/r) or git:// becomes https://host/o/r, ".git" trimmed; a
// local path or anything else that is no absolute URI is left out, so
// that informationUri and helpUri are always valid uris.
func projectWebURL() string {
	raw := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSpace(ProjectURL), "/"), ".git")
	if m := scpLike.FindStringSubmatch(raw); m != nil && !strings.Contains(raw, "://") {
		raw = "https://" + m[1] + "/" + m[2]
	}
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return ""
	}
	switch u.Scheme {
	case "https", "http":
	case "ssh", "git", "git+ssh", "ssh+git":
		u.Scheme, u.Host = "https", u.Hostname()
	default:
		return ""
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

// sarifLocation is where a reviewer can follow every finding: the server
// command as a logical location, and as a physical one the config file the
// server was started from, else the command's script (its first argument
// that names a file), else its program, at line (1 when not known: code
// scanning needs a line to show a result and to fingerprint it).
func (r *Report) sarifLocation(configFile string, line int) sarifLocation {
	cmd := ShellJoin(r.Command)
	loc := sarifLocation{Message: &sarifText{"the MCP server started as: " + cmd}}
	name := cmd
	if len(r.Command) > 0 {
		name = filepath.Base(r.Command[0])
	}
	loc.LogicalLocations = []sarifLogical{{Name: name, FullyQualifiedName: cmd, Kind: "module"}}
	artifact := configFile
	if artifact == "" {
		artifact = commandArtifact(r.Command)
	}
	if artifact != "" {
		loc.PhysicalLocation = &sarifPhysical{ArtifactLocation: sarifArtifact{URI: fileURI(artifact)},
			Region: &sarifRegion{StartLine: max(line, 1)}}
	}
	return loc
}

// commandArtifact is the file a command runs: its first argument that
// names a regular file (python3 server.py: server.py), else its program.
func commandArtifact(argv []string) string {
	for _, a := range argv[min(1, len(argv)):] {
		if st, err := os.Stat(a); err == nil && st.Mode().IsRegular() {
			return a
		}
	}
	if len(argv) > 0 {
		return argv[0]
	}
	return ""
}

// fileURI is a path as a URI reference: relative paths stay relative (to
// the checkout, where code scanning resolves them), absolute ones become
// file URIs.
func fileURI(p string) string {
	p = filepath.ToSlash(p)
	if filepath.IsAbs(p) {
		return (&url.URL{Scheme: "file", Path: p}).String()
	}
	return (&url.URL{Path: p}).String()
}

// fingerprintKey names linesman's fingerprint in partialFingerprints
// (primaryLocationLineHash is the upload action's own, computed from the
// file's text, which a config file's lines do not identify).
const fingerprintKey = "linesman/v1"

// digits are the volatile parts of a finding's message: times, pids,
// exit codes, byte offsets, sequence numbers, request ids.
var digits = regexp.MustCompile(`[0-9]+`)

// fingerprinter returns the fingerprint of each finding in turn: a hash
// of its code, the server (the entry's name under --all, else the
// command), its direction, the method of the frame it points at and its
// message without digits, and how many findings before it had all of
// these: the same finding of the same server gets the same fingerprint
// on every run, and two findings of one run never share one.
func (r *Report) fingerprinter(server string) func(Finding) string {
	if server == "" {
		server = ShellJoin(r.Command)
	}
	methods := map[uint64]string{}
	for _, f := range r.Frames {
		switch {
		case f.Method != nil:
			methods[f.Seq] = *f.Method
		case f.InReplyTo != nil:
			methods[f.Seq] = f.InReplyTo.Method
		}
	}
	seen := map[string]int{}
	return func(f Finding) string {
		dir, method := "", ""
		if f.Dir != nil {
			dir = *f.Dir
		}
		if f.Seq != nil {
			method = methods[*f.Seq]
		}
		key := strings.Join([]string{f.Code, server, dir, method, digits.ReplaceAllString(f.Message, "#")}, "\x00")
		n := seen[key]
		seen[key]++
		sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d", key, n)))
		return hex.EncodeToString(sum[:16])
	}
}
