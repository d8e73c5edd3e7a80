package main

import (
	"fmt"
	"strings"

	"linesman/wire"
)

var cmdExplain = &command{
	name:      "explain",
	usageLine: "linesman explain [CODE|FAMILY]",
	run:       runExplain,
	long:      helpText("explain"),
}

// runExplain prints the finding registry, whole, one family or one code
// at a time.
func runExplain(cmd *command, args []string, io stdio) int {
	fs := cmd.newFlagSet(io)
	jsonOut := fs.Bool("json", false, "print the registry entries as JSON")
	codes, status, ok := parseFlagsAnywhere(fs, args)
	if !ok {
		return status
	}
	var infos []wire.Info
	if len(codes) == 0 || (len(codes) == 1 && wire.IsFamily(codes[0])) {
		family := strings.Join(codes, "")
		if !*jsonOut {
			wire.WriteFamilies(io.out, family)
			return exitOK
		}
		infos, codes = wire.FamilyCodes(family), nil
	}
	for _, code := range codes {
		info, ok := wire.Lookup(code)
		if !ok {
			fmt.Fprintf(io.err, "linesman explain: unknown finding code %q\n", code)
			if near := wire.NearCodes(code); len(near) > 0 {
				fmt.Fprintf(io.err, "did you mean: %s\n", strings.Join(near, ", "))
			}
			fmt.Fprintf(io.err, "known codes: %s\n", strings.Join(wire.CodeNames(), ", "))
			return exitUsage
		}
		infos = append(infos, info)
	}
	if !*jsonOut {
		wire.WriteExplanations(io.out, infos)
		return exitOK
	}
	if err := wire.WriteExplanationsJSON(io.out, infos); err != nil {
		fmt.Fprintln(io.err, "linesman explain:", err)
		return exitFindings
	}
	return exitOK
}
