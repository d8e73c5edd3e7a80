// Package reaper is the containment helper of a server's process tree on
// Linux: the linesman binary re-run as [Arg0] between linesman and the
// server, a subreaper that starts the server, relays its pid and exit
// status, and kills whatever is left of its tree when told, or when
// linesman dies (see session/reaper_linux.go for the protocol and the
// reasons). It also reads /proc for the session package, and starts the
// first helper at linesman's own init when the command line calls for a
// server (prespawn_linux.go).
//
// It is a module of its own, 0linesman/reaper, replaced by this directory
// in linesman's go.mod, for start-up alone. Go initialises packages in
// import-path order: at each step the first package, by path, whose
// imports are all initialised. Under linesman/session/reaper it came after
// every ready package that sorts before "linesman" (charm.land/...,
// github.com/..., golang.org/...): most of the UI's libraries ran their
// init in every helper, before the server could start. 0linesman/reaper
// sorts before them all, and imports only the standard library's
// process-level packages (not fmt, not golang.org/x/sys/unix: sys_linux.go
// makes the few calls package syscall lacks), so its init — which runs the
// helper and exits when argv[0] is [Arg0] — comes within the first two
// dozen packages. Keep it that way: one import of a heavier package would
// put the rest of linesman's initialisation back in front of every server
// start (TestReaperHelperSkipsLinesmansInit). Its tests live in the
// session package (reaper_test.go, prespawn_test.go), which drives it.
package reaper
