package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// The summary conditions every Gatewright kind with a status writes at its top level,
// as kstatus reads them (Flux's health checks, `kubectl wait --for=condition=Ready`):
// Ready is True while the object's spec is in effect; Reconciling (abnormal-true) is
// True while a change is under way; Stalled (abnormal-true) is True while it cannot
// take effect without someone changing something. At most one of them is True; none
// while a rollout is paused (Ready is then False, reason RolloutPaused).
const (
	ConditionReady       = "Ready"
	ConditionReconciling = "Reconciling"
	ConditionStalled     = "Stalled"

	// ReasonRolloutProgressing: a rollout's wave waits on its gate, or a riding
	// GatewayClassConfig's change waits for its blueprint's rollout.
	ReasonRolloutProgressing = "RolloutProgressing"
	// ReasonRolloutPaused: spec.rollout.paused holds the rollout.
	ReasonRolloutPaused = "RolloutPaused"
	// ReasonRolledBack: the rollout failed its gate and its Gateways went back.
	ReasonRolledBack = "RolledBack"
	// ReasonRolledOut: a blueprint's newest revision runs on every Gateway.
	ReasonRolledOut = "RolledOut"
	// ReasonAncestorsPending: an ancestor of a policy is not judged for its generation yet
	// (another shard writes it).
	ReasonAncestorsPending = "AncestorsPending"
	// ReasonRevisionPending: a riding GatewayClassConfig's change waits for its blueprint
	// to make a revision that holds it.
	ReasonRevisionPending = "RevisionPending"
)

// PolicyStatus is a GEP-713 policy's status, status.ancestors, and a summary of it at the
// top level for tools that read only that: observedGeneration and the Ready,
// Reconciling and Stalled conditions.
type PolicyStatus struct {
	// ObservedGeneration is the generation the summary conditions were written for.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions sum up the ancestors: Ready is True when every ancestor is Accepted and
	// judged for the policy's generation (Programmed, PartiallyProgrammed, Overridden or
	// in effect nowhere yet); Stalled is True when an ancestor is not Accepted (Invalid,
	// TargetNotFound) or, for a GatewayClassConfig that rides its blueprint's rollouts,
	// when the rollout that carried its change was rolled back; Reconciling is True while
	// an ancestor waits to be judged or such a rollout is under way.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=8
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// Ancestors is GEP-713's status.ancestors (gateway-api's PolicyStatus): for each
	// target, up to 16, whether the policy is Accepted and Programmed there. Optional
	// here, unlike there, so that a policy's status reads as not yet observed (an
	// observedGeneration of 0) before the controller writes it, rather than as none.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	Ancestors []gatewayv1.PolicyAncestorStatus `json:"ancestors"`
}
