package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KindGatewayClassBlueprintRevision is the kind of a blueprint's numbered revisions.
const KindGatewayClassBlueprintRevision = "GatewayClassBlueprintRevision"

// LabelBlueprint names, on a revision, the blueprint it belongs to, so that
// `kubectl get gcbr -l gatewright.dev/blueprint=NAME` lists the history. A name longer
// than a label value may be is cut and ends with a hash (internal/revisions).
const LabelBlueprint = "gatewright.dev/blueprint"

// GatewayClassBlueprintRevision is one accepted spec of a GatewayClassBlueprint, as
// apps' ControllerRevision is one of a StatefulSet: numbered, immutable and written only
// by the controller, so that what a Gateway runs stays known (and can be rendered
// again) whatever the blueprint says now. It is named <blueprint>-<revision> and owned
// by its blueprint.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=gcbr,categories=gatewright
// +kubebuilder:printcolumn:name="Blueprint",type=string,JSONPath=`.blueprint`
// +kubebuilder:printcolumn:name="Revision",type=integer,JSONPath=`.revision`
// +kubebuilder:printcolumn:name="Hash",type=string,JSONPath=`.hash`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type GatewayClassBlueprintRevision struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Blueprint names the GatewayClassBlueprint the revision belongs to.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="blueprint is immutable"
	Blueprint string `json:"blueprint"`

	// Revision numbers the blueprint's accepted specs from 1, in the order they came.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="revision is immutable"
	Revision int64 `json:"revision"`

	// Hash is the SHA-256 (hex) of the canonical JSON of spec.
	// +required
	// +kubebuilder:validation:Pattern=`^[0-9a-f]{64}$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="hash is immutable"
	Hash string `json:"hash"`

	// Spec is the blueprint's spec as it was accepted.
	// +required
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec is immutable"
	Spec GatewayClassBlueprintSpec `json:"spec"`

	// ClassConfigs are the GatewayClassConfigs of the controller namespace that rode the
	// blueprint's rollout (class-wide, rolloutWithBlueprint not false) and targeted its
	// classes when the revision was made, by name: a Gateway on this revision renders
	// these copies instead of the live configs.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="classConfigs is immutable"
	ClassConfigs []RevisionClassConfig `json:"classConfigs,omitempty"`

	// ClassConfigsRideByDefault is true on a revision made by a controller under which a
	// class-wide GatewayClassConfig rides the rollout unless it opts out. On a revision
	// made before (riding was opt-in) a config it does not hold rode then only if it said
	// rolloutWithBlueprint: true, so only such a config waits for a newer revision; the
	// others apply as they are, as they did.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="classConfigsRideByDefault is immutable"
	ClassConfigsRideByDefault bool `json:"classConfigsRideByDefault,omitempty"`
}

// MaxRevisionClassConfigs bounds a revision's classConfigs.
const MaxRevisionClassConfigs = 32

// RevisionClassConfig is a GatewayClassConfig as a revision holds it.
type RevisionClassConfig struct {
	// Name is the config's name, in the controller namespace.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// Spec is the config's spec when the revision was made.
	// +required
	Spec GatewayClassConfigSpec `json:"spec"`
}

// GatewayClassBlueprintRevisionList is a list of GatewayClassBlueprintRevisions.
//
// +kubebuilder:object:root=true
type GatewayClassBlueprintRevisionList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []GatewayClassBlueprintRevision `json:"items"`
}
