package main

import (
	"fmt"
	"io"
)

// runDemoServer is not built yet; its issue replaces this file.
func runDemoServer(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "linesman: demo-server is not built yet")
	return exitUsage
}
