package account

import "syscall"

// lowerThreadPriority sets the calling OS thread's nice value (on Linux,
// nice applies to one thread). Raising it needs no privilege; a failure
// leaves the thread at the process's priority, which only costs latency.
func lowerThreadPriority(nice int) {
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), nice)
}
