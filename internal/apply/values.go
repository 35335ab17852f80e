package apply

import (
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/values"
)

// RecordValues is what a Rendering records of res: every leaf with its provenance, the
// values of the paths the blueprint keeps private left out, and each policy's state.
// The record stays within MaxRecordedValuesBytes of JSON.
func RecordValues(res *values.Result, class string, bp *gatewrightv1alpha1.GatewayClassBlueprint) *gatewrightv1alpha1.RecordedValues {
	rec := &gatewrightv1alpha1.RecordedValues{GatewayClass: class, Blueprint: bp.Name}
	for _, leaf := range res.Provenance {
		rec.Provenance = append(rec.Provenance, recordedLeaf(leaf, isPrivate(leaf.Path, bp.Spec.PrivateValuePaths)))
	}
	for _, p := range res.Policies {
		levels := make([]int32, len(p.Levels))
		for i, l := range p.Levels {
			levels[i] = int32(l)
		}
		rec.Policies = append(rec.Policies, gatewrightv1alpha1.RecordedPolicy{Source: policySource(p.Source), Levels: levels, State: string(p.State())})
	}
	fit(rec, gatewrightv1alpha1.MaxRecordedValuesBytes)
	return rec
}

func recordedLeaf(leaf values.Leaf, private bool) gatewrightv1alpha1.RecordedLeaf {
	out := gatewrightv1alpha1.RecordedLeaf{Path: leaf.Path, Unset: leaf.Unset, Private: private, RecordedOrigin: recordedOrigin(leaf.Origin)}
	if leaf.DroppedBy != nil {
		by := recordedOrigin(*leaf.DroppedBy)
		out.DroppedBy = &by
	}
	if !leaf.Unset && !private {
		raw, _ := json.Marshal(leaf.Value) // values decoded from JSON always encode again
		out.Value = string(raw)
	}
	return out
}

func recordedOrigin(o values.Origin) gatewrightv1alpha1.RecordedOrigin {
	return gatewrightv1alpha1.RecordedOrigin{Source: policySource(o.Source), As: string(o.As), Level: int32(o.Level), Strategy: o.Strategy}
}

func policySource(s values.Source) gatewrightv1alpha1.PolicySource {
	return gatewrightv1alpha1.PolicySource{Kind: s.Kind, Namespace: s.Namespace, Name: s.Name}
}

// isPrivate tells whether the value at path may reveal a private one: it is at or under
// a private path, or holds one (an object or list dropped whole).
func isPrivate(path string, private []string) bool {
	for _, p := range private {
		if within(path, p) || within(p, path) {
			return true
		}
	}
	return false
}

// within tells whether path is prefix or a path under it.
func within(path, prefix string) bool {
	if !strings.HasPrefix(path, prefix) {
		return false
	}
	rest := path[len(prefix):]
	return rest == "" || rest[0] == '.' || rest[0] == '['
}

// fit keeps rec within limit bytes of JSON: first without the values, then with the
// first leaves and policies that fit. Cut says what was left out.
func fit(rec *gatewrightv1alpha1.RecordedValues, limit int) {
	full := documentSize(rec)
	if full <= limit {
		return
	}
	for i := range rec.Provenance {
		rec.Provenance[i].Value = ""
	}
	rec.Cut = fmt.Sprintf("the values are left out: with them the record is %d bytes of JSON, over %d", full, limit)
	if documentSize(rec) <= limit {
		return
	}
	leaves, policies := rec.Provenance, rec.Policies
	rec.Provenance, rec.Policies = nil, nil
	// Room for the sentence below, whose numbers are not known yet.
	budget := limit - documentSize(rec) - 128
	keptLeaves := fitting(leaves, &budget)
	keptPolicies := fitting(policies, &budget)
	rec.Provenance, rec.Policies = leaves[:keptLeaves], policies[:keptPolicies]
	rec.Cut += fmt.Sprintf("; so are %d of %d leaves and %d of %d policies", len(leaves)-keptLeaves, len(leaves), len(policies)-keptPolicies, len(policies))
}

// fitting counts the items, from the first, whose JSON fits in budget, and spends it.
func fitting[T any](items []T, budget *int) int {
	for i, item := range items {
		size := jsonSize(item) + 1 // and a comma
		if size > *budget {
			return i
		}
		*budget -= size
	}
	return len(items)
}

// documentSize is the length of the JSON document a Rendering holds rec as.
func documentSize(rec *gatewrightv1alpha1.RecordedValues) int {
	doc, _ := rec.Document() // API types always encode
	return len(doc)
}

func jsonSize(v any) int {
	raw, _ := json.Marshal(v) // API types always encode
	return len(raw)
}

// sameValues tells whether two records hold the same values, whenever recorded. It
// runs at every reconcile, so it compares the fields rather than copy both records.
func sameValues(a, b *gatewrightv1alpha1.RecordedValues) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.GatewayClass == b.GatewayClass && a.Blueprint == b.Blueprint && a.Cut == b.Cut &&
		equality.Semantic.DeepEqual(a.Provenance, b.Provenance) && equality.Semantic.DeepEqual(a.Policies, b.Policies)
}
