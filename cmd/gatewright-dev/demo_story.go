package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/controllers/manager"
	"github.com/gatewright/gatewright/internal/explain"
	"github.com/gatewright/gatewright/internal/explain/live"
	"github.com/gatewright/gatewright/samples"
)

// The objects of the samples the story plays with.
const (
	demoNamespace = "team-a"
	demoGateway   = "web"
	demoProxy     = "web-proxy"
	demoRoute     = "shop"
	demoRouteMap  = "shop-routes"
)

func (d *demo) story() []demoStep {
	return []demoStep{{
		title:    "The provider installs a blueprint, two GatewayClasses sharing it, a global GatewayClassConfig (tags, limits) and one for tenant team-a",
		commands: []string{"kubectl apply -f samples/namespaces.yaml -f samples/provider/"},
		act:      d.apply(samples.Provider, "namespaces.yaml", "provider/blueprint.yaml", "provider/gatewayclasses.yaml", "provider/global-config.yaml", "provider/tenant-config.yaml"),
		expect: []expectation{
			d.classAccepted("internet"),
			d.classAccepted("internal"),
		},
	}, {
		title:    "The tenant applies a Gateway and a GatewayConfig; the Gateway becomes Programmed with an address",
		commands: []string{"kubectl apply -f samples/tenant/gateway.yaml -f samples/tenant/gatewayconfig.yaml"},
		act:      d.apply(samples.Tenant, "tenant/gateway.yaml", "tenant/gatewayconfig.yaml"),
		expect: []expectation{
			d.gatewayProgrammedWithAddress(),
			d.deploymentReplicas(3),
			d.serviceType(corev1.ServiceTypeLoadBalancer),
		},
	}, {
		title:    "explain shows each value with its source",
		commands: []string{"gatewright explain gateway web -n team-a"},
		act:      d.explain("gateway", demoGateway),
		expect: []expectation{
			d.explains("replicas", "3", "GatewayConfig team-a/web", "default"),
			d.explains("service.type", `"LoadBalancer"`, "GatewayClassConfig gatewright-system/internet-defaults", "override"),
			d.explains("resources.limits.memory", `"256Mi"`, "GatewayClassConfig gatewright-system/internet-defaults", "override"),
			d.explains("labels.cost-center", `"team-a"`, "GatewayClassConfig team-a/team-a-limits", "override"),
		},
	}, {
		title:    "The tenant changes a value and the rendered Deployment follows",
		commands: []string{`kubectl patch gatewayconfig web -n team-a --type merge -p '{"spec":{"default":{"replicas":5}}}'`},
		act:      d.patchGatewayConfig(`{"spec":{"default":{"replicas":5}}}`),
		expect:   []expectation{d.deploymentReplicas(5)},
	}, {
		title:    "The tenant tries to change a value the provider overrides, and cannot",
		commands: []string{`kubectl patch gatewayconfig web -n team-a --type merge -p '{"spec":{"override":{"service":{"type":"ClusterIP"}}}}'`},
		act:      d.patchGatewayConfig(`{"spec":{"override":{"service":{"type":"ClusterIP"}}}}`),
		expect: []expectation{
			d.policyPartiallyEnforced(),
			d.serviceType(corev1.ServiceTypeLoadBalancer),
			d.explains("service.type", `"LoadBalancer"`, "GatewayClassConfig gatewright-system/internet-defaults", "override"),
		},
	}, {
		title:    "An HTTPRoute attaches to the Gateway and its route objects appear",
		commands: []string{"kubectl apply -f samples/tenant/httproute.yaml"},
		act:      d.apply(samples.Tenant, "tenant/httproute.yaml"),
		expect: []expectation{
			d.routeAccepted(),
			d.listenerAttachedRoutes(1),
			d.exists("ConfigMap team-a/shop-routes", &corev1.ConfigMap{}, demoRouteMap, true),
		},
	}, {
		title:    "explain shows the values the route's templates render with",
		commands: []string{"gatewright explain httproute shop -n team-a"},
		act:      d.explain("httproute", demoRoute),
	}, {
		title:    "Deleting the Gateway removes everything it created",
		commands: []string{"kubectl delete gateway web -n team-a"},
		act: func(ctx context.Context) error {
			return d.env.client.Delete(ctx, &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: demoNamespace, Name: demoGateway}})
		},
		expect: []expectation{
			d.exists("Gateway team-a/web", &gatewayv1.Gateway{}, demoGateway, false),
			d.exists("Deployment team-a/web-proxy", &appsv1.Deployment{}, demoProxy, false),
			d.exists("Service team-a/web-proxy", &corev1.Service{}, demoProxy, false),
			d.exists("ConfigMap team-a/shop-routes", &corev1.ConfigMap{}, demoRouteMap, false),
		},
	}}
}

func (d *demo) classAccepted(name string) expectation {
	return expectation{what: "GatewayClass " + name + " is Accepted", check: func(ctx context.Context) (bool, string, error) {
		var class gatewayv1.GatewayClass
		if found, err := d.get(ctx, "", name, &class); !found || err != nil {
			return false, "not found", err
		}
		ok, seen := conditionIs(class.Status.Conditions, string(gatewayv1.GatewayClassConditionStatusAccepted), class.Generation)
		return ok, seen, nil
	}}
}

func (d *demo) gatewayProgrammedWithAddress() expectation {
	return expectation{what: "Gateway team-a/web is Programmed with an address", check: func(ctx context.Context) (bool, string, error) {
		var gw gatewayv1.Gateway
		if found, err := d.get(ctx, demoNamespace, demoGateway, &gw); !found || err != nil {
			return false, "not found", err
		}
		ok, seen := conditionIs(gw.Status.Conditions, string(gatewayv1.GatewayConditionProgrammed), gw.Generation)
		if !ok {
			return false, seen, nil
		}
		if len(gw.Status.Addresses) == 0 {
			return false, seen + ", no address yet", nil
		}
		return true, seen + ", address " + gw.Status.Addresses[0].Value, nil
	}}
}

func (d *demo) deploymentReplicas(replicas int32) expectation {
	return expectation{what: fmt.Sprintf("Deployment team-a/web-proxy has %d replicas", replicas), check: func(ctx context.Context) (bool, string, error) {
		var deployment appsv1.Deployment
		if found, err := d.get(ctx, demoNamespace, demoProxy, &deployment); !found || err != nil {
			return false, "not found", err
		}
		got := ptr.Deref(deployment.Spec.Replicas, 1)
		return got == replicas, fmt.Sprintf("spec.replicas %d", got), nil
	}}
}

func (d *demo) serviceType(want corev1.ServiceType) expectation {
	return expectation{what: "Service team-a/web-proxy is of type " + string(want), check: func(ctx context.Context) (bool, string, error) {
		var svc corev1.Service
		if found, err := d.get(ctx, demoNamespace, demoProxy, &svc); !found || err != nil {
			return false, "not found", err
		}
		return svc.Spec.Type == want, "type " + string(svc.Spec.Type), nil
	}}
}

// explain prints what `gatewright explain KIND NAME -n team-a` prints.
func (d *demo) explain(kind, name string) func(context.Context) error {
	return func(ctx context.Context) error {
		return d.explainValues(ctx, &indent{w: &indent{w: d.out}}, kind, name)
	}
}

// explains runs `gatewright explain gateway web -n team-a` and looks for the row of path.
func (d *demo) explains(path, value, source, as string) expectation {
	return expectation{what: fmt.Sprintf("explain says %s = %s, set by %s as %s", path, value, source, as), check: func(ctx context.Context) (bool, string, error) {
		var out bytes.Buffer
		if err := d.explainValues(ctx, &out, "gateway", demoGateway); err != nil {
			return false, err.Error(), nil
		}
		for _, line := range strings.Split(out.String(), "\n") {
			if fields := strings.Fields(line); len(fields) > 0 && fields[0] == path {
				want := strings.Fields(fmt.Sprintf("%s %s %s %s", path, value, source, as))
				return len(fields) > len(want) && strings.Join(fields[:len(want)], " ") == strings.Join(want, " "), strings.Join(fields, " "), nil
			}
		}
		return false, "no row for " + path, nil
	}}
}

// explainValues writes the tables of `gatewright explain KIND NAME -n team-a`, for a
// gateway or an httproute, with the code of that command: the demo is the cluster's
// admin, who reads the whole chain, and the samples set no condition to warn of.
func (d *demo) explainValues(ctx context.Context, out io.Writer, kind, name string) error {
	reader := live.Reader{Client: d.env.client, ControllerNamespace: manager.DefaultControllerNamespace}
	var exp *explain.ValuesExplanation
	var recorded *explain.RecordSource
	var err error
	if kind == "httproute" {
		exp, recorded, err = reader.Route(ctx, "HTTPRoute", demoNamespace, name, "")
	} else {
		exp, recorded, err = reader.Gateway(ctx, demoNamespace, name)
	}
	switch {
	case exp == nil:
		return err
	case recorded != nil:
		return explain.WriteRecorded(out, recorded, exp)
	}
	if writeErr := explain.WriteValues(out, exp); writeErr != nil {
		return writeErr
	}
	if err != nil {
		// The tables say why, as explain's do.
		return errors.New("the values are invalid")
	}
	return nil
}

func (d *demo) patchGatewayConfig(patch string) func(context.Context) error {
	return func(ctx context.Context) error {
		config := &gatewrightv1alpha1.GatewayConfig{ObjectMeta: metav1.ObjectMeta{Namespace: demoNamespace, Name: demoGateway}}
		return d.env.client.Patch(ctx, config, client.RawPatch(types.MergePatchType, []byte(patch)))
	}
}

// policyPartiallyEnforced waits for the GatewayConfig's status to say that some of its
// values, for the current generation, are overridden.
func (d *demo) policyPartiallyEnforced() expectation {
	return expectation{what: "GatewayConfig team-a/web reports its override as not in effect", check: func(ctx context.Context) (bool, string, error) {
		var config gatewrightv1alpha1.GatewayConfig
		if found, err := d.get(ctx, demoNamespace, demoGateway, &config); !found || err != nil {
			return false, "not found", err
		}
		for _, ancestor := range config.Status.Ancestors {
			c := meta.FindStatusCondition(ancestor.Conditions, "Enforced")
			if c == nil || c.ObservedGeneration != config.Generation {
				continue
			}
			seen := fmt.Sprintf("Enforced=%s (%s): %s", c.Status, c.Reason, c.Message)
			return c.Reason == "PartiallyEnforced" && strings.Contains(c.Message, "internet-defaults"), seen, nil
		}
		return false, "no ancestor status for the current generation yet", nil
	}}
}

func (d *demo) routeAccepted() expectation {
	return expectation{what: "HTTPRoute team-a/shop is Accepted by Gateway web", check: func(ctx context.Context) (bool, string, error) {
		var route gatewayv1.HTTPRoute
		if found, err := d.get(ctx, demoNamespace, demoRoute, &route); !found || err != nil {
			return false, "not found", err
		}
		for _, parent := range route.Status.Parents {
			if gatewrightv1alpha1.IsGatewright(parent.ControllerName) && string(parent.ParentRef.Name) == demoGateway {
				ok, seen := conditionIs(parent.Conditions, string(gatewayv1.RouteConditionAccepted), route.Generation)
				return ok, seen, nil
			}
		}
		return false, "no parent status from Gatewright yet", nil
	}}
}

func (d *demo) listenerAttachedRoutes(want int32) expectation {
	return expectation{what: fmt.Sprintf("listener http of Gateway web counts %d attached route", want), check: func(ctx context.Context) (bool, string, error) {
		var gw gatewayv1.Gateway
		if found, err := d.get(ctx, demoNamespace, demoGateway, &gw); !found || err != nil {
			return false, "not found", err
		}
		for _, l := range gw.Status.Listeners {
			if l.Name == "http" {
				return l.AttachedRoutes == want, fmt.Sprintf("attachedRoutes %d", l.AttachedRoutes), nil
			}
		}
		return false, "no listener status yet", nil
	}}
}

func (d *demo) exists(what string, obj client.Object, name string, want bool) expectation {
	verb := map[bool]string{true: " exists", false: " is gone"}
	return expectation{what: what + verb[want], check: func(ctx context.Context) (bool, string, error) {
		found, err := d.get(ctx, demoNamespace, name, obj)
		return found == want, map[bool]string{true: "found", false: "not found"}[found], err
	}}
}

// conditionIs says whether a condition, observed for generation, has the status True.
func conditionIs(conditions []metav1.Condition, conditionType string, generation int64) (bool, string) {
	c := meta.FindStatusCondition(conditions, conditionType)
	if c == nil {
		return false, conditionType + " not reported yet"
	}
	return c.Status == metav1.ConditionTrue && c.ObservedGeneration == generation, fmt.Sprintf("%s=%s (%s)", c.Type, c.Status, c.Reason)
}
