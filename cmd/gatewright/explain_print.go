package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/values"
)

// explanation is what explain prints.
type explanation struct {
	Gateway      string              `json:"gateway"`
	HTTPRoute    string              `json:"httpRoute,omitempty"`
	GatewayClass string              `json:"gatewayClass"`
	Blueprint    string              `json:"blueprint"`
	Values       map[string]any      `json:"values"`
	Provenance   []values.Leaf       `json:"provenance"`
	Policies     []policyExplanation `json:"policies"`
	// Error is set when the values violate the blueprint's valuesSchema.
	Error string `json:"error,omitempty"`
}

type policyExplanation struct {
	values.PolicyReport
	State values.State `json:"state"`
}

// newExplanation explains res; a valuesSchema error is explained too and returned.
func newExplanation(gw *gatewayv1.Gateway, route *gatewayv1.HTTPRoute, blueprint string, res *values.Result, err error) (*explanation, error) {
	var schemaErr *values.SchemaError
	if err != nil && !errors.As(err, &schemaErr) {
		return nil, err
	}
	exp := &explanation{
		Gateway:      gw.Namespace + "/" + gw.Name,
		GatewayClass: string(gw.Spec.GatewayClassName),
		Blueprint:    blueprint,
		Values:       res.Values,
		Provenance:   res.Provenance,
		Policies:     []policyExplanation{},
	}
	if exp.Provenance == nil {
		exp.Provenance = []values.Leaf{}
	}
	if route != nil {
		exp.HTTPRoute = route.Namespace + "/" + route.Name
	}
	for _, report := range res.Policies {
		exp.Policies = append(exp.Policies, policyExplanation{PolicyReport: report, State: report.State()})
	}
	if err != nil {
		exp.Error = err.Error()
	}
	return exp, err
}

func (e *explanation) print(out io.Writer, format string) error {
	if format != "" {
		return printObject(out, e, format)
	}
	subject := "Gateway " + e.Gateway
	if e.HTTPRoute != "" {
		subject = "HTTPRoute " + e.HTTPRoute + " on Gateway " + e.Gateway
	}
	fmt.Fprintf(out, "%s (GatewayClass %s, GatewayClassBlueprint %s)\n\nValues:\n", subject, e.GatewayClass, e.Blueprint)
	if err := printProvenance(out, e.Provenance, ""); err != nil {
		return err
	}
	fmt.Fprintln(out, "\nPolicies:")
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "POLICY\tLEVELS\tSTATE\tVALUES NOT IN EFFECT")
	for _, p := range e.Policies {
		levels := make([]string, len(p.Levels))
		for i, l := range p.Levels {
			levels[i] = strconv.Itoa(int(l))
		}
		fmt.Fprintf(w, "%s\t%s\t%s", p.Source, strings.Join(levels, ","), p.State)
		for i, o := range p.Overridden {
			if i > 0 {
				fmt.Fprint(w, "\t\t")
			}
			fmt.Fprintf(w, "\t%s: its %s lost to the %s of %s (level %d)\n", o.Path, o.As, o.By.As, o.By.Source, o.By.Level)
		}
		if len(p.Overridden) == 0 {
			fmt.Fprintln(w)
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if e.Error != "" {
		fmt.Fprintf(out, "\nThe values are invalid: %s\n", e.Error)
	}
	return nil
}
