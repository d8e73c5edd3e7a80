package ui

import "linesman/wire"

// findingInfo is what the registry says about a finding code.
type findingInfo struct {
	Title, Why, Fix, Spec string
}

// lookupFinding reads the wire registry.
func lookupFinding(code string) (findingInfo, bool) {
	in, ok := wire.Lookup(code)
	if !ok {
		return findingInfo{}, false
	}
	return findingInfo{Title: in.Title, Why: in.Why, Fix: in.Fix, Spec: in.Spec}, true
}
