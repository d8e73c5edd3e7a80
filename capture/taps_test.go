package capture

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
	if p, _ := NewTapPath(dir, "we/ird name", t0); filepath.Base(p) != fmt.Sprintf("we%%2Fird%%20name@20261201T020000.000Z-%d.jsonl", os.Getpid()) {
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

// TestTapNamesKeptWhole: Cline-style names (a repository path) are kept
// whole through the file name, two that share a last part do not collide,
// and each resolves by the config's own name; a name too long for a file
// name is cut with a hash, and still resolves.
func TestTapNamesKeptWhole(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 12, 1, 2, 0, 0, 0, time.UTC)
	long := strings.Repeat("github.com/org/very-long-repository-name/", 8)
	names := []string{
		"github.com/modelcontextprotocol/servers/tree/main/src/filesystem",
		"github.com/other/servers/tree/main/src/filesystem",
		"filesystem", ".hidden", "a%2Fb", "a@b c", long,
	}
	for i, n := range names {
		p, _ := NewTapPath(dir, n, t0.Add(time.Duration(i)*time.Second))
		if len(filepath.Base(p)) > 255 {
			t.Errorf("%q: file name of %d bytes", n, len(filepath.Base(p)))
		}
		if err := os.WriteFile(p, []byte("{}\n"), 0o600); err != nil {
			t.Fatalf("%q: %v", n, err)
		}
	}
	taps, _ := ListTaps(dir)
	if len(taps) != len(names) {
		t.Fatalf("%d taps for %d names: %+v", len(taps), len(names), taps)
	}
	seen := map[string]string{}
	for _, n := range names {
		tp, err := ResolveTap([]string{dir}, n)
		if err != nil {
			t.Errorf("%q does not resolve: %v", n, err)
			continue
		}
		if n != long && tp.Name != n {
			t.Errorf("%q listed as %q", n, tp.Name)
		}
		if other, dup := seen[tp.Path]; dup {
			t.Errorf("%q and %q resolve to one file, %s", n, other, tp.Path)
		}
		seen[tp.Path] = n
	}
}
