package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// MaxRecordedValuesBytes bounds the JSON of a Rendering's values record. A record over
// it keeps the provenance without the values, and then fewer entries, and says so in Cut.
const MaxRecordedValuesBytes = 64 << 10

// PrivateValue is what explain shows for a value the blueprint keeps private.
const PrivateValue = "<private>"

// RecordedValues are an owner's effective values as last applied, leaf by leaf.
type RecordedValues struct {
	// RecordedAt is when the controller recorded these values; it changes only when they do.
	RecordedAt metav1.Time `json:"recordedAt"`
	// GatewayClass and Blueprint are those the values were computed for.
	GatewayClass string `json:"gatewayClass"`
	Blueprint    string `json:"blueprint"`
	// Provenance lists every leaf of the values, and the values a block dropped, by path.
	// +optional
	// +listType=atomic
	Provenance []RecordedLeaf `json:"provenance,omitempty"`
	// Policies lists the policies that took part, from the highest block down.
	// +optional
	// +listType=atomic
	Policies []RecordedPolicy `json:"policies,omitempty"`
	// Cut says what was left out to keep the record within 64 KiB of JSON.
	// +optional
	Cut string `json:"cut,omitempty"`
}

// RecordedLeaf is one leaf of the values and where it came from (or went).
type RecordedLeaf struct {
	Path string `json:"path"`
	// Value is the leaf's value as JSON; empty when it is private, unset or cut.
	// +optional
	Value string `json:"value,omitempty"`
	// Private is true when the blueprint keeps the value at this path private.
	// +optional
	Private bool `json:"private,omitempty"`
	// Unset is true when a null removed the key.
	// +optional
	Unset bool `json:"unset,omitempty"`
	// RecordedOrigin is the block the value came from.
	RecordedOrigin `json:",inline"`
	// DroppedBy is set for a value not in the values, which a whole block replaced.
	// +optional
	DroppedBy *RecordedOrigin `json:"droppedBy,omitempty"`
}

// RecordedOrigin is the block of a policy (or of the blueprint) a value came from.
type RecordedOrigin struct {
	Source PolicySource `json:"source"`
	// As is default or override.
	As string `json:"as"`
	// Level in the precedence chain, 1 (blueprint) to 10.
	Level    int32          `json:"level"`
	Strategy ValuesStrategy `json:"strategy,omitempty"`
}

// PolicySource names the object a value came from.
type PolicySource struct {
	Kind string `json:"kind"`
	// +optional
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// RecordedPolicy is a policy that took part in the values, and how much of it took effect.
type RecordedPolicy struct {
	Source PolicySource `json:"source"`
	// +optional
	// +listType=atomic
	Levels []int32 `json:"levels,omitempty"`
	// State is Enforced, PartiallyEnforced or Overridden.
	State string `json:"state"`
}
