package snapshot

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/gatewright/gatewright/internal/listeners"
	"github.com/gatewright/gatewright/internal/scheme"
)

func TestListenerSets(t *testing.T) {
	gw := &gatewayv1.Gateway{}
	if err := yaml.UnmarshalStrict([]byte(`
metadata: {name: web, namespace: infra}
spec:
  gatewayClassName: internet
  allowedListeners: {namespaces: {from: Selector, selector: {matchLabels: {listeners: welcome}}}}
  listeners: [{name: http, protocol: HTTP, port: 80}]`), gw); err != nil {
		t.Fatal(err)
	}
	listenerSet := func(namespace string) gatewayv1.ListenerSet {
		var ls gatewayv1.ListenerSet
		if err := yaml.UnmarshalStrict([]byte(`
metadata: {name: tenant, namespace: `+namespace+`}
spec:
  parentRef: {name: web, namespace: infra}
  listeners: [{name: https, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: tls}]}}]`), &ls); err != nil {
			t.Fatal(err)
		}
		return ls
	}
	reader := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "welcome", Labels: map[string]string{"listeners": "welcome"}}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "stranger"}},
	).Build()
	var checked []string
	g := &Gatherer{Reader: reader, SecretCheck: func(namespace, name string) (string, error) {
		checked = append(checked, namespace+"/"+name)
		return "", nil
	}}
	serves := listeners.Serves{}.WithListenerSets()
	verdicts, err := g.ListenerSets(t.Context(), gw, serves, nil, []gatewayv1.ListenerSet{listenerSet("welcome"), listenerSet("stranger")})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, v := range verdicts {
		got[v.Ref.Namespace] = v.Accepted
	}
	// The namespaces' labels decide, and only the certificate of the one allowed is read:
	// a ListenerSet the Gateway refuses costs no Secret read.
	if !got["welcome"] || got["stranger"] {
		t.Errorf("accepted by namespace: %v, want welcome only", got)
	}
	if len(checked) != 1 || checked[0] != "welcome/tls" {
		t.Errorf("Secrets checked: %v, want welcome/tls only", checked)
	}
}

func TestListenerSetsPastTheBoundAreNotRead(t *testing.T) {
	gw := &gatewayv1.Gateway{}
	gw.Namespace, gw.Name, gw.Spec.GatewayClassName = "infra", "web", "internet"
	all := gatewayv1.NamespacesFromAll
	gw.Spec.AllowedListeners = &gatewayv1.AllowedListeners{Namespaces: &gatewayv1.ListenerNamespaces{From: &all}}
	withCertificate := func(name, secret string) gatewayv1.ListenerSet {
		var ls gatewayv1.ListenerSet
		if err := yaml.UnmarshalStrict([]byte(`
metadata: {name: `+name+`, namespace: tenant}
spec:
  parentRef: {name: web, namespace: infra}
  listeners: [{name: https, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: `+secret+`}]}}]`), &ls); err != nil {
			t.Fatal(err)
		}
		return ls
	}
	var candidates []gatewayv1.ListenerSet
	for i := range listeners.MaxGatewayListenerSets {
		candidates = append(candidates, withCertificate(fmt.Sprintf("a-%05d", i), "tls"))
	}
	candidates = append(candidates, withCertificate("z-past", "past"))
	checked := map[string]bool{}
	g := &Gatherer{Reader: fake.NewClientBuilder().WithScheme(scheme.New()).Build(), SecretCheck: func(namespace, name string) (string, error) {
		checked[namespace+"/"+name] = true
		return "", nil
	}}
	verdicts, err := g.ListenerSets(t.Context(), gw, listeners.Serves{}.WithListenerSets(), nil, candidates)
	if err != nil {
		t.Fatal(err)
	}
	if past := verdicts[len(verdicts)-1]; past.Ref.Name != "z-past" || past.Accepted {
		t.Errorf("the ListenerSet past the bound: %s accepted %v", past.Ref, past.Accepted)
	}
	if checked["tenant/past"] || !checked["tenant/tls"] {
		t.Errorf("Secrets checked: %v, want tenant/tls only", checked)
	}
}
