package v1alpha1

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// GatewayClassBlueprintSpec describes, as Helm-style Go templates, the infrastructure
// that implements each Gateway (and optionally each HTTPRoute) of the GatewayClasses
// that reference the blueprint.
type GatewayClassBlueprintSpec struct {
	// Values are the blueprint's own values: its defaults are the lowest of all, its
	// overrides beat every GatewayClassConfig and GatewayConfig.
	// +optional
	Values *DefaultsAndOverrides `json:"values,omitempty"`

	// TenantUnset says whether tenants (GatewayConfigs) may remove a value that a higher
	// policy in the chain set (the blueprint, a GatewayClassConfig, a GatewayConfig of
	// a less specific level or an older one of the same level), with null or by leaving
	// it out of an Atomic or Merge override. Forbidden keeps such a value and reports
	// the attempt on the GatewayConfig. Overrides can never be unset, whatever this says.
	// +optional
	// +kubebuilder:default=Allowed
	TenantUnset TenantUnset `json:"tenantUnset,omitempty"`

	// ValuesSchema is an OpenAPI v3 schema that the effective values must satisfy before
	// any template is rendered.
	// +optional
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	ValuesSchema *apiextensionsv1.JSON `json:"valuesSchema,omitempty"`

	// PrivateValuePaths lists paths of .Values (aws.accountId, secrets) whose values the
	// Renderings record as private: a reader of a Rendering sees where such a value, or
	// any value under it, came from, not what it is.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=256
	// +kubebuilder:validation:items:MinLength=1
	PrivateValuePaths []string `json:"privateValuePaths,omitempty"`

	// Helpers holds named templates ({{ define "name" }}) that every template can use
	// with include or template, like a chart's _helpers.tpl.
	// +optional
	Helpers string `json:"helpers,omitempty"`

	// ClusterScopedKinds lists the cluster-scoped kinds the templates may produce. A
	// template that renders any other cluster-scoped object is refused.
	// +optional
	// +listType=map
	// +listMapKey=group
	// +listMapKey=kind
	// +kubebuilder:validation:MaxItems=32
	ClusterScopedKinds []GroupKind `json:"clusterScopedKinds,omitempty"`

	// Serves says what the data plane the templates make implements: which listeners
	// the Gateways' status accepts, the route kinds they support, and the features the
	// GatewayClasses list. Left out, or a field of it left out, a blueprint serves what it
	// always did: protocols HTTP and HTTPS, TLS terminated, HTTPRoutes, and the features
	// Gatewright itself implements.
	// +optional
	Serves *Serves `json:"serves,omitempty"`

	// GatewayTemplate is rendered once for every Gateway of the classes using the blueprint.
	// +required
	GatewayTemplate GatewayTemplate `json:"gatewayTemplate"`

	// HTTPRouteTemplate is rendered once for every pair of an HTTPRoute and a parent
	// Gateway of a class using the blueprint.
	// +optional
	HTTPRouteTemplate *RouteTemplate `json:"httpRouteTemplate,omitempty"`

	// GRPCRouteTemplate is HTTPRouteTemplate for GRPCRoutes.
	// +optional
	GRPCRouteTemplate *RouteTemplate `json:"grpcRouteTemplate,omitempty"`

	// TLSRouteTemplate is HTTPRouteTemplate for TLSRoutes.
	// +optional
	TLSRouteTemplate *RouteTemplate `json:"tlsRouteTemplate,omitempty"`

	// TCPRouteTemplate is HTTPRouteTemplate for TCPRoutes.
	// +optional
	TCPRouteTemplate *RouteTemplate `json:"tcpRouteTemplate,omitempty"`

	// UDPRouteTemplate is HTTPRouteTemplate for UDPRoutes.
	// +optional
	UDPRouteTemplate *RouteTemplate `json:"udpRouteTemplate,omitempty"`

	// Rollout says how a new revision reaches the Gateways; without it, in the default
	// waves. Changing it makes no new revision.
	// +optional
	Rollout *BlueprintRollout `json:"rollout,omitempty"`

	// RenderLimits tune the bounds of one render of the blueprint's templates: a base,
	// and an allowance for every route match the render is given. A field left out
	// keeps its default; a value above the cap the controller's operator set is lowered
	// to the cap, and the Linted condition says so.
	// +optional
	RenderLimits *RenderLimits `json:"renderLimits,omitempty"`
}

// RouteTemplateOf is the route template of routes of kind (HTTPRoute, GRPCRoute,
// TLSRoute, TCPRoute or UDPRoute), nil when the blueprint has none.
func (s *GatewayClassBlueprintSpec) RouteTemplateOf(kind string) *RouteTemplate {
	switch kind {
	case "HTTPRoute":
		return s.HTTPRouteTemplate
	case "GRPCRoute":
		return s.GRPCRouteTemplate
	case "TLSRoute":
		return s.TLSRouteTemplate
	case "TCPRoute":
		return s.TCPRouteTemplate
	case "UDPRoute":
		return s.UDPRouteTemplate
	}
	return nil
}

// Serves is what a blueprint's data plane implements. Its defaults are applied where it
// is read, not by the API server: stored defaults would change the spec, and so the
// revision, of every blueprint written before serves existed.
type Serves struct {
	// Protocols are the listener protocols served. A listener of another protocol is not
	// accepted (UnsupportedProtocol). Default: HTTP, HTTPS.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=5
	// +kubebuilder:validation:items:Enum=HTTP;HTTPS;TLS;TCP;UDP
	Protocols []gatewayv1.ProtocolType `json:"protocols,omitempty"`

	// TLSModes are the tls.mode values served on TLS listeners: Passthrough hands the
	// TLS stream to the backend, Terminate ends it with the listener's certificateRefs.
	// A TLS listener of another mode is not accepted (UnsupportedValue). HTTPS listeners
	// always terminate. Default: Terminate.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=2
	TLSModes []gatewayv1.TLSModeType `json:"tlsModes,omitempty"`

	// RouteKinds are the kinds of route (group gateway.networking.k8s.io) served. A
	// listener supports those its protocol takes: HTTPRoute and GRPCRoute on HTTP and
	// HTTPS, TLSRoute on TLS, TCPRoute on TCP, UDPRoute on UDP. Default: HTTPRoute.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=5
	// +kubebuilder:validation:items:Enum=HTTPRoute;GRPCRoute;TLSRoute;TCPRoute;UDPRoute
	RouteKinds []gatewayv1.Kind `json:"routeKinds,omitempty"`

	// Features are the Gateway API features (GEP-2162) the classes list in
	// status.supportedFeatures, which conformance runs read, by the names of Gateway
	// API's features package (Gateway, HTTPRoute, ReferenceGrant, GRPCRoute, TLSRoute,
	// ...). Default: Gateway, GatewayInfrastructure, GatewayPort8080, HTTPRoute,
	// HTTPRouteParentRefPort, ReferenceGrant.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=128
	// +kubebuilder:validation:items:Pattern=`^[A-Za-z0-9]+$`
	Features []string `json:"features,omitempty"`
}

// RenderLimits are the bounds of one render: what a render gets whatever its input.
// A render given routes gets PerRouteMatch besides, for every match of their rules (a
// rule without matches counts one).
type RenderLimits struct {
	// Operations bounds the function calls, range iterations and {{ template }}s of a
	// render; a tpl counts 500. Default 1000000.
	// +optional
	// +kubebuilder:validation:Minimum=1
	Operations *int64 `json:"operations,omitempty"`

	// BuiltBytes bounds what the template functions of a render build (text, lists and
	// maps, and printing a list or a map), added up over the whole render: each call
	// draws, before it runs, what it allocates. Default 33554432 (32 MiB).
	// +optional
	// +kubebuilder:validation:Minimum=1
	BuiltBytes *int64 `json:"builtBytes,omitempty"`

	// RenderedBytes bounds what a render writes, the output of include and tpl
	// included; the line breaks, commas and brackets it may write (the YAML nodes its
	// output parses into) grow with it, 100000 for the default 8388608 (8 MiB).
	// +optional
	// +kubebuilder:validation:Minimum=1
	RenderedBytes *int64 `json:"renderedBytes,omitempty"`

	// Time bounds how long a render runs, as "2s" or "500ms". Default 2s.
	// +optional
	// +kubebuilder:validation:XValidation:rule="duration(self) > duration('0s')",message="time must be more than 0s"
	Time *gatewayv1.Duration `json:"time,omitempty"`

	// PerRouteMatch is what a render gets besides for every route match it is given.
	// +optional
	PerRouteMatch *RenderAllowance `json:"perRouteMatch,omitempty"`
}

// RenderAllowance is what a render gets for one route match, added to the base.
type RenderAllowance struct {
	// Operations for every route match.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Operations *int64 `json:"operations,omitempty"`

	// BuiltBytes for every route match.
	// +optional
	// +kubebuilder:validation:Minimum=0
	BuiltBytes *int64 `json:"builtBytes,omitempty"`

	// RenderedBytes for every route match.
	// +optional
	// +kubebuilder:validation:Minimum=0
	RenderedBytes *int64 `json:"renderedBytes,omitempty"`

	// Time for every route match, as "1ms".
	// +optional
	Time *gatewayv1.Duration `json:"time,omitempty"`
}

// GroupKind names a kind of object by API group and kind.
type GroupKind struct {
	// Group is the API group; "" for the core group.
	// +kubebuilder:default=""
	Group gatewayv1.Group `json:"group"`

	// Kind is the kind, for example Namespace.
	Kind gatewayv1.Kind `json:"kind"`
}

// GatewayTemplate holds the templates rendered for each Gateway.
type GatewayTemplate struct {
	// ResourceTemplates produce the objects behind the Gateway.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=64
	ResourceTemplates []ResourceTemplate `json:"resourceTemplates,omitempty"`

	// Status renders the addresses reported in the Gateway's status.
	// +optional
	Status *StatusTemplate `json:"status,omitempty"`
}

// RouteTemplate holds the templates rendered for each route of one kind and parent
// Gateway.
type RouteTemplate struct {
	// ResourceTemplates produce the objects behind the route.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=64
	ResourceTemplates []ResourceTemplate `json:"resourceTemplates,omitempty"`
}

// ResourceTemplate is one Go template that renders zero or more YAML documents.
type ResourceTemplate struct {
	// Name identifies the template in errors, in dependsOn and in .Resources.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name"`

	// Template is a Go template with the Helm function set.
	// +required
	// +kubebuilder:validation:MinLength=1
	Template string `json:"template"`

	// DependsOn names templates whose objects must be ready before this one renders.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	DependsOn []string `json:"dependsOn,omitempty"`

	// ReadyWhen is a CEL expression over `self`, a live object of this template, that
	// says when it is ready, for kinds kstatus cannot judge (a composite resource with a
	// condition type of its own, an object without conditions). When set it replaces
	// kstatus for this template's objects, in dependsOn and in the Gateway's Programmed.
	// It is bounded like a policy's when; an expression that fails or exceeds its bound
	// leaves the object not ready.
	// +optional
	// +kubebuilder:validation:MaxLength=4096
	ReadyWhen string `json:"readyWhen,omitempty"`
}

// StatusTemplate renders a YAML object `addresses: [{type, value}]` for Gateway.status.
type StatusTemplate struct {
	// Template is a Go template with the Helm function set.
	// +required
	// +kubebuilder:validation:MinLength=1
	Template string `json:"template"`
}

// GatewayClassBlueprintStatus reports whether the blueprint can be used.
type GatewayClassBlueprintStatus struct {
	// ObservedGeneration is the generation the conditions were written for.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions: Accepted is False with reason InvalidTemplates when a template does
	// not parse, dependsOn names a missing template or forms a cycle, or valuesSchema
	// is not a valid schema. Ready, Reconciling and Stalled sum up the blueprint: Ready
	// is True when it is accepted and its newest revision is rolled out; Reconciling
	// while a rollout's wave waits on its gate; Stalled when it is not accepted, its
	// rollout was rolled back (until a new revision) or a rollout annotation cannot be
	// read. A paused rollout leaves all three but Ready False. Gateways that fail to
	// render count in failingGateways and gatewright.dev/Rendered, not here: a tenant's
	// values can fail a Gateway too, and a rollout rolls back what the revision breaks.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=8
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// FailingGateways counts the Gateways of its classes whose render or apply fails;
	// the gatewright.dev/Rendered condition names the first few.
	// +optional
	FailingGateways int32 `json:"failingGateways,omitempty"`

	// CurrentRevision is the revision that Gateways run unless a rollout assigned them a
	// newer one. A rollout's wave that takes every Gateway (the last, or all at once)
	// makes its revision current at once, before its gate has passed; a rollback makes
	// the revision it started from current again.
	// +optional
	CurrentRevision int64 `json:"currentRevision,omitempty"`
	// TargetRevision is the newest accepted revision.
	// +optional
	TargetRevision int64 `json:"targetRevision,omitempty"`
	// Revisions count the Gateways that run each revision of the history, oldest first.
	// +optional
	// +listType=map
	// +listMapKey=revision
	// +kubebuilder:validation:MaxItems=64
	Revisions []RevisionGateways `json:"revisions,omitempty"`
	// Rollout is the state of the newest rollout.
	// +optional
	Rollout *BlueprintRolloutStatus `json:"rollout,omitempty"`
}

// RevisionGateways counts the Gateways whose objects were rendered from a revision.
type RevisionGateways struct {
	Revision int64 `json:"revision"`
	Gateways int32 `json:"gateways"`
}

// GatewayClassBlueprint is the set of templates that implements the Gateways of the
// GatewayClasses whose parametersRef names it.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=gcb,categories=gatewright
// +kubebuilder:printcolumn:name="Accepted",type=string,JSONPath=`.status.conditions[?(@.type=="Accepted")].status`
// +kubebuilder:printcolumn:name="Lint",type=string,JSONPath=`.status.conditions[?(@.type=="gatewright.dev/Linted")].reason`
// +kubebuilder:printcolumn:name="Failing",type=integer,JSONPath=`.status.failingGateways`
// +kubebuilder:printcolumn:name="Current",type=integer,JSONPath=`.status.currentRevision`
// +kubebuilder:printcolumn:name="Target",type=integer,JSONPath=`.status.targetRevision`
// +kubebuilder:printcolumn:name="Rollout",type=string,JSONPath=`.status.rollout.phase`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type GatewayClassBlueprint struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec GatewayClassBlueprintSpec `json:"spec"`

	// Defaulted to an observedGeneration of 0 until the controller writes it, so that
	// kstatus reads a new object as not yet observed (InProgress) rather than Current.
	// +optional
	// +kubebuilder:default={observedGeneration: 0}
	Status GatewayClassBlueprintStatus `json:"status,omitempty"`
}

// GatewayClassBlueprintList is a list of GatewayClassBlueprints.
//
// +kubebuilder:object:root=true
type GatewayClassBlueprintList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []GatewayClassBlueprint `json:"items"`
}
