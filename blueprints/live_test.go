package blueprints_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/apply"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/translate"
)

// liveGateway renders one Gateway of a blueprint's example input as the controller does:
// with the live objects of its templates and kstatus readiness (apply.Readiness).
type liveGateway struct {
	snap       *translate.Gateway
	blueprints render.Cache
	live       translate.Live
}

func newLiveGateway(t *testing.T, blueprint, gateway string) *liveGateway {
	t.Helper()
	set := load(t, filepath.Join(blueprint, "blueprint.yaml"), filepath.Join(blueprint, "testdata", "example.in.yaml"))
	namespace, name, _ := strings.Cut(gateway, "/")
	gw, err := set.Gateway(namespace, name)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := set.Snapshot(controllerNamespace, gw)
	if err != nil {
		t.Fatal(err)
	}
	return &liveGateway{snap: snap, live: translate.Live{Objects: map[string][]*unstructured.Unstructured{}, IsReady: apply.Readiness}}
}

func (g *liveGateway) render(t *testing.T) *render.Output {
	t.Helper()
	res := g.snap.Translate(&g.blueprints, g.live)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	return res.Output
}

// converge renders, lets a fake cloud provision what was rendered, and renders again
// until nothing waits and the status template has run, as the controller's rounds would.
func (g *liveGateway) converge(t *testing.T) *render.Output {
	t.Helper()
	for round := 0; round < 10; round++ {
		out := g.render(t)
		if len(out.Waiting) == 0 && out.StatusRendered {
			return out
		}
		g.live.Objects = map[string][]*unstructured.Unstructured{}
		for _, obj := range out.Objects {
			template := obj.GetLabels()[gatewrightv1alpha1.LabelTemplate]
			g.live.Objects[template] = append(g.live.Objects[template], provisioned(t, obj))
		}
	}
	t.Fatal("the render still waits after 10 rounds")
	return nil
}

// provisioned is obj as the cluster would hold it once its controller (Crossplane, Istio,
// the cloud's load balancer) did its work: with a uid, ready, and the status fields the
// blueprints read. IDs and ARNs are made from the object's name.
func provisioned(t *testing.T, rendered *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	obj := rendered.DeepCopy()
	obj.SetUID(types.UID("uid-" + obj.GetName()))
	obj.SetGeneration(1)
	name := obj.GetName()
	awsName, _, _ := unstructured.NestedString(obj.Object, "spec", "forProvider", "name")
	status := map[string]any{"conditions": []any{
		map[string]any{"type": "Ready", "status": "True"},
		map[string]any{"type": "Synced", "status": "True"},
	}}
	switch obj.GetKind() {
	case "SecurityGroup":
		status["atProvider"] = map[string]any{"id": fakeSecurityGroupID(name)}
	case "LB":
		status["atProvider"] = map[string]any{"arn": fakeLoadBalancerARN(awsName), "dnsName": awsName + "-0123456789abcdef.elb.eu-west-1.amazonaws.com"}
	case "LBTargetGroup":
		status["atProvider"] = map[string]any{"arn": fakeTargetGroupARN(awsName)}
	case "Gateway":
		status["addresses"] = []any{map[string]any{"type": "IPAddress", "value": "192.0.2.10"}}
	case "Service":
		if err := unstructured.SetNestedField(obj.Object, "10.96.0.42", "spec", "clusterIP"); err != nil {
			t.Fatal(err)
		}
		status["loadBalancer"] = map[string]any{"ingress": []any{map[string]any{"hostname": "envoy-web.elb.example.com"}}}
	case "Deployment":
		status = map[string]any{"observedGeneration": int64(1), "replicas": int64(1), "updatedReplicas": int64(1), "readyReplicas": int64(1), "availableReplicas": int64(1),
			"conditions": []any{map[string]any{"type": "Available", "status": "True"}, map[string]any{"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable"}}}
	}
	obj.Object["status"] = status
	if ready, reason := apply.Readiness(obj); !ready {
		t.Fatalf("the fake cloud left %s %s not ready: %s", obj.GetKind(), name, reason)
	}
	return obj
}

func fakeSecurityGroupID(name string) string { return fmt.Sprintf("sg-%017x", len(name)) }
func fakeLoadBalancerARN(awsName string) string {
	return "arn:aws:elasticloadbalancing:eu-west-1:123456789012:loadbalancer/net/" + awsName + "/0123456789abcdef"
}
func fakeTargetGroupARN(awsName string) string {
	return "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/" + awsName + "/fedcba9876543210"
}

// field reads a field of the rendered object of that kind and name.
func field(t *testing.T, objs []*unstructured.Unstructured, kind, name string, path ...string) any {
	t.Helper()
	for _, obj := range objs {
		if obj.GetKind() == kind && obj.GetName() == name {
			value, found, err := unstructured.NestedFieldCopy(obj.Object, path...)
			if err != nil || !found {
				t.Fatalf("%s %s has no %s: %v", kind, name, strings.Join(path, "."), err)
			}
			return value
		}
	}
	t.Fatalf("no %s %s among the rendered objects", kind, name)
	return nil
}

// references lists the Crossplane references (fields named *Ref or *Refs, but for the
// ProviderConfig's) under a managed resource's spec.
func references(value any, path string) []string {
	var out []string
	switch v := value.(type) {
	case map[string]any:
		for key, child := range v {
			if strings.HasSuffix(key, "Ref") || strings.HasSuffix(key, "Refs") {
				if key != "providerConfigRef" {
					out = append(out, path+"."+key)
				}
				continue
			}
			out = append(out, references(child, path+"."+key)...)
		}
	case []any:
		for i, child := range v {
			out = append(out, references(child, fmt.Sprintf("%s[%d]", path, i))...)
		}
	}
	return out
}

func kindsAndNames(objs []*unstructured.Unstructured) []string {
	var out []string
	for _, obj := range objs {
		out = append(out, obj.GetKind()+"/"+obj.GetName())
	}
	return out
}

func TestDependsOnChainsWaitThenRenderFromStatus(t *testing.T) {
	hostname := gatewayv1.HostnameAddressType
	ip := gatewayv1.IPAddressType
	tests := []struct {
		name          string
		blueprint     string
		gateway       string
		firstObjects  []string
		firstWaiting  []render.Waiting
		wantAddresses []gatewayv1.GatewayStatusAddress
		check         func(t *testing.T, objs []*unstructured.Unstructured)
	}{
		{
			name:      "the NLB chain waits for the security group and target groups, then reads their IDs and ARNs",
			blueprint: "aws-nlb-istio",
			gateway:   "team-a/public",
			firstObjects: []string{"SecurityGroup/team-a-public-f3fa67cc-nlb", "LBTargetGroup/team-a-public-f3fa67cc-tg-80",
				"LBTargetGroup/team-a-public-f3fa67cc-tg-443", "LBTargetGroup/team-a-public-f3fa67cc-tg-5432", "LBTargetGroup/team-a-public-f3fa67cc-tg-8883",
				"Gateway/public-istio", "GRPCRoute/inventory-ebcde30f6d", "TCPRoute/postgres-baa2c639c5", "TLSRoute/mqtt-6f101d80c8"},
			firstWaiting: []render.Waiting{
				{Template: "security-group-rules", For: "security-group"}, {Template: "lb", For: "security-group"},
				{Template: "listeners", For: "lb"}, {Template: "target-group-bindings", For: "target-groups"},
			},
			wantAddresses: []gatewayv1.GatewayStatusAddress{{Type: &hostname, Value: "gw-f3fa67ccdf0c-0123456789abcdef.elb.eu-west-1.amazonaws.com"}},
			check: func(t *testing.T, objs []*unstructured.Unstructured) {
				sg := fakeSecurityGroupID("team-a-public-f3fa67cc-nlb")
				want := map[string]any{
					"lb security groups":     []any{sg},
					"ingress rule group":     sg,
					"egress rule group":      sg,
					"listener load balancer": fakeLoadBalancerARN("gw-f3fa67ccdf0c"),
					"listener target group":  fakeTargetGroupARN("gw-f3fa67ccdf0c-443"),
					"binding target group":   fakeTargetGroupARN("gw-f3fa67ccdf0c-443"),
					"binding security group": sg,
				}
				got := map[string]any{
					"lb security groups":     field(t, objs, "LB", "team-a-public-f3fa67cc-nlb", "spec", "forProvider", "securityGroups"),
					"ingress rule group":     field(t, objs, "SecurityGroupIngressRule", "team-a-public-f3fa67cc-in-443-1", "spec", "forProvider", "securityGroupId"),
					"egress rule group":      field(t, objs, "SecurityGroupEgressRule", "team-a-public-f3fa67cc-out-vpc", "spec", "forProvider", "securityGroupId"),
					"listener load balancer": field(t, objs, "LBListener", "team-a-public-f3fa67cc-listener-443", "spec", "forProvider", "loadBalancerArn"),
					"listener target group":  field(t, objs, "LBListener", "team-a-public-f3fa67cc-listener-443", "spec", "forProvider", "defaultAction").([]any)[0].(map[string]any)["targetGroupArn"],
					"binding target group":   field(t, objs, "TargetGroupBinding", "public-istio-443", "spec", "targetGroupARN"),
					"binding security group": field(t, objs, "TargetGroupBinding", "public-istio-443", "spec", "networking", "ingress").([]any)[0].(map[string]any)["from"].([]any)[0].(map[string]any)["securityGroup"].(map[string]any)["groupID"],
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("IDs and ARNs (-want +got):\n%s", diff)
				}
				for _, obj := range objs {
					if !strings.HasSuffix(obj.GroupVersionKind().Group, ".aws.upbound.io") {
						continue
					}
					if refs := references(obj.Object["spec"], "spec"); len(refs) > 0 {
						t.Errorf("%s %s still resolves %v by reference", obj.GetKind(), obj.GetName(), refs)
					}
				}
			},
		},
		{
			name:          "the DNS records wait for the child Gateway, then point every certified hostname at its address",
			blueprint:     "istio-certs-dns",
			gateway:       "team-a/apps",
			firstObjects:  []string{"Gateway/apps-istio"},
			firstWaiting:  []render.Waiting{{Template: "dns", For: "istio-gateway"}},
			wantAddresses: []gatewayv1.GatewayStatusAddress{{Type: &ip, Value: "192.0.2.10"}},
			check: func(t *testing.T, objs []*unstructured.Unstructured) {
				want := []any{
					map[string]any{"dnsName": "blog.example.com", "recordType": "A", "recordTTL": int64(60), "targets": []any{"192.0.2.10"}},
					map[string]any{"dnsName": "shop.example.com", "recordType": "A", "recordTTL": int64(60), "targets": []any{"192.0.2.10"}},
					map[string]any{"dnsName": "www.shop.example.com", "recordType": "A", "recordTTL": int64(60), "targets": []any{"192.0.2.10"}},
				}
				if diff := cmp.Diff(want, field(t, objs, "DNSEndpoint", "apps-dns", "spec", "endpoints")); diff != "" {
					t.Errorf("endpoints (-want +got):\n%s", diff)
				}
			},
		},
		{
			name:      "the Envoy proxy has no chain; its status waits for the Service's load balancer",
			blueprint: "envoy-proxy",
			gateway:   "team-a/web",
			firstObjects: []string{"ServiceAccount/envoy-web", "ConfigMap/envoy-web", "Deployment/envoy-web", "Service/envoy-web",
				"HorizontalPodAutoscaler/envoy-web", "PodDisruptionBudget/envoy-web"},
			wantAddresses: []gatewayv1.GatewayStatusAddress{{Type: &hostname, Value: "envoy-web.elb.example.com"}},
			check:         func(*testing.T, []*unstructured.Unstructured) {},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newLiveGateway(t, tt.blueprint, tt.gateway)

			first := g.render(t)
			if diff := cmp.Diff(tt.firstObjects, kindsAndNames(first.Objects)); diff != "" {
				t.Errorf("objects rendered with nothing live (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.firstWaiting, first.Waiting); diff != "" {
				t.Errorf("templates waiting with nothing live (-want +got):\n%s", diff)
			}
			if first.StatusRendered {
				t.Error("the status rendered with nothing live")
			}

			last := g.converge(t)
			if diff := cmp.Diff(tt.wantAddresses, last.Addresses); diff != "" {
				t.Errorf("addresses (-want +got):\n%s", diff)
			}
			tt.check(t, last.Objects)
		})
	}
}
