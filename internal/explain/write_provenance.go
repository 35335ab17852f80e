package explain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/gatewright/gatewright/internal/values"
)

// WriteProvenance writes leaves as tables: the values, marking those among unused, with
// where each came from, then the values an Atomic or Merge block dropped, and why.
// `gatewright values --provenance` prints them too.
func WriteProvenance(out io.Writer, leaves []values.Leaf, unused []values.UnusedValue) error {
	var kept, dropped []values.Leaf
	for _, leaf := range leaves {
		if leaf.DroppedBy != nil {
			dropped = append(dropped, leaf)
		} else {
			kept = append(kept, leaf)
		}
	}
	if err := writeKept(out, kept, unused); err != nil {
		return err
	}
	if len(dropped) == 0 {
		return nil
	}
	fmt.Fprintln(out, "\nDropped (not in the values):")
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "PATH\tVALUE\tSOURCE\tAS\tLEVEL\tSTRATEGY\tREASON")
	for _, leaf := range dropped {
		raw, err := valueText(leaf.Value)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", leaf.Path, raw, leaf.Source, leaf.As, leaf.Level, leaf.Strategy, dropReason(leaf))
	}
	return w.Flush()
}

// writeKept writes the table of the leaves in the values; a row whose value is among
// unused says so in a last column, NOTE, which is there only then.
func writeKept(out io.Writer, kept []values.Leaf, unused []values.UnusedValue) error {
	notes := map[string]string{}
	for _, u := range unused {
		notes[u.Path] = "unused"
		if u.Suggestion != "" {
			notes[u.Path] += " (did you mean " + u.Suggestion + "?)"
		}
	}
	// Every row ends its STRATEGY cell with a tab when there are notes, so that the
	// table aligns; the padding this leaves at the end of rows without one is trimmed.
	var table bytes.Buffer
	w := tabwriter.NewWriter(&table, 0, 4, 2, ' ', 0)
	row := "%s\t%s\t%s\t%s\t%d\t%s\n"
	header := "PATH\tVALUE\tSOURCE\tAS\tLEVEL\tSTRATEGY"
	if len(notes) > 0 {
		row = "%s\t%s\t%s\t%s\t%d\t%s\t%s\n"
		header += "\tNOTE"
	}
	fmt.Fprintln(w, header)
	for _, leaf := range kept {
		value := "<unset>"
		if !leaf.Unset {
			raw, err := valueText(leaf.Value)
			if err != nil {
				return err
			}
			value = string(raw)
		}
		args := []any{leaf.Path, value, leaf.Source, leaf.As, leaf.Level, leaf.Strategy}
		if len(notes) > 0 {
			args = append(args, notes[leaf.Path])
		}
		fmt.Fprintf(w, row, args...)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return writeTrimmed(out, table.String())
}

// dropReason says why a dropped value is not in the values: an override took the place
// of the values below it whole, or the value's own default gave way whole.
func dropReason(leaf values.Leaf) string {
	by := leaf.DroppedBy
	if by.As == values.Override {
		return fmt.Sprintf("replaced whole by the %s override of %s (level %d)", by.Strategy, by.Source, by.Level)
	}
	return fmt.Sprintf("its %s default gave way to the %s of %s (level %d)", leaf.Strategy, by.As, by.Source, by.Level)
}

// writeTrimmed writes the lines of a table without the padding at their ends.
func writeTrimmed(out io.Writer, table string) error {
	for _, line := range strings.Split(strings.TrimSuffix(table, "\n"), "\n") {
		if _, err := fmt.Fprintln(out, strings.TrimRight(line, " ")); err != nil {
			return err
		}
	}
	return nil
}

// valueText is a value as the tables show it: one line of JSON, with <, > and & as they
// are ("<private>", not "\u003cprivate\u003e").
func valueText(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
