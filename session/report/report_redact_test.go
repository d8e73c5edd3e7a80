package report

import (
	"slices"
	"testing"

	"linesman/session/eventlog"
	"linesman/session/hosts"
)

// Reports are shared (CI artifacts, issues): a server's argument that
// looks like a secret is shown as <redacted>, the rest as given.
func TestReportsRedactSecretArguments(t *testing.T) {
	argv := []string{"npx", "-y", "@x/server", "--api-key", "sk-abcdefghijklmnop", "--token=t0ps3cret", "--verbose", "https://u:pw@db.example/x", "plain"}
	want := []string{"npx", "-y", "@x/server", "--api-key", "<redacted>", "<redacted>", "--verbose", "<redacted>", "plain"}
	if got := hosts.RedactCommand(argv); !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if argv[4] != "sk-abcdefghijklmnop" {
		t.Error("the caller's argv was changed")
	}
	r := FromLog(eventlog.NewLog(0), nil, Meta{Command: argv})
	if !slices.Equal(r.Command, want) {
		t.Errorf("report command %q", r.Command)
	}
}
