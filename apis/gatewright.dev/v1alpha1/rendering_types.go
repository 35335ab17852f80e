package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// KindRendering is the kind of Gatewright's own records.
const KindRendering = "Rendering"

// FinalizerCleanup holds a Rendering until the objects it lists are deleted.
const FinalizerCleanup = "gatewright.dev/cleanup"

// MaxRenderedObjectsPerRendering bounds one Rendering's list; an owner with more objects
// has several Renderings (parts). 2,000 entries of the longest names and the values
// record (at most 64 KiB) still fit etcd's 1.5 MiB object limit: 1.34 MB.
const MaxRenderedObjectsPerRendering = 2000

// RenderingOwner names the Gateway, or the route on one parent Gateway, that a
// Rendering's objects were rendered for.
type RenderingOwner struct {
	// Kind is Gateway or the route's kind.
	// +kubebuilder:validation:Enum=Gateway;HTTPRoute;GRPCRoute;TLSRoute;TCPRoute;UDPRoute
	Kind string `json:"kind"`
	// Name of the Gateway or route, in the Rendering's namespace.
	Name string `json:"name"`
	// UID of the owner the objects were last rendered for.
	// +optional
	UID types.UID `json:"uid,omitempty"`
	// GatewayNamespace and GatewayName name the parent Gateway of a route's
	// Rendering; for a Gateway they repeat the owner.
	GatewayNamespace string `json:"gatewayNamespace"`
	GatewayName      string `json:"gatewayName"`
}

// RenderedObject is one object Gatewright applied (or is about to apply) for the owner.
type RenderedObject struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Namespace is empty for a cluster-scoped object.
	// +optional
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// Template is the resource template that rendered the object.
	Template string `json:"template"`
	// Hash of the object as last rendered (its gatewright.dev/rendered-hash annotation).
	// +optional
	Hash string `json:"hash,omitempty"`
	// Ready is the object's readiness (kstatus) when the Rendering was last written.
	// +optional
	Ready bool `json:"ready,omitempty"`
}

// Rendering is Gatewright's record of the objects it applied for one Gateway, or for one
// HTTPRoute on one parent Gateway: what to prune when the blueprint stops rendering an
// object, and what to delete when the owner goes. Only the controller writes it (tenants
// may read it), so no tenant can make Gatewright forget, read or delete an object by
// editing its Gateway. It is written before the objects it adds are applied, carries the
// finalizer that guarantees the clean-up, and is owned by its Gateway or HTTPRoute.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,categories=gatewright
// +kubebuilder:printcolumn:name="Owner Kind",type=string,JSONPath=`.owner.kind`
// +kubebuilder:printcolumn:name="Owner",type=string,JSONPath=`.owner.name`
// +kubebuilder:printcolumn:name="Gateway",type=string,JSONPath=`.owner.gatewayName`
// +kubebuilder:printcolumn:name="Revision",type=integer,JSONPath=`.revision`
// +kubebuilder:printcolumn:name="Part",type=integer,JSONPath=`.part`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Rendering struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Owner RenderingOwner `json:"owner"`

	// Part numbers the Rendering among its owner's, from 0; Parts is how many there are.
	// Only an owner with more than 2,000 objects has more than one.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Part int32 `json:"part,omitempty"`
	// +optional
	// +kubebuilder:validation:Minimum=1
	Parts int32 `json:"parts,omitempty"`

	// Objects are sorted by group, kind, namespace and name.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=2000
	Objects []RenderedObject `json:"objects,omitempty"`

	// Values are the effective values the objects were rendered from, with where each
	// came from, and the states of the policies that took part: what explain shows to a
	// reader who may read the Rendering but not the policies. Only part 0 has them. They
	// are one JSON document in a string, which the API server stores without walking its
	// fields: written at every change of values, the record then costs it far less than
	// as structured fields.
	// +optional
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=65536
	Values *RecordedValues `json:"values,omitempty"`

	// Revision is the blueprint revision the objects were rendered from; for an
	// HTTPRoute, that of its parent Gateway's render. 0 means the blueprint's spec as it
	// was, before it had revisions. Only part 0 has it.
	// +optional
	Revision int64 `json:"revision,omitempty"`
	// RevisionSince, on part 0, is when the objects were first rendered from Revision,
	// set in the write that records it: a rollout's soak counts from it.
	// +optional
	RevisionSince *metav1.Time `json:"revisionSince,omitempty"`
	// ValuesHash is the SHA-256 (hex) of the canonical JSON of the effective values the
	// objects were rendered from. Only part 0 has it.
	// +optional
	ValuesHash string `json:"valuesHash,omitempty"`
	// RenderedBytes, on part 0, is the size of what the owner's last applied render
	// holds: the bytes of JSON of its objects and of its effective values. The Gateways
	// and routes of a namespace together stay within the controller's
	// --max-rendered-bytes-per-namespace.
	// +optional
	// +kubebuilder:validation:Minimum=0
	RenderedBytes int64 `json:"renderedBytes,omitempty"`
	// TargetRevision, on a Gateway's part 0, is the revision a rollout assigned the
	// Gateway; the Gateway runs it while it is newer than the blueprint's
	// currentRevision, else currentRevision.
	// +optional
	// +kubebuilder:validation:Minimum=1
	TargetRevision int64 `json:"targetRevision,omitempty"`
	// GatesRollout, written with TargetRevision, says whether the Gateway was healthy on
	// the revision it ran when the rollout assigned it: only such a Gateway holds its
	// wave's gate, so that a Gateway broken before the rollout neither holds nor rolls
	// back the provider's change.
	// +optional
	GatesRollout bool `json:"gatesRollout,omitempty"`
	// TargetBlueprint, written with TargetRevision, is the blueprint whose rollout
	// assigned it: a revision number means something only of its blueprint, so a Gateway
	// moved to a class of another blueprint runs that blueprint's current revision.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	TargetBlueprint string `json:"targetBlueprint,omitempty"`
	// TenantInputs, on a Gateway's part 0, is a fingerprint of what its tenants control
	// that the render read: the Gateway (UID and generation), the GatewayConfigs that may
	// apply to it and the HTTPRoutes that name it (rollout.TenantInputs). A rollout
	// compares it with the live objects, and TenantInputsSince with revisionSince, to
	// tell a Gateway that its tenant broke from one the revision broke.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	TenantInputs string `json:"tenantInputs,omitempty"`
	// TenantInputsSince is when TenantInputs was first recorded: set in the write that
	// records a new fingerprint.
	// +optional
	TenantInputsSince *metav1.Time `json:"tenantInputsSince,omitempty"`
	// RouteCutoff, on a Gateway's part 0, is where the routes attached to the Gateway,
	// oldest first, went past a Gateway-wide bound on routes in its last render: this
	// route and every one after it in that order are left out, and say so on their
	// status. Absent when every route fit.
	// +optional
	RouteCutoff *RouteCutoff `json:"routeCutoff,omitempty"`
	// ServedRoutes, on a Gateway's part 0, are the routes the configuration it last
	// applied holds: for each, 8 bytes of the SHA-256 of its UID and generation, sorted,
	// in base64. Routes read it while NotApplied is set: a route not among them is not
	// served, and its Accepted condition says so.
	// +optional
	// +kubebuilder:validation:MaxLength=128000
	ServedRoutes string `json:"servedRoutes,omitempty"`
	// NotApplied, on a Gateway's part 0, says why the Gateway's latest render was not
	// applied (its render failed, an apply failed, a bound refused it); empty when it
	// was. The objects applied before stay, and so does ServedRoutes.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	NotApplied string `json:"notApplied,omitempty"`
	// RouteRefused, on a route's part 0, says that the route's templates refused it on
	// its Gateway (a fail, a bound of its own render): the message its Accepted condition
	// says. The Gateway leaves the route out of its configuration while it is set.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	RouteRefused string `json:"routeRefused,omitempty"`
}

// TargetFor is the revision the rollout of blueprint assigned the Gateway whose part 0 r
// is: TargetRevision when that blueprint's rollout wrote it, else 0 (none: the Gateway
// runs the blueprint's current revision).
func (r *Rendering) TargetFor(blueprint string) int64 {
	if r.TargetBlueprint != blueprint {
		return 0
	}
	return r.TargetRevision
}

// RouteCutoff names the first route a Gateway left out for a bound, and why.
type RouteCutoff struct {
	CreationTimestamp metav1.Time `json:"creationTimestamp"`
	// Kind is the route's kind; absent, an HTTPRoute.
	// +kubebuilder:validation:Enum=HTTPRoute;GRPCRoute;TLSRoute;TCPRoute;UDPRoute
	// +optional
	Kind string `json:"kind,omitempty"`
	// +kubebuilder:validation:MaxLength=253
	Namespace string `json:"namespace"`
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// Message says which bound, as the routes' Accepted condition says it.
	// +kubebuilder:validation:MaxLength=1024
	Message string `json:"message"`
}

// RenderingList is a list of Renderings.
//
// +kubebuilder:object:root=true
type RenderingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Rendering `json:"items"`
}
