//go:build !unix

package postgres

// pidAlive cannot tell on this system, so it says yes: a worker whose
// process may be alive keeps its leases until they run out.
func pidAlive(pid int) bool { return pid > 0 }
