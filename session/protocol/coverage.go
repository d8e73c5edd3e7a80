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
	Held        Status = "held"         // exercised, and no finding of the family
	Broken      Status = "broken"       // at least one warning or error of the family
	NotObserved Status = "not-observed" // no frame gave its rules anything to judge
)

// FamilyStatus is one line of the held / broken / not observed table.
type FamilyStatus struct {
	Family   string `json:"family"`
	Title    string `json:"title"`
	Status   Status `json:"status"`
	Findings int    `json:"findings"` // warnings and errors of the family
}

// Coverage tells, per family in registry order, whether its rules were
// exercised and held, were broken, or were not observed. counts are the
// warnings and errors raised in the session by code (from any judge: wire,
// tracker, this one); a note never breaks a family.
func (j *Judge) Coverage(counts map[string]int) []FamilyStatus {
	byFamily := map[string]int{}
	for code, n := range counts {
		if i, ok := wire.Lookup(code); ok {
			byFamily[i.Family] += n
		}
	}
	var out []FamilyStatus
	for _, fam := range wire.Families() {
		st := FamilyStatus{Family: fam.Name, Title: fam.Title, Status: NotObserved, Findings: byFamily[fam.Name]}
		switch {
		case st.Findings > 0:
			st.Status = Broken
		case j.exercisedName(fam.Name):
			st.Status = Held
		}
		out = append(out, st)
	}
	return out
}

func (j *Judge) exercisedName(name string) bool {
	for f, n := range familyNames {
		if n == name {
			return j.exercised&(1<<f) != 0
		}
	}
	return false
}

// Exercised lists the families exercised so far, sorted.
func (j *Judge) Exercised() []string {
	var out []string
	for f, n := range familyNames {
		if j.exercised&(1<<f) != 0 {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}
