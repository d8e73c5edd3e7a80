package protocol

import (
	"sort"

	"linesman/wire"
)

// The rule families (their names are the registry's Family values).
const (
	FamilyFraming       = wire.FamilyFraming
	FamilyProcess       = wire.FamilyProcess
	FamilyIDs           = wire.FamilyIDs
	FamilyLifecycle     = wire.FamilyLifecycle
	FamilyCapabilities  = wire.FamilyCapabilities
	FamilyShapes        = wire.FamilyShapes
	FamilyErrors        = wire.FamilyErrors
	FamilyTools         = wire.FamilyTools
	FamilySchemas       = wire.FamilySchemas
	FamilyContent       = wire.FamilyContent
	FamilyResources     = wire.FamilyResources
	FamilyPrompts       = wire.FamilyPrompts
	FamilyPagination    = wire.FamilyPagination
	FamilyMeta          = wire.FamilyMeta
	FamilyCaching       = wire.FamilyCaching
	FamilyMultiRound    = wire.FamilyMultiRound
	FamilySubscriptions = wire.FamilySubscriptions
	FamilyLogging       = wire.FamilyLogging
	FamilyTasks         = wire.FamilyTasks
)

// family_ numbers the families for the judge's bookkeeping (a bit each).
type family_ uint8

const (
	famFraming family_ = iota
	famProcess
	famIDs
	famLifecycle
	famCapabilities
	famShapes
	famErrors
	famTools
	famSchemas
	famContent
	famResources
	famPrompts
	famPagination
	famMeta
	famCaching
	famMultiRound
	famSubscriptions
	famLogging
	famTasks
)

// familyNames are the registry's names of the families, by number.
var familyNames = [...]string{FamilyFraming, FamilyProcess, FamilyIDs, FamilyLifecycle, FamilyCapabilities, FamilyShapes, FamilyErrors, FamilyTools, FamilySchemas, FamilyContent, FamilyResources, FamilyPrompts, FamilyPagination, FamilyMeta, FamilyCaching, FamilyMultiRound, FamilySubscriptions, FamilyLogging, FamilyTasks}

// Status is how a family of rules fared in a session.
type Status string

const (
	Held          Status = "held"           // judged something of the server, and no finding of the family
	Broken        Status = "broken"         // at least one warning or error of the family
	NotObserved   Status = "not-observed"   // the server gave its rules nothing to judge
	NotApplicable Status = "not-applicable" // its rules belong to another era or revision than the session's
)

// FamilyStatus is one line of the held / broken / not observed table.
type FamilyStatus struct {
	Family   string `json:"family"`
	Title    string `json:"title"`
	Status   Status `json:"status"`
	Findings int    `json:"findings"` // warnings and errors of the family
	// Judged counts the server's frames the family's rules looked at.
	Judged int `json:"judged"`
}

// Coverage tells, per family in registry order, whether its rules judged
// something of the server and held, were broken, were not observed, or do
// not apply to the session's era and version (a family none of whose codes
// applies to it: the 2026-07-28 families in a legacy session, the
// 2025-11-25 tasks elsewhere). counts are the warnings and errors raised in
// the session by code (from any judge: wire, tracker, this one); a note
// never breaks a family, and a finding breaks even a family of another era.
func (j *Judge) Coverage(counts map[string]int) []FamilyStatus {
	byFamily := map[string]int{}
	for code, n := range counts {
		if i, ok := wire.Lookup(code); ok && i.Party != wire.PartyHost {
			// The families judge the server: a host rule's finding
			// breaks none of them (the reports' host section has it).
			byFamily[i.Family] += n
		}
	}
	applies := j.applicableFamilies()
	var out []FamilyStatus
	for _, fam := range wire.Families() {
		st := FamilyStatus{Family: fam.Name, Title: fam.Title, Status: NotObserved, Findings: byFamily[fam.Name], Judged: j.judgedName(fam.Name)}
		switch {
		case st.Findings > 0:
			st.Status = Broken
		case !applies[fam.Name]:
			st.Status = NotApplicable
		case st.Judged > 0:
			st.Status = Held
		}
		out = append(out, st)
	}
	return out
}

// applicableFamilies are the families with at least one code that applies
// to the session's era and version (every family while the era is unknown).
func (j *Judge) applicableFamilies() map[string]bool {
	out := map[string]bool{}
	for _, i := range wire.Codes() {
		if j.era == EraUnknown || erasInclude(i.Eras, j.era, j.version) {
			out[i.Family] = true
		}
	}
	return out
}

// erasInclude reports whether a code of the registry's eras applies to a
// session of era e and version v ("" when not known: any of the era's).
func erasInclude(eras string, e Era, v string) bool {
	if v == "" && e == EraModern {
		v = V20260728
	}
	modern := e == EraModern || v >= V20260728
	switch eras {
	case wire.EraLegacyOnly:
		return !modern
	case wire.EraModernOnly:
		return modern
	case wire.EraSince0618:
		return v == "" || v >= V20250618
	case wire.EraOnly1125:
		return v == "" && !modern || v == V20251125
	case wire.EraSince1125:
		return v == "" || v >= V20251125
	}
	return true
}

// judgedName is how many frames of the server the family named judged.
func (j *Judge) judgedName(name string) int {
	for f, n := range familyNames {
		if n == name {
			return j.judged[f]
		}
	}
	return 0
}

// Exercised lists the families that judged something so far, sorted.
func (j *Judge) Exercised() []string {
	var out []string
	for f, n := range familyNames {
		if j.judged[f] > 0 {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}
