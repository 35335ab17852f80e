package explain

import (
	"errors"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/translate"
	"github.com/gatewright/gatewright/internal/values"
)

// ValuesExplanation is where the values of a Gateway, or of a route on it, came from:
// what `gatewright explain gateway|httproute|grpcroute|...` prints.
type ValuesExplanation struct {
	Gateway string `json:"gateway"`
	// HTTPRoute is the route explained, as namespace/name, of the kind RouteKind says:
	// an HTTPRoute when it is empty, as before routes of other kinds had values.
	HTTPRoute    string `json:"httpRoute,omitempty"`
	RouteKind    string `json:"routeKind,omitempty"`
	GatewayClass string `json:"gatewayClass"`
	Blueprint    string `json:"blueprint"`
	// Revision is the blueprint revision the values are computed with, the one the
	// Gateway runs; 0 for the live spec.
	Revision int64 `json:"revision,omitempty"`
	// TargetRevision is the blueprint's newest revision when it is not the one the
	// Gateway runs, and RolloutPhase where its rollout stands.
	TargetRevision int64                           `json:"targetRevision,omitempty"`
	RolloutPhase   gatewrightv1alpha1.RolloutPhase `json:"rolloutPhase,omitempty"`
	Values         map[string]any                  `json:"values"`
	Provenance     []values.Leaf                   `json:"provenance"`
	// Unused are the values no template reads and the valuesSchema does not declare.
	Unused   []values.UnusedValue `json:"unused,omitempty"`
	Policies []PolicyExplanation  `json:"policies"`
	// Error is set when the values violate the blueprint's valuesSchema.
	Error string `json:"error,omitempty"`
}

// PolicyExplanation is a policy's part in the values, and its state.
type PolicyExplanation struct {
	values.PolicyReport
	State values.State `json:"state"`
	// Unused are those of the explanation's Unused that the policy set: the table names
	// them on the policy's row, -o yaml|json once, in Unused.
	Unused []values.UnusedValue `json:"-"`
}

// NewValuesExplanation explains computed, the values of gw (or of route on it) computed
// from snap; a valuesSchema error is explained too and returned.
func NewValuesExplanation(gw *gatewayv1.Gateway, route routes.Route, snap *translate.Gateway, computed *translate.Result) (*ValuesExplanation, error) {
	var schemaErr *values.SchemaError
	err := computed.Err
	if err != nil && !errors.As(err, &schemaErr) {
		return nil, err
	}
	res := computed.Values
	exp := &ValuesExplanation{
		Gateway:      gw.Namespace + "/" + gw.Name,
		GatewayClass: string(gw.Spec.GatewayClassName),
		Blueprint:    snap.Values.Blueprint.Name,
		Revision:     snap.Revision,
		Values:       res.Values,
		Provenance:   res.Provenance,
		Unused:       computed.Unused(),
		Policies:     []PolicyExplanation{},
	}
	if exp.Provenance == nil {
		exp.Provenance = []values.Leaf{}
	}
	if status := snap.Values.Blueprint.Status; snap.Revision > 0 && status.TargetRevision > snap.Revision {
		exp.TargetRevision = status.TargetRevision
		if status.Rollout != nil && status.Rollout.Revision == status.TargetRevision {
			exp.RolloutPhase = status.Rollout.Phase
		}
	}
	if route != nil {
		exp.HTTPRoute = route.GetNamespace() + "/" + route.GetName()
		if kind := routes.KindOf(route); kind != routes.KindHTTPRoute {
			exp.RouteKind = kind
		}
	}
	for _, report := range res.Policies {
		exp.Policies = append(exp.Policies, PolicyExplanation{PolicyReport: report, State: report.State(), Unused: unusedBy(exp.Unused, report.Source)})
	}
	if err != nil {
		exp.Error = err.Error()
	}
	return exp, err
}

// unusedBy are those of unused that source set.
func unusedBy(unused []values.UnusedValue, source values.Source) []values.UnusedValue {
	var out []values.UnusedValue
	for _, u := range unused {
		if u.Source == source {
			out = append(out, u)
		}
	}
	return out
}

// FailedClosedWarnings say, one line per block, which blocks of the policies applied
// because their condition could not be evaluated.
func (e *ValuesExplanation) FailedClosedWarnings() []string {
	var out []string
	for _, p := range e.Policies {
		out = append(out, p.FailedClosedWarnings()...)
	}
	return out
}

// Route names the route explained, "GRPCRoute team-a/shop"; empty for a Gateway.
func (e *ValuesExplanation) Route() string {
	if e.HTTPRoute == "" {
		return ""
	}
	kind := e.RouteKind
	if kind == "" {
		kind = routes.KindHTTPRoute
	}
	return kind + " " + e.HTTPRoute
}
