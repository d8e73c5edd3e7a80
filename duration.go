package main

import (
	"flag"
	"fmt"
	"strconv"
	"time"
)

// durationValue is a flag.Value for a duration that says what to write when
// a number comes without its unit ("--timeout 5": add a unit: 5s), where
// flag.Duration says only "missing unit in duration".
type durationValue time.Duration

func (d *durationValue) String() string { return time.Duration(*d).String() }

func (d *durationValue) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		if _, nerr := strconv.ParseFloat(s, 64); nerr == nil {
			return fmt.Errorf("%q has no unit: add a unit: %ss (or ms, m)", s, s)
		}
		return fmt.Errorf("%q is not a duration (want e.g. 30s, 500ms, 2m)", s)
	}
	*d = durationValue(v)
	return nil
}

// durationVar is fs.DurationVar with durationValue's wording of errors.
func durationVar(fs *flag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	fs.Var((*durationValue)(p), name, usage+" (a `duration` with its unit: 30s, 500ms, 2m)")
}
