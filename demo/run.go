package demo

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
)

// Usage is the --help text of demo-server: the tools and the isolation lesson.
func Usage() string {
	var b strings.Builder
	b.WriteString(`linesman demo-server — a real MCP server on stdio that misbehaves on demand

Usage:
  linesman demo-server [--isolate=false]

It speaks both protocol eras: server/discover with _meta and resultType
(2026-07-28), and the initialize handshake (2025-11-25 and older). Started
without a command, linesman inspects this server. Each tool teaches one stdio
mistake and names the finding linesman shows for it:

`)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  TOOL\tFLAGGED AS\tWHAT IT DOES\n")
	for _, t := range Tools() {
		teaches := "-"
		if t.Teaches != "" {
			teaches = t.Teaches
		}
		if t.Name == "print_debug" || t.Name == "noisy_child" {
			teaches += " *"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", t.Name, teaches, t.Summary)
	}
	tw.Flush()
	b.WriteString(`
  * only with --isolate=false; with isolation on the line goes to stderr

Isolation, the lesson: by default the server serves MCP from private copies of
its stdin and stdout (descriptors above 2, close-on-exec), points fd 0 at
/dev/null and fd 1 at stderr while it serves, and puts them back on exit. So
print_debug's stray print and noisy_child's child process write into stderr and
the wire stays clean. With --isolate=false the same two tools write onto the
wire and linesman flags non-json-line. Do the same in your own server: keep the
protocol stream private, and let stdout mean stderr.

Flags:
`)
	return b.String()
}

// Run is the demo-server command: it parses args, isolates the process's
// stdio when asked (and possible), serves until stdin closes, and returns the
// exit status. Isolation applies only when stdin and stdout are the process's
// fd 0 and fd 1; otherwise (tests) it serves on them as given.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo-server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	isolate := fs.Bool("isolate", true, "serve from private copies of stdin/stdout; fd 0 reads /dev/null and fd 1 writes to stderr meanwhile")
	fs.Usage = func() {
		fmt.Fprint(stderr, Usage())
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "linesman demo-server: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	in, out := stdin, stdout
	opts := Options{}
	if *isolate && stdin == io.Reader(os.Stdin) && stdout == io.Writer(os.Stdout) {
		iso, err := Isolate()
		if err != nil {
			fmt.Fprintf(stderr, "linesman-demo: cannot isolate stdio (%v); serving on fd 0/1 directly\n", err)
		} else {
			defer func() {
				if err := iso.Restore(); err != nil {
					fmt.Fprintf(stderr, "linesman-demo: %v\n", err)
				}
			}()
			in, out = iso.In, iso.Out
			opts.Isolated = true
		}
	}
	if err := Serve(in, out, stderr, opts); err != nil {
		fmt.Fprintf(stderr, "linesman-demo: %v\n", err)
		return 1
	}
	return 0
}
