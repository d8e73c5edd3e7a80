package eventlog

import (
	"fmt"
	"math/rand"
	"reflect"
	"strconv"
	"testing"
	"time"

	"linesman/wire"
)

// convo drives a tracker and a small log the way a capture's reader does
// (Apply with the Seq and time the event gets, then Forget), on a clock of
// its own, and collects every finding in log order.
type convo struct {
	log      *Log
	tr       *Tracker
	now      time.Duration
	findings []string
	reserve  bool // charge Forget's figure to the log, as a session does
}

func newConvo(budget int64, compact, reserve bool) *convo {
	tr := NewTracker(TrackerOptions{Timeout: 5 * time.Second, NoProtocolRules: true, UnflushedAfter: -1})
	tr.noCompact = !compact
	return &convo{log: NewLog(budget), tr: tr, reserve: reserve}
}

func (c *convo) apply(ev Event) {
	c.now += time.Millisecond
	_, next := c.log.Bounds()
	ev.Seq, ev.At = next, c.now
	settled := c.tr.Apply(&ev)
	if ev.Frame != nil {
		for _, f := range ev.Frame.Findings {
			c.findings = append(c.findings, fmt.Sprintf("#%d %s: %s", ev.Seq, f.Code, f.Message))
		}
	}
	c.log.Append(ev)
	for i := range settled {
		f := settled[i]
		c.findings = append(c.findings, fmt.Sprintf("about #%d %s: %s", f.FrameSeq, f.Code, f.Message))
		c.apply(Event{Type: EventFinding, Finding: &f})
	}
	first, _ := c.log.Bounds()
	if outside, passed := c.tr.Forget(first); passed && c.reserve {
		c.log.Reserve(outside)
	}
}

func (c *convo) frame(dir wire.Dir, text string, m wire.Message) {
	c.apply(Event{Type: EventFrame, Dir: dir, Frame: handFrame(text, m)})
}

// classified logs text as classified (what a message carries beyond its
// kind, id and method is read from the text).
func (c *convo) classified(dir wire.Dir, text string) {
	m, _ := wire.Classify([]byte(text))
	c.frame(dir, text, m)
}

func (c *convo) request(dir wire.Dir, id wire.ID, method, tool string, token wire.ID) {
	meta := ""
	if token.Kind != wire.IDAbsent {
		meta = `,"_meta":{"progressToken":` + idJSON(token) + `}`
	}
	text := `{"jsonrpc":"2.0","id":` + idJSON(id) + `,"method":"` + method + `","params":{"name":"` + tool + `"` + meta + `}}`
	c.classified(dir, text)
}

func (c *convo) answer(dir wire.Dir, id wire.ID, isErr bool) {
	if isErr {
		c.classified(dir, `{"jsonrpc":"2.0","id":`+idJSON(id)+`,"error":{"code":-32000,"message":"no"}}`)
		return
	}
	c.frame(dir, `{"jsonrpc":"2.0","id":`+idJSON(id)+`,"result":{}}`, wire.Message{Kind: wire.KindResult, ID: id})
}

func idJSON(id wire.ID) string {
	if id.Kind == wire.IDString {
		return strconv.Quote(id.Str)
	}
	return strconv.FormatInt(id.Num, 10)
}

// playMixed plays a conversation of n steps in which most client requests
// wait long past the log's budget, and everything the fold does with a
// waiting request happens to some of them: answers (early, late, after a
// timeout, twice, with the id's other type, as errors), cancels and late
// answers, reused ids (in flight and ended), progress, server requests,
// timeouts, a restart, and an exit with requests unanswered.
func playMixed(c *convo, n int) {
	rnd := rand.New(rand.NewSource(34))
	var open, done []int64
	pick := func(xs []int64) (int64, int) { i := rnd.Intn(len(xs)); return xs[i], i }
	c2s, s2c := wire.ClientToServer, wire.ServerToClient
	for i := 1; i <= n; i++ {
		id := int64(i)
		if i > n/2 {
			id = int64(i - n/2) // a fresh process counts from 1 again
		}
		switch r := rnd.Intn(100); {
		case r < 55:
			var token wire.ID
			if rnd.Intn(20) == 0 {
				token = wire.IntID(id + 1_000_000)
			}
			c.request(c2s, wire.IntID(id), "tools/call", "tool"+strconv.Itoa(rnd.Intn(5)), token)
			open = append(open, id)
		case r < 70 && len(open) > 0:
			x, k := pick(open)
			c.answer(s2c, wire.IntID(x), rnd.Intn(4) == 0)
			open = append(open[:k], open[k+1:]...)
			done = append(done, x)
		case r < 74 && len(open) > 0:
			x, _ := pick(open)
			c.classified(c2s, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+strconv.FormatInt(x, 10)+`}}`)
		case r < 77 && len(open) > 0:
			x, _ := pick(open) // a reuse of an id in flight
			c.request(c2s, wire.IntID(x), "ping", "", wire.ID{})
		case r < 80 && len(done) > 0:
			x, _ := pick(done) // a second answer, or a reuse of an ended id
			if rnd.Intn(2) == 0 {
				c.answer(s2c, wire.IntID(x), false)
			} else {
				c.request(c2s, wire.IntID(x), "tools/list", "", wire.ID{})
			}
		case r < 82 && len(open) > 0:
			x, k := pick(open)
			c.answer(s2c, wire.StringID(strconv.FormatInt(x, 10)), false)
			open = append(open[:k], open[k+1:]...)
		case r < 85:
			c.request(s2c, wire.IntID(id), "roots/list", "", wire.ID{})
			if rnd.Intn(3) == 0 {
				c.answer(c2s, wire.IntID(id-int64(rnd.Intn(3000))), false)
			}
		case r < 88 && len(open) > 0:
			x, _ := pick(open)
			c.classified(s2c, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":`+strconv.FormatInt(x+1_000_000, 10)+`,"progress":1}}`)
		case r < 89:
			c.request(c2s, wire.StringID("s"+strconv.Itoa(i)), "tools/call", "strings", wire.ID{})
		case r < 90:
			c.request(c2s, wire.IntID(-id), "tools/call", "below", wire.ID{}) // an id below the others'
			open = append(open, -id)
		case r < 93:
			c.apply(Event{Type: EventTimeout})
		default:
			c.answer(s2c, wire.IntID(id-int64(rnd.Intn(8000))), false) // often to a request timed out, or forgotten
		}
		if i == n/2 {
			c.apply(Event{Type: EventRestart, Restart: &RestartEvent{N: 1}})
			open, done = nil, nil
		}
	}
	c.apply(Event{Type: EventEnd, End: &EndEvent{Exited: true}})
}

// TestCompactWaitingRequestsSameVerdict: the compact records of requests
// waiting for an answer are how the tracker keeps them, never what it
// concludes: a conversation played with them and without them (the same
// log budget) gives the same findings, in the same order and words, and
// the same requests, counts, calls and latency.
func TestCompactWaitingRequestsSameVerdict(t *testing.T) {
	const budget, n = 256 << 10, 60_000
	whole, compact := newConvo(budget, false, false), newConvo(budget, true, false)
	playMixed(whole, n)
	playMixed(compact, n)
	compact.tr.mu.Lock()
	w := compact.tr.waits
	compact.tr.mu.Unlock()
	if w.thaws < 100 || w.inPlace < 100 {
		t.Fatalf("%d compact records made whole again, %d ended in place: the test tests too little", w.thaws, w.inPlace)
	}
	if len(whole.findings) != len(compact.findings) {
		t.Errorf("%d findings whole, %d compact", len(whole.findings), len(compact.findings))
	}
	for i := range min(len(whole.findings), len(compact.findings)) {
		if whole.findings[i] != compact.findings[i] {
			t.Fatalf("finding %d:\nwhole:   %s\ncompact: %s", i, whole.findings[i], compact.findings[i])
		}
	}
	a, b := whole.tr, compact.tr
	for name, get := range map[string]func(*Tracker) any{
		"counts":   func(t *Tracker) any { return t.RequestCounts() },
		"requests": func(t *Tracker) any { return t.Requests() },
		"each": func(t *Tracker) any {
			var out []Request
			for r := range t.EachRequest() {
				out = append(out, r)
			}
			return out
		},
		"inflight": func(t *Tracker) any { return t.InFlight() },
		"calls":    func(t *Tracker) any { return t.Calls() },
		"latency":  func(t *Tracker) any { m, tl := t.Latency(); return []any{m, tl} },
		"num":      func(t *Tracker) any { return t.NumRequests() },
	} {
		if x, y := get(a), get(b); !reflect.DeepEqual(x, y) {
			t.Errorf("%s differ: %s", name, firstDiff(reflect.ValueOf(x), reflect.ValueOf(y)))
		}
	}
	codes := map[string]bool{}
	for _, f := range compact.findings {
		var seq, code string
		fmt.Sscanf(f, "%s %s", &seq, &code)
		if seq == "about" {
			fmt.Sscanf(f, "about %s %s", &seq, &code)
		}
		codes[code[:len(code)-1]] = true
	}
	for _, want := range []string{"late-response", "reused-id-in-flight", "reused-id", "request-timeout", "duplicate-response", "id-type-mismatch", "exited-during-request", "unknown-response-id"} {
		if !codes[want] {
			t.Errorf("the conversation raised no %s: %v", want, codes)
		}
	}
	t.Logf("%d findings; %d compact records made whole again, %d ended in place", len(compact.findings), w.thaws, w.inPlace)
}

// firstDiff says where two slices (or other values) first differ.
func firstDiff(x, y reflect.Value) string {
	if x.Kind() != reflect.Slice {
		return fmt.Sprintf("\nwhole:   %+v\ncompact: %+v", x.Interface(), y.Interface())
	}
	for i := range min(x.Len(), y.Len()) {
		if !reflect.DeepEqual(x.Index(i).Interface(), y.Index(i).Interface()) {
			return fmt.Sprintf("at %d:\nwhole:   %+v\ncompact: %+v", i, x.Index(i).Interface(), y.Index(i).Interface())
		}
	}
	return fmt.Sprintf("lengths %d and %d", x.Len(), y.Len())
}

// TestWaitingRequestsInsideBudget: a million-request wait in miniature.
// Requests nobody answers are kept, compact, after the log drops their
// frames; the log's budget covers them (the events make room), and an
// answer to the oldest after all that still pairs with it.
func TestWaitingRequestsInsideBudget(t *testing.T) {
	const budget, n = 16 << 20, 100_000
	c := newConvo(budget, true, true)
	for i := 1; i <= n; i++ {
		c.request(wire.ClientToServer, wire.IntID(int64(i)), "tools/call", "wait", wire.ID{})
	}
	c.tr.mu.Lock()
	kept := c.tr.waits.live()
	c.tr.mu.Unlock()
	if kept < n/2 {
		t.Fatalf("%d of %d requests kept compact", kept, n)
	}
	_, events := c.log.Retained()
	if outside := int64(kept) * WaitingCost; events+outside > budget+budget/8 {
		t.Errorf("events %d bytes and compact records %d bytes for a budget of %d", events, outside, budget)
	}
	c.answer(wire.ServerToClient, wire.IntID(1), false)
	_, next := c.log.Bounds()
	if p, ok := c.tr.PairOf(next - 1); !ok || p.Request.Seq != 1 || p.Request.Method != "tools/call" || p.Request.Target != "wait" {
		t.Errorf("the answer to the first request pairs as %+v (%v)", p, ok)
	}
	if got := c.tr.RequestCounts(); got[ReqInFlight] != n-1 || got[ReqAnswered] != 1 {
		t.Errorf("counts %v", got)
	}
	if len(c.findings) != 0 {
		t.Errorf("findings: %v", c.findings[:min(len(c.findings), 5)])
	}
}
