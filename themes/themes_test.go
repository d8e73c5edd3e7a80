package themes

import (
	"reflect"
	"sort"
	"strings"
	"testing"
)

func TestGet(t *testing.T) {
	for _, name := range Names() {
		for _, dark := range []bool{true, false} {
			th, err := Get(name, dark)
			if err != nil {
				t.Fatalf("Get(%q): %v", name, err)
			}
			if name == "auto" {
				want := map[bool]string{true: "dark", false: "light"}[dark]
				if th.Name != want {
					t.Fatalf("auto on a dark=%v background is %q, want %q", dark, th.Name, want)
				}
				continue
			}
			// Every semantic colour is set, except in the colourless theme,
			// where every one is nil.
			v := reflect.ValueOf(th)
			for i := 0; i < v.NumField(); i++ {
				f := v.Type().Field(i)
				if f.Name == "Name" {
					continue
				}
				if isNil := v.Field(i).IsNil(); isNil != (th.Name == "none") {
					t.Errorf("theme %s: %s nil=%v", th.Name, f.Name, isNil)
				}
			}
		}
	}
	if _, err := Get("sepia", true); err == nil || !strings.Contains(err.Error(), "high-contrast") {
		t.Fatalf("unknown theme: %v (want an error listing the names)", err)
	}
	if !sort.StringsAreSorted(Names()) {
		t.Fatal("Names is not sorted")
	}
}
