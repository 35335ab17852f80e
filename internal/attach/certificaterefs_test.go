package attach

import (
	"fmt"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/types"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/gatewright/gatewright/internal/listeners"
)

const certificateGrantsYAML = `
- metadata: {name: any-secret, namespace: certs}
  spec:
    from: [{group: gateway.networking.k8s.io, kind: Gateway, namespace: infra}]
    to: [{group: "", kind: Secret}]
- metadata: {name: one-secret, namespace: shared}
  spec:
    from: [{group: gateway.networking.k8s.io, kind: Gateway, namespace: infra}]
    to: [{group: "", kind: Secret, name: wildcard}]
- metadata: {name: routes-only, namespace: web}
  spec:
    from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: infra}]
    to: [{group: "", kind: Secret}]
- metadata: {name: custom-kind, namespace: vault}
  spec:
    from: [{group: gateway.networking.k8s.io, kind: Gateway, namespace: infra}]
    to: [{group: vault.example.com, kind: Certificate}]
`

func TestResolveCertificateRefs(t *testing.T) {
	var grants []gatewayv1.ReferenceGrant
	if err := yaml.UnmarshalStrict([]byte(certificateGrantsYAML), &grants); err != nil {
		t.Fatal(err)
	}
	secrets := map[string]string{"infra/tls": "", "certs/tls": "", "shared/wildcard": "", "shared/other": "", "infra/broken": "has no tls.key"}
	tests := []struct {
		name    string
		tls     string
		want    []string // reason: message, per certificateRef
		checked []string // the Secrets check was asked about
	}{
		{"a usable Secret of the Gateway's namespace resolves, unset group and kind meaning core Secret",
			`{certificateRefs: [{name: tls}]}`, []string{"ResolvedRefs: "}, []string{"infra/tls"}},
		{"group and kind spelled out resolve too",
			`{certificateRefs: [{group: "", kind: Secret, name: tls}]}`, []string{"ResolvedRefs: "}, []string{"infra/tls"}},
		{"a Secret that does not exist is an InvalidCertificateRef",
			`{certificateRefs: [{name: gone}]}`, []string{"InvalidCertificateRef: certificateRef infra/gone names a Secret that does not exist"}, []string{"infra/gone"}},
		{"a Secret that is no usable pair is an InvalidCertificateRef saying why",
			`{certificateRefs: [{name: broken}]}`, []string{"InvalidCertificateRef: certificateRef infra/broken names a Secret that has no tls.key"}, []string{"infra/broken"}},
		{"another group is an InvalidCertificateRef, and never looked up",
			`{certificateRefs: [{group: wrong.group.company.io, kind: Secret, name: tls}]}`, []string{"InvalidCertificateRef: certificateRef infra/tls is a Secret.wrong.group.company.io, not a core Secret"}, nil},
		{"another kind is an InvalidCertificateRef, and never looked up",
			`{certificateRefs: [{kind: WrongKind, name: tls}]}`, []string{"InvalidCertificateRef: certificateRef infra/tls is a WrongKind, not a core Secret"}, nil},
		{"a Secret of another namespace without a grant is RefNotPermitted, and never looked up",
			`{certificateRefs: [{name: tls, namespace: elsewhere}]}`, []string{"RefNotPermitted: certificateRef elsewhere/tls is in another namespace, and no ReferenceGrant in elsewhere lets Gateways of infra refer to it"}, nil},
		{"a grant for every Secret of its namespace lets the Gateway refer to one",
			`{certificateRefs: [{name: tls, namespace: certs}]}`, []string{"ResolvedRefs: "}, []string{"certs/tls"}},
		{"a grant for one Secret covers that Secret and no other",
			`{certificateRefs: [{name: wildcard, namespace: shared}, {name: other, namespace: shared}]}`,
			[]string{"ResolvedRefs: ", "RefNotPermitted: certificateRef shared/other is in another namespace, and no ReferenceGrant in shared lets Gateways of infra refer to it"}, []string{"shared/wildcard"}},
		{"a grant to HTTPRoutes does not let Gateways refer",
			`{certificateRefs: [{name: tls, namespace: web}]}`, []string{"RefNotPermitted: certificateRef web/tls is in another namespace, and no ReferenceGrant in web lets Gateways of infra refer to it"}, nil},
		{"a permitted reference to a kind other than Secret is an InvalidCertificateRef, not RefNotPermitted",
			`{certificateRefs: [{group: vault.example.com, kind: Certificate, name: tls, namespace: vault}]}`, []string{"InvalidCertificateRef: certificateRef vault/tls is a Certificate.vault.example.com, not a core Secret"}, nil},
		{"a forbidden reference to another kind is RefNotPermitted: that reason comes first",
			`{certificateRefs: [{kind: WrongKind, name: tls, namespace: elsewhere}]}`, []string{"RefNotPermitted: certificateRef elsewhere/tls is in another namespace, and no ReferenceGrant in elsewhere lets Gateways of infra refer to it"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var checked []string
			check := func(namespace, name string) (string, error) {
				checked = append(checked, namespace+"/"+name)
				why, ok := secrets[namespace+"/"+name]
				if !ok {
					return "does not exist", nil
				}
				return why, nil
			}
			gw := gatewayWith(t, `{name: https, protocol: HTTPS, port: 443, tls: `+tt.tls+`}`)
			got, err := ResolveCertificateRefs(gw, listeners.Serves{}, grants, check)
			if err != nil {
				t.Fatal(err)
			}
			var summary []string
			for _, ref := range got["https"] {
				summary = append(summary, fmt.Sprintf("%s: %s", ref.Reason, ref.Message))
			}
			if !slices.Equal(summary, tt.want) {
				t.Errorf("got %q, want %q", summary, tt.want)
			}
			if !slices.Equal(checked, tt.checked) {
				t.Errorf("looked up %v, want %v", checked, tt.checked)
			}
		})
	}
}

func TestCertificateRefsOfListenersThatDoNotTerminateTLS(t *testing.T) {
	gw := gatewayWith(t, `{name: passthrough, protocol: TLS, port: 443, tls: {mode: Passthrough, certificateRefs: [{name: a}]}}`,
		`{name: tls, protocol: TLS, port: 8443, tls: {mode: Terminate, certificateRefs: [{name: b}]}}`,
		`{name: https, protocol: HTTPS, port: 9443, tls: {certificateRefs: [{name: c}, {kind: ConfigMap, name: d}, {name: e, namespace: other}]}}`)
	check := func(namespace, name string) (string, error) {
		if name != "c" {
			t.Errorf("looked up %s/%s, a certificateRef Gatewright does not serve", namespace, name)
		}
		return "", nil
	}
	got, err := ResolveCertificateRefs(gw, listeners.Serves{}, nil, check)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || len(got["https"]) != 3 {
		t.Errorf("got certificateRefs for %v, want those of https only", got)
	}
	tls := listeners.NewServes([]gatewayv1.ProtocolType{"HTTPS", "TLS"}, []gatewayv1.TLSModeType{"Terminate", "Passthrough"}, []gatewayv1.Kind{"HTTPRoute", "TLSRoute"})
	got, err = ResolveCertificateRefs(gw, tls, nil, func(string, string) (string, error) { return "", nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(got["tls"]) != 1 || len(got["passthrough"]) != 0 {
		t.Errorf("on a class serving TLS: got certificateRefs for %v, want those of tls and https, not passthrough's", got)
	}
	// Whatever a class serves: indexes and readers of Secrets know no class.
	want := []types.NamespacedName{{Namespace: "infra", Name: "b"}, {Namespace: "infra", Name: "c"}, {Namespace: "other", Name: "e"}}
	if secrets := CertificateSecrets(gw); !slices.Equal(secrets, want) {
		t.Errorf("CertificateSecrets = %v, want %v: the Secrets of listeners that may terminate TLS, permitted or not", secrets, want)
	}
}

func gatewayWith(t *testing.T, listeners ...string) *gatewayv1.Gateway {
	t.Helper()
	gw := &gatewayv1.Gateway{}
	gw.Namespace, gw.Name = "infra", "gw"
	for _, l := range listeners {
		var listener gatewayv1.Listener
		if err := yaml.UnmarshalStrict([]byte(l), &listener); err != nil {
			t.Fatal(err)
		}
		gw.Spec.Listeners = append(gw.Spec.Listeners, listener)
	}
	return gw
}

func TestResolveListenerSetCertificateRefs(t *testing.T) {
	var grants []gatewayv1.ReferenceGrant
	if err := yaml.UnmarshalStrict([]byte(certificateGrantsYAML+`
- metadata: {name: listenersets, namespace: shared}
  spec:
    from: [{group: gateway.networking.k8s.io, kind: ListenerSet, namespace: infra}]
    to: [{group: "", kind: Secret}]
`), &grants); err != nil {
		t.Fatal(err)
	}
	var ls gatewayv1.ListenerSet
	if err := yaml.UnmarshalStrict([]byte(`
metadata: {name: tenant, namespace: infra}
spec:
  parentRef: {name: gw}
  listeners:
  - {name: own, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: tls}]}}
  - {name: granted, protocol: HTTPS, port: 443, hostname: a.example.com, tls: {certificateRefs: [{name: other, namespace: shared}]}}
  - {name: gateways-grant, protocol: HTTPS, port: 443, hostname: b.example.com, tls: {certificateRefs: [{name: tls, namespace: certs}]}}
`), &ls); err != nil {
		t.Fatal(err)
	}
	check := func(namespace, name string) (string, error) { return "", nil }
	got, err := ResolveListenerSetCertificateRefs(&ls, listeners.Serves{}, grants, check)
	if err != nil {
		t.Fatal(err)
	}
	want := map[gatewayv1.SectionName]string{
		// Its own namespace's Secret needs no grant.
		"own": "ResolvedRefs: ",
		// A grant from kind ListenerSet lets it refer.
		"granted": "ResolvedRefs: ",
		// A grant to Gateways of the namespace is not the ListenerSet's.
		"gateways-grant": "RefNotPermitted: certificateRef certs/tls is in another namespace, and no ReferenceGrant in certs lets ListenerSets of infra refer to it",
	}
	for name, w := range want {
		if len(got[name]) != 1 {
			t.Fatalf("listener %s: %d certificateRefs resolved, want 1", name, len(got[name]))
		}
		if c := got[name][0]; fmt.Sprintf("%s: %s", c.Reason, c.Message) != w {
			t.Errorf("listener %s: got %q, want %q", name, fmt.Sprintf("%s: %s", c.Reason, c.Message), w)
		}
	}
}
