package main

import "linesman/session"

// startCapture starts recording log to the file named by flags.capture (when
// set) and returns a function that stops recording and reports any error.
// Modes that start a server call it right after the session starts.
//
// Issue 8 (capture) replaces this with the real recorder.
func startCapture(flags *commonFlags, log *session.Log, command []string) (stop func() error, err error) {
	return func() error { return nil }, nil
}
