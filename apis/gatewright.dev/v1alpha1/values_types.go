package v1alpha1

import apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

// DefaultsAndOverrides are the two halves of a GEP-713 inherited policy. Defaults are
// beaten by more specific policies, overrides beat more specific policies.
//
// Each half is an object in one of two forms. The block form
//
//	{values: {...}, strategy: Patch|Merge|Atomic, when: "<CEL>"}
//
// is recognised by its key `values` and may have no keys but these three. Any other
// object is the shorthand for {values: <the object>}: strategy Patch, no condition. In
// the shorthand the top-level keys `strategy`, `when` and `unset` are refused, as they
// almost certainly mean the block form; a value of one of those names is written in
// the block form, {values: {when: ...}}.
type DefaultsAndOverrides struct {
	// Default holds values that more specific policies may change or unset (with null):
	// an object, or a block {values, strategy, when}.
	// +optional
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	Default *apiextensionsv1.JSON `json:"default,omitempty"`

	// Override holds values that no more specific policy can change or unset: an
	// object, or a block {values, strategy, when}.
	// +optional
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	Override *apiextensionsv1.JSON `json:"override,omitempty"`
}

// ValuesStrategy says how a block of values combines with the values below it in the
// precedence chain. Of two blocks, the higher one (less specific, or older at the same
// level) chooses.
type ValuesStrategy string

const (
	// StrategyPatch combines leaf by leaf, as a JSON Merge Patch (RFC 7386): objects
	// merge key by key, lists and scalars are replaced whole, null unsets. The default.
	StrategyPatch ValuesStrategy = "Patch"
	// StrategyMerge combines top-level key by top-level key: for each key, one side's
	// whole subtree is taken.
	StrategyMerge ValuesStrategy = "Merge"
	// StrategyAtomic takes one side's values whole, never mixed with the other's.
	StrategyAtomic ValuesStrategy = "Atomic"
)

// TenantUnset says whether a GatewayConfig may remove a value that a higher policy in
// the chain set.
// +kubebuilder:validation:Enum=Allowed;Forbidden
type TenantUnset string

const (
	// TenantUnsetAllowed lets a tenant unset inherited defaults with null.
	TenantUnsetAllowed TenantUnset = "Allowed"
	// TenantUnsetForbidden keeps a value that a tenant's block would remove although a
	// higher policy set it, and reports the attempt on the tenant's policy.
	TenantUnsetForbidden TenantUnset = "Forbidden"
)
