package translate_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/meta/testrestmapper"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/apply"
	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/listeners"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/routing"
	"github.com/gatewright/gatewright/internal/scheme"
	"github.com/gatewright/gatewright/internal/snapshot"
	"github.com/gatewright/gatewright/internal/tlscert"
	"github.com/gatewright/gatewright/internal/translate"
	"github.com/gatewright/gatewright/internal/values"
	"github.com/gatewright/gatewright/test/golden"
)

// controllerNamespace is the controller's namespace in every case: its
// GatewayClassConfigs that target a class are global.
const controllerNamespace = "gatewright-system"

// TestTranslateTestdata runs the pipeline on every testdata/<case>.in.yaml, a header
// naming a Gateway followed by the objects of a cluster, and compares what it decides
// with testdata/<case>.out.yaml: the Gateway's listeners, values, objects, route table
// and verdicts, each route's attachment and translation on it, and each policy's
// verdicts. Snapshots are gathered by internal/snapshot, as the controller gathers
// them, through a reader over the file's objects; a rule that changes shows here
// before it shows in the envtest suites. Run with -update to rewrite the outputs, then
// read the diff.
func TestTranslateTestdata(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "*.in.yaml"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no testdata inputs: %v", err)
	}
	for _, input := range inputs {
		name := strings.TrimSuffix(filepath.Base(input), ".in.yaml")
		t.Run(name, func(t *testing.T) {
			c := loadCase(t, input)
			out, err := marshalOrdered(c.translate(t))
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", name+".out.yaml"), out)
		})
	}
}

// caseHeader is the first document of a .in.yaml: what to translate, and the
// controller's settings that no object holds.
type caseHeader struct {
	// Gateway is the namespace/name of the Gateway to translate. Every HTTPRoute that
	// names it is translated on it, and every policy of the file is judged.
	Gateway string `json:"gateway"`
	// RouteLimits are the controller's bounds on the routes one Gateway takes; unset
	// bounds are the defaults.
	RouteLimits *routeLimits `json:"routeLimits,omitempty"`
	// Live renders the Gateway against the objects of the file that its templates made
	// (their gatewright.dev/template label names the template), as the cluster holds
	// them, judged ready by kstatus or the template's readyWhen: templates wait for their
	// dependencies and the status template runs once all are ready. The cluster serves
	// the kinds Gatewright's scheme knows, and no other. Without it the Gateway renders
	// offline: every dependency ready, no status, and kinds scoped by a list.
	Live bool `json:"live,omitempty"`
}

type routeLimits struct {
	Routes  int `json:"routes,omitempty"`
	Bytes   int `json:"bytes,omitempty"`
	Entries int `json:"entries,omitempty"`
}

// testCase is a .in.yaml loaded: a reader over its objects stands in for the
// controller's cache.
type testCase struct {
	header caseHeader
	reader client.Reader
	// live are the objects of the file that templates made, by template.
	live map[string][]*unstructured.Unstructured
	// served is the cluster's RESTMapper, for a live render.
	served meta.RESTMapper
	// blueprints is shared by the Gateway, its routes and the policies' judgements,
	// as the controller shares its parse cache.
	blueprints *render.Cache
}

func loadCase(t *testing.T, path string) *testCase {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := splitDocuments(data)
	if err != nil || len(docs) < 2 {
		t.Fatalf("%s: want a header and objects: %v", path, err)
	}
	c := &testCase{blueprints: &render.Cache{}, live: map[string][]*unstructured.Unstructured{}}
	if err := yaml.UnmarshalStrict(docs[0], &c.header); err != nil || c.header.Gateway == "" {
		t.Fatalf("%s: the header must name a gateway: %v", path, err)
	}
	s := scheme.New()
	decoder := serializer.NewCodecFactory(s, serializer.EnableStrict).UniversalDeserializer()
	var objects []client.Object
	for i, doc := range docs[1:] {
		decoded, _, err := decoder.Decode(doc, nil, nil)
		if err != nil {
			t.Fatalf("%s: document %d: %v", path, i+2, err)
		}
		obj := decoded.(client.Object)
		objects = append(objects, obj)
		if template := obj.GetLabels()[gatewrightv1alpha1.LabelTemplate]; template != "" {
			content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
			if err != nil {
				t.Fatal(err)
			}
			c.live[template] = append(c.live[template], &unstructured.Unstructured{Object: content})
		}
	}
	c.served = testrestmapper.TestOnlyStaticRESTMapper(s)
	c.reader = fake.NewClientBuilder().WithScheme(s).WithObjects(asTheAPIServerHoldsThem(objects)...).Build()
	return c
}

// splitDocuments splits a YAML stream into its non-empty documents.
func splitDocuments(data []byte) ([][]byte, error) {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs [][]byte
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(doc)) > 0 {
			docs = append(docs, doc)
		}
	}
}

// asTheAPIServerHoldsThem adds what the API server would: a Namespace for every
// namespace an object is in, each Namespace labelled with its name, and a Secret's
// stringData merged into its data. Listeners select routes by namespace labels, and
// certificates are read from data.
func asTheAPIServerHoldsThem(objects []client.Object) []client.Object {
	namespaces := map[string]*corev1.Namespace{}
	var out []client.Object
	for _, obj := range objects {
		switch obj := obj.(type) {
		case *corev1.Namespace:
			namespaces[obj.Name] = obj
			continue
		case *corev1.Secret:
			for k, v := range obj.StringData {
				if obj.Data == nil {
					obj.Data = map[string][]byte{}
				}
				obj.Data[k] = []byte(v)
			}
			obj.StringData = nil
		}
		if ns := obj.GetNamespace(); ns != "" && namespaces[ns] == nil {
			namespaces[ns] = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
		}
		out = append(out, obj)
	}
	for _, name := range slices.Sorted(maps.Keys(namespaces)) {
		ns := namespaces[name]
		if ns.Labels == nil {
			ns.Labels = map[string]string{}
		}
		ns.Labels[corev1.LabelMetadataName] = name
		out = append(out, ns)
	}
	return out
}

// translate computes everything the controller decides about the case's Gateway, in
// the order that its steady state needs: the route table's cutoff, then each route on
// the Gateway (whose own templates may refuse it), then the Gateway with the routes
// refused left out, then every policy.
func (c *testCase) translate(t *testing.T) caseResult {
	t.Helper()
	ctx := context.Background()
	namespace, name, _ := strings.Cut(c.header.Gateway, "/")
	gw := &gatewayv1.Gateway{}
	if err := c.reader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, gw); err != nil {
		t.Fatal(err)
	}
	class := &gatewayv1.GatewayClass{}
	if err := c.reader.Get(ctx, client.ObjectKey{Name: string(gw.Spec.GatewayClassName)}, class); err != nil {
		t.Fatal(err)
	}
	g := c.gatherer(ctx)
	// As the controller judges them: by what the revision the Gateway runs serves, or,
	// when that cannot be read, by what a blueprint that says nothing of it serves.
	serves, servesErr := g.Serves(ctx, gw, class)
	judged, err := g.Listeners(ctx, gw, serves)
	if err != nil {
		t.Fatal(err)
	}
	var all gatewayv1.HTTPRouteList
	if err := c.reader.List(ctx, &all); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(all.Items, func(a, b gatewayv1.HTTPRoute) int {
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	// The routes of every kind, HTTPRoutes first, each kind by namespace/name.
	var others []routes.Route
	for _, kind := range routes.Kinds[1:] {
		list := routes.NewList(kind)
		if err := c.reader.List(ctx, list); err != nil {
			t.Fatal(err)
		}
		items := routes.Items(list)
		slices.SortFunc(items, func(a, b routes.Route) int {
			return strings.Compare(a.GetNamespace()+"/"+a.GetName(), b.GetNamespace()+"/"+b.GetName())
		})
		others = append(others, items...)
	}
	everyRoute := make([]routes.Route, 0, len(all.Items)+len(others))
	for i := range all.Items {
		everyRoute = append(everyRoute, &all.Items[i])
	}
	everyRoute = append(everyRoute, others...)
	out := caseResult{Gateway: c.header.Gateway}
	snap, err := g.Gateway(ctx, gw, class, snapshot.Among(routes.HTTPRoutes(&all)), snapshot.AmongOthers(others), snapshot.Judged(judged))
	if servesErr != nil {
		err = servesErr
	}
	if err != nil {
		// What keeps the snapshot from being gathered is the Gateway's verdict, as the
		// controller reports it (a blueprint missing refuses the Gateway).
		out.Listeners = listenersOf(judged, nil)
		out.Result = gatewayTranslation(&translate.Result{Err: err})
		out.Policies = c.policies(t, g)
		return out
	}
	if limits := c.header.RouteLimits; limits != nil {
		snap.RouteLimits = routing.Limits{Routes: limits.Routes, Bytes: limits.Bytes, Entries: limits.Entries}
	}
	out.Listeners = listenersOf(judged, snap.Attached)

	_, cutoff := snap.RouteTable()
	refusals := map[routes.Key]string{}
	for _, route := range everyRoute {
		if len(attach.ParentRefsTo(route, gw)) == 0 {
			continue
		}
		r, refusal := c.routeOn(t, g, route, gw, class, serves, judged, translate.RecordedCutoff(cutoff))
		if refusal != "" {
			refusals[routes.KeyOf(route)] = refusal
		}
		out.Routes = append(out.Routes, r)
	}
	if len(refusals) > 0 {
		snap.RefusedRoutes = refusals
	}

	if !slices.ContainsFunc(judged, func(l listeners.Status) bool { return l.IsValid() }) {
		out.Result = translation{Skipped: "no listener is valid: nothing is rendered"}
	} else {
		live := translate.Live{}
		if c.header.Live {
			live = translate.Live{Objects: c.live, IsReady: apply.Readiness, IsNamespaced: c.isNamespaced}
		}
		res := snap.Translate(c.blueprints, live)
		if res.Refused() {
			// A Gateway that is not accepted has no routes attached.
			out.Listeners = listenersOf(judged, nil)
		}
		out.Result = gatewayTranslation(res)
	}
	out.Policies = c.policies(t, g)
	return out
}

// routeOn is what the controller decides of route on gw: where each of its parentRefs
// naming gw attaches, whether its backendRefs resolve and, where it attaches and the
// Gateway-wide bound keeps it, its translation; and why its own templates refused it,
// which the Gateway's table then leaves it out for.
func (c *testCase) routeOn(t *testing.T, g *snapshot.Gatherer, route routes.Route, gw *gatewayv1.Gateway, class *gatewayv1.GatewayClass, serves listeners.Serves, judged []listeners.Status, cutoff *gatewrightv1alpha1.RouteCutoff) (routeResult, string) {
	t.Helper()
	ctx := context.Background()
	gateway := gw.Namespace + "/" + gw.Name
	out := routeResult{Route: route.GetNamespace() + "/" + route.GetName()}
	if kind := routes.KindOf(route); kind != routes.KindHTTPRoute {
		out.Kind = kind
	}
	labels, err := g.NamespaceLabels(ctx, route.GetNamespace())
	if err != nil {
		t.Fatal(err)
	}
	backends, err := g.BackendRefs(ctx, route)
	if err != nil {
		t.Fatal(err)
	}
	out.ResolvedRefs = condition(backends.Resolved(), string(backends.Reason), backends.Message)
	attached := false
	for _, ref := range attach.ParentRefsTo(route, gw) {
		a := attach.Attach(gw, serves, attach.RouteOf(route), ref, labels)
		parent := parentResult{ParentRef: parentRefString(route, ref), Accepted: condition(false, string(a.Reason), a.Message)}
		if a.Attached() {
			parent.Accepted = condition(true, string(gatewayv1.RouteReasonAccepted), "")
		}
		for _, l := range a.Listeners {
			parent.Listeners = append(parent.Listeners, string(l))
		}
		attached = attached || a.Attached()
		out.Parents = append(out.Parents, parent)
	}
	// What the controller writes over Accepted=True where the route attaches.
	refuse := func(v translate.Verdict) {
		for i := range out.Parents {
			if strings.HasPrefix(out.Parents[i].Accepted, "True/") {
				out.Parents[i].Accepted = verdict(v)
			}
		}
	}
	if !attached {
		return out, ""
	}
	if cut, ok := translate.RouteCut(cutoff, gateway, route); ok {
		refuse(cut)
		out.Result = &translation{Skipped: "left out for a Gateway-wide bound"}
		return out, ""
	}
	snap, err := g.Route(ctx, route, gw, class)
	if err != nil {
		res := &translate.Result{Err: err}
		refuse(res.RouteAccepted(gateway))
		out.Result = &translation{ErrorClass: errorClass(err), Error: err.Error(), Accepted: verdict(res.RouteAccepted(gateway))}
		refusal, _ := res.RouteRefusal(gateway)
		return out, refusal
	}
	if snap.Values.Blueprint.Spec.RouteTemplateOf(routes.KindOf(route)) == nil {
		out.Result = &translation{Skipped: "the blueprint has no route template of the route's kind: the Gateway's configuration serves the route"}
		return out, ""
	}
	snap.Listeners = judged
	res := snap.TranslateRoute(c.blueprints, translate.Route{Route: route, BackendRefs: backends.BackendRefs}, translate.Live{})
	if res.Err != nil {
		refuse(res.RouteAccepted(gateway))
	}
	r := translationOf(res)
	r.Accepted = verdict(res.RouteAccepted(gateway))
	refusal, refused := res.RouteRefusal(gateway)
	if refused {
		r.Refusal = refusal
	}
	out.Result = &r
	return out, refusal
}

// policies judges every GatewayClassConfig and GatewayConfig of the case, target by
// target, as the policy reconciler composes its verdicts: Accepted from the target,
// Enforced over every Gateway and route the target reaches, and a policy that cannot
// be used, or whose values the valuesSchema refuses, Invalid on both.
func (c *testCase) policies(t *testing.T, g *snapshot.Gatherer) []policyResult {
	t.Helper()
	ctx := context.Background()
	var classConfigs gatewrightv1alpha1.GatewayClassConfigList
	var configs gatewrightv1alpha1.GatewayConfigList
	if err := c.reader.List(ctx, &classConfigs); err != nil {
		t.Fatal(err)
	}
	if err := c.reader.List(ctx, &configs); err != nil {
		t.Fatal(err)
	}
	type policy struct {
		source  values.Source
		targets []gatewayv1.LocalPolicyTargetReference
		blocks  *gatewrightv1alpha1.DefaultsAndOverrides
	}
	var all []policy
	for _, p := range classConfigs.Items {
		all = append(all, policy{values.Source{Kind: gatewrightv1alpha1.KindGatewayClassConfig, Namespace: p.Namespace, Name: p.Name}, p.Spec.TargetRefs, &p.Spec.DefaultsAndOverrides})
	}
	for _, p := range configs.Items {
		targets, err := c.withReferencingGateways(ctx, p.Namespace, p.Name, p.Spec.TargetRefs)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, policy{values.Source{Kind: gatewrightv1alpha1.KindGatewayConfig, Namespace: p.Namespace, Name: p.Name}, targets, &p.Spec.DefaultsAndOverrides})
	}
	slices.SortFunc(all, func(a, b policy) int { return strings.Compare(a.source.String(), b.source.String()) })
	var out []policyResult
	for _, p := range all {
		result := policyResult{Policy: p.source.String()}
		refused := values.CheckPolicy(p.source, p.blocks)
		for _, target := range p.targets {
			accepted, err := g.TargetAccepted(ctx, p.source.Namespace, target)
			if err != nil {
				t.Fatal(err)
			}
			enforced := translate.NotAccepted
			switch {
			case accepted.OK && refused != nil:
				enforced = translate.Verdict{Reason: string(gatewayv1.PolicyReasonInvalid), Message: refused.Error()}
			case accepted.OK:
				enforced = c.enforcement(t, g, p.source, target)
			}
			if enforced.Reason == string(gatewayv1.PolicyReasonInvalid) {
				accepted = enforced
			}
			result.Ancestors = append(result.Ancestors, ancestorResult{
				Target: string(target.Kind) + "/" + string(target.Name), Accepted: verdict(accepted), Programmed: verdict(translate.Programmed(enforced)), Enforced: verdict(enforced),
			})
		}
		out = append(out, result)
	}
	return out
}

// enforcement judges how much of the policy source took effect over the contexts its
// target reaches; a context whose values cannot be computed reports that itself.
func (c *testCase) enforcement(t *testing.T, g *snapshot.Gatherer, source values.Source, target gatewayv1.LocalPolicyTargetReference) translate.Verdict {
	t.Helper()
	reached, err := g.Policy(context.Background(), source.Namespace, target, c.blueprints)
	if err != nil {
		t.Fatal(err)
	}
	judge := translate.NewEnforcement(source)
	for _, context := range reached {
		if context.Err != nil {
			judge.NotComputed(context.String(), context.Err)
			continue
		}
		judge.Add(context.String(), context.Values)
	}
	return judge.Verdict()
}

// withReferencingGateways adds to a GatewayConfig's targets the Gateways of its
// namespace that name it in spec.infrastructure.parametersRef, by name.
func (c *testCase) withReferencingGateways(ctx context.Context, namespace, name string, targets []gatewayv1.LocalPolicyTargetReference) ([]gatewayv1.LocalPolicyTargetReference, error) {
	var gateways gatewayv1.GatewayList
	if err := c.reader.List(ctx, &gateways, client.InNamespace(namespace)); err != nil {
		return nil, err
	}
	out := slices.Clone(targets)
	for _, gw := range gateways.Items {
		if !gatewrightv1alpha1.NamesGatewayConfig(&gw, name) {
			continue
		}
		target := gatewayv1.LocalPolicyTargetReference{Group: gatewayv1.GroupName, Kind: "Gateway", Name: gatewayv1.ObjectName(gw.Name)}
		if !slices.Contains(out, target) {
			out = append(out, target)
		}
	}
	return out, nil
}

// isNamespaced asks the cluster's RESTMapper whether a kind is namespaced; a kind it
// does not serve is its NoMatch error.
func (c *testCase) isNamespaced(gvk schema.GroupVersionKind) (bool, error) {
	mapping, err := c.served.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return false, err
	}
	return mapping.Scope.Name() == meta.RESTScopeNameNamespace, nil
}

// secretCheck judges a certificate Secret as the controller does: it sees Secrets of
// type kubernetes.io/tls only, so any other is as good as missing.
// gatherer gathers the case's snapshots as the controller does, with the Secrets and
// Services of the file.
func (c *testCase) gatherer(ctx context.Context) *snapshot.Gatherer {
	return &snapshot.Gatherer{Reader: c.reader, ControllerNamespace: controllerNamespace, SecretCheck: c.secretCheck(ctx), ServiceExists: c.serviceExists(ctx)}
}

func (c *testCase) secretCheck(ctx context.Context) attach.SecretCheck {
	return func(namespace, name string) (string, error) {
		secret := &corev1.Secret{}
		err := c.reader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, secret)
		if apierrors.IsNotFound(err) || err == nil && secret.Type != corev1.SecretTypeTLS {
			return fmt.Sprintf("does not exist or is not of type %s", corev1.SecretTypeTLS), nil
		}
		if err != nil {
			return "", err
		}
		if err := tlscert.Check(secret); err != nil {
			return err.Error(), nil
		}
		return "", nil
	}
}

func (c *testCase) serviceExists(ctx context.Context) attach.ServiceExists {
	return func(namespace, name string) (bool, error) {
		err := c.reader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &corev1.Service{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil, err
	}
}
