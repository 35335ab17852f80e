package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// GatewayClassConfigSpec attaches provider values to GatewayClasses or to a Namespace.
// +kubebuilder:validation:XValidation:rule="!has(self.rolloutWithBlueprint) || !self.rolloutWithBlueprint || self.targetRefs.all(t, t.kind == 'GatewayClass')",message="rolloutWithBlueprint needs every target to be a GatewayClass"
type GatewayClassConfigSpec struct {
	// TargetRefs names the GatewayClasses (group gateway.networking.k8s.io) or the
	// Namespace (group "", the config's own namespace) whose Gateways get these values.
	// +required
	// +listType=map
	// +listMapKey=group
	// +listMapKey=kind
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:XValidation:rule="self.all(t, (t.group == 'gateway.networking.k8s.io' && t.kind == 'GatewayClass') || (t.group == '' && t.kind == 'Namespace'))",message="a GatewayClassConfig may target only a GatewayClass (group gateway.networking.k8s.io) or a Namespace (group \"\")"
	TargetRefs []gatewayv1.LocalPolicyTargetReference `json:"targetRefs"`

	// RolloutWithBlueprint says whether each change of this config (and its creation and
	// deletion) reaches the Gateways as a change of their blueprint does: as a new
	// revision of the blueprint of each GatewayClass it targets, rolled out in that
	// blueprint's waves, gated, and rolled back when a wave fails. Gateways render the
	// copy of the config their revision holds. It applies to a config in the controller
	// namespace (class-wide, level 2) that targets only GatewayClasses, and such a config
	// rides the waves unless it sets false (a provider's opt-out: its changes then apply
	// at once). Elsewhere a change applies at once, and true is refused unless every
	// target is a GatewayClass.
	// +optional
	RolloutWithBlueprint *bool `json:"rolloutWithBlueprint,omitempty"`

	DefaultsAndOverrides `json:",inline"`
}

// GatewayClassConfig is a GEP-713 inherited policy written by the infrastructure
// provider. In the controller namespace it applies to every Gateway of its target
// GatewayClasses; in a tenant namespace only to the Gateways of that namespace.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,shortName=gcc,categories=gatewright
// +kubebuilder:metadata:labels="gateway.networking.k8s.io/policy=Inherited"
// +kubebuilder:printcolumn:name="Target Kind",type=string,JSONPath=`.spec.targetRefs[0].kind`
// +kubebuilder:printcolumn:name="Target",type=string,JSONPath=`.spec.targetRefs[0].name`
// +kubebuilder:printcolumn:name="Accepted",type=string,JSONPath=`.status.ancestors[0].conditions[?(@.type=="Accepted")].status`
// +kubebuilder:printcolumn:name="Programmed",type=string,JSONPath=`.status.ancestors[0].conditions[?(@.type=="Programmed")].reason`
// +kubebuilder:printcolumn:name="Enforced (deprecated)",type=string,priority=1,description="Deprecated: Programmed, its name in GEP-713 of gateway-api v1.6.3; written for one more minor release",JSONPath=`.status.ancestors[0].conditions[?(@.type=="Enforced")].reason`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type GatewayClassConfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec GatewayClassConfigSpec `json:"spec"`

	// Defaulted to an observedGeneration of 0 until the controller writes it, so that
	// kstatus reads a new object as not yet observed (InProgress) rather than Current.
	// +optional
	// +kubebuilder:default={observedGeneration: 0}
	Status PolicyStatus `json:"status,omitempty"`
}

// GatewayClassConfigList is a list of GatewayClassConfigs.
//
// +kubebuilder:object:root=true
type GatewayClassConfigList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []GatewayClassConfig `json:"items"`
}
