package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// GatewayConfigSpec attaches tenant values to Gateways, routes or a Namespace.
type GatewayConfigSpec struct {
	// TargetRefs names the Gateways, routes (HTTPRoute, GRPCRoute, TLSRoute, TCPRoute,
	// UDPRoute; group gateway.networking.k8s.io) or the
	// Namespace (group "", the config's own namespace) that get these values. It may be
	// empty for a GatewayConfig that applies only through a Gateway's
	// spec.infrastructure.parametersRef.
	// +optional
	// +listType=map
	// +listMapKey=group
	// +listMapKey=kind
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:XValidation:rule="self.all(t, (t.group == 'gateway.networking.k8s.io' && t.kind in ['Gateway', 'HTTPRoute', 'GRPCRoute', 'TLSRoute', 'TCPRoute', 'UDPRoute']) || (t.group == '' && t.kind == 'Namespace'))",message="a GatewayConfig may target only a Gateway or a route (HTTPRoute, GRPCRoute, TLSRoute, TCPRoute, UDPRoute; group gateway.networking.k8s.io) or a Namespace (group \"\")"
	TargetRefs []gatewayv1.LocalPolicyTargetReference `json:"targetRefs,omitempty"`

	DefaultsAndOverrides `json:",inline"`
}

// GatewayConfig is a GEP-713 inherited policy written by the tenant. It applies to the
// Gateways and routes of its own namespace, below everything the provider sets.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,shortName=gwc,categories=gatewright
// +kubebuilder:metadata:labels="gateway.networking.k8s.io/policy=Inherited"
// +kubebuilder:printcolumn:name="Target Kind",type=string,JSONPath=`.spec.targetRefs[0].kind`
// +kubebuilder:printcolumn:name="Target",type=string,JSONPath=`.spec.targetRefs[0].name`
// +kubebuilder:printcolumn:name="Accepted",type=string,JSONPath=`.status.ancestors[0].conditions[?(@.type=="Accepted")].status`
// +kubebuilder:printcolumn:name="Programmed",type=string,JSONPath=`.status.ancestors[0].conditions[?(@.type=="Programmed")].reason`
// +kubebuilder:printcolumn:name="Enforced (deprecated)",type=string,priority=1,description="Deprecated: Programmed, its name in GEP-713 of gateway-api v1.6.3; written for one more minor release",JSONPath=`.status.ancestors[0].conditions[?(@.type=="Enforced")].reason`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type GatewayConfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec GatewayConfigSpec `json:"spec,omitempty"`

	// Defaulted to an observedGeneration of 0 until the controller writes it, so that
	// kstatus reads a new object as not yet observed (InProgress) rather than Current.
	// +optional
	// +kubebuilder:default={observedGeneration: 0}
	Status PolicyStatus `json:"status,omitempty"`
}

// GatewayConfigList is a list of GatewayConfigs.
//
// +kubebuilder:object:root=true
type GatewayConfigList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []GatewayConfig `json:"items"`
}
