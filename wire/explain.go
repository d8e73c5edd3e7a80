package wire

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// WriteExplanations writes what each finding of infos means, why it
// matters, how to fix it and its clause, as linesman explain CODE does.
func WriteExplanations(w io.Writer, infos []Info) {
	for i, info := range infos {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s (%s)\n  %s\n", info.Code, info.Severity, info.Title)
		fmt.Fprintf(w, "  family: %s; eras: %s\n", info.Family, info.Eras)
		section(w, "Why it matters", info.Why)
		section(w, "How to fix it", info.Fix)
		section(w, "When the client sent the line", info.ClientFix)
		section(w, "Specification", info.Spec)
	}
}

// section writes a titled, indented section of an explanation; nothing
// when text is empty.
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

// WriteExplanationsJSON writes the registry entries of infos as a JSON
// array (linesman explain --json).
func WriteExplanationsJSON(w io.Writer, infos []Info) error {
	out := make([]explainEntry, 0, len(infos))
	for _, i := range infos {
		out = append(out, explainEntry{i.Code, i.Severity.String(), i.Title, i.Why, i.Fix, i.ClientFix, i.Spec, i.Family, i.Eras})
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// CodeNames are the finding codes, in the registry's order.
func CodeNames() []string {
	var out []string
	for _, i := range Codes() {
		out = append(out, i.Code)
	}
	return out
}

// NearCodes are the known codes that contain, or are contained in, code:
// "utf8" finds invalid-utf8 and utf8-bom.
func NearCodes(code string) []string {
	code = strings.ToLower(strings.TrimSpace(code))
	if code == "" {
		return nil
	}
	var out []string
	for _, c := range CodeNames() {
		if strings.Contains(c, code) || strings.Contains(code, c) {
			out = append(out, c)
		}
	}
	return out
}

// IsFamily reports whether name is a rule family's name.
func IsFamily(name string) bool {
	for _, f := range Families() {
		if f.Name == name {
			return true
		}
	}
	return false
}

// FamilyCodes are the codes of the family named only, or every code when
// only is "".
func FamilyCodes(only string) []Info {
	all := Codes()
	if only != "" {
		all = slices.DeleteFunc(all, func(i Info) bool { return i.Family != only })
	}
	return all
}

// WriteFamilies writes the rule families and each one's codes, a line
// each (only the family named only, when it is not ""), as linesman
// explain lists them.
func WriteFamilies(stdout io.Writer, only string) {
	all := FamilyCodes(only)
	width := 0
	for _, info := range all {
		width = max(width, len(info.Code))
	}
	fams := Families()
	if only == "" {
		fmt.Fprintf(stdout, "%d finding codes in %d families (linesman explain CODE tells why each matters and how to fix it; linesman explain FAMILY lists one family):\n", len(all), len(fams))
	}
	for _, fam := range fams {
		if only != "" && fam.Name != only {
			continue
		}
		fmt.Fprintf(stdout, "\n%s — %s\n", fam.Name, fam.Title)
		for _, info := range all {
			if info.Family == fam.Name {
				fmt.Fprintf(stdout, "  %-7s  %-*s  %s\n", info.Severity, width, info.Code, info.Title)
			}
		}
	}
}
