// Package cpuquota gives `make load`'s quota mode (issue 34,
// docs/benchmarks.md) a CPU quota per process and what it used: a cgroup v1
// group in the cpu hierarchy (cpu.cfs_quota_us over cpu.cfs_period_us) and
// one of the same name in the cpuacct hierarchy (cpuacct.usage), and the CPU
// a process tree (PostgreSQL's postmaster and its backends) used, from /proc.
// Only test/cluster uses it; the roots are parameters so that its tests
// write into a temporary directory, without root.
package cpuquota

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Period is the CFS period written, in microseconds (the kernel's default).
const Period = 100000

// Group is one process's quota group: the cpu and the cpuacct directories
// of the same name.
type Group struct {
	cpu, acct string
}

// New makes the group name under root (root/cpu/name and
// root/cpuacct/name, as /sys/fs/cgroup mounts cgroup v1) with a quota of
// cores (0.25: a quarter of one core per period). Not being allowed to
// make it (not root) is an error saying so: the mode never measures
// without its quotas.
func New(root, name string, cores float64) (*Group, error) {
	quota := int64(cores * Period)
	if quota < 1000 { // the kernel's minimum, 1 ms a period
		return nil, fmt.Errorf("cpu quota %.3f cores: below the kernel's minimum (0.01)", cores)
	}
	g := &Group{cpu: filepath.Join(root, "cpu", name), acct: filepath.Join(root, "cpuacct", name)}
	for _, dir := range []string{g.cpu, g.acct} {
		if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			if errors.Is(err, fs.ErrPermission) {
				return nil, fmt.Errorf("cgroup %s cannot be created (the quota mode needs root and cgroup v1's cpu and cpuacct hierarchies): %w", dir, err)
			}
			return nil, fmt.Errorf("cgroup %s: %w", dir, err)
		}
	}
	if err := write(g.cpu, "cpu.cfs_period_us", strconv.Itoa(Period)); err != nil {
		return nil, err
	}
	if err := write(g.cpu, "cpu.cfs_quota_us", strconv.FormatInt(quota, 10)); err != nil {
		return nil, err
	}
	return g, nil
}

// Add moves the process (all its threads: cgroup.procs) into the group.
func (g *Group) Add(pid int) error {
	for _, dir := range []string{g.cpu, g.acct} {
		if err := write(dir, "cgroup.procs", strconv.Itoa(pid)); err != nil {
			return err
		}
	}
	return nil
}

// Usage is the CPU time the group's processes used since it was made
// (cpuacct.usage, nanoseconds).
func (g *Group) Usage() (time.Duration, error) {
	raw, err := os.ReadFile(filepath.Join(g.acct, "cpuacct.usage"))
	if err != nil {
		return 0, err
	}
	ns, err := strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s/cpuacct.usage: %w", g.acct, err)
	}
	return time.Duration(ns), nil
}

// Throttled is how many periods the quota held the group back
// (cpu.stat's nr_throttled): above 0, the quota bit.
func (g *Group) Throttled() (int64, error) {
	raw, err := os.ReadFile(filepath.Join(g.cpu, "cpu.stat"))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if k, v, ok := strings.Cut(line, " "); ok && k == "nr_throttled" {
			return strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
	}
	return 0, fmt.Errorf("%s/cpu.stat: no nr_throttled", g.cpu)
}

// Remove deletes the group's directories (its processes have exited).
func (g *Group) Remove() error {
	return errors.Join(os.Remove(g.cpu), os.Remove(g.acct))
}

func write(dir, file, value string) error {
	if err := os.WriteFile(filepath.Join(dir, file), []byte(value), 0o644); err != nil {
		return fmt.Errorf("cgroup %s/%s = %s: %w", dir, file, value, err)
	}
	return nil
}

// TreeCPU is the user and system CPU time (from procRoot, /proc) of pid,
// of its live children, and of its children that exited (its cutime and
// cstime): for PostgreSQL's postmaster, the backends' time. tick is the
// length of a clock tick (USER_HZ: 10 ms on Linux).
func TreeCPU(procRoot string, pid int, tick time.Duration) (time.Duration, error) {
	entries, err := os.ReadDir(procRoot)
	if err != nil {
		return 0, err
	}
	var total int64
	found := false
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := readStat(filepath.Join(procRoot, e.Name(), "stat"))
		if err != nil {
			continue // exited since the listing
		}
		switch {
		case p == pid:
			found = true
			total += st.utime + st.stime + st.cutime + st.cstime
		case st.ppid == int64(pid):
			total += st.utime + st.stime
		}
	}
	if !found {
		return 0, fmt.Errorf("process %d is not in %s", pid, procRoot)
	}
	return time.Duration(total) * tick, nil
}

type stat struct{ ppid, utime, stime, cutime, cstime int64 }

// readStat reads proc(5)'s stat: the fields after the command's closing
// parenthesis (the command may hold spaces and parentheses).
func readStat(path string) (stat, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return stat{}, err
	}
	s := string(raw)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return stat{}, fmt.Errorf("%s: no command field", path)
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state): ppid is field 4, utime..cstime 14..17.
	if len(f) < 15 {
		return stat{}, fmt.Errorf("%s: %d fields", path, len(f)+2)
	}
	var v [5]int64
	for j, k := range []int{1, 11, 12, 13, 14} {
		n, err := strconv.ParseInt(f[k], 10, 64)
		if err != nil {
			return stat{}, fmt.Errorf("%s: field %d: %w", path, k+3, err)
		}
		v[j] = n
	}
	return stat{ppid: v[0], utime: v[1], stime: v[2], cutime: v[3], cstime: v[4]}, nil
}
