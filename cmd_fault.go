package main

import (
	"flag"
	"strings"

	"linesman/session"
	"linesman/session/fault"
)

// faultFlag collects repeated --fault SPEC flags, each parsed as it comes.
type faultFlag []fault.Spec

func (f *faultFlag) String() string {
	var raw []string
	for _, sp := range *f {
		raw = append(raw, sp.Raw)
	}
	return strings.Join(raw, " ")
}

func (f *faultFlag) Set(v string) error {
	sp, err := fault.Parse(v)
	if err != nil {
		return err
	}
	*f = append(*f, sp)
	return nil
}

func registerFaults(fs *flag.FlagSet, f *faultFlag) {
	fs.Var(f, "fault", "inject a fault, KIND[:ARG][@METHOD[:NAME]][#N] (repeatable): delay:2s, drop, error:CODE[:MESSAGE], truncate, corrupt, stray (an answer's), close-stdout, kill[:SIGNAL] (as the request passes); e.g. delay:3s@tools/call:search, kill:SIGTERM#5")
}

// faultTarget is what a tap's injector logs to and acts on: its session.
func faultTarget(s *session.Session) fault.Target { return s.FaultTarget() }
