package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"

	"linesman/session/eventlog"
	"linesman/session/fault"
	"linesman/session/run"
	"linesman/session/tapctl"
)

var cmdTap = &command{
	name:      "tap",
	usageLine: "linesman tap [--name N] -- COMMAND [ARG...]",
	// A host reads the tap's stdout and stderr as the server's: they pass
	// bytes through unchanged.
	output: passThrough,
	run:    runTap,
	long:   helpText("tap"),
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
	intercept := fs.Bool("intercept", false, "accept a controller on a socket beside the capture (mode 0600): 'linesman view --follow' can then hold, edit, release and drop frames in flight; both directions are passed on by whole lines")
	if status, ok := parseFlags(fs, args); !ok {
		return status
	}
	if *intercept {
		tap.Intercept = tapctl.Controller(opts.Session.MaxFrame)
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
