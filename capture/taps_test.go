package capture

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestTapDirListResolvePrune(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 12, 1, 2, 0, 0, 0, time.UTC)
	var paths []string
	for i, name := range []string{"weather", "weather", "weather", "db"} {
		p := filepath.Join(dir, fmt.Sprintf("%s@%s-%d.jsonl", name, t0.Add(time.Duration(i)*time.Minute).Format(tapTimeLayout), i+1))
		if err := os.WriteFile(p, []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	if p, _ := NewTapPath(dir, "we/ird name", t0); filepath.Base(p) != fmt.Sprintf("ird_name@20261201T020000.000Z-%d.jsonl", os.Getpid()) {
		t.Errorf("NewTapPath: %s", p)
	}
	os.WriteFile(filepath.Join(dir, "not-a-tap.txt"), nil, 0o600)
	lock := LockTap(paths[0]) // the oldest weather tap is live
	if lock == nil {
		t.Fatal("no lock")
	}
	defer lock.Close()

	taps, err := ListTaps(dir)
	if err != nil || len(taps) != 4 || taps[0].Name != "db" || !taps[3].Live || taps[2].Live {
		t.Fatalf("ListTaps: %+v %v", taps, err)
	}
	if tp, err := ResolveTap([]string{dir}, "weather"); err != nil || tp.Path != paths[0] {
		t.Errorf("weather resolves to %s, %v; want the live one %s", tp.Path, err, paths[0])
	}
	if tp, err := ResolveTap([]string{dir}, "latest"); err != nil || tp.Path != paths[0] {
		t.Errorf("latest resolves to %s, %v; want the live one", tp.Path, err)
	}
	if _, err := ResolveTap([]string{dir}, "nope"); err == nil {
		t.Error("an unknown tap resolved")
	}
	if n := PruneTaps(dir, "weather", 1); n != 1 {
		t.Errorf("pruned %d, want 1 (of two ended weather taps, keep the newest)", n)
	}
	for i, want := range []bool{true, false, true, true} {
		if _, err := os.Stat(paths[i]); (err == nil) != want {
			t.Errorf("%s exists: %v, want %v", filepath.Base(paths[i]), err == nil, want)
		}
	}
}
