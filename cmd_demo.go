package main

import (
	"io"

	"linesman/demo"
)

// runDemoServer is `linesman demo-server`: the built-in demo server, a real
// MCP server on this process's stdio (see package demo).
func runDemoServer(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if wantsHelp(args) {
		// --help on stdout, as every other mode's (there is no wire to
		// protect: the server does not start).
		return demo.Run(args, stdin, stdout, stdout)
	}
	return demo.Run(args, stdin, stdout, stderr)
}
