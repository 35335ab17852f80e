package render

import (
	"fmt"
	"slices"
	"text/template"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/listeners"
	"github.com/gatewright/gatewright/internal/manifest"
	routekinds "github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/routing"
)

// Input is what a render needs besides the blueprint.
type Input struct {
	// Values are the effective values (internal/values), handed to templates as .Values.
	Values       map[string]any
	Gateway      *gatewayv1.Gateway
	GatewayClass *gatewayv1.GatewayClass
	// HTTPRoutes are the routes attached to the Gateway, .HTTPRoutes in gateway templates.
	HTTPRoutes []*gatewayv1.HTTPRoute
	// OtherRoutes are the routes of the other kinds attached to the Gateway: .GRPCRoutes,
	// .TLSRoutes, .TCPRoutes and .UDPRoutes in gateway templates.
	OtherRoutes []routekinds.Route
	// RouteTable is the Gateway's route table (internal/routing), .RouteTable in gateway
	// templates: what a proxy's configuration is printed from.
	RouteTable *routing.Table
	// Listeners are what the Gateway API rules say of each listener of the Gateway, its
	// certificateRefs resolved: .Listeners in every template, so that a template leaves
	// out a listener that is not valid.
	Listeners []listeners.Status
	// ListenerSets are the verdicts of the ListenerSets naming the Gateway as their
	// parent: the listeners of those attached follow the Gateway's own in gateway
	// templates' .Listeners, each naming its ListenerSet.
	ListenerSets []listeners.SetVerdict
	// BackendRefs are the backendRefs of the route's rules and whether each resolves,
	// .BackendRefs in route templates, so that a template leaves out what does not.
	BackendRefs []attach.BackendRef
	// Live holds, per template name, the objects that template produced as they are in
	// the cluster now: .Resources.<template>, and what dependsOn waits for.
	Live map[string][]*unstructured.Unstructured
	// IsReady tells whether a live object is ready: the blueprint's Readiness, so that
	// readyWhen holds dependsOn back. When nil the render is offline: every dependency
	// counts as ready and .Resources holds the rendered objects.
	IsReady TemplateReadiness
	// IsNamespaced tells whether a kind is namespaced, from the cluster's API. When nil,
	// clusterScopedKinds and the well-known cluster-scoped kinds decide.
	IsNamespaced func(schema.GroupVersionKind) (bool, error)
	// TableMemo keeps the route table's template data from one render of the Gateway
	// to the next (nil: a new one for this render).
	TableMemo *TableMemo
}

// Output is the result of a render.
type Output struct {
	// Objects to apply, in dependency order, then document order.
	Objects []*unstructured.Unstructured
	// Waiting lists the templates not rendered yet because a dependency is not ready.
	Waiting []Waiting
	// StatusRendered is true when the status template ran (it runs once every
	// template is rendered and ready); Addresses is what it gave. A blueprint without
	// a status template (Blueprint.HasStatus) never gives addresses: the Gateway's are
	// to be cleared.
	StatusRendered bool
	Addresses      []gatewayv1.GatewayStatusAddress
}

// Waiting says that a template waits for the objects of another to be ready.
type Waiting struct {
	Template string
	For      string
}

func (w Waiting) String() string {
	return fmt.Sprintf("template %s is waiting for %s", w.Template, w.For)
}

// Gateway renders the gateway templates for in.Gateway, and the status template once
// every object is ready.
func (b *Blueprint) Gateway(in Input) (*Output, error) {
	if in.TableMemo == nil {
		in.TableMemo = NewTableMemo()
	}
	data := b.gatewayData(in, b.gatewayReads)
	c, err := b.takeClone(in.RouteMatches(), in.TableMemo)
	if err != nil {
		return nil, err
	}
	out, err := b.renderGateway(c, data, in)
	b.giveBack(c, err)
	return out, err
}

// renderGateway is Gateway on c: the set and the status template share its budget.
func (b *Blueprint) renderGateway(c *clone, data map[string]any, in Input) (*Output, error) {
	res, err := b.renderSet(c, b.gateway, data, in, newPlacement(in.Gateway, nil, in.IsNamespaced))
	if err != nil {
		return nil, err
	}
	out := &Output{Objects: res.objects, Waiting: res.waiting}
	// The status reports provisioned infrastructure, so it waits for every object to be
	// ready; offline there is nothing provisioned to report.
	if b.hasStatus && in.IsReady != nil && len(res.waiting) == 0 && allReady(res.ready) {
		addresses, err := b.status(c, data)
		if err != nil {
			return nil, err
		}
		out.StatusRendered, out.Addresses = true, addresses
	}
	return out, nil
}

// ObjectsMayChange tells whether rendering in again with other live objects may give
// other objects than out, a render of the Gateway's templates: when a template waited, or
// when one may read .Resources. When not, GatewayStatus renders what is left to render.
func (b *Blueprint) ObjectsMayChange(out *Output) bool {
	return b.gatewayReadsLive.any() || len(out.Waiting) > 0
}

// RouteObjectsMayChange is ObjectsMayChange for out, a render of the templates of a
// route of kind.
func (b *Blueprint) RouteObjectsMayChange(kind string, out *Output) bool {
	return b.routes[kind].readsLive.any() || len(out.Waiting) > 0
}

// GatewayStatus is Gateway(in) for a Gateway whose objects were rendered into out and
// cannot change (ObjectsMayChange): only the status template runs, once every object
// of out is ready as in.Live has it. It spares a Gateway's first round rendering every
// template a second time to report what its apply created.
func (b *Blueprint) GatewayStatus(in Input, out *Output) (*Output, error) {
	again := &Output{Objects: out.Objects}
	if !b.hasStatus || in.IsReady == nil {
		return again, nil
	}
	byTemplate := map[string][]*unstructured.Unstructured{}
	for _, obj := range out.Objects {
		name := manifest.Label(obj, gatewrightv1alpha1.LabelTemplate)
		byTemplate[name] = append(byTemplate[name], obj)
	}
	for _, rt := range b.gateway {
		if !in.ready(rt.name, byTemplate[rt.name]) {
			return again, nil
		}
	}
	if in.TableMemo == nil {
		in.TableMemo = NewTableMemo()
	}
	c, err := b.takeClone(in.RouteMatches(), in.TableMemo)
	if err != nil {
		return nil, err
	}
	addresses, err := b.status(c, b.gatewayData(in, b.statusReads))
	b.giveBack(c, err)
	if err != nil {
		return nil, err
	}
	again.StatusRendered, again.Addresses = true, addresses
	return again, nil
}

// otherRouteKinds are the route kinds gateway templates see besides HTTPRoutes, each as
// .<Kind>s.
var otherRouteKinds = []string{routekinds.KindGRPCRoute, routekinds.KindTLSRoute, routekinds.KindTCPRoute, routekinds.KindUDPRoute}

// gatewayData is what the gateway templates and the status template see. The routes
// and the route table are built only for templates that may read them (reads).
func (b *Blueprint) gatewayData(in Input, reads map[string]bool) map[string]any {
	data := b.context(in, b.gateway)
	routes := []any{}
	if reads["HTTPRoutes"] {
		routes = make([]any, len(in.HTTPRoutes))
		for i, route := range in.HTTPRoutes {
			routes[i] = toMap(route)
		}
	}
	data["HTTPRoutes"] = routes
	for _, kind := range otherRouteKinds {
		data[kind+"s"] = []any{}
	}
	for _, route := range in.OtherRoutes {
		if name := routekinds.KindOf(route) + "s"; reads[name] {
			data[name] = append(data[name].([]any), toMap(route))
		}
	}
	data["RouteTable"] = map[string]any{}
	if reads["RouteTable"] {
		data["RouteTable"] = routeTableData(in.RouteTable, in.TableMemo)
	}
	data["Listeners"] = append(listenersData(in.Gateway, in.Listeners), listenerSetsData(in.ListenerSets)...)
	return data
}

// Route renders the route templates of route's kind for route, attached to in.Gateway:
// they see it as .Route and under its kind (.HTTPRoute, .GRPCRoute, ...). in.Live holds
// the live objects of this route's templates. Its bounds grow with the matches of route,
// the route input it is given.
func (b *Blueprint) Route(in Input, route routekinds.Route) (*Output, error) {
	kind := routekinds.KindOf(route)
	set := b.routes[kind].templates
	data := b.context(in, set)
	data["Route"] = toMap(route)
	data[kind] = data["Route"]
	data["BackendRefs"] = backendRefsData(in.BackendRefs)
	data["Listeners"] = listenersData(in.Gateway, in.Listeners)
	c, err := b.takeClone(routeMatches(route), nil)
	if err != nil {
		return nil, err
	}
	res, err := b.renderSet(c, set, data, in, newPlacement(in.Gateway, route, in.IsNamespaced))
	b.giveBack(c, err)
	if err != nil {
		return nil, err
	}
	return &Output{Objects: res.objects, Waiting: res.waiting}, nil
}

// backendRefsData is .BackendRefs: one map per backendRef, with lower-case keys and
// int64 numbers, like the objects the templates read.
func backendRefsData(refs []attach.BackendRef) []any {
	out := make([]any, len(refs))
	for i, b := range refs {
		m := map[string]any{"rule": int64(b.Rule), "namespace": b.Namespace, "name": b.Name, "resolved": b.Resolved(), "reason": string(b.Reason)}
		if b.Port != nil {
			m["port"] = int64(*b.Port)
		}
		out[i] = m
	}
	return out
}

// listenersData is .Listeners: one map per listener of gw's spec that statuses speaks
// of, in spec order, with lower-case keys and int64 numbers like the objects the
// templates read. It names the certificates, never anything they hold.
func listenersData(gw *gatewayv1.Gateway, statuses []listeners.Status) []any {
	out := []any{}
	for i := range gw.Spec.Listeners {
		l := &gw.Spec.Listeners[i]
		j := slices.IndexFunc(statuses, func(s listeners.Status) bool { return s.Name == l.Name })
		if j < 0 {
			continue
		}
		out = append(out, listenerData(l, statuses[j]))
	}
	return out
}

// listenerSetsData are the entries of .Listeners that come from the attached ListenerSets
// of sets, in their precedence, each with listenerSet: {namespace, name}. A Gateway's own
// listeners have no such key, so templates that dumped .Listeners before see them as
// they were.
func listenerSetsData(sets []listeners.SetVerdict) []any {
	var out []any
	for _, v := range sets {
		if !v.Accepted {
			continue
		}
		for i, s := range v.Listeners {
			m := listenerData(&v.Entries[i], s)
			m["listenerSet"] = map[string]any{"namespace": v.Ref.Namespace, "name": v.Ref.Name}
			out = append(out, m)
		}
	}
	return out
}

// listenerData is the entry of .Listeners for l, of which the rules say s.
func listenerData(l *gatewayv1.Listener, s listeners.Status) map[string]any {
	hostname := ""
	if l.Hostname != nil {
		hostname = string(*l.Hostname)
	}
	refs := make([]any, len(s.CertificateRefs))
	for j, c := range s.CertificateRefs {
		refs[j] = map[string]any{"group": c.Group, "kind": c.Kind, "namespace": c.Namespace, "name": c.Name, "resolved": c.Resolved(), "reason": string(c.Reason)}
	}
	return map[string]any{
		"name": string(l.Name), "protocol": string(l.Protocol), "port": int64(l.Port), "hostname": hostname,
		"valid": s.IsValid(), "reason": string(s.Reason()), "certificateRefs": refs,
	}
}

// context is the data every template of a set sees.
func (b *Blueprint) context(in Input, set []resourceTemplate) map[string]any {
	resources := make(map[string]any, len(set))
	for _, rt := range set {
		live := make([]any, 0, len(in.Live[rt.name]))
		if in.IsReady != nil {
			for _, obj := range in.Live[rt.name] {
				live = append(live, obj.DeepCopy().Object)
			}
		}
		resources[rt.name] = live
	}
	return map[string]any{
		"Values":       copyValue(orEmpty(in.Values)),
		"Gateway":      toMap(in.Gateway),
		"GatewayClass": toMap(in.GatewayClass),
		"Resources":    resources,
		"Blueprint":    b.name,
	}
}

// setResult is the state of one set's render.
type setResult struct {
	objects []*unstructured.Unstructured
	waiting []Waiting
	ready   map[string]bool
}

func allReady(ready map[string]bool) bool {
	for _, ok := range ready {
		if !ok {
			return false
		}
	}
	return true
}

// renderSet executes the templates of a set in dependency order. A template whose
// dependencies are not all rendered and ready waits; any error discards everything.
func (b *Blueprint) renderSet(c *clone, set []resourceTemplate, data map[string]any, in Input, p placement) (*setResult, error) {
	res := &setResult{ready: map[string]bool{}}
	seen := map[string]string{} // object identity -> template
	for _, rt := range set {
		if dep := firstNotReady(rt.dependsOn, res.ready); dep != "" {
			res.waiting = append(res.waiting, Waiting{Template: rt.name, For: dep})
			continue
		}
		text, err := c.execute(rt.id, data)
		if err == nil {
			err = c.binder.drawParse(text)
		}
		if err != nil {
			return nil, templateError(b.name, rt.id, err)
		}
		objs, err := b.objects(rt, text, p)
		if err != nil {
			return nil, withOutput(err, text)
		}
		for _, obj := range objs {
			id := identity(obj)
			if other, dup := seen[id]; dup {
				return nil, objectError(b.name, rt.id, obj.GetKind(), obj.GetName(), "is also rendered by template %s", other)
			}
			seen[id] = rt.id
		}
		res.objects = append(res.objects, objs...)
		res.ready[rt.name] = in.ready(rt.name, objs)
		if in.IsReady == nil {
			rendered := make([]any, len(objs))
			for i, obj := range objs {
				rendered[i] = obj.DeepCopy().Object
			}
			data["Resources"].(map[string]any)[rt.name] = rendered
		}
	}
	return res, nil
}

// clone is a copy of the blueprint's templates whose include, tpl and instrumentation
// are bound to its own binder: what one render at a time executes on.
type clone struct {
	templates *template.Template
	binder    *binder
}

// takeClone takes a clone no render uses, or makes one when there is none, and gives
// it a fresh budget, the blueprint's bounds for a render given matches route matches,
// and memo, the route table data no template of the render may change (nil: none).
// Copying the templates and their function maps for every render was a good part of
// what the controller allocates.
func (b *Blueprint) takeClone(matches int, memo *TableMemo) (*clone, error) {
	c := b.idleClone()
	if c == nil {
		t, err := b.templates.Clone()
		if err != nil {
			return nil, err
		}
		c = &clone{templates: t, binder: bindFunctions(t)}
	}
	c.binder.reset(b.bounds.forMatches(matches))
	c.binder.table = memo
	return c, nil
}

func (b *Blueprint) idleClone() *clone {
	b.clonesMu.Lock()
	defer b.clonesMu.Unlock()
	n := len(b.clones)
	if n == 0 {
		return nil
	}
	c := b.clones[n-1]
	b.clones = b.clones[:n-1]
	return c
}

// giveBack makes c available to other renders once its render is over. The budget is
// all a render changes on a clone, and takeClone resets it; yet a clone whose render
// failed (an error, a limit, a recovered panic) is dropped rather than reasoned about:
// failures are rare.
func (b *Blueprint) giveBack(c *clone, renderErr error) {
	c.binder.release()
	if renderErr != nil {
		return
	}
	b.clonesMu.Lock()
	defer b.clonesMu.Unlock()
	b.clones = append(b.clones, c)
}

func firstNotReady(deps []string, ready map[string]bool) string {
	for _, dep := range deps {
		if !ready[dep] {
			return dep
		}
	}
	return ""
}

// ready tells whether every object a template rendered is live and ready.
func (in Input) ready(template string, rendered []*unstructured.Unstructured) bool {
	if in.IsReady == nil {
		return true
	}
	live := map[string]*unstructured.Unstructured{}
	for _, obj := range in.Live[template] {
		live[identity(obj)] = obj
	}
	for _, obj := range rendered {
		current, ok := live[identity(obj)]
		if !ok {
			return false
		}
		if ready, _ := in.IsReady(current, template); !ready {
			return false
		}
	}
	return true
}

// identity names an object by group, kind, namespace and name.
func identity(obj *unstructured.Unstructured) string {
	gk := obj.GroupVersionKind().GroupKind()
	return gk.Kind + "." + gk.Group + "/" + obj.GetNamespace() + "/" + obj.GetName()
}

// execute runs the named template of the clone.
func (c *clone) execute(name string, data map[string]any) (text string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("template panicked: %v", r)
		}
	}()
	out := c.binder.newOutput()
	c.binder.out = out
	if err := c.templates.ExecuteTemplate(out, name, data); err != nil {
		return "", err
	}
	return out.String(), nil
}

func toMap(obj runtime.Object) map[string]any {
	if obj == nil {
		return nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		panic(err) // typed API objects always convert
	}
	return m
}

// copyValue copies maps and lists, so that templates (sprig's set, for one) cannot
// change the caller's values.
func copyValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, item := range v {
			out[k] = copyValue(item)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, item := range v {
			out[i] = copyValue(item)
		}
		return out
	default:
		return v
	}
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}
