package main

import (
	"fmt"
	"io"
)

// runSend is not built yet; its issue replaces this file.
func runSend(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "linesman: send is not built yet")
	return exitUsage
}
