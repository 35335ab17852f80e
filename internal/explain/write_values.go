package explain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/values"
)

// WriteValues writes e as the tables `gatewright explain gateway|<route kind>` prints: the
// values with where each came from, then the policies with their state and the values
// of theirs that are not in effect.
func WriteValues(out io.Writer, e *ValuesExplanation) error {
	subject := "Gateway " + e.Gateway
	if e.HTTPRoute != "" {
		subject = e.Route() + " on Gateway " + e.Gateway
	}
	fmt.Fprintf(out, "%s (GatewayClass %s, GatewayClassBlueprint %s)\n", subject, e.GatewayClass, e.Blueprint)
	if e.Revision > 0 {
		fmt.Fprintf(out, "Blueprint revision %d%s\n", e.Revision, e.rollingOut())
	}
	fmt.Fprint(out, "\nValues:\n")
	if err := WriteProvenance(out, e.Provenance, e.Unused); err != nil {
		return err
	}
	fmt.Fprintln(out, "\nPolicies:")
	// Every row ends its STATE cell with a tab, notes or not, so that the whole table
	// aligns; the padding this leaves at the end of rows without notes is trimmed.
	var table bytes.Buffer
	w := tabwriter.NewWriter(&table, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "POLICY\tLEVELS\tSTATE\tVALUES NOT IN EFFECT")
	for _, p := range e.Policies {
		levels := make([]string, len(p.Levels))
		for i, l := range p.Levels {
			levels[i] = strconv.Itoa(int(l))
		}
		fmt.Fprintf(w, "%s\t%s\t%s", p.Source, strings.Join(levels, ","), p.State)
		notes := policyNotes(p.PolicyReport)
		for _, u := range p.Unused {
			note := u.Path + ": not read by the blueprint's templates nor in its valuesSchema"
			if u.Suggestion != "" {
				note += "; did you mean " + u.Suggestion + "?"
			}
			notes = append(notes, note)
		}
		for i, note := range notes {
			if i > 0 {
				fmt.Fprint(w, "\t\t")
			}
			fmt.Fprintf(w, "\t%s\n", note)
		}
		if len(notes) == 0 {
			fmt.Fprintln(w, "\t")
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := writeTrimmed(out, table.String()); err != nil {
		return err
	}
	if e.Error != "" {
		fmt.Fprintf(out, "\nThe values are invalid: %s\n", e.Error)
	}
	return nil
}

// WriteRecorded writes e, read from the record src, saying first where it comes from.
func WriteRecorded(out io.Writer, src *RecordSource, e *ValuesExplanation) error {
	fmt.Fprintf(out, "From Rendering %s, recorded at %s by the controller (%s)\n", src.Rendering, src.RecordedAt.UTC().Format(time.RFC3339), src.Because)
	fmt.Fprintln(out, "The record keeps each policy's state, not which of its values lost to what.")
	if src.Cut != "" {
		fmt.Fprintf(out, "The record is cut: %s\n", src.Cut)
	}
	return WriteValues(out, e)
}

// rollingOut says, after the revision the Gateway runs, which newer one the blueprint
// has and where its rollout stands.
func (e *ValuesExplanation) rollingOut() string {
	switch {
	case e.TargetRevision == 0:
		return ""
	case e.RolloutPhase == gatewrightv1alpha1.RolloutRolledBack:
		return fmt.Sprintf(" (target %d rolled back)", e.TargetRevision)
	case e.RolloutPhase == gatewrightv1alpha1.RolloutPaused:
		return fmt.Sprintf(" (target %d rolling out, paused)", e.TargetRevision)
	}
	return fmt.Sprintf(" (target %d rolling out)", e.TargetRevision)
}

// policyNotes says, one line each, which values of a policy did not take effect and
// why: lost to another block, a condition that was false or failed, an unset refused.
func policyNotes(r values.PolicyReport) []string {
	refused := map[string]bool{}
	for _, u := range r.RefusedUnsets {
		refused[u.Path+" "+string(u.As)] = true
	}
	var notes []string
	for _, o := range r.Overridden {
		if !refused[o.Path+" "+string(o.As)] { // the refusal below says more
			notes = append(notes, lossNote(o))
		}
	}
	for _, n := range r.NotApplied {
		notes = append(notes, fmt.Sprintf("its %s did not apply at level %d: its when is false", n.As, n.Level))
	}
	for _, f := range r.FailedClosed {
		notes = append(notes, failedClosedNote(f))
	}
	for _, u := range r.RefusedUnsets {
		value, _ := json.Marshal(u.Value) // values decoded from JSON always encode again
		notes = append(notes, fmt.Sprintf("%s: its %s may not remove %s, set by the %s of %s (level %d): the blueprint forbids tenants to unset", u.Path, u.As, value, u.SetBy.As, u.SetBy.Source, u.SetBy.Level))
	}
	return notes
}

// failedClosedNote says that a half applied because its condition could not be evaluated.
func failedClosedNote(f values.FailedCondition) string {
	return fmt.Sprintf("its %s applied at level %d because its when could not be evaluated (fails closed): %s", f.As, f.Level, f.Error)
}

// lossNote says what a value lost to, naming the strategy when it is not Patch.
func lossNote(o values.OverriddenLeaf) string {
	switch {
	case o.Strategy == gatewrightv1alpha1.StrategyPatch:
		return fmt.Sprintf("%s: its %s lost to the %s of %s (level %d)", o.Path, o.As, o.By.As, o.By.Source, o.By.Level)
	case o.By.As == values.Override:
		return fmt.Sprintf("%s: its %s lost to the %s %s of %s (level %d)", o.Path, o.As, o.Strategy, o.By.As, o.By.Source, o.By.Level)
	default:
		return fmt.Sprintf("%s: its %s %s gave way to the %s of %s (level %d)", o.Path, o.Strategy, o.As, o.By.As, o.By.Source, o.By.Level)
	}
}
