package main

import "errors"

// exitError is an error with its own exit code, for commands whose exit code says more
// than failure (diff: 1 for changes, 2 for an error, as kubectl diff). Silent errors
// print nothing: the command has said everything.
type exitError struct {
	code   int
	err    error
	silent bool
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// exitCode is the process's exit code for err, returned by a command: 1 unless err says
// otherwise.
func exitCode(err error) int {
	var exit *exitError
	if errors.As(err, &exit) {
		return exit.code
	}
	return 1
}
