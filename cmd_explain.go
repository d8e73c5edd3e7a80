package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"linesman/wire"
)

var cmdExplain = &command{
	name:      "explain",
	usageLine: "linesman explain [CODE|FAMILY]",
	run:       runExplain,
	long: `linesman explain — what a finding means and how to fix it

Usage:
  linesman explain              every rule family, and in each every finding code with its severity and title
  linesman explain FAMILY       one family's codes (framing, lifecycle, tools, multi-round, ...)
  linesman explain CODE...      why it matters, how to fix it, the specification clause
  linesman explain --json [CODE...]   the same as JSON

Example:
  linesman explain non-json-line
  linesman explain multi-round
`,
}

// runExplain prints the finding registry, whole or one code at a time.
func runExplain(cmd *command, args []string, sio stdio) int {
	stdout, stderr := sio.out, sio.err
	fs := cmd.newFlagSet(sio)
	jsonOut := fs.Bool("json", false, "print the registry entries as JSON")
	codes, status, ok := parseFlagsAnywhere(fs, args)
	if !ok {
		return status
	}

	if len(codes) == 0 || (len(codes) == 1 && isFamily(codes[0])) {
		return listFamilies(stdout, stderr, codes, *jsonOut)
	}

	var infos []wire.Info
	for _, code := range codes {
		info, ok := wire.Lookup(code)
		if !ok {
			fmt.Fprintf(stderr, "linesman explain: unknown finding code %q\n", code)
			if near := nearCodes(code); len(near) > 0 {
				fmt.Fprintf(stderr, "did you mean: %s\n", strings.Join(near, ", "))
			}
			fmt.Fprintf(stderr, "known codes: %s\n", strings.Join(knownCodes(), ", "))
			return exitUsage
		}
		infos = append(infos, info)
	}
	if *jsonOut {
		return writeExplainJSON(stdout, stderr, infos)
	}
	for i, info := range infos {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		fmt.Fprintf(stdout, "%s (%s)\n  %s\n", info.Code, info.Severity, info.Title)
		fmt.Fprintf(stdout, "  family: %s; eras: %s\n", info.Family, info.Eras)
		section(stdout, "Why it matters", info.Why)
		section(stdout, "How to fix it", info.Fix)
		section(stdout, "When the client sent the line", info.ClientFix)
		section(stdout, "Specification", info.Spec)
	}
	return exitOK
}

func section(w io.Writer, title, text string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	fmt.Fprintf(w, "\n%s:\n", title)
	for _, line := range strings.Split(text, "\n") {
		fmt.Fprintf(w, "  %s\n", strings.TrimRight(line, " "))
	}
}

// explainEntry is the JSON spelling of a registry entry.
type explainEntry struct {
	Code     string `json:"code"`
	Severity string `json:"severity"`
	Title    string `json:"title"`
	Why      string `json:"why"`
	Fix      string `json:"fix"`
	// ClientFix is the fix for a line the client wrote, when it differs.
	ClientFix string `json:"clientFix,omitempty"`
	Spec      string `json:"spec"`
	Family    string `json:"family"`
	Eras      string `json:"eras"`
}

func writeExplainJSON(stdout, stderr io.Writer, infos []wire.Info) int {
	out := make([]explainEntry, 0, len(infos))
	for _, i := range infos {
		out = append(out, explainEntry{i.Code, i.Severity.String(), i.Title, i.Why, i.Fix, i.ClientFix, i.Spec, i.Family, i.Eras})
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(stderr, "linesman explain:", err)
		return exitFindings
	}
	return exitOK
}

func knownCodes() []string {
	var out []string
	for _, i := range wire.Codes() {
		out = append(out, i.Code)
	}
	return out
}

// nearCodes are the known codes that contain, or are contained in, code:
// "utf8" finds invalid-utf8 and utf8-bom.
func nearCodes(code string) []string {
	code = strings.ToLower(strings.TrimSpace(code))
	if code == "" {
		return nil
	}
	var out []string
	for _, c := range knownCodes() {
		if strings.Contains(c, code) || strings.Contains(code, c) {
			out = append(out, c)
		}
	}
	return out
}

// isFamily reports whether name is a rule family's name.
func isFamily(name string) bool {
	for _, f := range wire.Families() {
		if f.Name == name {
			return true
		}
	}
	return false
}

// listFamilies prints the rule families and each one's codes (only the
// family asked for, when one is).
func listFamilies(stdout, stderr io.Writer, only []string, jsonOut bool) int {
	all := wire.Codes()
	if len(only) == 1 {
		all = slices.DeleteFunc(all, func(i wire.Info) bool { return i.Family != only[0] })
	}
	if jsonOut {
		return writeExplainJSON(stdout, stderr, all)
	}
	width := 0
	for _, info := range all {
		width = max(width, len(info.Code))
	}
	fams := wire.Families()
	if len(only) == 0 {
		fmt.Fprintf(stdout, "%d finding codes in %d families (linesman explain CODE tells why each matters and how to fix it; linesman explain FAMILY lists one family):\n", len(all), len(fams))
	}
	for _, fam := range fams {
		if len(only) == 1 && fam.Name != only[0] {
			continue
		}
		fmt.Fprintf(stdout, "\n%s — %s\n", fam.Name, fam.Title)
		for _, info := range all {
			if info.Family == fam.Name {
				fmt.Fprintf(stdout, "  %-7s  %-*s  %s\n", info.Severity, width, info.Code, info.Title)
			}
		}
	}
	return exitOK
}
