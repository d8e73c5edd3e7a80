// Package reaper is the containment helper of a server's process tree on
// Linux: the linesman binary re-run as [Arg0] between linesman and the
// server, a subreaper that starts the server, relays its pid and exit
// status, and kills whatever is left of its tree when told, or when
// linesman dies (see session/reaper_linux.go for the protocol and the
// reasons). It also reads /proc for the session package.
//
// It is a package of its own, importing only the standard library's
// process-level packages and golang.org/x/sys/unix, for start-up: Go
// initialises packages in dependency order, lexically first among the
// ready ones, so this one's init — which runs the helper and exits when
// argv[0] is [Arg0] — comes right after package os, before the packages of
// the UI (lipgloss's terminal detection, the clipboard's PATH search), the
// finding registry and the rest, which a helper never uses. Keep its
// imports that way: one import of a heavier package of ours would put the
// whole of linesman's initialisation back in front of every server start.
package reaper
