package explain

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/offline"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/snapshot"
	"github.com/gatewright/gatewright/internal/values"
	"github.com/gatewright/gatewright/test/golden"
)

// controllerNamespace is the namespace whose GatewayClassConfigs are global in the tests.
const controllerNamespace = "gatewright-system"

// placeOffline explains the policy of kind namespace/name in set, as the command would
// from a cluster holding set.
func placeOffline(t *testing.T, set *offline.Set, kind, namespace, name string) *Placement {
	t.Helper()
	source := values.Source{Kind: kind, Namespace: namespace, Name: name}
	var targets []gatewayv1.LocalPolicyTargetReference
	var blocks *gatewrightv1alpha1.DefaultsAndOverrides
	for i, p := range set.GatewayConfigs {
		if kind == gatewrightv1alpha1.KindGatewayConfig && p.Namespace == namespace && p.Name == name {
			targets, blocks = p.Spec.TargetRefs, &set.GatewayConfigs[i].Spec.DefaultsAndOverrides
		}
	}
	for i, p := range set.GatewayClassConfigs {
		if kind == gatewrightv1alpha1.KindGatewayClassConfig && p.Namespace == namespace && p.Name == name {
			targets, blocks = p.Spec.TargetRefs, &set.GatewayClassConfigs[i].Spec.DefaultsAndOverrides
		}
	}
	if blocks == nil {
		t.Fatalf("no %s in the files", source)
	}
	pl, err := Place(source, targets, blocks, readOffline(t.Context(), set, namespace))
	if err != nil {
		t.Fatal(err)
	}
	return pl
}

// readOffline reads what the targets of a policy in namespace reach in set, as
// internal/explain/live reads a cluster, with the live spec of every blueprint: the
// files hold no revisions.
func readOffline(ctx context.Context, set *offline.Set, namespace string) ReadTarget {
	g := &snapshot.Gatherer{Reader: set, ControllerNamespace: controllerNamespace, LiveWithoutRevisions: true}
	blueprints := &render.Cache{}
	return func(target gatewayv1.LocalPolicyTargetReference) (Reached, error) {
		if accepted, err := g.TargetAccepted(ctx, namespace, target); err == nil && !accepted.OK {
			return Reached{NotAccepted: &accepted}, nil
		}
		contexts, err := g.Policy(ctx, namespace, target, blueprints)
		if err != nil {
			return Reached{}, err
		}
		var reached Reached
		for _, c := range contexts {
			reached.Contexts = append(reached.Contexts, ReachedContext{Name: c.String(), Values: c.Values, Err: c.Err, Revision: c.Revision})
		}
		return reached, nil
	}
}

// fatesByContext reads a placement as one line per context and value:
// "<context>: <path> <as> <what became of it>", or "<context>: <why no values>".
func fatesByContext(pl *Placement) []string {
	var out []string
	for _, t := range pl.Targets {
		for _, o := range t.Outcomes {
			for _, c := range o.Contexts {
				switch {
				case o.NotComputed != "":
					out = append(out, c+": not computed: "+o.NotComputed)
				case o.TakesNoPart:
					out = append(out, c+": takes no part")
				}
				for _, note := range o.Notes {
					out = append(out, c+": "+note)
				}
				for _, v := range o.Values {
					out = append(out, fmt.Sprintf("%s: %s %s %s", c, v.Path, v.As, v.say()))
				}
			}
		}
	}
	return out
}

// TestPolicyPlacement checks, on a set of files, what explain says became of each value
// of a policy in each context its targets reach.
func TestPolicyPlacement(t *testing.T) {
	set, err := offline.Load(filepath.Join("testdata", "policy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name           string
		kind           string
		namespace      string
		policy         string
		wantProgrammed string
		wantEnforced   string // the deprecated condition, beside Programmed for one minor release
		want           []string
	}{
		{
			name: "a namespace's defaults lose to the provider's override, to a Gateway's own and to a route's, and its override's when is false but where another policy raises replicas",
			kind: gatewrightv1alpha1.KindGatewayConfig, namespace: "team-a", policy: "team",
			wantProgrammed: "True PartiallyProgrammed", wantEnforced: "True PartiallyEnforced",
			want: []string{
				"Gateway team-a/api: color default in effect",
				"Gateway team-a/api: replicas default overridden by the override of GatewayConfig team-a/big (level 6)",
				"Gateway team-a/api: timeout default overridden by the override of GatewayClassConfig gatewright-system/global (level 2)",
				"Gateway team-a/api: debug override in effect", // big's replicas, 500, make its when true
				"Gateway team-a/web: debug override not applied: its when is false",
				"HTTPRoute team-a/home on Gateway team-a/api: replicas default overridden by the override of GatewayConfig team-a/big (level 6)",
				"Gateway team-a/web: color default overridden by the default of GatewayConfig team-a/web (level 6)",
				"Gateway team-a/web: replicas default in effect",
				"HTTPRoute team-b/shop on Gateway team-a/web: replicas default overridden by the default of GatewayConfig team-b/shop (level 8)",
				"HTTPRoute team-b/shop on Gateway team-a/web: color default overridden by the default of GatewayConfig team-a/web (level 6)",
				"HTTPRoute team-b/shop on Gateway team-a/web: timeout default overridden by the override of GatewayClassConfig gatewright-system/global (level 2)",
				"Gateway team-a/sidecar: not computed: GatewayClass mesh is not Gatewright's",
			},
		},
		{
			name: "a value the valuesSchema refuses is named on every context it reaches",
			kind: gatewrightv1alpha1.KindGatewayConfig, namespace: "team-a", policy: "big",
			wantProgrammed: "False Invalid", wantEnforced: "False Invalid",
			want: []string{
				"Gateway team-a/api: replicas override refused by the valuesSchema: should be less than or equal to 100, got 500",
				"HTTPRoute team-a/home on Gateway team-a/api: replicas override refused by the valuesSchema: should be less than or equal to 100, got 500",
			},
		},
		{
			name: "a route's policy may not unset what its Gateway's owner set, and its override applies when its when fails",
			kind: gatewrightv1alpha1.KindGatewayConfig, namespace: "team-b", policy: "shop",
			wantProgrammed: "True PartiallyProgrammed", wantEnforced: "True PartiallyEnforced",
			want: []string{
				"HTTPRoute team-b/shop on Gateway team-a/web: color default unset refused: the blueprint forbids tenants to unset what the default of GatewayConfig team-a/web (level 6) set",
				"HTTPRoute team-b/shop on Gateway team-a/web: replicas default in effect",
				"HTTPRoute team-b/shop on Gateway team-a/web: retries override in effect; its when could not be evaluated, so it applies (fails closed): spec.override.when: no such key: nothing",
			},
		},
		{
			name: "the provider's override is in effect on every Gateway and route of its class",
			kind: gatewrightv1alpha1.KindGatewayClassConfig, namespace: "gatewright-system", policy: "global",
			wantProgrammed: "True Programmed", wantEnforced: "True Enforced",
			want: []string{
				"Gateway team-a/api: timeout override in effect",
				"HTTPRoute team-a/home on Gateway team-a/api: timeout override in effect",
				"Gateway team-a/web: timeout override in effect",
				"HTTPRoute team-b/shop on Gateway team-a/web: timeout override in effect",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := placeOffline(t, set, tt.kind, tt.namespace, tt.policy)
			if len(pl.Targets) != 1 {
				t.Fatalf("%d targets, want 1", len(pl.Targets))
			}
			target := pl.Targets[0]
			if got := string(target.Programmed.Status) + " " + target.Programmed.Reason; got != tt.wantProgrammed {
				t.Errorf("Programmed is %s (%s), want %s", got, target.Programmed.Message, tt.wantProgrammed)
			}
			if got := string(target.Enforced.Status) + " " + target.Enforced.Reason; got != tt.wantEnforced || target.Enforced.Message != target.Programmed.Message {
				t.Errorf("Enforced is %s (%s), want %s with Programmed's message", got, target.Enforced.Message, tt.wantEnforced)
			}
			got := strings.Join(fatesByContext(pl), "\n")
			for _, want := range tt.want {
				if !strings.Contains(got, want) {
					t.Errorf("no %q in:\n%s", want, got)
				}
			}
		})
	}
}

// TestPolicyPlacementTable checks the table explain prints: contexts whose values fared
// alike are printed once, with a count.
func TestPolicyPlacementTable(t *testing.T) {
	set, err := offline.Load(filepath.Join("testdata", "policy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	pl := placeOffline(t, set, gatewrightv1alpha1.KindGatewayConfig, "team-a", "team")
	var out bytes.Buffer
	if err := WritePlacement(&out, pl); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "policy.out"), out.Bytes())
}

// A policy the values engine refuses is Invalid on every target, as the controller
// says, and no values are computed with it.
func TestPolicyPlacementOfARefusedPolicy(t *testing.T) {
	set := &offline.Set{}
	if err := set.Add([]byte(`
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: broken, namespace: team-a}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: web}, {group: "", kind: Namespace, name: team-a}]
  default: {values: {timeout: 30s}, strategy: Sideways}
`)); err != nil {
		t.Fatal(err)
	}
	pl := placeOffline(t, set, gatewrightv1alpha1.KindGatewayConfig, "team-a", "broken")
	want := `GatewayConfig team-a/broken: spec.default.strategy: must be Patch, Merge or Atomic, not "Sideways"`
	if pl.Invalid != want || len(pl.Targets) != 2 {
		t.Fatalf("got %q over %d targets, want %q over 2", pl.Invalid, len(pl.Targets), want)
	}
	for _, target := range pl.Targets {
		if got := target.Programmed; got.Reason != "Invalid" || got.Message != want || target.Enforced != got || len(target.Outcomes) != 0 {
			t.Errorf("%s: Programmed %+v (Enforced %+v) with %d outcomes, want Invalid with the refusal on both and none", target.Target, got, target.Enforced, len(target.Outcomes))
		}
	}
}

// A target that is not accepted has nothing enforced, as the controller says: explain
// names why (with the name it was probably meant to be) rather than "nothing reached yet".
func TestPolicyPlacementOfATargetNotAccepted(t *testing.T) {
	set := &offline.Set{}
	if err := set.Add([]byte(`
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: web, namespace: team-a}
spec:
  gatewayClassName: internet
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: typo, namespace: team-a}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: wbe}, {group: "", kind: Namespace, name: team-b}]
  default: {timeout: 30s}
`)); err != nil {
		t.Fatal(err)
	}
	pl := placeOffline(t, set, gatewrightv1alpha1.KindGatewayConfig, "team-a", "typo")
	want := map[string]string{
		"Gateway/wbe":      "TargetNotFound: no Gateway wbe in namespace team-a (did you mean web?)",
		"Namespace/team-b": "Invalid: a Namespace target must name the policy's own namespace team-a, not team-b",
	}
	if len(pl.Targets) != len(want) {
		t.Fatalf("%d targets, want %d", len(pl.Targets), len(want))
	}
	for _, target := range pl.Targets {
		if target.Accepted == nil || target.Accepted.Reason+": "+target.Accepted.Message != want[target.Target] {
			t.Errorf("%s: Accepted %+v, want %s", target.Target, target.Accepted, want[target.Target])
		}
		if got := target.Programmed; got.Reason != "Reconciling" || got.Message != "the target is not accepted" || target.Enforced.Reason != "Pending" || len(target.Outcomes) != 0 {
			t.Errorf("%s: Programmed %+v (Enforced %+v) with %d outcomes, want Reconciling (Pending): the target is not accepted, and none", target.Target, got, target.Enforced, len(target.Outcomes))
		}
	}
}
