package diff

import "github.com/gatewright/gatewright/internal/offline"

// Report is what a change does, in the shape `gatewright diff -o json` prints.
type Report struct {
	Gateways []Entry        `json:"gateways"`
	Routes   []Entry        `json:"routes"`
	Policies []PolicyChange `json:"policies"`
	Summary  Summary        `json:"summary"`
	Notes    []string       `json:"notes,omitempty"`
	// Partial tells that the report was computed without what Unread lists, which it
	// depends on (gatewright diff --partial): a Gateway, route or policy it does not show
	// may change all the same.
	Partial bool             `json:"partial,omitempty"`
	Unread  []offline.Unread `json:"unread,omitempty"`
}

// Entry is what changes for one Gateway, or for one route on one parent Gateway.
type Entry struct {
	// Kind is the route's kind (HTTPRoute, GRPCRoute, ...); empty for a Gateway.
	Kind      string `json:"kind,omitempty"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Gateway is the route's parent, as namespace/name; empty for a Gateway.
	Gateway    string            `json:"gateway,omitempty"`
	Values     []ValueChange     `json:"values"`
	Objects    []ObjectChange    `json:"objects"`
	Conditions []ConditionChange `json:"conditions"`
}

// ValueChange is one leaf of the values: Old or New is nil when the path is absent.
// Source names where the new value comes from: the policy, default or override, level
// (values.Origin); for a path the new values no longer hold, the null that unset it, or
// "" when nothing sets it any more.
type ValueChange struct {
	Path   string `json:"path"`
	Old    any    `json:"old"`
	New    any    `json:"new"`
	Source string `json:"source"`
}

// The actions on a rendered object.
const (
	Create = "create"
	Update = "update"
	Prune  = "prune"
)

// ObjectChange is a rendered object created, updated or pruned. Diff is the unified diff
// of the two YAML renderings of an updated object, Secret data redacted; a created or
// pruned object carries none, its whole text being the change.
type ObjectChange struct {
	Action     string `json:"action"`
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
	Diff       string `json:"diff,omitempty"`
}

// ConditionChange is a condition the controller would write differently: Old and New
// read "Status/Reason", "" when the condition is absent; Message is the new one.
type ConditionChange struct {
	Type    string `json:"type"`
	Old     string `json:"old"`
	New     string `json:"new"`
	Message string `json:"message"`
}

// PolicyChange is a policy whose Programmed reason changes over the Gateways and routes
// the change reaches: "" on the side where the policy does not exist. Message is the new
// verdict's.
type PolicyChange struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Programmed is the change of the reason of the policy's Programmed condition, in
	// GEP-713's words (gateway-api v1.6.3).
	Programmed ReasonChange `json:"programmed"`
	// Old and New are the same change of the Enforced condition, in the older words.
	// Deprecated: read Programmed; they go with the Enforced condition, a minor release on.
	Old     string `json:"old"`
	New     string `json:"new"`
	Message string `json:"message,omitempty"`
}

// ReasonChange is a condition's reason before and after the change.
type ReasonChange struct {
	Old string `json:"old"`
	New string `json:"new"`
}

// Summary counts everything the change reaches, however much of it is printed.
type Summary struct {
	// Gateways and Routes count those computed: reached by the change.
	Gateways int `json:"gateways"`
	Routes   int `json:"routes"`
	Created  int `json:"created"`
	Updated  int `json:"updated"`
	Pruned   int `json:"pruned"`
	// Failing counts the reached Gateways that would fail after the change (not
	// accepted, or not programmed for an error); FailingBefore how many of them failed
	// before it too.
	Failing       int `json:"failing"`
	FailingBefore int `json:"failingBefore"`
}

// Changed tells whether the change changes anything the report shows.
func (r *Report) Changed() bool {
	return len(r.Gateways) > 0 || len(r.Routes) > 0 || len(r.Policies) > 0
}

func (e *Entry) changed() bool {
	return len(e.Values) > 0 || len(e.Objects) > 0 || len(e.Conditions) > 0
}
