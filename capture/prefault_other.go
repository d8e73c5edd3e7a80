//go:build !linux

package capture

// prefault does nothing here: the pages of a read buffer fault in as the
// read fills them.
func prefault([]byte) {}
