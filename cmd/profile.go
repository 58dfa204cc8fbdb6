package cmd

import (
	"os"
	"runtime"
	"runtime/pprof"
)

// profile starts the profiles that the environment asks for, for the
// benchmark's measurements (docs/benchmarks.md), and returns what stops
// them: POLITE_CPUPROFILE names a file for a CPU profile of the whole
// process, POLITE_MEMPROFILE one for its allocations (every allocation
// sampled at the default rate, written at exit). Neither is documented for
// users; a file that cannot be created leaves its profile out.
func profile() (stop func()) {
	var stops []func()
	if path := os.Getenv("POLITE_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil && pprof.StartCPUProfile(f) == nil {
			stops = append(stops, func() { pprof.StopCPUProfile(); f.Close() })
		}
	}
	if path := os.Getenv("POLITE_MEMPROFILE"); path != "" {
		stops = append(stops, func() {
			if f, err := os.Create(path); err == nil {
				runtime.GC()
				pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
		})
	}
	return func() {
		for _, s := range stops {
			s()
		}
	}
}
