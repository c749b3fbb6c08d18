package cpuquota

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A temporary directory stands for /sys/fs/cgroup: New writes the period
// and the quota, Add the pid in both hierarchies, Usage reads cpuacct.usage.
func TestGroupWritesQuotaAndReadsUsage(t *testing.T) {
	root := t.TempDir()
	for _, h := range []string{"cpu", "cpuacct"} {
		if err := os.Mkdir(filepath.Join(root, h), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	g, err := New(root, "app1", 0.25)
	if err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{"cpu/app1/cpu.cfs_period_us": "100000", "cpu/app1/cpu.cfs_quota_us": "25000"} {
		if got := read(t, root, file); got != want {
			t.Errorf("%s = %q, want %q", file, got, want)
		}
	}
	if err := g.Add(4321); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"cpu/app1/cgroup.procs", "cpuacct/app1/cgroup.procs"} {
		if got := read(t, root, file); got != "4321" {
			t.Errorf("%s = %q, want 4321", file, got)
		}
	}
	writeFile(t, filepath.Join(root, "cpuacct/app1/cpuacct.usage"), "1500000000\n")
	if u, err := g.Usage(); err != nil || u != 1500*time.Millisecond {
		t.Errorf("Usage = %v, %v; want 1.5s", u, err)
	}
	writeFile(t, filepath.Join(root, "cpu/app1/cpu.stat"), "nr_periods 40\nnr_throttled 7\nthrottled_time 123\n")
	if n, err := g.Throttled(); err != nil || n != 7 {
		t.Errorf("Throttled = %d, %v; want 7", n, err)
	}
}

func TestGroupRefusesATinyQuotaAndAMissingHierarchy(t *testing.T) {
	if _, err := New(t.TempDir(), "app1", 0.001); err == nil || !strings.Contains(err.Error(), "minimum") {
		t.Errorf("quota 0.001: %v, want the minimum's error", err)
	}
	if _, err := New(t.TempDir(), "app1", 0.25); err == nil {
		t.Error("no cpu hierarchy under the root: no error")
	}
}

// Not root, a read-only hierarchy refuses the group, and the error says
// what the mode needs.
func TestGroupSaysWhenItMayNotBeMade(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root may write a read-only directory")
	}
	root := t.TempDir()
	for _, h := range []string{"cpu", "cpuacct"} {
		if err := os.Mkdir(filepath.Join(root, h), 0o555); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := New(root, "app1", 0.25); err == nil || !strings.Contains(err.Error(), "needs root") {
		t.Errorf("read-only hierarchy: %v, want the needs-root error", err)
	}
}

// TreeCPU sums the postmaster's own and reaped children's time and its
// live children's, and leaves other processes out.
func TestTreeCPUSumsAProcessAndItsChildren(t *testing.T) {
	proc := t.TempDir()
	stat := func(pid, line string) {
		if err := os.Mkdir(filepath.Join(proc, pid), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(proc, pid, "stat"), line)
	}
	// pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime ...
	stat("100", "100 (postgres) S 1 100 100 0 -1 0 0 0 0 0 10 5 3 2 20 0 1 0")
	stat("101", "101 (postgres: postgres guichet 127.0.0.1(5) idle) S 100 100 100 0 -1 0 0 0 0 0 40 20 0 0 20 0 1 0")
	stat("102", "102 (postgres) S 100 100 100 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0")
	stat("200", "200 (guichet) S 1 200 200 0 -1 0 0 0 0 0 500 500 0 0 20 0 1 0")
	writeFile(t, filepath.Join(proc, "uptime"), "1 1")
	got, err := TreeCPU(proc, 100, 10*time.Millisecond)
	if want := (10 + 5 + 3 + 2 + 40 + 20 + 1 + 1) * 10 * time.Millisecond; err != nil || got != want {
		t.Errorf("TreeCPU = %v, %v; want %v", got, err, want)
	}
	if _, err := TreeCPU(proc, 999, 10*time.Millisecond); err == nil {
		t.Error("a pid not in /proc: no error")
	}
}

func read(t *testing.T, root, file string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
