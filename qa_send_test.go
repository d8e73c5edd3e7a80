package main

// QA: send as people type it — by hand at a terminal, and with printf
// input that has no final newline.

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// TestSendRawUnterminatedLastFrame: a request in --raw input without a final
// newline cannot be read by a line-reading server until its stdin closes.
// send closes it once the other answers are in, instead of waiting out the
// whole --timeout and calling the request timed out.
func TestSendRawUnterminatedLastFrame(t *testing.T) {
	input := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	r, status := sendJSON(t, "headless-good", input, "--raw", "--timeout", "30s")
	if status != 1 { // unterminated-frame is an error
		t.Errorf("exit status %d", status)
	}
	if got := r.findings(t, "unterminated-frame"); len(got) != 1 || got[0].Dir == nil || *got[0].Dir != "c2s" {
		t.Errorf("unterminated-frame findings %+v", got)
	}
	for _, f := range r.Findings {
		if f.Code == "request-timeout" {
			t.Errorf("send waited out the timeout for the unterminated request: %+v", f)
		}
	}
	if _, state, _ := r.request(t, "ping"); state != "answered" {
		t.Errorf("ping %s, want answered once stdin closed", state)
	}
}

// TestSendTerminalHint: typing frames at a terminal, a person is told what
// send waits for (it reads everything before it starts the server, so
// otherwise nothing at all happens).
func TestSendTerminalHint(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skip("no pseudo-terminal:", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	cmd := exec.Command(linesmanBinary(t), append([]string{"send", "--json"}, fakeServerArgs("headless-good")...)...)
	cmd.Stdin = tty
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close() // the child has its copy
	// Drain what the terminal echoes, so writes never block.
	go func() {
		buf := make([]byte, 4096)
		for {
			if _, err := ptmx.Read(buf); err != nil {
				return
			}
		}
	}()
	ptmx.WriteString(`{"jsonrpc":"2.0","method":"ping"}` + "\n\x04")
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(hangGuard):
		cmd.Process.Kill()
		<-done
		t.Fatal("send did not end after ctrl+d")
	}
	if !strings.Contains(errb.String(), "end with ctrl+d") {
		t.Errorf("no hint on stderr: %q", errb.String())
	}
	if !strings.Contains(out.String(), `"method": "ping"`) {
		t.Errorf("the typed frame was not sent:\n%s", out.String())
	}
}

// TestSendJoinsPrettyPrintedRequest: `send < request.json` with the request
// pretty-printed sends it as one compact line (it used to go out line by
// line, a broken multi-line frame the user never meant to send).
func TestSendJoinsPrettyPrintedRequest(t *testing.T) {
	r, status := sendJSON(t, "headless-good", "{\n  \"jsonrpc\": \"2.0\",\n  \"method\": \"tools/list\"\n}\n")
	if status != 0 {
		t.Errorf("exit status %d", status)
	}
	if _, state, _ := r.request(t, "tools/list"); state != "answered" {
		t.Errorf("tools/list %s", state)
	}
	for _, f := range r.Findings {
		if f.Code == "multi-line-frame" || f.Code == "non-json-line" {
			t.Errorf("finding %+v", f)
		}
	}
}

func TestInputFrames(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"{\"a\":1}\n\n{\"b\":2}\r\n", `{"a":1}|{"b":2}`},
		{"{\n  \"a\": [1,\n 2]\n}\nnext\n", `{"a":[1,2]}|next`},
		// Not completed by the lines that follow: each line as written.
		{"{\"id\":1,\n{\"m\":2}\n", `{"id":1,|{"m":2}`},
		{"{\"id\":\n", `{"id":`},
		// Something after the value on its last line: as written.
		{"{\n\"a\":1} x\n", `{|"a":1} x`},
		{"not json\n  \n", `not json`},
	} {
		var got []string
		for _, f := range inputFrames([]byte(c.in)) {
			got = append(got, string(f))
		}
		if strings.Join(got, "|") != c.want {
			t.Errorf("inputFrames(%q) = %q, want %q", c.in, strings.Join(got, "|"), c.want)
		}
	}
}
