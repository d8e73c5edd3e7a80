package main

import (
	"fmt"
	"io"
)

// runCheck is not built yet; its issue replaces this file.
func runCheck(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "linesman: check is not built yet")
	return exitUsage
}
