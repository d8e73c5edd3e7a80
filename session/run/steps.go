package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"linesman/session"
	"linesman/session/eventlog"
	"linesman/wire"
)

// CheckSteps is the conversation of check: everything a host does at
// start-up (the handshake, each list the server declares, page by page,
// and a ping in the legacy era), nothing with side effects. cfg gives the
// timeouts.
func CheckSteps(cfg session.Config) Steps {
	return func(ctx context.Context, s *session.Session) error {
		if err := Handshake(ctx, s, cfg); err != nil {
			return err
		}
		for _, l := range []struct{ capability, method string }{
			{"tools", "tools/list"},
			{"prompts", "prompts/list"},
			{"resources", "resources/list"},
		} {
			if hs := s.Tracker().Handshake(); !hs.ServerDeclares(l.capability) {
				continue
			}
			if err := listAll(ctx, s, l.method, cfg.Timeout); err != nil {
				return err
			}
		}
		if s.Era() != eventlog.EraModern { // ping was removed in 2026-07-28
			if _, err := Call(ctx, s, cfg.Timeout, "ping", nil); err != nil {
				return fmt.Errorf("ping: %w", err)
			}
		}
		return nil
	}
}

// callMargin is how long past the per-request timeout a call waits: the
// tracker flags request-timeout at the timeout, and the margin lets that
// finding be logged before the call gives up (and cancels the request).
const callMargin = time.Second

// Call is s.Call bounded by the per-request timeout.
func Call(ctx context.Context, s *session.Session, timeout time.Duration, method string, params any) (*wire.Frame, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout+callMargin)
	defer cancel()
	return s.Call(ctx, method, params)
}

// Handshake is s.Handshake bounded by the probe's and one request's
// timeout (cfg's).
func Handshake(ctx context.Context, s *session.Session, cfg session.Config) error {
	ctx, cancel := context.WithTimeout(ctx, cfg.ProbeTimeout+2*(cfg.Timeout+callMargin))
	defer cancel()
	if err := s.Handshake(ctx); err != nil {
		if errors.Is(err, session.ErrHandshake) {
			return err // it says "handshake failed: ..." already
		}
		return fmt.Errorf("handshake: %w", err)
	}
	return nil
}

// maxPages bounds the pagination of one list, against a server whose
// nextCursor never ends.
const maxPages = 20

// listAll calls a list method page by page, following nextCursor.
func listAll(ctx context.Context, s *session.Session, method string, timeout time.Duration) error {
	cursor := ""
	for range maxPages {
		var params any
		if cursor != "" {
			params = map[string]any{"cursor": cursor}
		}
		f, err := Call(ctx, s, timeout, method, params)
		if err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		if f.Msg.Kind != wire.KindResult {
			return nil // an error answer: the report shows it
		}
		var page struct {
			Result struct {
				NextCursor string `json:"nextCursor"`
			} `json:"result"`
		}
		if json.Unmarshal(f.Raw(), &page) != nil || page.Result.NextCursor == "" || page.Result.NextCursor == cursor {
			return nil
		}
		cursor = page.Result.NextCursor
	}
	return nil
}

// SendSteps makes the handshake (with cfg.NoHandshake it only pins the era
// asked for), then sends each frame as next reads it — completed with an
// id and the era's _meta when complete is set — and, once the input ends,
// waits for the answers. A server that exits ends the run where it stands.
func SendSteps(cfg session.Config, next func() ([]byte, error), complete bool) Steps {
	return func(ctx context.Context, s *session.Session) error {
		if err := Handshake(ctx, s, cfg); err != nil {
			return err
		}
		frames, ended, stop := readFrames(next)
		defer close(stop)
		for {
			select {
			case f := <-frames:
				if complete {
					f = append(s.CompleteRequestOwned(f), '\n') // in place: the line is held once
				}
				if err := s.SendOwned(f); err != nil {
					return fmt.Errorf("send: %w", err)
				}
			case err := <-ended:
				if !errors.Is(err, io.EOF) {
					return fmt.Errorf("reading the frames: %w", err)
				}
				return waitForAnswers(ctx, s, cfg.Timeout)
			case <-s.Exited():
				return nil // the report tells how the server ended
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
}

// readFrames reads the input on a goroutine of its own, so that a server
// that exits or an interrupt ends the run while a read waits: each frame
// comes on frames, the input's end or error on ended; closing stop lets
// the goroutine go.
func readFrames(next func() ([]byte, error)) (frames chan []byte, ended chan error, stop chan struct{}) {
	frames, ended, stop = make(chan []byte), make(chan error, 1), make(chan struct{})
	go func() {
		for {
			f, err := next()
			if err != nil {
				ended <- err
				return
			}
			select {
			case frames <- f:
			case <-stop:
				return
			}
		}
	}()
	return frames, ended, stop
}

// unterminated reports whether the frame at seq ended without a line end
// (--raw input without a final newline): a server reading lines cannot see
// it until its stdin closes, so waiting for its answer first would only
// wait out the timeout.
func unterminated(log *eventlog.Log, seq uint64) bool {
	ev, ok := log.Get(seq)
	if !ok || ev.Frame == nil || len(ev.Frame.Lines) == 0 {
		return false
	}
	return ev.Frame.Lines[len(ev.Frame.Lines)-1].Term == wire.TermNone
}

// waitForAnswers waits until no request linesman sent is in flight (but
// one in an unterminated last frame), the server exits, or ctx ends. Each
// request is bounded by the tracker's timeout (it marks it timed-out);
// timeout plus a margin bounds the wait itself, whatever the tracker does.
func waitForAnswers(ctx context.Context, s *session.Session, timeout time.Duration) error {
	signal, cancel := s.Log().Subscribe()
	defer cancel()
	deadline := time.NewTimer(timeout + time.Second)
	defer deadline.Stop()
	for {
		// Only the last frame sent can be unterminated: it holds the
		// newest request, if any.
		open, newest, ok := s.Tracker().Waiting(wire.ClientToServer)
		if ok && newest.State == eventlog.ReqInFlight && unterminated(s.Log(), newest.Seq) {
			open--
		}
		if open == 0 {
			return nil
		}
		select {
		case <-signal:
		case <-s.Exited():
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			return nil // the tracker's request-timeout findings tell the story
		}
	}
}
