package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/explain"
)

// TestExplainRequestLive answers requests against a real API server holding the objects
// of the offline tests: the admin gets the offline answer; a tenant of team-a, who may
// read its own namespace's Gateways, routes and Services but no Secret nor Namespace,
// gets the same answer and a note; a user who may read nothing is told what it may not read.
func TestExplainRequestLive(t *testing.T) {
	world, err := os.ReadFile(requestWorld)
	if err != nil {
		t.Fatal(err)
	}
	namespaces := ""
	for _, ns := range []string{"gatewright-system", "team-a"} {
		namespaces += "apiVersion: v1\nkind: Namespace\nmetadata: {name: " + ns + "}\n---\n"
	}
	_, admin, kubeconfigFor := tenantCluster(t, namespaces+tenantAccess+"\n---\n"+string(world)+listenerSetWorld)
	gw := &gatewayv1.Gateway{}
	if err := admin.Get(t.Context(), client.ObjectKey{Namespace: "team-a", Name: "web"}, gw); err != nil {
		t.Fatal(err)
	}
	address := gatewayv1.IPAddressType
	gw.Status.Addresses = []gatewayv1.GatewayStatusAddress{{Type: &address, Value: "203.0.113.7"}}
	if err := admin.Status().Update(t.Context(), gw); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name       string
		kubeconfig string
		args       []string
		exit       int
		sameAs     string // the offline golden answer the live one must equal
		status     int
		inStderr   string
	}{
		{name: "the admin gets the offline answer", kubeconfig: kubeconfigFor(""),
			args: []string{"http://shop.example.com/gone", "--gateway", "team-a/web"}, sameAs: "missing-backend.json.out"},
		{name: "the Gateway is found by the address a client dials", kubeconfig: kubeconfigFor(""),
			args: []string{"https://shop.example.com/old/x", "--address", "203.0.113.7"}, status: 301},
		{name: "a tenant is answered with what it may read, its listener judged by the Gateway's status", kubeconfig: kubeconfigFor("team-a-owner"),
			args: []string{"https://shop.example.com/", "-n", "team-a"}, status: 200,
			inStderr: "note: may not list Gateways in every namespace: looked in namespace team-a only"},
		{name: "a request to a ListenerSet's listener meets the route on the ListenerSet", kubeconfig: kubeconfigFor(""),
			args: []string{"http://extra.example.com:8080/", "--gateway", "team-a/shared"}, status: 200},
		{name: "a user who may not read the Gateway is told so, exit 2", kubeconfig: kubeconfigFor("nobody"),
			args: []string{"http://shop.example.com/", "--gateway", "team-a/web"}, exit: 2,
			inStderr: `reading Gateway team-a/web: gateways.gateway.networking.k8s.io "web" is forbidden`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			cmd := newRootCommand()
			cmd.SetOut(&out)
			cmd.SetErr(&errOut)
			cmd.SetArgs(append([]string{"explain", "request", "--kubeconfig", tt.kubeconfig, "-o", "json"}, tt.args...))
			err := cmd.Execute()
			if got := exitCodeOf(err); got != tt.exit {
				t.Fatalf("exit %d (%v), want %d; stderr:\n%s", got, err, tt.exit, errOut.String())
			}
			if !strings.Contains(errOut.String(), tt.inStderr) {
				t.Errorf("stderr %q does not say %q", errOut.String(), tt.inStderr)
			}
			if tt.exit != 0 {
				return
			}
			if tt.sameAs != "" {
				want, err := os.ReadFile("testdata/explain-request/" + tt.sameAs)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(out.Bytes(), want) {
					t.Errorf("the live answer differs from %s:\n%s", tt.sameAs, out.String())
				}
				return
			}
			var exp explain.Explanation
			if err := json.Unmarshal(out.Bytes(), &exp); err != nil {
				t.Fatalf("%v in %s", err, out.String())
			}
			if exp.Response.Status != tt.status {
				t.Errorf("status %d, want %d:\n%s", exp.Response.Status, tt.status, out.String())
			}
		})
	}
}

// listenerSetWorld adds a class whose blueprint takes ListenerSets, its Gateway
// team-a/shared, which takes those of its namespace, a ListenerSet with a listener on
// port 8080, and a route on that ListenerSet.
const listenerSetWorld = `
---
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassBlueprint
metadata: {name: sets}
spec:
  serves: {features: [Gateway, HTTPRoute, ListenerSet]}
  gatewayTemplate: {}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: shared}
spec:
  controllerName: gatewright.dev/gateway-controller
  parametersRef: {group: gatewright.dev, kind: GatewayClassBlueprint, name: sets}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: shared, namespace: team-a}
spec:
  gatewayClassName: shared
  allowedListeners: {namespaces: {from: Same}}
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: extra, namespace: team-a}
spec:
  parentRef: {name: shared}
  listeners: [{name: extra, protocol: HTTP, port: 8080, hostname: extra.example.com}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: extra, namespace: team-a}
spec:
  parentRefs: [{group: gateway.networking.k8s.io, kind: ListenerSet, name: extra}]
  rules: [{backendRefs: [{name: shop-v1, port: 8080}]}]
`
