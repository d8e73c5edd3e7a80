package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"

	"linesman/session/eventlog"
	"linesman/session/fault"
	"linesman/session/run"
)

var cmdTap = &command{
	name:      "tap",
	usageLine: "linesman tap [--name N] -- COMMAND [ARG...]",
	// A host reads the tap's stdout and stderr as the server's: they pass
	// bytes through unchanged.
	output: passThrough,
	run:    runTap,
	long: `linesman tap — watch the traffic of a real host

Usage:
  linesman tap [--name N] [flags] -- COMMAND [ARG...]

A host (Claude Desktop, VS Code, Cursor, ...) runs this in place of the
server. tap starts COMMAND through linesman's isolated transport and passes
the bytes on unchanged both ways: its stdin to the server's stdin, the
server's stdout to its stdout, the server's stderr to its stderr, each as it
arrives. It never writes a byte of its own to stdout. Meanwhile it judges the
traffic as check does and records it as a capture (mode 0600) in the tap
directory, where 'linesman taps' lists it and 'linesman view --follow NAME'
opens it live.

It ends as the host expects: end of file on its stdin is passed on (the
server's stdin is closed, nothing more); SIGTERM, SIGINT and SIGHUP are passed
to the server's process group — every process in it, so a server started
through a launcher that does not pass signals on (npx, uvx) ends sooner than
when the host starts it directly and only the launcher is signalled; its exit status is the server's (a server
killed by a signal gives 128+n, as a shell reports it; 127 when the command
is not found, 126 when it cannot be executed). If the capture cannot be
written, the bytes are still passed on and one line says so on stderr.

The capture holds no environment value, and each argument that looks like a
secret (--api-key VALUE, --token=..., a URL with a password or a key, the
shapes of well-known keys) as <redacted>, in the command and wherever a
record's text repeats it; --keep-secrets keeps them. The traffic itself is
recorded as it crossed.

Tap directory: --dir, else $LINESMAN_TAP_DIR, else $XDG_STATE_HOME/linesman/taps,
else ~/.local/state/linesman/taps. The newest --keep ended captures of each
name are kept; older ones are removed when a tap of that name starts.

'linesman wrap' rewrites a host's config to run its servers through tap.

Examples:
  linesman tap --name weather -- python3 weather.py
  linesman tap -- npx -y @modelcontextprotocol/server-everything
`,
}

// runTap is "linesman tap": forward, record, judge, and exit as the server did.
func runTap(cmd *command, args []string, io stdio) int {
	var tap run.TapOptions
	opts := run.Options{Name: cmd.prefix(), Tap: &tap}
	fs := cmd.newFlagSet(io)
	fs.StringVar(&tap.Name, "name", "", "name of the tap, as 'linesman taps' lists it (default: the command's base name)")
	fs.StringVar(&tap.Dir, "dir", "", "directory of the tap captures (default: see above)")
	fs.IntVar(&opts.Session.MaxFrame, "max-frame", 16<<20, "largest frame the judge keeps whole, in bytes (forwarding is never limited)")
	durationVar(fs, &opts.Session.Timeout, "timeout", eventlog.DefaultTimeout, "a request of the host unanswered this long is flagged request-timeout")
	fs.BoolVar(&tap.KeepSecrets, "keep-secrets", false, "write secret-looking arguments (--api-key VALUE, --token=..., a URL with a password or key, sk-..., ghp_...) into the capture as they are, not as <redacted>")
	fs.IntVar(&tap.Keep, "keep", 20, "ended captures of this tap's name to keep; older ones are removed when it starts")
	sizeVar(fs, &tap.MaxCapture, "max-capture", run.DefaultTapMaxCapture, "largest capture file; past it, recording stops with a note and the traffic is still passed on (0: no limit)")
	registerFaults(fs, &tap.Faults)
	if status, ok := parseFlags(fs, args); !ok {
		return status
	}
	opts.Session.Command = fs.Args()
	if len(opts.Session.Command) == 0 {
		fmt.Fprintf(io.err, "linesman tap: no server command; usage: %s\n", cmd.usageLine)
		return exitUsage
	}
	if opts.Session.MaxFrame < 1024 || opts.Session.Timeout <= 0 {
		fmt.Fprintln(io.err, "linesman tap: --max-frame wants at least 1024 and --timeout a positive duration")
		return exitUsage
	}
	if tap.Name == "" {
		tap.Name = filepath.Base(opts.Session.Command[0])
	}
	return run.Tap(&opts, io.in, io.out, io.err)
}

// faultFlag collects repeated --fault SPEC flags, each parsed as it comes.
type faultFlag []fault.Spec

func (f *faultFlag) String() string {
	var raw []string
	for _, sp := range *f {
		raw = append(raw, sp.Raw)
	}
	return strings.Join(raw, " ")
}

func (f *faultFlag) Set(v string) error {
	sp, err := fault.Parse(v)
	if err != nil {
		return err
	}
	*f = append(*f, sp)
	return nil
}

// registerFaults adds --fault (tap, mock) to fs.
func registerFaults(fs *flag.FlagSet, f *[]fault.Spec) {
	fs.Var((*faultFlag)(f), "fault", "inject a fault, KIND[:ARG][@METHOD[:NAME]][#N] (repeatable): delay:2s, drop, error:CODE[:MESSAGE], truncate, corrupt, stray (an answer's), close-stdout, kill[:SIGNAL] (as the request passes); e.g. delay:3s@tools/call:search, kill:SIGTERM#5")
}
