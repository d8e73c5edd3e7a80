package main

import (
	"fmt"
	"io"
)

// runView is not built yet; its issue replaces this file.
func runView(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "linesman: view is not built yet")
	return exitUsage
}
