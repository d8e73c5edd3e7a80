package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
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

// sizeValue is a flag.Value for a number of bytes, written plainly or with
// a binary unit: 1048576, 512KiB, 256MiB, 1GiB (K, M, G the same).
type sizeValue int64

func (s *sizeValue) String() string {
	switch v := int64(*s); {
	case v > 0 && v%(1<<30) == 0:
		return strconv.FormatInt(v>>30, 10) + "GiB"
	case v > 0 && v%(1<<20) == 0:
		return strconv.FormatInt(v>>20, 10) + "MiB"
	case v > 0 && v%(1<<10) == 0:
		return strconv.FormatInt(v>>10, 10) + "KiB"
	default:
		return strconv.FormatInt(v, 10)
	}
}

func (s *sizeValue) Set(text string) error {
	num, shift := text, 0
	for _, u := range []struct {
		suffix string
		shift  int
	}{{"KiB", 10}, {"MiB", 20}, {"GiB", 30}, {"K", 10}, {"M", 20}, {"G", 30}} {
		if n, ok := strings.CutSuffix(text, u.suffix); ok {
			num, shift = n, u.shift
			break
		}
	}
	v, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if err != nil || v < 0 || v > (1<<62)>>shift {
		return fmt.Errorf("%q is not a size (want bytes, or e.g. 512KiB, 256MiB, 1GiB)", text)
	}
	*s = sizeValue(v << shift)
	return nil
}

// sizeVar defines a size flag (see sizeValue).
func sizeVar(fs *flag.FlagSet, p *int64, name string, value int64, usage string) {
	*p = value
	fs.Var((*sizeValue)(p), name, usage+" (a `size`: bytes, or 512KiB, 256MiB, 1GiB)")
}

// listFlag collects a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	if v == "" {
		return fmt.Errorf("want a non-empty value")
	}
	*l = append(*l, v)
	return nil
}
