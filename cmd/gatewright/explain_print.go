package main

import (
	"io"

	"github.com/gatewright/gatewright/internal/explain"
)

// printValuesExplanation prints exp in format: yaml, json, or "" for explain's tables.
func printValuesExplanation(out io.Writer, exp *explain.ValuesExplanation, format string) error {
	if format != "" {
		return printObject(out, exp, format)
	}
	return explain.WriteValues(out, exp)
}

// printRecorded prints exp, read from the record src, in format.
func printRecorded(out io.Writer, src *explain.RecordSource, exp *explain.ValuesExplanation, format string) error {
	if format != "" {
		return printObject(out, explain.RecordedExplanation{ValuesExplanation: exp, RecordedIn: src}, format)
	}
	return explain.WriteRecorded(out, src, exp)
}

// printPlacement prints pl in format.
func printPlacement(out io.Writer, pl *explain.Placement, format string) error {
	if format != "" {
		return printObject(out, pl, format)
	}
	return explain.WritePlacement(out, pl)
}
