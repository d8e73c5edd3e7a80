package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"linesman/capture"
	"linesman/wire"
)

const latencyMeta = `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/clientInfo":{"name":"h","version":"1"}`

// latencySession has a host call latency-delays through the tap, one
// request at a time: fast three times, slow three times (with a progress
// token), tools/list twice, and ask in two rounds (the retry sent on the
// input_required answer, echoing its requestState). It returns the
// capture's path.
func latencySession(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	bin := linesmanBinary(t)
	cmd := exec.Command(bin, append([]string{"tap", "--dir", dir, "--name", "latency", "--"}, fakeServers.Command("latency-delays")...)...)
	cmd.Env = append(os.Environ(), fakeServers.Env("latency-delays"))
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(out)
	id := 0
	call := func(method, params string) []byte {
		id++
		fmt.Fprintf(in, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s}}`+"\n", id, method, params)
		for {
			l, err := br.ReadBytes('\n')
			if err != nil {
				t.Fatalf("no answer to %s #%d: %v", method, id, err)
			}
			if m, _ := wire.Classify(bytes.TrimRight(l, "\n")); m.ID.String() == fmt.Sprint(id) {
				return l
			}
		}
	}
	for range 3 {
		call("tools/call", `"name":"fast","arguments":{},"_meta":{`+latencyMeta+`}`)
	}
	for i := range 3 {
		call("tools/call", fmt.Sprintf(`"name":"slow","arguments":{},"_meta":{"progressToken":"p%d",%s}`, i, latencyMeta))
	}
	for range 2 {
		call("tools/list", `"_meta":{`+latencyMeta+`}`)
	}
	if first := call("tools/call", `"name":"ask","arguments":{},"_meta":{`+latencyMeta+`}`); !bytes.Contains(first, []byte("input_required")) {
		t.Fatalf("ask's first round: %s", first)
	}
	call("tools/call", `"name":"ask","arguments":{},"requestState":"s1","inputResponses":{"confirm":{"action":"accept","content":{}}},"_meta":{`+latencyMeta+`}`)
	in.Close()
	io.Copy(io.Discard, br)
	cmd.Wait()
	taps, err := capture.ListTaps(dir)
	if err != nil || len(taps) != 1 {
		t.Fatalf("taps in %s: %v, %v", dir, taps, err)
	}
	return taps[0].Path
}

type latencyStat struct {
	Method, Tool               string
	Count, Requests            int
	P50Ms, P95Ms, P99Ms, MaxMs float64
}

// TestLatencyPerMethodAndTool: against a server of known delays, check
// (JSON and text) and export --format latency give count, p50, p95, p99
// and max per method and per tool, a multi-round call is one call across
// its rounds (timed from the first to the last answer, its rounds listed
// under it) and the progress of a call is counted on it.
func TestLatencyPerMethodAndTool(t *testing.T) {
	path := latencySession(t)
	_, stdout, stderr := runBinary(t, nil, "check", "--from", path, "--json")
	var r struct {
		Latency       []latencyStat `json:"latency"`
		LatencyByTool []latencyStat `json:"latencyByTool"`
		Requests      []struct {
			Seq  uint64  `json:"seq"`
			Tool string  `json:"tool"`
			Call *uint64 `json:"call"`
		} `json:"requests"`
	}
	if err := json.Unmarshal(stdout, &r); err != nil {
		t.Fatalf("check --json: %v\n%s\n%s", err, stdout, stderr)
	}
	methods, tools := map[string]latencyStat{}, map[string]latencyStat{}
	for _, l := range r.Latency {
		methods[l.Method] = l
	}
	for _, l := range r.LatencyByTool {
		tools[l.Tool] = l
	}
	if c := methods["tools/call"]; c.Count != 7 || c.Requests != 8 {
		t.Errorf("tools/call: %+v, want 7 calls of 8 requests (ask took two rounds)", c)
	}
	// The delays are 150 ms apart or more: ordering, not times.
	list := methods["tools/list"]
	fast, slow, ask := tools["fast"], tools["slow"], tools["ask"]
	if list.Count != 2 || fast.Count != 3 || slow.Count != 3 || ask.Count != 1 || ask.Requests != 2 {
		t.Errorf("counts: tools/list %+v, fast %+v, slow %+v, ask %+v", list, fast, slow, ask)
	}
	if !(fast.MaxMs < list.P50Ms && list.MaxMs < slow.P50Ms && slow.MaxMs < ask.P50Ms) {
		t.Errorf("want fast < tools/list < slow < ask (both rounds of it): fast %+v, tools/list %+v, slow %+v, ask %+v", fast, list, slow, ask)
	}
	if !(slow.P50Ms <= slow.P95Ms && slow.P95Ms <= slow.P99Ms && slow.P99Ms <= slow.MaxMs) {
		t.Errorf("slow's percentiles out of order: %+v", slow)
	}
	var firstAsk, retry uint64
	for _, q := range r.Requests {
		if q.Tool == "ask" && q.Call == nil {
			firstAsk = q.Seq
		} else if q.Tool == "ask" {
			retry = *q.Call
		}
	}
	if firstAsk == 0 || retry != firstAsk {
		t.Errorf("the retry names call %d, want the first round %d", retry, firstAsk)
	}

	_, text, _ := runBinary(t, nil, "check", "--from", path)
	if !strings.Contains(string(text), "latency (ms; count, p50, p95, p99, max):") || !regexpLine(string(text), "tools/call ask", "(2 requests)") {
		t.Errorf("check's text lacks the latency per tool:\n%s", text)
	}

	_, lines, errb := runBinary(t, nil, "export", path, "--format", "latency")
	var sawAsk, sawSlow bool
	for _, l := range bytes.Split(bytes.TrimSpace(lines), []byte("\n")) {
		var c struct {
			Kind, Tool string
			Ms         float64
			Progress   int
			Rounds     []struct{ ResultType string }
		}
		if err := json.Unmarshal(l, &c); err != nil {
			t.Fatalf("export --format latency: %v in %s (%s)", err, l, errb)
		}
		switch {
		case c.Kind == "call" && c.Tool == "ask":
			sawAsk = len(c.Rounds) == 2 && c.Rounds[0].ResultType == "input_required" && c.Rounds[1].ResultType == "complete" && c.Ms == ask.P50Ms
		case c.Kind == "call" && c.Tool == "slow":
			sawSlow = c.Progress == 1
		}
	}
	if !sawAsk || !sawSlow {
		t.Errorf("export --format latency: ask's call with its two rounds %v, slow's progress counted %v:\n%s", sawAsk, sawSlow, lines)
	}
}

// regexpLine reports whether a line of text holds both parts.
func regexpLine(text, a, b string) bool {
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, a) && strings.Contains(l, b) {
			return true
		}
	}
	return false
}
