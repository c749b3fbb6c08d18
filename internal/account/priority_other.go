//go:build !linux

package account

// lowerThreadPriority does nothing where nice is per process, not per
// thread: the hashers then run at the process's priority.
func lowerThreadPriority(int) {}
