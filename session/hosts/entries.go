package hosts

import (
	"fmt"
	"io"
	"strings"

	"linesman/wire"
)

// WriteEntries writes one line per server of f: name, command (or why it
// cannot be started; its arguments redacted), and the names of the
// variables it sets, every string made visible (the file is untrusted).
func (f *File) WriteEntries(w io.Writer) {
	for _, e := range f.Entries {
		what := strings.Join(append([]string{e.Command}, RedactArgs(e.Args)...), " ")
		if e.Note != "" {
			what = "(" + e.Note + ")"
		}
		if e.Scope != "" {
			what += "  [project " + e.Scope + "]"
		}
		if e.Disabled {
			what += "  [disabled]"
		}
		if len(e.Env) > 0 {
			names := make([]string, len(e.Env))
			for i, v := range e.Env {
				names[i] = v.Name
			}
			what += "  env: " + strings.Join(names, ", ")
		}
		fmt.Fprintf(w, "  %-20s %s\n", wire.VisibleString(e.Name, wire.Pictures), wire.VisibleString(what, wire.Pictures))
	}
}
