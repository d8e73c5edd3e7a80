package run

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"linesman/session"
)

// TestCaptureHeaderEnv: the header names the server's environment (ours
// plus -e) but keeps values out unless --capture-env; cwd is absolute.
func TestCaptureHeaderEnv(t *testing.T) {
	t.Setenv("CAPTURE_TEST_SECRET", "hunter2")
	opts := Options{Era: "legacy", Session: session.Config{Command: []string{"srv", "a"}, Dir: ".",
		Env: []string{"CAPTURE_TEST_OVERRIDE=x=y"}, Timeout: 7 * time.Second, MaxFrame: 4096}}
	h := Header(&opts)
	names := map[string]*string{}
	for _, v := range h.Env {
		names[v.Name] = v.Value
	}
	if v, ok := names["CAPTURE_TEST_SECRET"]; !ok || v != nil {
		t.Errorf("CAPTURE_TEST_SECRET: present %v, value %v; want the name only", ok, v)
	}
	if _, ok := names["CAPTURE_TEST_OVERRIDE"]; !ok {
		t.Error("the -e override is not named")
	}
	if !filepath.IsAbs(h.Cwd) || h.Era != "legacy" || h.TimeoutNs != int64(7*time.Second) || h.MaxFrame != 4096 || fmt.Sprint(h.Command) != "[srv a]" {
		t.Errorf("header %+v", h)
	}
	opts.CaptureEnv = true
	for _, v := range Header(&opts).Env {
		switch {
		case v.Value == nil:
			t.Errorf("%s without its value under --capture-env", v.Name)
		case v.Name == "CAPTURE_TEST_SECRET" && *v.Value != "hunter2",
			v.Name == "CAPTURE_TEST_OVERRIDE" && *v.Value != "x=y":
			t.Errorf("%s=%q", v.Name, *v.Value)
		}
	}
}
