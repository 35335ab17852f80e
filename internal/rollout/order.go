package rollout

import (
	"cmp"
	"slices"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/types"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// Member is what Step observes of one Gateway of the blueprint's classes.
type Member struct {
	Key types.NamespacedName
	// NamespaceLabels are the labels of the Gateway's namespace, for the order label.
	NamespaceLabels map[string]string
	// Created is the Gateway's creation time: one created after a wave started waits
	// for the next wave.
	Created time.Time
	// Recorded is when its record (its Rendering) was made: it was a member, and its
	// health seen, from then on.
	Recorded time.Time
	// Running is the revision its objects were rendered from (its Rendering's revision).
	Running int64
	// Target is the revision a rollout assigned it (its Rendering's targetRevision), 0
	// for none: it runs Target when that is newer than the blueprint's current
	// revision, else the current revision.
	Target int64
	// Gates says whether it was healthy when it was assigned Target (its Rendering's
	// gatesRollout): only then does its health hold its wave's gate.
	Gates bool
	// Healthy, Reason and HealthySince are what Healthy said of it on the revision it
	// should run; TenantOnly that all it lacks is in its tenant's control.
	Healthy      bool
	Reason       string
	HealthySince time.Time
	TenantOnly   bool
	// RevisionSince is when it first rendered the revision it runs (its Rendering's
	// revisionSince).
	RevisionSince time.Time
	// InputsSince is when its record's fingerprint of its tenant inputs (TenantInputs)
	// was first recorded, and InputsUnrendered says that the live objects' fingerprint
	// differs from it: its tenant changed its Gateway, GatewayConfigs or routes since
	// its last render, which may be failing.
	InputsSince      time.Time
	InputsUnrendered bool
}

// Order sorts members into the order the waves take them: by the value of the order
// label on their namespace (integers by value and before any other value, other values
// as text, a namespace without the label last), then by namespace and name.
func Order(members []Member, label string) []Member {
	ordered := slices.Clone(members)
	slices.SortStableFunc(ordered, func(a, b Member) int { return compareMembers(a, b, label) })
	return ordered
}

// compareMembers compares a and b in the order the waves take them.
func compareMembers(a, b Member, label string) int {
	if label != "" {
		if c := compareOrderValues(a.NamespaceLabels, b.NamespaceLabels, label); c != 0 {
			return c
		}
	}
	return cmp.Or(cmp.Compare(a.Key.Namespace, b.Key.Namespace), cmp.Compare(a.Key.Name, b.Key.Name))
}

// positionOf is m's place in the order by label, as the status records it.
func positionOf(m Member, label string) *gatewrightv1alpha1.RolloutPosition {
	p := &gatewrightv1alpha1.RolloutPosition{Namespace: m.Key.Namespace, Name: m.Key.Name}
	if value, ok := m.NamespaceLabels[label]; ok && label != "" {
		p.OrderValue = &value
	}
	return p
}

// after says whether m comes after position p in the order by label.
func after(m Member, p *gatewrightv1alpha1.RolloutPosition, label string) bool {
	at := Member{Key: types.NamespacedName{Namespace: p.Namespace, Name: p.Name}}
	if p.OrderValue != nil {
		at.NamespaceLabels = map[string]string{label: *p.OrderValue}
	}
	return compareMembers(m, at, label) > 0
}

func compareOrderValues(a, b map[string]string, label string) int {
	av, aok := a[label]
	bv, bok := b[label]
	if aok != bok {
		if aok {
			return -1
		}
		return 1
	}
	an, aerr := strconv.ParseInt(av, 10, 64)
	bn, berr := strconv.ParseInt(bv, 10, 64)
	switch {
	case aerr == nil && berr == nil:
		return cmp.Compare(an, bn)
	case aerr == nil:
		return -1
	case berr == nil:
		return 1
	}
	return cmp.Compare(av, bv)
}
