package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// CleanEnvKeys are the variables a clean environment (Config.CleanEnv)
// keeps from linesman's own, as hosts do: the MCP SDKs' stdio clients pass
// a server only HOME, LOGNAME, PATH, SHELL, TERM and USER unless configured
// otherwise (getDefaultEnvironment in the TypeScript SDK,
// get_default_environment in the Python one); LANG keeps the locale.
var CleanEnvKeys = []string{"PATH", "HOME", "LANG", "TERM", "USER", "LOGNAME", "SHELL"}

// cleanEnv returns the variables of CleanEnvKeys found in env. Like the
// SDKs, it skips a value that starts with "()" (a shell function that bash
// exported, which a server could mistake for a command).
func cleanEnv(env []string) []string {
	var out []string
	for _, key := range CleanEnvKeys {
		if v, ok := envValue(env, key); ok && !strings.HasPrefix(v, "()") {
			out = append(out, key+"="+v)
		}
	}
	return out
}

// ChildEnv is the environment a server started with these settings
// (Config.CleanEnv, Config.Env) receives.
func ChildEnv(clean bool, overrides []string) []string { return childEnv(clean, overrides) }

// childEnv returns os.Environ() — or, when clean, only its variables named
// in [CleanEnvKeys] — with the KEY=VALUE overrides applied: an override
// replaces the inherited value of its key (keeping its place), a new key is
// appended. A bare KEY (no '=') removes the key from the environment.
func childEnv(clean bool, overrides []string) []string {
	env := os.Environ()
	if clean {
		env = cleanEnv(env)
	}
	index := make(map[string]int, len(env))
	for i, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		index[k] = i
	}
	removed := map[int]bool{}
	for _, kv := range overrides {
		k, _, hasValue := strings.Cut(kv, "=")
		if k == "" {
			continue
		}
		i, ok := index[k]
		switch {
		case !hasValue && ok:
			removed[i] = true
		case !hasValue:
		case ok:
			env[i] = kv
			delete(removed, i)
		default:
			index[k] = len(env)
			env = append(env, kv)
		}
	}
	if len(removed) == 0 {
		return env
	}
	out := env[:0]
	for i, kv := range env {
		if !removed[i] {
			out = append(out, kv)
		}
	}
	return out
}

// envValue returns the value of key in a KEY=VALUE list (the last wins, as
// in the C library).
func envValue(env []string, key string) (string, bool) {
	val, found := "", false
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			val, found = v, true
		}
	}
	return val, found
}

// checkDir reports whether dir can be the child's working directory.
func checkDir(dir string) error {
	if dir == "" {
		return nil
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return errors.New("not a directory")
	}
	return nil
}

// resolveProgram finds argv[0] the way the child's exec would: a name with a
// slash is a path (relative to the child's working directory), any other name
// is looked up in the child's PATH. It tells "not found" from "not
// executable", which exec.LookPath folds together.
func resolveProgram(name, dir string, env []string) (string, string, error) {
	if strings.Contains(name, "/") {
		p := name
		if !filepath.IsAbs(p) && dir != "" {
			p = filepath.Join(dir, p)
		}
		if err := checkExecutable(p); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return p, StartNotFound, err
			}
			return p, StartNotExecutable, err
		}
		if !filepath.IsAbs(p) {
			if abs, err := filepath.Abs(p); err == nil {
				p = abs
			}
		}
		return p, "", nil
	}
	path, _ := envValue(env, "PATH")
	var firstBad string
	var firstBadErr error
	dirs := filepath.SplitList(path)
	for _, d := range dirs {
		if d == "" {
			d = "." // POSIX: an empty PATH entry is the current directory
		}
		if !filepath.IsAbs(d) && dir != "" {
			d = filepath.Join(dir, d)
		}
		p := filepath.Join(d, name)
		err := checkExecutable(p)
		if err == nil {
			if abs, err := filepath.Abs(p); err == nil {
				p = abs
			}
			return p, "", nil
		}
		if !errors.Is(err, fs.ErrNotExist) && firstBad == "" {
			firstBad, firstBadErr = p, err
		}
	}
	if firstBad != "" {
		return firstBad, StartNotExecutable, firstBadErr
	}
	return "", StartNotFound, notInPath{len(dirs)}
}

// checkExecutable reports why path cannot be executed, or nil.
func checkExecutable(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return errors.New("is a directory")
	}
	if err := unix.Access(path, unix.X_OK); err != nil {
		return &fs.PathError{Op: "access", Path: path, Err: err}
	}
	return nil
}

// startReason maps an error of exec's Start to a StartError reason.
func startReason(err error) string {
	switch {
	case errors.Is(err, syscall.ENOENT):
		return StartNotFound // e.g. a script whose interpreter (#!) is missing
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.ENOEXEC), errors.Is(err, syscall.EISDIR):
		return StartNotExecutable
	case errors.Is(err, syscall.ENOTDIR):
		return StartBadCwd
	default:
		return StartFailed
	}
}

// explainStartError adds what the kernel's errno leaves out: a script whose
// "#!" interpreter is missing fails with ENOENT though the script exists.
func explainStartError(path string, err error) error {
	if !errors.Is(err, syscall.ENOENT) {
		return err
	}
	f, ferr := os.Open(path)
	if ferr != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, 256)
	n, _ := f.Read(head)
	line, _, _ := strings.Cut(string(head[:n]), "\n")
	if rest, ok := strings.CutPrefix(line, "#!"); ok {
		if interp := strings.Fields(rest); len(interp) > 0 {
			return fmt.Errorf("its interpreter %s (from the #! line): %w", interp[0], err)
		}
	}
	return err
}

// pipes are the three private pipes of a child: ours are kept, the child's
// ends are handed to exec and closed in our process after the start.
type pipes struct {
	stdinW, stdoutR, stderrR *os.File // our ends
	stdinR, stdoutW, stderrW *os.File // the child's ends
}

func newPipes() (*pipes, error) {
	p := &pipes{}
	var err error
	if p.stdinR, p.stdinW, err = os.Pipe(); err != nil {
		return nil, err
	}
	if p.stdoutR, p.stdoutW, err = os.Pipe(); err != nil {
		p.closeAll()
		return nil, err
	}
	if p.stderrR, p.stderrW, err = os.Pipe(); err != nil {
		p.closeAll()
		return nil, err
	}
	growPipe(p.stdoutR)
	growPipe(p.stderrR)
	return p, nil
}

func (p *pipes) closeChildEnds() {
	for _, f := range []*os.File{p.stdinR, p.stdoutW, p.stderrW} {
		if f != nil {
			f.Close()
		}
	}
}

func (p *pipes) closeAll() {
	p.closeChildEnds()
	for _, f := range []*os.File{p.stdinW, p.stdoutR, p.stderrR} {
		if f != nil {
			f.Close()
		}
	}
}

// pipeHeld reports whether some process still holds the write end of the
// pipe whose read end is f. On Linux (and the BSDs) poll reports POLLHUP on a
// read end once every writer has closed, even while data is still buffered,
// so this is exact, not a guess from a timeout. A read end we already closed
// (the reader reached EOF) is not held.
func pipeHeld(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	held := false
	cerr := rc.Control(func(fd uintptr) {
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			_, err := unix.Poll(pfd, 0)
			if err == unix.EINTR {
				continue
			}
			if err != nil {
				return
			}
			held = pfd[0].Revents&unix.POLLHUP == 0
			return
		}
	})
	return cerr == nil && held
}

// signalGroup sends sig to every process of the group pgid. ESRCH (nobody
// left) is not an error.
func signalGroup(pgid int, sig syscall.Signal) error {
	if pgid <= 0 {
		return nil
	}
	err := syscall.Kill(-pgid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// groupAlive reports whether any process of the group pgid still exists
// (zombies included: they are gone once reaped).
func groupAlive(pgid int) bool {
	if pgid <= 0 {
		return false
	}
	return syscall.Kill(-pgid, 0) == nil
}

// waitReap waits for cmd's process, reaping it, and says how it ended.
func waitReap(cmd *exec.Cmd) (code int, sig syscall.Signal, err error) {
	err = cmd.Wait()
	ps := cmd.ProcessState
	if ps == nil {
		return -1, 0, err
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, ws.Signal(), nil
	}
	return ps.ExitCode(), 0, nil
}

// signalName returns the conventional name of a signal ("SIGKILL").
func signalName(sig syscall.Signal) string {
	if n := unix.SignalName(sig); n != "" {
		return n
	}
	return "signal " + sig.String()
}
