package v1alpha1

import apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

// DefaultsAndOverrides are the two halves of a GEP-713 inherited policy. Both are
// free-form objects that are merged into the values a blueprint renders with, as JSON
// Merge Patches (RFC 7386): defaults are beaten by more specific policies, overrides beat
// more specific policies.
type DefaultsAndOverrides struct {
	// Default holds values that more specific policies may change or unset (with null).
	// +optional
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	Default *apiextensionsv1.JSON `json:"default,omitempty"`

	// Override holds values that no more specific policy can change or unset.
	// +optional
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	Override *apiextensionsv1.JSON `json:"override,omitempty"`
}
