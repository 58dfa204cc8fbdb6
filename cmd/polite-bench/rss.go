package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// runChild runs cmd and returns its peak RSS in KiB and its CPU time.
//
// The peak is the highest VmHWM read from /proc/PID/status while the
// child runs, once it is the binary (the name matches): the rusage
// maxrss that wait4 reports would not do, since Linux counts in it the
// memory of the process the child was started from (before exec it
// shares the bench's), so after the pacing scenarios every child would
// read as big as the bench. Without /proc it falls back to maxrss.
func runChild(cmd *exec.Cmd) (rssKiB int64, cpu time.Duration, err error) {
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	name := filepath.Base(cmd.Path)
	if len(name) > 15 {
		name = name[:15] // the kernel keeps 15 bytes of a command's name
	}
	done := make(chan struct{})
	peak := make(chan int64, 1)
	go func() {
		var hwm int64
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			if kib, ok := vmHWM(cmd.Process.Pid, name); ok && kib > hwm {
				hwm = kib
			}
			select {
			case <-done:
				peak <- hwm
				return
			case <-tick.C:
			}
		}
	}()
	err = cmd.Wait()
	close(done)
	rssKiB = <-peak
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		cpu = rusageCPU(ru)
		if rssKiB == 0 {
			rssKiB = int64(ru.Maxrss) // KiB on Linux
		}
	}
	return rssKiB, cpu, err
}

// vmHWM reads the peak resident set (KiB) of process pid, when it is
// running the program called name.
func vmHWM(pid int, name string) (int64, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	var hwm int64
	named := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, _ := bytes.Cut(sc.Bytes(), []byte(":"))
		switch string(k) {
		case "Name":
			named = string(bytes.TrimSpace(v)) == name
		case "VmHWM":
			f := bytes.Fields(v)
			if len(f) > 0 {
				hwm, _ = strconv.ParseInt(string(f[0]), 10, 64)
			}
		}
	}
	return hwm, named && hwm > 0
}
