package snapshot

import (
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/listeners"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/routing"
)

// Gatherer gathers, through Reader, what the values and templates of Gateways, of the
// routes on them and of the policies that reach them are computed from: one call per
// owner kind (Gateway, Route, Policy), and one resolver of the blueprint revision a
// Gateway runs (revision.go). Its fields say what a caller genuinely does differently;
// the zero value of each is what a plain reader of the API server does.
//
// A Gatherer remembers, for its lifetime, the revisions it read and the revisions
// rollouts assigned the Gateways (revisionReads): one per reconcile or command, so that
// a pass over many Gateways judges them all on the same read, and none outlives it.
type Gatherer struct {
	Reader              client.Reader
	ControllerNamespace string

	// SecretCheck judges the Secrets of certificateRefs and ServiceExists says which
	// Services of backendRefs exist, when the caller keeps them apart from Reader (the
	// controller's metadata caches, a set of files). Nil reads them through Reader.
	SecretCheck   attach.SecretCheck
	ServiceExists attach.ServiceExists
	// GatewayClassIndex, RouteParentIndex and RefusedRouteIndex name field indexes
	// Reader serves (the controller's cache has them): of Gateways by
	// spec.gatewayClassName, of HTTPRoutes by the Gateways their parentRefs name
	// ("namespace/name"), and of the Renderings of routes refused by their own templates,
	// by Gateway. Without them the objects are listed and filtered as they are read.
	GatewayClassIndex string
	RouteParentIndex  string
	RefusedRouteIndex string
	// ServesListenerSets says that Reader serves ListenerSets, through which routes reach a
	// Gateway too; ListenerSetParentIndex, when set, names its index of them by the
	// Gateway (namespace/name) their parentRef names. RouteParentIndex names a ListenerSet
	// a route's parentRef names as ListenerSetRouteKey has it.
	ServesListenerSets     bool
	ListenerSetParentIndex string
	// OtherRouteKinds are the route kinds besides HTTPRoute whose routes a policy's
	// contexts include (contextsReached): those Reader serves. A kind the API server does
	// not serve has no routes.
	OtherRouteKinds []string
	// HTTPRoutesNaming, when set, lists the HTTPRoutes whose parentRefs name a Gateway
	// instead of RouteParentIndex: the controller's cache's own objects, which an
	// AttachMemo finds again by the object while a route does not change.
	HTTPRoutesNaming func(client.Object) ([]*gatewayv1.HTTPRoute, error)
	// AttachMemos, when set, is where the listeners each route of a Gateway took are
	// kept between passes: the Gateway's AttachMemo, or nil for none (the controller's,
	// one per Gateway it programs).
	AttachMemos func(*gatewayv1.Gateway) *AttachMemo
	// BackendMemos, when set, is where how each route of a Gateway resolved its
	// backendRefs is kept between passes, as AttachMemos.
	BackendMemos func(*gatewayv1.Gateway) *BackendMemo
	// RouteLimits are the controller's bounds on the routes one Gateway takes.
	RouteLimits routing.Limits
	// AsRecorded reads what the controller decided of a Gateway's routes from its
	// records: those their own templates refused, and those a Gateway-wide bound left out,
	// since the bounds are its operator's flags, which no other reader sees.
	AsRecorded bool
	// Rights, when set, says that the reads run through the API server with a caller's
	// rights (`gatewright explain`, the conformance harness): what the caller may not read
	// has a stand-in that cannot change the answer, said in Rights.Notes, or one that can,
	// told to Rights.Refused, or is an error that names what was being read. Through the
	// API server the records that say which revision a rollout assigned each Gateway are
	// listed once per namespace, not read one Gateway at a time, and a revision not found
	// is no cache behind.
	Rights *Rights
	// Proposed names the blueprints whose live spec is a change's new revision (`gatewright
	// diff`): their Gateways run that spec, as they will once the rollout reaches them.
	Proposed map[string]bool
	// LiveWithoutRevisions computes with a blueprint's live spec when Reader does not hold
	// the revision a Gateway runs: files need not hold revisions, and a caller may not
	// read them. Otherwise such a revision is an error to retry: the cache is behind.
	LiveWithoutRevisions bool

	revisions revisionReads
	policies  *contextValues
	backends  backendReads
}

// Rights collects what stood in for the reads a caller may not make.
type Rights struct {
	Notes []string
	// Refused, when set, takes a stand-in for what a Gateway runs when the caller may not
	// read it, and is told what was refused and what stood in: the blueprint's
	// currentRevision for the revision a rollout assigned, its live spec for a revision.
	// Either may change the values: `gatewright explain` of a policy marks its answer
	// partial. Nil: such a read is an error.
	Refused func(what, standIn string)
}

// Option says what one call gathers, or what the caller already holds of it.
type Option func(*options)

type options struct {
	candidates []*gatewayv1.HTTPRoute
	haveRoutes bool
	others     []routes.Route
	judged     []listeners.Status
	haveJudged bool
	sets       []listenerSet
	haveSets   bool
	assigned   func(blueprint string) int64
	routeTable bool
	valuesOnly bool
}

func optionsOf(opts []Option) options {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// Among gathers the routes attached to the Gateway among candidates, those that may
// name it as the caller's index finds them, instead of listing every HTTPRoute.
func Among(candidates []*gatewayv1.HTTPRoute) Option {
	return func(o *options) { o.candidates, o.haveRoutes = candidates, true }
}

// AmongOthers gathers the routes of the other kinds (GRPCRoute, TLSRoute, TCPRoute,
// UDPRoute) attached to the Gateway among candidates, those that may name it as the
// caller's index finds them. Without it, only HTTPRoutes are gathered.
func AmongOthers(candidates []routes.Route) Option {
	return func(o *options) { o.others = candidates }
}

// Judged takes the Gateway's listeners as the caller judged them already
// (Gatherer.Listeners with Gatherer.Serves): the controller reports them even when
// nothing else is gathered.
func Judged(judged []listeners.Status) Option {
	return func(o *options) { o.judged, o.haveJudged = judged, true }
}

// listenerSet is a ListenerSet naming the Gateway as its parent, with its verdict.
type listenerSet struct {
	item    *gatewayv1.ListenerSet
	verdict listeners.SetVerdict
}

// OnListenerSets attaches routes to the listeners of the Gateway's ListenerSets too:
// items are those naming it as their parent, verdicts what the rules say of them
// (Gatherer.ListenerSets). Without it, a Gatherer that ServesListenerSets reads and
// judges them itself. A route attaches there through a parentRef naming an attached
// one, and its listeners there are named by listeners.SetRef.Key.
func OnListenerSets(items []gatewayv1.ListenerSet, verdicts []listeners.SetVerdict) Option {
	return func(o *options) { o.sets, o.haveSets = setsOf(items, verdicts), true }
}

// setsOf pairs each verdict with its ListenerSet among items.
func setsOf(items []gatewayv1.ListenerSet, verdicts []listeners.SetVerdict) []listenerSet {
	byRef := make(map[listeners.SetRef]*gatewayv1.ListenerSet, len(items))
	for i := range items {
		byRef[listeners.SetRef{Namespace: items[i].Namespace, Name: items[i].Name}] = &items[i]
	}
	out := make([]listenerSet, 0, len(verdicts))
	for _, v := range verdicts {
		if item := byRef[v.Ref]; item != nil {
			out = append(out, listenerSet{item: item, verdict: v})
		}
	}
	return out
}

// Assigned takes the revision a rollout assigned the Gateway, of a blueprint, from the
// caller's copy of its record instead of reading the record.
func Assigned(target func(blueprint string) int64) Option {
	return func(o *options) { o.assigned = target }
}

// RouteTableOnly gathers what the Gateway's route table is computed from, and nothing
// else: `gatewright explain request` answers without reading the policies, which the
// answer does not depend on, and reads the blueprint at the revision the Gateway runs
// only for what it serves.
func RouteTableOnly() Option {
	return func(o *options) { o.routeTable = true }
}

// ValuesOnly gathers what the Gateway's values are computed from, the blueprint at the
// revision it runs and the policies, without its routes or listeners: `gatewright
// values` computes nothing else.
func ValuesOnly() Option {
	return func(o *options) { o.valuesOnly = true }
}
