package main

import (
	"linesman/demo"
)

var cmdDemoServer = &command{
	name:      "demo-server",
	usageLine: "linesman demo-server [--isolate=false]",
	// Its stdout is the wire.
	output: passThrough,
	run:    runDemoServer,
}

// runDemoServer is `linesman demo-server`: the built-in demo server, a real
// MCP server on this process's stdio (see package demo).
func runDemoServer(_ *command, args []string, io stdio) int {
	if wantsHelp(args) {
		// --help on stdout, as every other mode's (there is no wire to
		// protect: the server does not start).
		return demo.Run(args, io.in, io.out, io.out)
	}
	return demo.Run(args, io.in, io.out, io.err)
}
