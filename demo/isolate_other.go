//go:build !linux

package demo

// Isolate is not implemented here; the demo server then serves on fd 0 and
// fd 1 directly, as with --isolate=false.
func Isolate() (*Isolation, error) { return nil, ErrIsolationUnsupported }

// Restore does nothing: nothing was isolated.
func (iso *Isolation) Restore() error { return nil }
