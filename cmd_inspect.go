package main

import (
	"fmt"
	"io"
)

// runInspect is not built yet; its issue replaces this file.
func runInspect(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "linesman: the interactive inspector is not built yet")
	return exitUsage
}
