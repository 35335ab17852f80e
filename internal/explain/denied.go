package explain

import (
	"slices"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/attach"
)

// DeniedReads are the reads the caller's rights refused, each once, in order, with when
// the explanation depends on them.
type DeniedReads struct {
	lines  []string
	scopes []DenialScope
	seen   map[string]bool
}

// DenialScope says when an explanation depends on a refused read.
type DenialScope int

const (
	// Always: whatever the Gateways reached.
	Always DenialScope = iota
	// IfTakesOtherNamespaces: when a Gateway reached takes routes from other namespaces.
	IfTakesOtherNamespaces
	// IfSelectsByLabels: when a Gateway reached selects routes by namespace labels.
	IfSelectsByLabels
)

// Add notes that reading what was refused, which means consequence for the explanation.
func (d *DeniedReads) Add(what, consequence string) { d.AddIf(Always, what, consequence) }

// AddIf notes a refused read that the explanation depends on in scope only.
func (d *DeniedReads) AddIf(scope DenialScope, what, consequence string) {
	line := what + " (forbidden): " + consequence
	if d.seen[line] {
		return
	}
	if d.seen == nil {
		d.seen = map[string]bool{}
	}
	d.seen[line] = true
	d.lines = append(d.lines, line)
	d.scopes = append(d.scopes, scope)
}

// Lines are the refused reads, each as "WHAT (forbidden): CONSEQUENCE".
func (d *DeniedReads) Lines() []string { return d.lines }

// Needed are the refused reads an explanation over the Gateways reached depends on.
func (d *DeniedReads) Needed(reached []*gatewayv1.Gateway) []string {
	var out []string
	for i, line := range d.lines {
		switch d.scopes[i] {
		case IfTakesOtherNamespaces:
			if !slices.ContainsFunc(reached, func(gw *gatewayv1.Gateway) bool { return !attach.SameNamespaceOnly(gw) }) {
				continue
			}
		case IfSelectsByLabels:
			if !slices.ContainsFunc(reached, attach.SelectsByLabels) {
				continue
			}
		}
		out = append(out, line)
	}
	return out
}
