package main

import (
	"fmt"
	"io"
)

// runExplain is not built yet; its issue replaces this file.
func runExplain(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "linesman: explain is not built yet")
	return exitUsage
}
