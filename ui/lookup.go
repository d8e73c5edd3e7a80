package ui

import "linesman/wire"

// findingInfo is what the registry says about a finding code.
type findingInfo struct {
	Title, Why, Fix, Spec string
}

// lookupFinding reads the wire registry for a finding on what travelled in
// direction wrote (0 when it concerns no frame): the fix is the one for
// whoever wrote it ([wire.Info.FixFor]).
func lookupFinding(code string, wrote wire.Dir) (findingInfo, bool) {
	in, ok := wire.Lookup(code)
	if !ok {
		return findingInfo{}, false
	}
	return findingInfo{Title: in.Title, Why: in.Why, Fix: in.FixFor(wrote), Spec: in.Spec}, true
}
