package main

import (
	"errors"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// exitUnread is the exit code of explain and tree when a read their answer depends on
// is refused, as diff's for an error: they print no answer computed without it.
const exitUnread = 2

// unreadError says which reads an answer depends on were refused (each a kind, where,
// and the permission missing) and that no answer is given without them.
type unreadError struct {
	reads []string
	err   error
}

func (e *unreadError) Error() string {
	return "cannot read what the answer depends on, so none is given (docs/install.md lists the grants a tenant needs; --partial shows what can be computed, marked partial):\n  cannot read " +
		strings.Join(e.reads, "\n  cannot read ")
}

func (e *unreadError) Unwrap() error { return e.err }

// failClosed gives err, from a command that reads the cluster, the exit code that says a
// refused read kept it from answering.
func failClosed(err error) error {
	var unread *unreadError
	var exit *exitError
	if err == nil || errors.As(err, &exit) {
		return err
	}
	if errors.As(err, &unread) || apierrors.IsForbidden(err) {
		return &exitError{code: exitUnread, err: err}
	}
	return err
}
