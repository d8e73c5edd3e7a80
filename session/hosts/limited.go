package hosts

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// The most linesman reads of each kind of file it is given: a config, or a
// file one names, comes from a repository (what the CI recipe checks), and
// /dev/zero or a multi-gigabyte file must end in an error, not in memory.
const (
	MaxConfigFile = 16 << 20 // a host's config, a plain server list
	MaxNamedFile  = 1 << 20  // an envFile, a {file:…} or ${file:…} value
	// MaxClaudeJSON is the most linesman reads of a ~/.claude.json: Claude
	// Code keeps its state there beside the servers, each project's prompt
	// history once among it, and files of 65 and 101 MB are reported
	// (anthropics/claude-code#6394, #2593); reading one of 76 MB takes
	// 370 MB and 1.5 s.
	MaxClaudeJSON = 256 << 20
)

// maxConfigSize is the most linesman reads of the config file at path.
func maxConfigSize(path string) int64 {
	if filepath.Base(path) == ".claude.json" {
		return MaxClaudeJSON
	}
	return MaxConfigFile
}

// ErrTooLarge is returned (wrapped, as a *TooLargeError) for a file larger
// than linesman reads.
var ErrTooLarge = errors.New("file too large")

// TooLargeError names the file and the limit it passed.
type TooLargeError struct {
	Path  string
	What  string // "a config file", "an envFile", ...
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: larger than the %s linesman reads from %s", e.Path, sizeText(e.Limit), e.What)
}

func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// ReadFileLimited is os.ReadFile of at most limit bytes: a longer file (or
// an endless one) is a *TooLargeError once limit+1 bytes were read, never
// held whole.
func ReadFileLimited(path, what string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &TooLargeError{Path: path, What: what, Limit: limit}
	}
	return data, nil
}
