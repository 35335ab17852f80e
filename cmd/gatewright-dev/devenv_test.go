package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestDevLogsErrorsToTheTerminalToo(t *testing.T) {
	var file, terminal bytes.Buffer
	log := devLogger(&file, &terminal)
	log.Info("Starting EventSource")
	log.Error(errors.New("no matches for kind \"Certificate\""), "Reconciler error")

	if got := file.String(); !strings.Contains(got, "Starting EventSource") || !strings.Contains(got, "Reconciler error") {
		t.Errorf("the log file lacks a line:\n%s", got)
	}
	got := terminal.String()
	if strings.Count(got, "\n") != 1 || !strings.Contains(got, "Reconciler error") || !strings.Contains(got, `no matches for kind \"Certificate\"`) {
		t.Errorf("the terminal must get the error, on one line, and nothing else; got:\n%s", got)
	}
}
