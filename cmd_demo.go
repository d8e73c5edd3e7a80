package main

import (
	"io"

	"linesman/demo"
)

// runDemoServer is `linesman demo-server`: the built-in demo server, a real
// MCP server on this process's stdio (see package demo).
func runDemoServer(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return demo.Run(args, stdin, stdout, stderr)
}
