package main

import (
	"fmt"
	"io"
)

// runExport is not built yet; its issue replaces this file.
func runExport(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "linesman: export is not built yet")
	return exitUsage
}
