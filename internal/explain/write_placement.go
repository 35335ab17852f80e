package explain

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// contextsNamed bounds how many contexts of one outcome the table names; -o json|yaml
// names them all.
const contextsNamed = 5

// valueShown bounds how much of a value the table quotes.
const valueShown = 60

// WritePlacement writes p as the tables `gatewright explain gatewayconfig|gatewayclassconfig`
// prints: the values the policy sets, then per target its conditions and the contexts
// it reaches, grouped by outcome.
func WritePlacement(out io.Writer, p *Placement) error {
	fmt.Fprintf(out, "%s\n", p.Policy)
	if p.Partial {
		fmt.Fprintf(out, "PARTIAL: computed without what could not be read; contexts may be missing and the verdicts are judged over those shown:\n  cannot read %s\n", strings.Join(p.Unread, "\n  cannot read "))
	}
	if p.Invalid != "" {
		fmt.Fprintf(out, "\nThe policy cannot be used, no values are computed with it: %s\n", p.Invalid)
	}
	if len(p.Values) > 0 {
		fmt.Fprintln(out, "\nValues it sets:")
		w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "PATH\tAS\tVALUE")
		for _, v := range p.Values {
			fmt.Fprintf(w, "%s\t%s\t%s\n", v.Path, v.As, shortValue(v.Value))
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	for _, t := range p.Targets {
		fmt.Fprintf(out, "\nTarget %s: Programmed=%s %s: %s\n", t.Target, t.Programmed.Status, t.Programmed.Reason, t.Programmed.Message)
		if a := t.Accepted; a != nil {
			fmt.Fprintf(out, "Accepted=%s %s: %s\n", a.Status, a.Reason, a.Message)
		}
		fmt.Fprintf(out, "It reaches %d context(s)", t.Contexts)
		if t.Contexts > 0 {
			fmt.Fprintf(out, ", with %d outcome(s)", len(t.Outcomes))
		}
		fmt.Fprintln(out, ".")
		for _, o := range t.Outcomes {
			if err := writeOutcome(out, o); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeOutcome writes the contexts of o, the first contextsNamed of them named, and what
// became of each value there.
func writeOutcome(out io.Writer, o Outcome) error {
	named := o.Contexts[:min(len(o.Contexts), contextsNamed)]
	fmt.Fprintf(out, "\n%d context(s): %s", o.Count, strings.Join(named, ", "))
	if more := o.Count - len(named); more > 0 {
		fmt.Fprintf(out, " and %d more", more)
	}
	fmt.Fprintln(out)
	if len(o.Revisions) > 0 {
		revisions := make([]string, len(o.Revisions))
		for i, n := range o.Revisions {
			revisions[i] = strconv.FormatInt(n, 10)
		}
		fmt.Fprintf(out, "  computed with blueprint revision %s\n", strings.Join(revisions, ", "))
	}
	switch {
	case o.NotComputed != "":
		fmt.Fprintf(out, "  values not computed: %s\n", o.NotComputed)
		return nil
	case o.TakesNoPart:
		fmt.Fprintln(out, "  the policy takes no part in their values")
		return nil
	}
	for _, note := range o.Notes {
		fmt.Fprintf(out, "  %s\n", note)
	}
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "  PATH\tAS\tOUTCOME")
	for _, v := range o.Values {
		fmt.Fprintf(w, "  %s\t%s\t%s\n", v.Path, v.As, v.say())
	}
	return w.Flush()
}

// say says in words what became of the value.
func (v ValueFate) say() string {
	var said string
	switch v.Fate {
	case fateInEffect:
		said = "in effect"
	case fateWhenFalse:
		said = "not applied: its when is false"
	case fateOverridden:
		strategy := ""
		if v.Strategy != gatewrightv1alpha1.StrategyPatch {
			strategy = " (" + string(v.Strategy) + ")"
		}
		said = fmt.Sprintf("overridden by the %s of %s (level %d)%s", v.By.As, v.By.Source, v.By.Level, strategy)
	case fateUnsetRefused:
		said = fmt.Sprintf("unset refused: the blueprint forbids tenants to unset what the %s of %s (level %d) set", v.By.As, v.By.Source, v.By.Level)
	case fateRefusedBySchema:
		said = "refused by the valuesSchema: " + v.Message
	}
	if v.FailedClosed != "" {
		said += "; its when could not be evaluated, so it applies (fails closed): " + v.FailedClosed
	}
	return said
}

// shortValue is value as JSON, its beginning only when long.
func shortValue(value any) string {
	data, _ := json.Marshal(value) // values decoded from JSON always encode again
	if len(data) > valueShown {
		return string(data[:valueShown]) + fmt.Sprintf("... (%d bytes)", len(data))
	}
	return string(data)
}
