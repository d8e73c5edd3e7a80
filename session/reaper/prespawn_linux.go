//go:build linux

package reaper

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"strconv"
	"sync"
	"syscall"
)

// A helper started ahead of need.
//
// The helper is a second start of the linesman binary, and a start costs:
// the dynamic loader, the runtime, and the initialisation of every package
// that sorts before this one (most of the UI's), about 10 ms on a small
// virtual machine — in front of the server's own start, every time, when
// linesman starts the helper only once it is ready to start the server.
// So when the command line says a server will be started (see
// [StartsServer]), this package's init starts a helper at once: it makes
// itself the subreaper and waits, while linesman initialises the rest of
// itself and parses its flags, and then starts the server the moment it is
// asked. A one-shot `send` answers about that much sooner (BenchmarkOneShotSend).
// LINESMAN_PRESPAWN=0 turns it off: the helper is then started when the
// server is, as it is for every server after the first.
//
// The request travels on the control socket (fd 3), before its "end" line:
// an 8-byte header ("LSRS", then the body's length, little-endian uint32)
// sent with the server's stdin, stdout and stderr as SCM_RIGHTS, then the
// body: the program, the working directory, the argument count, the
// arguments and the environment, each ended by a NUL. A helper whose
// control socket reaches EOF before a request (linesman ended without
// starting a server, or died) exits without a word.

// Prespawned is a helper waiting for its server: linesman's ends of its
// control socket and events pipe.
type Prespawned struct {
	Pid    int      // the helper's
	Ctl    *os.File // control socket: the start request, then "end"
	Events *os.File // the helper's reports, as for a helper started for one server
}

var (
	prespawnedMu    sync.Mutex
	prespawned      *Prespawned
	prespawnStarted chan struct{} // closed once prespawned is set; nil: no helper was asked for
)

// prespawnAtInit starts the waiting helper on a goroutine of its own: the
// fork waits until the helper's exec is done, and linesman's init goes on
// meanwhile.
func prespawnAtInit() {
	prespawnStarted = make(chan struct{})
	go func() {
		p := Prespawn()
		prespawnedMu.Lock()
		prespawned = p
		prespawnedMu.Unlock()
		close(prespawnStarted)
	}()
}

// TakePrespawned returns the helper started at init, once; nil when there
// is none (the command line did not call for one, or it could not start),
// or when it was taken already.
func TakePrespawned() *Prespawned {
	if prespawnStarted == nil {
		return nil
	}
	<-prespawnStarted
	prespawnedMu.Lock()
	defer prespawnedMu.Unlock()
	p := prespawned
	prespawned = nil
	return p
}

// StartsServer reports whether linesman's command line (without argv[0])
// will start a server: a server command after "--", a server named in a
// host's config (--config without --all), or no argument at all (the
// inspector on the built-in demo server). A wrong guess costs an idle
// process that ends with linesman; it never changes what linesman does.
func StartsServer(args []string) bool {
	if len(args) == 0 {
		return true
	}
	config := false
	for i, a := range args {
		switch a {
		case "--":
			return i+1 < len(args)
		case "-h", "-help", "--help", "--version", "-version", "--all", "-all":
			return false
		case "--config", "-config":
			config = true
		}
	}
	return config
}

// Prespawn starts a waiting helper; nil on any failure (then there is
// simply none, and the session starts one when it needs it).
func Prespawn() *Prespawned {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "control"), os.NewFile(uintptr(fds[1]), "control")
	defer theirs.Close()
	evR, evW, err := os.Pipe()
	if err != nil {
		ours.Close()
		return nil
	}
	defer evW.Close()
	null, err := os.Open(os.DevNull)
	if err != nil {
		ours.Close()
		evR.Close()
		return nil
	}
	defer null.Close()
	// syscall.ForkExec, not os.StartProcess: see serve.
	pid, err := syscall.ForkExec("/proc/self/exe", []string{Arg0}, &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: []uintptr{null.Fd(), null.Fd(), null.Fd(), theirs.Fd(), evW.Fd()},
		Sys:   &syscall.SysProcAttr{Setsid: true},
	})
	if err != nil {
		ours.Close()
		evR.Close()
		return nil
	}
	return &Prespawned{Pid: pid, Ctl: ours, Events: evR}
}

// runPrespawned is the waiting helper's main: become the subreaper, wait
// for the request, then serve as a helper started for one server does.
func runPrespawned() int {
	ctl, ev := os.NewFile(3, "control"), os.NewFile(4, "events")
	syscall.CloseOnExec(3)
	syscall.CloseOnExec(4)
	if !becomeSubreaper(ev) {
		return 1
	}
	st, err := readStart(ctl)
	if err != nil {
		return 0 // linesman started no server, or died before
	}
	return serve(ctl, ev, st)
}

var startMagic = [4]byte{'L', 'S', 'R', 'S'}

// SendStart sends the start request of a server to a waiting helper.
// files are the server's stdin, stdout and stderr; dir "" is the helper's
// working directory, which is linesman's.
func (p *Prespawned) SendStart(path, dir string, argv, env []string, files [3]*os.File) error {
	var body bytes.Buffer
	for _, s := range append(append([]string{path, dir, strconv.Itoa(len(argv))}, argv...), env...) {
		if bytes.IndexByte([]byte(s), 0) >= 0 {
			return errors.New("a NUL byte in the server's command or environment")
		}
		body.WriteString(s)
		body.WriteByte(0)
	}
	var head [8]byte
	copy(head[:4], startMagic[:])
	binary.LittleEndian.PutUint32(head[4:], uint32(body.Len()))
	rights := syscall.UnixRights(int(files[0].Fd()), int(files[1].Fd()), int(files[2].Fd()))
	rc, err := p.Ctl.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Write(func(fd uintptr) bool {
		serr = syscall.Sendmsg(int(fd), head[:], rights, nil, 0)
		return serr != syscall.EAGAIN
	}); err != nil {
		return err
	}
	if serr != nil {
		return serr
	}
	_, err = p.Ctl.Write(body.Bytes())
	return err
}

// readStart reads the start request from the control socket.
func readStart(ctl *os.File) (start, error) {
	var head [8]byte
	oob := make([]byte, syscall.CmsgSpace(3*4))
	n, oobn, _, _, err := syscall.Recvmsg(int(ctl.Fd()), head[:], oob, syscall.MSG_CMSG_CLOEXEC|syscall.MSG_WAITALL)
	if err != nil {
		return start{}, err
	}
	var files []*os.File
	if msgs, err := syscall.ParseSocketControlMessage(oob[:oobn]); err == nil {
		for _, m := range msgs {
			if fds, err := syscall.ParseUnixRights(&m); err == nil {
				for _, f := range fds {
					files = append(files, os.NewFile(uintptr(f), "stdio"))
				}
			}
		}
	}
	fail := func(err error) (start, error) {
		for _, f := range files {
			f.Close()
		}
		return start{}, err
	}
	if n < len(head) || !bytes.Equal(head[:4], startMagic[:]) || len(files) != 3 {
		return fail(io.ErrUnexpectedEOF)
	}
	body := make([]byte, binary.LittleEndian.Uint32(head[4:]))
	if _, err := io.ReadFull(ctl, body); err != nil {
		return fail(err)
	}
	fields := bytes.Split(bytes.TrimSuffix(body, []byte{0}), []byte{0})
	if len(fields) < 3 {
		return fail(io.ErrUnexpectedEOF)
	}
	argc, err := strconv.Atoi(string(fields[2]))
	if err != nil || argc < 0 || 3+argc > len(fields) {
		return fail(io.ErrUnexpectedEOF)
	}
	str := func(b [][]byte) []string {
		out := make([]string, len(b))
		for i, f := range b {
			out[i] = string(f)
		}
		return out
	}
	return start{
		path:  string(fields[0]),
		dir:   string(fields[1]),
		argv:  str(fields[3 : 3+argc]),
		env:   str(fields[3+argc:]),
		files: files,
	}, nil
}

// Close ends a waiting helper unused: EOF on its control socket ends it.
func (p *Prespawned) Close() {
	p.Ctl.Close()
	p.Events.Close()
	p.Wait()
}

// Wait waits for the helper's exit and reaps it; its status is the
// helper's own (0, or 1 when it could not start the server), never the
// server's, which comes on Events.
func (p *Prespawned) Wait() (syscall.WaitStatus, error) {
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(p.Pid, &ws, 0, nil)
		if err != syscall.EINTR {
			return ws, err
		}
	}
}
