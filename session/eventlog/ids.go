package eventlog

// Small helpers of the fold: directions, ids, numbers and wording.

import (
	"strconv"
	"strings"

	"linesman/wire"
)

func opposite(d wire.Dir) wire.Dir {
	if d == wire.ClientToServer {
		return wire.ServerToClient
	}
	return wire.ClientToServer
}

// withArticle is "a ping", "an initialize", "an elicitation/create".
func withArticle(method string) string {
	if method != "" && strings.ContainsRune("aeiouAEIOU", rune(method[0])) {
		return "an " + method
	}
	return "a " + method
}

// otherType returns the id of the other type that a careless peer might
// answer with: "2" for 2, and 2 for "2".
func otherType(id wire.ID) (wire.ID, bool) {
	switch id.Kind {
	case wire.IDInt:
		return wire.StringID(strconv.FormatInt(id.Num, 10)), true
	case wire.IDString:
		if n, err := strconv.ParseInt(id.Str, 10, 64); err == nil && strconv.FormatInt(n, 10) == id.Str {
			return wire.IntID(n), true
		}
	}
	return wire.ID{}, false
}

func addFinding(f *wire.Frame, fd wire.Finding) { f.Findings = append(f.Findings, fd) }

func idText(id wire.ID) string {
	if id.Kind == wire.IDAbsent {
		return "(none)"
	}
	return id.String()
}

func fmtNum(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func cmpSeq(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
