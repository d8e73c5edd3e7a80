package tapctl

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadBoundedLine: a line within the bound is read whole (its CR LF
// or LF end taken off), across the reader's buffer; one byte over it is
// errLineTooLong, never a partial line.
func TestReadBoundedLine(t *testing.T) {
	long := strings.Repeat("x", 100)
	r := bufio.NewReaderSize(strings.NewReader(long+"\r\n"+long+"y\nshort\n"), 16)
	line, err := readBoundedLine(r, 100)
	if err != nil || string(line) != long {
		t.Fatalf("a line of the bound: %q, %v", line, err)
	}
	if _, err := readBoundedLine(r, 100); !errors.Is(err, errLineTooLong) {
		t.Fatalf("a line one byte over the bound: %v, want errLineTooLong", err)
	}
}

// TestSocketOwnerOnly: the controller's socket is made mode 0600 whatever
// the umask, a connection reaches it both ways, and the peer is the owner.
func TestSocketOwnerOnly(t *testing.T) {
	capture := filepath.Join(t.TempDir(), "srv@20261202T000000-1.jsonl")
	path := SocketPath(capture)
	if filepath.Ext(path) != ".sock" || filepath.Dir(path) != filepath.Dir(capture) {
		t.Fatalf("socket path %q beside %q", path, capture)
	}
	ln, err := listenUnix(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode %v, %v; want 0600", fi.Mode().Perm(), err)
	}
	accepted := make(chan *os.File, 1)
	go func() {
		conn, err := acceptUnix(ln)
		if err != nil {
			t.Error(err)
		}
		accepted <- conn
	}()
	client, err := dialUnix(path)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server := <-accepted
	if server == nil {
		return
	}
	defer server.Close()
	if uid, ok := peerUID(server); ok && uid != os.Getuid() {
		t.Errorf("peer uid %d, want the owner's %d", uid, os.Getuid())
	}
	if _, err := client.Write([]byte("ok\n")); err != nil {
		t.Fatal(err)
	}
	line, err := readBoundedLine(bufio.NewReader(server), 64)
	if err != nil || string(line) != "ok" {
		t.Errorf("read %q, %v through the socket", line, err)
	}
	if _, err := Dial(filepath.Join(t.TempDir(), "none.jsonl")); err == nil {
		t.Error("Dial of a tap without a socket succeeded")
	}
}
