//go:build linux

package demo

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// Isolate moves the process's protocol streams out of the way of stray
// writers. Afterwards:
//
//   - In and Out are duplicates of the original fd 0 and fd 1, allocated at
//     descriptor 3 or above with close-on-exec set (F_DUPFD_CLOEXEC), so
//     child processes never inherit the wire;
//   - fd 0 reads /dev/null (EOF at once), so nothing else can eat protocol
//     input;
//   - fd 1 is a duplicate of fd 2, so whatever writes to "stdout" lands in
//     the server's stderr, where the client logs it instead of choking on it.
//
// Restore puts fd 0 and fd 1 back. On error nothing is left changed.
func Isolate() (*Isolation, error) {
	inFd, err := unix.FcntlInt(0, unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return nil, fmt.Errorf("demo: duplicate fd 0: %w", err)
	}
	outFd, err := unix.FcntlInt(1, unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		unix.Close(inFd)
		return nil, fmt.Errorf("demo: duplicate fd 1: %w", err)
	}
	undo := func() {
		// Best effort: put back whatever was moved, drop the duplicates.
		unix.Dup3(inFd, 0, 0)
		unix.Dup3(outFd, 1, 0)
		unix.Close(inFd)
		unix.Close(outFd)
	}
	null, err := unix.Open(os.DevNull, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		undo()
		return nil, fmt.Errorf("demo: open %s: %w", os.DevNull, err)
	}
	// dup3 with no flags: the new fd 0 and fd 1 are inherited by children on
	// purpose — a child should read EOF and write into our stderr.
	err = unix.Dup3(null, 0, 0)
	unix.Close(null)
	if err != nil {
		undo()
		return nil, fmt.Errorf("demo: point fd 0 at %s: %w", os.DevNull, err)
	}
	if err := unix.Dup3(2, 1, 0); err != nil {
		undo()
		return nil, fmt.Errorf("demo: point fd 1 at stderr: %w", err)
	}
	return &Isolation{
		In:    os.NewFile(uintptr(inFd), "wire-in"),
		Out:   os.NewFile(uintptr(outFd), "wire-out"),
		inFd:  inFd,
		outFd: outFd,
	}, nil
}

// Restore points fd 0 and fd 1 back at the original streams and closes the
// private duplicates. Call it when serving has ended (nothing may still be
// reading In or writing Out). It is idempotent.
func (iso *Isolation) Restore() error {
	if iso == nil || iso.restored {
		return nil
	}
	iso.restored = true
	var errs []error
	if err := unix.Dup3(iso.inFd, 0, 0); err != nil {
		errs = append(errs, fmt.Errorf("demo: restore fd 0: %w", err))
	}
	if err := unix.Dup3(iso.outFd, 1, 0); err != nil {
		errs = append(errs, fmt.Errorf("demo: restore fd 1: %w", err))
	}
	// Closing the *os.File closes inFd/outFd exactly once.
	if err := iso.In.Close(); err != nil {
		errs = append(errs, err)
	}
	if err := iso.Out.Close(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
