package explain

import (
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/values"
)

// notRecorded stands for a value the record left out to stay within its bound.
const notRecorded = "<not recorded>"

// RecordSource says which Rendering an explanation was read from, for a caller who may
// not read the chain: the owner of a route on another tenant's Gateway, for instance.
type RecordSource struct {
	Rendering  string      `json:"rendering"`
	RecordedAt metav1.Time `json:"recordedAt"`
	// Because is what the caller could not read.
	Because string `json:"because"`
	Cut     string `json:"cut,omitempty"`
}

// RecordedExplanation is an explanation read from a Rendering, as -o yaml|json prints it.
type RecordedExplanation struct {
	*ValuesExplanation
	RecordedIn *RecordSource `json:"recordedIn"`
}

// ValuesOfRecord is the explanation a record holds of the values of Gateway gateway, or
// of HTTPRoute route on it (both namespace/name): the values' provenance and the
// policies' states, without what the policies lost and why, which are not recorded.
func ValuesOfRecord(gateway, route string, v *gatewrightv1alpha1.RecordedValues) *ValuesExplanation {
	exp := &ValuesExplanation{Gateway: gateway, HTTPRoute: route, GatewayClass: v.GatewayClass, Blueprint: v.Blueprint,
		Provenance: []values.Leaf{}, Policies: []PolicyExplanation{}}
	for _, l := range v.Provenance {
		leaf := values.Leaf{Path: l.Path, Unset: l.Unset, Origin: originOfRecord(l.RecordedOrigin)}
		if l.DroppedBy != nil {
			by := originOfRecord(*l.DroppedBy)
			leaf.DroppedBy = &by
		}
		switch {
		case l.Private:
			leaf.Value = gatewrightv1alpha1.PrivateValue
		case l.Unset:
		case l.Value == "" || json.Unmarshal([]byte(l.Value), &leaf.Value) != nil:
			leaf.Value = notRecorded
		}
		exp.Provenance = append(exp.Provenance, leaf)
	}
	for _, p := range v.Policies {
		report := values.PolicyReport{Source: sourceOfRecord(p.Source)}
		for _, l := range p.Levels {
			report.Levels = append(report.Levels, values.Level(l))
		}
		exp.Policies = append(exp.Policies, PolicyExplanation{PolicyReport: report, State: values.State(p.State)})
	}
	return exp
}

func originOfRecord(o gatewrightv1alpha1.RecordedOrigin) values.Origin {
	return values.Origin{Source: sourceOfRecord(o.Source), As: values.Half(o.As), Level: values.Level(o.Level), Strategy: o.Strategy}
}

func sourceOfRecord(s gatewrightv1alpha1.PolicySource) values.Source {
	return values.Source{Kind: s.Kind, Namespace: s.Namespace, Name: s.Name}
}
