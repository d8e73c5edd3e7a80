package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"linesman/session/eventlog"
	"linesman/wire"
)

// startProto starts a registered fake server as a real child process and
// stops it when the test ends.
func startProto(t *testing.T, name string, cfg Config) *Session {
	t.Helper()
	cfg.Command = fakeCommand(name)
	cfg.Env = append(cfg.Env, fakeEnv(name)...)
	s, err := Start(cfg)
	if err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	t.Cleanup(func() { stopSession(t, s) })
	return s
}

func stopSession(t *testing.T, s *Session) {
	s.Shutdown()
	select {
	case <-s.Done():
	case <-time.After(20 * time.Second):
		s.Kill()
		<-s.Done()
		t.Errorf("the server did not stop within the ladder")
	}
}

// waitLog waits until an event satisfying cond is in the log and returns it.
func waitLog(t *testing.T, s *Session, what string, cond func(eventlog.Event) bool) eventlog.Event {
	t.Helper()
	sig, cancel := s.Log().Subscribe()
	defer cancel()
	deadline := time.After(20 * time.Second)
	var next uint64 = 1
	for {
		first, end := s.Log().Bounds()
		for _, ev := range s.Log().Range(max(next, first), end) {
			if cond(ev) {
				return ev
			}
		}
		next = end
		select {
		case <-sig:
		case <-deadline:
			t.Fatalf("timed out waiting for %s; log:\n%s", what, dumpLog(s.Log()))
		}
	}
}

func dumpLog(l *eventlog.Log) string {
	first, end := l.Bounds()
	var b strings.Builder
	for _, ev := range l.Range(first, end) {
		switch ev.Type {
		case eventlog.EventFrame:
			fmt.Fprintf(&b, "#%d %s %s", ev.Seq, ev.Dir, bytesOneLine(ev.Frame.Raw()))
			for _, f := range ev.Frame.Findings {
				fmt.Fprintf(&b, " [%s]", f.Code)
			}
		case eventlog.EventFinding:
			fmt.Fprintf(&b, "#%d finding %s: %s", ev.Seq, ev.Finding.Code, ev.Finding.Message)
		case eventlog.EventNote, eventlog.EventEra, eventlog.EventRestart:
			fmt.Fprintf(&b, "#%d %s %s", ev.Seq, ev.Type, ev.Note)
		case eventlog.EventStderr:
			fmt.Fprintf(&b, "#%d stderr %s", ev.Seq, ev.Stderr.Content)
		case eventlog.EventProcess:
			fmt.Fprintf(&b, "#%d process %s", ev.Seq, ev.Process.Detail)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func bytesOneLine(b []byte) string { return strings.TrimRight(string(b), "\n") }

// findings lists every finding in the log as "code" (frame findings and
// findings of their own), in log order.
func findings(l *eventlog.Log) []string {
	first, end := l.Bounds()
	var out []string
	for _, ev := range l.Range(first, end) {
		switch ev.Type {
		case eventlog.EventFrame:
			for _, f := range ev.Frame.Findings {
				out = append(out, f.Code)
			}
		case eventlog.EventFinding:
			out = append(out, ev.Finding.Code)
		}
	}
	return out
}

// notes lists the log's notes.
func notes(l *eventlog.Log) []string {
	first, end := l.Bounds()
	var out []string
	for _, ev := range l.Range(first, end) {
		if ev.IsNote() {
			out = append(out, ev.Note)
		}
	}
	return out
}

func hasNote(l *eventlog.Log, sub string) bool {
	return slices.ContainsFunc(notes(l), func(n string) bool { return strings.Contains(n, sub) })
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// resultText returns result.content[0].text of a tools/call answer.
func resultText(t *testing.T, f *wire.Frame) string {
	t.Helper()
	var body struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(f.Raw(), &body); err != nil {
		t.Fatalf("answer is not JSON: %v", err)
	}
	if body.Error != nil {
		t.Fatalf("answer is an error: %s", body.Error.Message)
	}
	if len(body.Result.Content) == 0 {
		return ""
	}
	return body.Result.Content[0].Text
}

func TestProbeDecidesLegacyOnMethodNotFound(t *testing.T) {
	s := startProto(t, "proto-legacy", Config{})
	if err := s.Handshake(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if s.Era() != eventlog.EraLegacy || s.ProtocolVersion() != eventlog.LegacyProtocolVersion {
		t.Fatalf("era %s version %q", s.Era(), s.ProtocolVersion())
	}
	if !hasNote(s.Log(), "era legacy: server/discover failed with -32601") {
		t.Errorf("no note saying which rule decided: %q", notes(s.Log()))
	}
	if !strings.Contains(string(s.ServerInfo()), "proto-legacy") {
		t.Errorf("server info %s", s.ServerInfo())
	}
	f, err := s.Call(ctxT(t), "tools/call", map[string]any{"name": "echo"})
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, f); got != "echo " {
		t.Errorf("legacy requests must not carry the modern _meta; server saw version %q", got)
	}
	if fs := findings(s.Log()); len(fs) != 0 {
		t.Errorf("findings on a clean legacy conversation: %q\n%s", fs, dumpLog(s.Log()))
	}
	methods := clientMethods(s.Log())
	want := []string{"server/discover", "initialize", "notifications/initialized", "tools/call"}
	if !slices.Equal(methods, want) {
		t.Errorf("client sent %q, want %q", methods, want)
	}
}

func TestProbeDecidesLegacyOnLegacyDiscoverResult(t *testing.T) {
	s := startProto(t, "proto-legacy-list", Config{})
	if err := s.Handshake(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if s.Era() != eventlog.EraLegacy {
		t.Fatalf("era %s", s.Era())
	}
	if !hasNote(s.Log(), "offers only legacy versions") {
		t.Errorf("notes %q", notes(s.Log()))
	}
}

func TestProbeDecidesLegacyOnEmptyResult(t *testing.T) {
	s := startProto(t, "proto-legacy-empty", Config{})
	if err := s.Handshake(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if s.Era() != eventlog.EraLegacy {
		t.Fatalf("era %s", s.Era())
	}
	if !hasNote(s.Log(), "no DiscoverResult") {
		t.Errorf("notes %q", notes(s.Log()))
	}
}

func TestProbeDecidesLegacyOnSilence(t *testing.T) {
	s := startProto(t, "proto-silent", Config{ProbeTimeout: 300 * time.Millisecond})
	if err := s.Handshake(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if s.Era() != eventlog.EraLegacy {
		t.Fatalf("era %s", s.Era())
	}
	if !hasNote(s.Log(), "no answer to server/discover within") {
		t.Errorf("notes %q", notes(s.Log()))
	}
	// The unanswered probe was cancelled, so it never times out.
	r, ok := s.Tracker().Lookup(wire.ClientToServer, wire.IntID(1))
	if !ok || r.Method != "server/discover" || r.State != eventlog.ReqCancelled {
		t.Errorf("probe request: %+v", r)
	}
	if got := clientMethods(s.Log()); !slices.Equal(got, []string{"server/discover", "notifications/cancelled", "initialize", "notifications/initialized"}) {
		t.Errorf("client sent %q", got)
	}
}

// TestProbeSilenceCountsFromTheRead: a server that reads the probe and
// stays silent is legacy once ProbeSilence has passed since the read, long
// before the probe's own timeout; the note says the server read it.
func TestProbeSilenceCountsFromTheRead(t *testing.T) {
	s := startProto(t, "proto-silent", Config{ProbeTimeout: time.Hour, ProbeSilence: 200 * time.Millisecond})
	if err := s.Handshake(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if s.Era() != eventlog.EraLegacy {
		t.Fatalf("era %s", s.Era())
	}
	if !hasNote(s.Log(), "the server read server/discover and answered nothing for 200ms") {
		t.Errorf("notes %q", notes(s.Log()))
	}
}

func TestProbeDecidesModern(t *testing.T) {
	s := startProto(t, "proto-modern", Config{})
	if err := s.Handshake(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if s.Era() != eventlog.EraModern || s.ProtocolVersion() != eventlog.ModernProtocolVersion {
		t.Fatalf("era %s version %q", s.Era(), s.ProtocolVersion())
	}
	if !hasNote(s.Log(), "era modern (protocol 2026-07-28): server/discover answered with a result") {
		t.Errorf("notes %q", notes(s.Log()))
	}
	if !strings.Contains(string(s.ServerInfo()), "proto-modern") || !strings.Contains(string(s.ServerCapabilities()), "tools") {
		t.Errorf("server info %s caps %s", s.ServerInfo(), s.ServerCapabilities())
	}
	// The fake rejects requests without the three _meta keys.
	f, err := s.Call(ctxT(t), "tools/call", map[string]any{"name": "echo", "_meta": map[string]any{"progressToken": "p"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, f); got != "echo 2026-07-28" {
		t.Errorf("tool answered %q", got)
	}
	if !strings.Contains(string(sentFrame(t, s.Log(), "tools/call").Raw()), `"progressToken":"p"`) {
		t.Error("the caller's own _meta keys were dropped")
	}
	if fs := findings(s.Log()); len(fs) != 0 {
		t.Errorf("findings: %q\n%s", fs, dumpLog(s.Log()))
	}
	if got := clientMethods(s.Log()); !slices.Equal(got, []string{"server/discover", "tools/call"}) {
		t.Errorf("client sent %q (no initialize in the modern era)", got)
	}
}

func TestProbeDecidesModernWithAnotherVersion(t *testing.T) {
	s := startProto(t, "proto-modern-other", Config{})
	if err := s.Handshake(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if s.Era() != eventlog.EraModern || s.ProtocolVersion() != "2026-12-01" {
		t.Fatalf("era %s version %q", s.Era(), s.ProtocolVersion())
	}
	if !hasNote(s.Log(), "-32022") {
		t.Errorf("notes %q", notes(s.Log()))
	}
	// The discover was asked again in the server's version.
	if !strings.Contains(string(s.ServerInfo()), "proto-modern-other") {
		t.Errorf("server info %s", s.ServerInfo())
	}
	f, err := s.Call(ctxT(t), "tools/call", map[string]any{"name": "echo"})
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, f); got != "echo 2026-12-01" {
		t.Errorf("tool answered %q", got)
	}
}

func TestEraForcedSkipsTheProbe(t *testing.T) {
	t.Run("legacy", func(t *testing.T) {
		s := startProto(t, "proto-legacy", Config{Era: eventlog.EraLegacy})
		if err := s.Handshake(ctxT(t)); err != nil {
			t.Fatal(err)
		}
		if got := clientMethods(s.Log()); !slices.Equal(got, []string{"initialize", "notifications/initialized"}) {
			t.Errorf("client sent %q", got)
		}
	})
	t.Run("modern", func(t *testing.T) {
		s := startProto(t, "proto-modern", Config{Era: eventlog.EraModern})
		if err := s.Handshake(ctxT(t)); err != nil {
			t.Fatal(err)
		}
		if s.Era() != eventlog.EraModern {
			t.Fatalf("era %s", s.Era())
		}
		// Even the discover linesman sends carries the _meta.
		raw := string(sentFrame(t, s.Log(), "server/discover").Raw())
		for _, k := range []string{eventlog.MetaProtocolVersion, eventlog.MetaClientCapabilities, eventlog.MetaClientInfo} {
			if !strings.Contains(raw, k) {
				t.Errorf("server/discover lacks %s: %s", k, raw)
			}
		}
	})
	t.Run("no handshake", func(t *testing.T) {
		s := startProto(t, "proto-legacy", Config{NoHandshake: true})
		if err := s.Handshake(ctxT(t)); err != nil {
			t.Fatal(err)
		}
		if !hasNote(s.Log(), "automatic handshake off") {
			t.Errorf("notes %q", notes(s.Log()))
		}
		// The user does it by hand; what the result says is learned all the same.
		const initReq = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
		if err := s.Send([]byte(initReq + "\n")); err != nil {
			t.Fatal(err)
		}
		waitLog(t, s, "the initialize result", func(ev eventlog.Event) bool {
			return ev.Type == eventlog.EventFrame && ev.Dir == wire.ServerToClient && ev.Frame.Msg.Kind == wire.KindResult
		})
		if got := clientMethods(s.Log()); !slices.Equal(got, []string{"initialize"}) {
			t.Errorf("client sent %q", got)
		}
		// The next minted id skips the hand-typed 1.
		if id := s.NextID(); id != wire.IntID(2) {
			t.Errorf("next id %s", id)
		}
	})
}

// clientMethods lists the methods of the frames the client sent, in order.
func clientMethods(l *eventlog.Log) []string {
	first, end := l.Bounds()
	var out []string
	for _, ev := range l.Range(first, end) {
		if ev.Type == eventlog.EventFrame && ev.Dir == wire.ClientToServer && ev.Frame.Msg.Method != "" {
			out = append(out, ev.Frame.Msg.Method)
		}
	}
	return out
}

// sentFrame returns the first frame the client sent with the method.
func sentFrame(t *testing.T, l *eventlog.Log, method string) *wire.Frame {
	t.Helper()
	first, end := l.Bounds()
	for _, ev := range l.Range(first, end) {
		if ev.Type == eventlog.EventFrame && ev.Dir == wire.ClientToServer && ev.Frame.Msg.Method == method {
			return ev.Frame
		}
	}
	t.Fatalf("no %s frame sent", method)
	return nil
}

// answerTo returns the client's answer to the server's request id, waiting for it.
func answerTo(t *testing.T, s *Session, id int64) *wire.Frame {
	t.Helper()
	ev := waitLog(t, s, fmt.Sprintf("the client's answer to server request %d", id), func(ev eventlog.Event) bool {
		return ev.Type == eventlog.EventFrame && ev.Dir == wire.ClientToServer && ev.Frame.Msg.Kind.IsResponse() && ev.Frame.Msg.ID == wire.IntID(id)
	})
	return ev.Frame
}

func TestServerRequestsAnsweredLikeAHost(t *testing.T) {
	dir := t.TempDir()
	s := startProto(t, "proto-asks", Config{Era: eventlog.EraLegacy, Dir: dir})
	if err := s.Handshake(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if got := answerTo(t, s, 1); got.Msg.Kind != wire.KindResult {
		t.Errorf("ping: %s", got.Raw())
	}
	roots := answerTo(t, s, 2)
	if !strings.Contains(string(roots.Raw()), `"uri":"file://`+dir+`"`) {
		t.Errorf("roots/list: %s (want the working directory %s)", roots.Raw(), dir)
	}
	if got := answerTo(t, s, 5); got.Msg.Kind != wire.KindError || got.Msg.ErrorCode() != eventlog.CodeMethodNotFound {
		t.Errorf("unknown method: %s", got.Raw())
	}
	waitLog(t, s, "the note about elicitation", func(ev eventlog.Event) bool {
		return ev.Type == eventlog.EventNote && strings.Contains(ev.Note, "elicitation/create")
	})
	var pending []string
	for _, r := range s.PendingServerRequests() {
		pending = append(pending, fmt.Sprintf("%s %s", r.ID, r.Method))
	}
	if want := []string{"3 sampling/createMessage", "4 elicitation/create"}; !slices.Equal(pending, want) {
		t.Fatalf("pending %q, want %q", pending, want)
	}
	if err := s.Respond(wire.IntID(3), map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "hi"}, "model": "by-hand"}); err != nil {
		t.Fatal(err)
	}
	if err := s.RespondError(wire.IntID(4), -1, "declined by the user"); err != nil {
		t.Fatal(err)
	}
	if got := answerTo(t, s, 3); !strings.Contains(string(got.Raw()), "by-hand") {
		t.Errorf("sampling answer %s", got.Raw())
	}
	answerTo(t, s, 4)
	if err := s.Respond(wire.IntID(3), nil); !errors.Is(err, ErrNotInFlight) {
		t.Errorf("answering twice: %v", err)
	}
	if len(s.PendingServerRequests()) != 0 {
		t.Errorf("still pending: %v", s.PendingServerRequests())
	}
	// The initialize declared the capabilities linesman then honours.
	init := string(sentFrame(t, s.Log(), "initialize").Raw())
	for _, c := range []string{`"roots"`, `"sampling"`, `"elicitation"`} {
		if !strings.Contains(init, c) {
			t.Errorf("initialize does not declare %s: %s", c, init)
		}
	}
	if fs := findings(s.Log()); len(fs) != 0 {
		t.Errorf("findings: %q", fs)
	}
}

func TestServerRequestsDeclinedHeadless(t *testing.T) {
	s := startProto(t, "proto-asks", Config{Era: eventlog.EraLegacy, Headless: true, NoRoots: true})
	if err := s.Handshake(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	for _, id := range []int64{2, 3, 4} {
		got := answerTo(t, s, id)
		if got.Msg.Kind != wire.KindError || got.Msg.ErrorCode() != eventlog.CodeMethodNotFound {
			t.Errorf("request %d: %s", id, got.Raw())
		}
	}
	if !strings.Contains(string(answerTo(t, s, 3).Raw()), "headless") {
		t.Errorf("the decline does not say why: %s", answerTo(t, s, 3).Raw())
	}
	init := string(sentFrame(t, s.Log(), "initialize").Raw())
	if strings.Contains(init, "sampling") || strings.Contains(init, "roots") {
		t.Errorf("headless initialize declares what it cannot honour: %s", init)
	}
}

func TestCancelWithLateAnswer(t *testing.T) {
	s := startProto(t, "proto-legacy", Config{Era: eventlog.EraLegacy})
	if err := s.Handshake(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if err := s.Cancel(wire.IntID(1)); !errors.Is(err, ErrNotInFlight) {
		t.Errorf("cancelling an answered request: %v", err)
	}
	id, err := s.Request("tools/call", map[string]any{"name": "slow"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Cancel(id); err != nil {
		t.Fatal(err)
	}
	ev := waitLog(t, s, "the late answer", func(ev eventlog.Event) bool {
		return ev.Type == eventlog.EventFrame && ev.Dir == wire.ServerToClient && ev.Frame.Msg.ID == id
	})
	if !ev.Frame.Has("late-response") {
		t.Errorf("late answer not flagged: %v", ev.Frame.Findings)
	}
	r, _ := s.Tracker().Lookup(wire.ClientToServer, id)
	if r.State != eventlog.ReqCancelled || !r.Late || r.ResponseSeq != ev.Seq {
		t.Errorf("request state %+v", r)
	}
	cancel := sentFrame(t, s.Log(), "notifications/cancelled")
	if cancel.Msg.RequestID() != id {
		t.Errorf("cancelled names %s, want %s", cancel.Msg.RequestID(), id)
	}
}

func TestCancelRefusesInitialize(t *testing.T) {
	// proto-deaf answers nothing, so the initialize stays in flight.
	s := startProto(t, "proto-deaf", Config{NoHandshake: true})
	id, err := s.Request("initialize", map[string]any{"protocolVersion": eventlog.LegacyProtocolVersion, "capabilities": map[string]any{}, "clientInfo": s.clientInfo()})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Cancel(id); !errors.Is(err, ErrCannotCancelInitialize) {
		t.Fatalf("cancel initialize: %v", err)
	}
	if r, _ := s.Tracker().Lookup(wire.ClientToServer, id); r.State != eventlog.ReqInFlight {
		t.Errorf("initialize is %s", r.State)
	}
	if slices.Contains(clientMethods(s.Log()), "notifications/cancelled") {
		t.Error("a cancellation of initialize was sent")
	}
}

func TestRequestTimeoutFromAChild(t *testing.T) {
	// The handshake gets the default timeout: bound by 200 ms, starting a
	// child under -race on a loaded machine sometimes failed it (QA saw
	// "handshake failed: initialize: no answer to id 1 within 200ms").
	s := startProto(t, "proto-mute", Config{Era: eventlog.EraLegacy})
	if err := s.Handshake(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	s.Tracker().SetOptions(eventlog.TrackerOptions{Timeout: 200 * time.Millisecond})
	id, err := s.Request("tools/call", map[string]any{"name": "echo"})
	if err != nil {
		t.Fatal(err)
	}
	ev := waitLog(t, s, "request-timeout", func(ev eventlog.Event) bool {
		return ev.Type == eventlog.EventFinding && ev.Finding.Code == "request-timeout"
	})
	r, _ := s.Tracker().Lookup(wire.ClientToServer, id)
	if ev.Finding.FrameSeq != r.Seq || r.State != eventlog.ReqTimedOut {
		t.Errorf("finding %+v for request %+v", ev.Finding, r)
	}
}

func TestUnflushedOutputFromAChild(t *testing.T) {
	s := startProto(t, "proto-buffered", Config{NoHandshake: true})
	s.Tracker().SetOptions(eventlog.TrackerOptions{UnflushedAfter: -1})
	if err := s.Handshake(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Request("tools/list", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Request("tools/call", map[string]any{"name": "echo"}); err != nil {
		t.Fatal(err)
	}
	// Wait until the server has read both (it reports nothing, so wait for
	// the writes to leave the queue), then close its stdin.
	waitFor(t, "the requests to be written", func() bool { return s.Info().PendingWrite == 0 && s.Info().BytesOut > 0 })
	s.Shutdown()
	<-s.Done()
	fs := findings(s.Log())
	if !slices.Contains(fs, "unflushed-output") {
		t.Fatalf("no unflushed-output: %q\n%s", fs, dumpLog(s.Log()))
	}
	if n := countOf(fs, "unflushed-output"); n != 1 {
		t.Errorf("unflushed-output raised %d times", n)
	}
	for _, r := range s.Tracker().Requests() {
		if r.State != eventlog.ReqAnswered {
			t.Errorf("request %s %s: %s", r.ID, r.Method, r.State)
		}
	}
}

// A server that answers at once is not flagged even when stdin closes right after.
func TestNoUnflushedOutputWhenAnswered(t *testing.T) {
	s := startProto(t, "proto-legacy", Config{Era: eventlog.EraLegacy})
	s.Tracker().SetOptions(eventlog.TrackerOptions{UnflushedAfter: -1})
	if err := s.Handshake(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Call(ctxT(t), "tools/list", nil); err != nil {
		t.Fatal(err)
	}
	s.Shutdown()
	<-s.Done()
	if fs := findings(s.Log()); len(fs) != 0 {
		t.Errorf("findings: %q", fs)
	}
}

func TestCallReturnsWhenTheServerExits(t *testing.T) {
	s := startProto(t, "proto-mute", Config{Era: eventlog.EraLegacy})
	if err := s.Handshake(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		_, err := s.Call(context.Background(), "tools/call", map[string]any{"name": "echo"})
		errc <- err
	}()
	waitFor(t, "the call to be in flight", func() bool { return len(s.Tracker().InFlight()) == 1 })
	s.Shutdown()
	if err := <-errc; !errors.Is(err, ErrNoAnswer) {
		t.Fatalf("Call after exit: %v", err)
	}
	<-s.Done()
	if fs := findings(s.Log()); !slices.Contains(fs, "exited-during-request") {
		t.Errorf("findings %q", fs)
	}
}

func TestCallCancelsOnContext(t *testing.T) {
	s := startProto(t, "proto-mute", Config{Era: eventlog.EraLegacy})
	if err := s.Handshake(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := s.Call(ctx, "tools/call", map[string]any{"name": "echo"})
		errc <- err
	}()
	waitFor(t, "the call to be in flight", func() bool { return len(s.Tracker().InFlight()) == 1 })
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Call: %v", err)
	}
	sentFrame(t, s.Log(), "notifications/cancelled")
}

func TestMintedIDsSkipHandTypedOnes(t *testing.T) {
	s := startProto(t, "proto-legacy", Config{Era: eventlog.EraLegacy})
	if err := s.Handshake(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if err := s.Send([]byte(`{"jsonrpc":"2.0","id":"41","method":"tools/list"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	if next := s.NextID(); next != wire.IntID(42) {
		t.Fatalf("next id %s after a hand-typed \"41\"", next)
	}
	id, err := s.Request("ping", nil)
	if err != nil || id != wire.IntID(42) {
		t.Fatalf("minted %s, %v", id, err)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func countOf(xs []string, x string) int {
	n := 0
	for _, v := range xs {
		if v == x {
			n++
		}
	}
	return n
}

func TestInputRequiredAndRetry(t *testing.T) {
	s := startProto(t, "proto-modern", Config{})
	if err := s.Handshake(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	f, err := s.Call(ctxT(t), "tools/call", map[string]any{"name": "needs-input"})
	if err != nil {
		t.Fatal(err)
	}
	if f.Msg.ResultType != "input_required" {
		t.Fatalf("answer %s", f.Raw())
	}
	if !hasNote(s.Log(), `inputRequests: {"q1"`) || !hasNote(s.Log(), "a retry must use a new id") {
		t.Errorf("input_required not shown: %q", notes(s.Log()))
	}
	id, err := s.Retry(f.Msg.ID, map[string]any{"q1": map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}}, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if id == f.Msg.ID || s.Tracker().Used(id) == false {
		t.Fatalf("retry id %s (first %s)", id, f.Msg.ID)
	}
	ev := waitLog(t, s, "the retry's answer", func(ev eventlog.Event) bool {
		return ev.Type == eventlog.EventFrame && ev.Dir == wire.ServerToClient && ev.Frame.Msg.ID == id
	})
	if got := resultText(t, ev.Frame); !strings.Contains(got, "got s1") || !strings.Contains(got, "Ada") {
		t.Errorf("retry answered %q", got)
	}
	if _, err := s.Retry(wire.IntID(999), nil, ""); err == nil {
		t.Error("retry of a request linesman never built")
	}
	if fs := findings(s.Log()); len(fs) != 0 {
		t.Errorf("findings: %q", fs)
	}
}

func TestCallMatchesAnIDOfTheOtherType(t *testing.T) {
	s := startProto(t, "proto-stringy", Config{Era: eventlog.EraLegacy})
	if err := s.Handshake(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	f, err := s.Call(ctxT(t), "tools/list", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !f.Has("id-type-mismatch") || f.Msg.ID.Kind != wire.IDString {
		t.Errorf("answer %s findings %v", f.Raw(), f.Findings)
	}
	if got := findings(s.Log()); countOf(got, "id-type-mismatch") != 2 || len(got) != 2 {
		// initialize and tools/list were both answered with string ids.
		t.Errorf("findings %q", got)
	}
}

// A server that never answers fails the handshake within the request
// timeout instead of hanging it.
func TestHandshakeBoundedByTimeout(t *testing.T) {
	for _, era := range []eventlog.Era{eventlog.EraLegacy, eventlog.EraModern} {
		t.Run(era.String(), func(t *testing.T) {
			s := startProto(t, "proto-deaf", Config{Era: era, Timeout: 300 * time.Millisecond})
			err := s.Handshake(ctxT(t))
			if !errors.Is(err, ErrHandshake) {
				t.Fatalf("handshake with a deaf server: %v", err)
			}
			// The error reads as the user needs it, once, and still
			// unwraps to the context's deadline.
			msg := err.Error()
			if !errors.Is(err, context.DeadlineExceeded) || !strings.HasPrefix(msg, "handshake failed: ") ||
				!strings.Contains(msg, "no answer to id ") || strings.Contains(msg, "deadline exceeded") ||
				strings.Count(msg, "server/discover")+strings.Count(msg, "initialize") != 1 {
				t.Errorf("handshake error %q", msg)
			}
			// A legacy handshake that never finished agreed on no version.
			if era == eventlog.EraLegacy && s.ProtocolVersion() != "" {
				t.Errorf("protocol version %q after a failed initialize", s.ProtocolVersion())
			}
		})
	}
}

func TestUnflushedOutputAtExitFromAChild(t *testing.T) {
	s := startProto(t, "proto-exit-burst", Config{NoHandshake: true})
	s.Tracker().SetOptions(eventlog.TrackerOptions{UnflushedAfter: -1})
	id, err := s.Request("tools/list", nil)
	if err != nil {
		t.Fatal(err)
	}
	<-s.Done()
	r, _ := s.Tracker().Lookup(wire.ClientToServer, id)
	if r.State != eventlog.ReqAnswered {
		t.Fatalf("request %+v", r)
	}
	ev := waitLog(t, s, "unflushed-output", func(ev eventlog.Event) bool {
		return ev.Type == eventlog.EventFinding && ev.Finding.Code == "unflushed-output"
	})
	if ev.Finding.FrameSeq != r.ResponseSeq || !strings.Contains(ev.Finding.Message, "as the process exited") {
		t.Errorf("finding %+v, answer at #%d", ev.Finding, r.ResponseSeq)
	}
}

// TestCallFailsWhenTheRequestIsNeverDelivered: a server that closed its
// stdin but keeps running cannot receive the request; Call says so as soon
// as the write fails, instead of waiting for an answer that cannot come.
func TestCallFailsWhenTheRequestIsNeverDelivered(t *testing.T) {
	s, err := Start(Config{Command: []string{"sh", "-c", "exec 0<&-; echo closed >&2; exec sleep 60"}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		s.Kill()
		<-s.Done()
	}()
	// Wait until the server has closed its stdin (it says so on stderr).
	for deadline := time.Now().Add(20 * time.Second); len(s.StderrTail(1)) == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the server never started")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = s.Call(ctx, "ping", nil)
	if !errors.Is(err, ErrStdinClosed) || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Call = %v, want an ErrStdinClosed saying the request was never delivered", err)
	}
	if !strings.Contains(err.Error(), "never delivered") || strings.Contains(err.Error(), "|1") {
		t.Fatalf("error %q should say the request was never delivered, in plain words", err)
	}
}
