package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// selfCPU is the user and system CPU time this process has used: during
// a child's crawl, the origins' share (they serve in this process).
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return rusageCPU(&ru)
}

// rusageCPU is the user and system CPU time in ru.
func rusageCPU(ru *syscall.Rusage) time.Duration {
	return time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime))
}

// userHZ is the unit of the times in /proc/PID/stat on Linux.
const userHZ = 100

// serverCPU returns a function that reads the CPU time the PostgreSQL
// server at dsn has used so far: its postmaster's own, that of its live
// processes, and that of the backends that have exited (the
// postmaster's children's, which the kernel adds up as it reaps them).
// It needs the server on this machine and /proc; otherwise ok is false.
func serverCPU(ctx context.Context, dsn string) (read func() time.Duration, ok bool) {
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, false
	}
	defer c.Close(context.Background())
	var dir string
	if c.QueryRow(ctx, `SELECT setting FROM pg_settings WHERE name = 'data_directory'`).Scan(&dir) != nil {
		return nil, false
	}
	b, err := os.ReadFile(filepath.Join(dir, "postmaster.pid"))
	if err != nil {
		return nil, false
	}
	pid := strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0])
	if _, ok := procTimes(pid); !ok {
		return nil, false
	}
	return func() time.Duration {
		own, _ := procTimes(pid)
		total := own.self + own.children
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			if t, ok := procTimes(e.Name()); ok && t.ppid == pid {
				total += t.self
			}
		}
		return total
	}, true
}

// procStat is what procTimes reads of /proc/PID/stat.
type procStat struct {
	ppid           string
	self, children time.Duration
}

// procTimes reads the parent and the CPU times of process pid.
func procTimes(pid string) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return procStat{}, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command's name may hold spaces
	if i < 0 {
		return procStat{}, false
	}
	f := strings.Fields(s[i+1:]) // from field 3, the state
	if len(f) < 15 {
		return procStat{}, false
	}
	tick := func(k int) time.Duration {
		n, _ := strconv.ParseInt(f[k], 10, 64)
		return time.Duration(n) * time.Second / userHZ
	}
	// Fields 4 (ppid), 14-15 (utime, stime), 16-17 (cutime, cstime).
	return procStat{ppid: f[1], self: tick(11) + tick(12), children: tick(13) + tick(14)}, true
}
