package main

import (
	"bytes"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/revisions"
)

// A blueprint mid-rollout: revision 1 defaults timeout to 10s and caps retries at 1,
// revision 2, its live spec, defaults timeout to 20s and caps nothing. team-a's Gateway
// web runs revision 1, the current one (revision 2 is the target, not assigned to it
// yet), and team-a's policy sets retries to 2. team-a-owner may read the Rendering, not the revisions.
const revisionFixture = `
apiVersion: v1
kind: Namespace
metadata: {name: gatewright-system}
---
apiVersion: v1
kind: Namespace
metadata: {name: team-a}
---
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassBlueprint
metadata: {name: internet}
spec:
  values:
    default: {timeout: 20s}
  gatewayTemplate: {}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: internet}
spec:
  controllerName: gatewright.dev/gateway-controller
  parametersRef: {group: gatewright.dev, kind: GatewayClassBlueprint, name: internet}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: web, namespace: team-a}
spec:
  gatewayClassName: internet
  listeners:
  - {name: http, protocol: HTTP, port: 80}
---
apiVersion: gatewright.dev/v1alpha1
kind: Rendering
metadata: {name: gateway.web, namespace: team-a}
owner: {kind: Gateway, name: web, gatewayNamespace: team-a, gatewayName: web}
---
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: team, namespace: team-a}
spec:
  targetRefs: [{group: "", kind: Namespace, name: team-a}]
  default: {retries: 2}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: gateways, namespace: team-a}
rules:
- apiGroups: [gateway.networking.k8s.io]
  resources: [gateways, httproutes]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: gateways, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: gateways}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: team-a-owner}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: tenant, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: gatewright-tenant}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: team-a-owner}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: team-a-owner, namespace: gatewright-system}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: gatewright-tenant}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: team-a-owner}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: read-classes}
rules:
- apiGroups: [gateway.networking.k8s.io]
  resources: [gatewayclasses]
  verbs: [get, list, watch]
- apiGroups: [gatewright.dev]
  resources: [gatewayclassblueprints]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: team-a-owner-classes}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: read-classes}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: team-a-owner}]
`

// revisionOne is revision 1 of the fixture's blueprint.
const revisionOne = `
values:
  default: {timeout: 10s}
valuesSchema:
  type: object
  properties:
    retries: {type: integer, maximum: 1}
gatewayTemplate: {}
`

// writeRevisionSpecs writes, as the controller would, the revisions of the live blueprint
// named with specs (revision 1 first), and makes current its currentRevision and the
// last one its targetRevision.
func writeRevisionSpecs(t *testing.T, admin client.Client, name string, current int64, specs ...string) {
	t.Helper()
	ctx := t.Context()
	bp := &gatewrightv1alpha1.GatewayClassBlueprint{}
	if err := admin.Get(ctx, client.ObjectKey{Name: name}, bp); err != nil {
		t.Fatal(err)
	}
	yes := true
	for i, spec := range specs {
		n := int64(i + 1)
		rev := &gatewrightv1alpha1.GatewayClassBlueprintRevision{
			ObjectMeta: metav1.ObjectMeta{Name: revisions.Name(name, n), Labels: revisions.Labels(name),
				OwnerReferences: []metav1.OwnerReference{{APIVersion: gatewrightv1alpha1.GroupVersion.String(),
					Kind: gatewrightv1alpha1.KindGatewayClassBlueprint, Name: name, UID: bp.UID, Controller: &yes}}},
			Blueprint: name, Revision: n,
		}
		if err := yaml.Unmarshal([]byte(spec), &rev.Spec); err != nil {
			t.Fatal(err)
		}
		hash, err := revisions.SpecHash(&rev.Spec)
		if err != nil {
			t.Fatal(err)
		}
		rev.Hash = hash
		if err := admin.Create(ctx, rev); err != nil {
			t.Fatal(err)
		}
	}
	bp.Status.CurrentRevision, bp.Status.TargetRevision = current, int64(len(specs))
	if err := admin.Status().Update(ctx, bp); err != nil {
		t.Fatal(err)
	}
}

// TestExplainLiveRunsTheGatewaysRevision explains, on a real API server, a Gateway and a
// policy mid-rollout: the values are those of the revision the Gateway runs, and a
// caller who may not read it is told that the live spec stands in for it.
func TestExplainLiveRunsTheGatewaysRevision(t *testing.T) {
	_, admin, kubeconfig := tenantCluster(t, revisionFixture)
	live := &gatewrightv1alpha1.GatewayClassBlueprint{}
	if err := admin.Get(t.Context(), client.ObjectKey{Name: "internet"}, live); err != nil {
		t.Fatal(err)
	}
	liveSpec, err := yaml.Marshal(live.Spec)
	if err != nil {
		t.Fatal(err)
	}
	writeRevisionSpecs(t, admin, "internet", 1, revisionOne, string(liveSpec))
	tests := []struct {
		name          string
		kubeconfig    string
		args          []string
		exit          int
		want, wantErr []string
		absent        []string
	}{
		{name: "the admin sees the values of the revision the Gateway runs", kubeconfig: kubeconfig(""),
			args: []string{"gateway", "web", "-n", "team-a"},
			exit: 1,
			want: []string{
				"Blueprint revision 1 (target 2 rolling out)\n",
				`timeout  "10s"`,
				"The values are invalid: ",
				"retries: should be less than or equal to 1, got 2",
			},
			absent: []string{"20s", "Note:"}},
		{name: "the admin sees a policy judged on the revision each Gateway runs", kubeconfig: kubeconfig(""),
			args: []string{"gatewayconfig", "team", "-n", "team-a"},
			want: []string{
				"Programmed=False Invalid: refused by the blueprint's valuesSchema: retries: should be less than or equal to 1, got 2 (Gateway team-a/web)",
				"1 context(s): Gateway team-a/web\n  computed with blueprint revision 1\n",
			},
			absent: []string{"warning"}},
		// The live spec would give timeout 20s and the policy Programmed, where the revision
		// the Gateway runs refuses the policy's retries: no answer rather than that one.
		{name: "a tenant who may not read the revision the Gateway runs, nor a record of it, gets no values", kubeconfig: kubeconfig("team-a-owner"),
			args: []string{"gateway", "web", "-n", "team-a"}, exit: 2,
			wantErr: []string{"reading GatewayClassBlueprintRevision internet-1 (the revision the Gateway runs): ", "is forbidden"},
			absent:  []string{"20s", "timeout"}},
		{name: "a tenant judging a policy without the revision gets no verdict", kubeconfig: kubeconfig("team-a-owner"),
			args: []string{"gatewayconfig", "team", "-n", "team-a"}, exit: 2,
			absent:  []string{"Programmed=True"},
			wantErr: []string{"cannot read GatewayClassBlueprintRevision internet-1 (forbidden): computed with the live spec of GatewayClassBlueprint internet instead of revision 1\n"}},
		{name: "with --partial, a tenant judging a policy without the revision gets one marked partial", kubeconfig: kubeconfig("team-a-owner"),
			args: []string{"gatewayconfig", "team", "-n", "team-a", "--partial"}, exit: 2,
			want: []string{"PARTIAL: ", "  cannot read GatewayClassBlueprintRevision internet-1 (forbidden)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			cmd := newRootCommand()
			cmd.SetOut(&out)
			cmd.SetErr(&errOut)
			cmd.SetArgs(append([]string{"explain", "--kubeconfig", tt.kubeconfig}, tt.args...))
			if err := cmd.Execute(); exitCodeOf(err) != tt.exit {
				t.Fatalf("exit %d (%v), want %d\n%s", exitCodeOf(err), err, tt.exit, errOut.String())
			}
			for _, want := range tt.want {
				if !strings.Contains(out.String(), want) {
					t.Errorf("the output lacks %q:\n%s", want, out.String())
				}
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(errOut.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, errOut.String())
				}
			}
			for _, absent := range tt.absent {
				if strings.Contains(out.String(), absent) {
					t.Errorf("the output has %q:\n%s", absent, out.String())
				}
			}
		})
	}
}
