//go:build linux

package demo

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func init() { children["isolate-contract"] = isolateContractChild }

// isolateContractChild runs in a re-executed test binary whose fd 0, 1 and 2
// are pipes to the test: it isolates, checks every clause of the descriptor
// contract, restores, and checks again. Failures are reported on stderr as
// "FAIL:" lines; what it writes on purpose is checked by the parent.
func isolateContractChild() int {
	failed := false
	fail := func(format string, args ...any) {
		failed = true
		fmt.Fprintf(os.Stderr, "FAIL: "+format+"\n", args...)
	}
	sameFile := func(a, b int) bool {
		var sa, sb unix.Stat_t
		if unix.Fstat(a, &sa) != nil || unix.Fstat(b, &sb) != nil {
			return false
		}
		return sa.Dev == sb.Dev && sa.Ino == sb.Ino
	}
	var orig0, orig1 unix.Stat_t
	unix.Fstat(0, &orig0)
	unix.Fstat(1, &orig1)

	iso, err := Isolate()
	if err != nil {
		fail("Isolate: %v", err)
		return 1
	}
	// The wire moved to private descriptors ≥ 3, close-on-exec, that are
	// the original streams.
	for _, w := range []struct {
		name string
		fd   int
		orig unix.Stat_t
	}{{"In", iso.inFd, orig0}, {"Out", iso.outFd, orig1}} {
		if w.fd < 3 {
			fail("%s is fd %d, want ≥ 3", w.name, w.fd)
		}
		flags, err := unix.FcntlInt(uintptr(w.fd), unix.F_GETFD, 0)
		if err != nil || flags&unix.FD_CLOEXEC == 0 {
			fail("%s (fd %d) is not close-on-exec (flags %#x, %v)", w.name, w.fd, flags, err)
		}
		var st unix.Stat_t
		unix.Fstat(w.fd, &st)
		if st.Ino != w.orig.Ino || st.Dev != w.orig.Dev {
			fail("%s (fd %d) is not the original stream", w.name, w.fd)
		}
	}
	if int(iso.In.Fd()) != iso.inFd || int(iso.Out.Fd()) != iso.outFd {
		fail("In/Out files do not wrap the private descriptors")
	}
	// The wire still works through the private descriptors.
	io.WriteString(iso.Out, "wire-out\n")
	if got := readLine(iso.In); got != "wire-in\n" {
		fail("read %q from In, want the parent's \"wire-in\\n\"", got)
	}
	// fd 0 reads EOF at once: it is the null device.
	var b [16]byte
	if n, err := os.Stdin.Read(b[:]); n != 0 || err != io.EOF {
		fail("fd 0 read (%d, %v), want (0, EOF)", n, err)
	}
	null, _ := unix.Open(os.DevNull, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if !sameFile(0, null) {
		fail("fd 0 is not %s", os.DevNull)
	}
	unix.Close(null)
	// fd 1 writes to stderr.
	if !sameFile(1, 2) {
		fail("fd 1 is not the same file as fd 2")
	}
	// So does a child process that inherits fd 1.
	if sh, err := exec.LookPath("sh"); err == nil {
		cmd := exec.Command(sh, "-c", "echo child-fd1-goes-to-stderr")
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			fail("child: %v", err)
		}
	}
	fmt.Fprintln(os.Stdout, "fd1-goes-to-stderr")

	if err := iso.Restore(); err != nil {
		fail("Restore: %v", err)
	}
	// Both restored: fd 1 is the original stdout, fd 0 the original stdin
	// (the rest of what the parent wrote is still there to read).
	if !statIs(0, orig0) {
		fail("fd 0 not restored")
	}
	if !statIs(1, orig1) {
		fail("fd 1 not restored")
	}
	fmt.Fprintln(os.Stdout, "fd1-restored")
	if got := readLine(os.Stdin); got != "after-restore\n" {
		fail("read %q from restored fd 0, want \"after-restore\\n\"", got)
	}
	// The private duplicates are closed.
	for _, fd := range []int{iso.inFd, iso.outFd} {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != unix.EBADF {
			fail("private fd %d still open after Restore (%v)", fd, err)
		}
	}
	if err := iso.Restore(); err != nil {
		fail("second Restore: %v", err)
	}
	if failed {
		return 1
	}
	return 0
}

func statIs(fd int, want unix.Stat_t) bool {
	var st unix.Stat_t
	return unix.Fstat(fd, &st) == nil && st.Dev == want.Dev && st.Ino == want.Ino
}

// readLine reads one line a byte at a time, so nothing after it is consumed.
func readLine(r io.Reader) string {
	var sb strings.Builder
	var b [1]byte
	for {
		n, err := r.Read(b[:])
		if n == 1 {
			sb.WriteByte(b[0])
			if b[0] == '\n' {
				return sb.String()
			}
		}
		if err != nil {
			return sb.String()
		}
	}
}

// TestIsolationDescriptorContract pins what Isolate promises, in a child
// process so the test process's own descriptors are left alone: the wire
// moves to private descriptors ≥ 3 with close-on-exec; fd 0 reads EOF; fd 1
// (and a child inheriting it) writes to stderr; Restore puts both back and
// closes the duplicates.
func TestIsolationDescriptorContract(t *testing.T) {
	p := startChild(t, "isolate-contract")
	p.sendRaw("wire-in\nafter-restore\n")
	var out []string
	for l := p.nextLine(); l != nil; l = p.nextLine() {
		out = append(out, string(l))
	}
	err := p.wait()
	stderr := p.Stderr()
	if strings.Contains(stderr, "FAIL") || err != nil {
		t.Fatalf("contract child failed (%v):\n%s", err, stderr)
	}
	if got, want := strings.Join(out, ""), "wire-out\nfd1-restored\n"; got != want {
		t.Errorf("stdout = %q, want %q (the wire, then fd 1 once restored)", got, want)
	}
	for _, want := range []string{"fd1-goes-to-stderr\n", "child-fd1-goes-to-stderr\n"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q (fd 1 should write to stderr while isolated):\n%s", want, stderr)
		}
	}
}
