package render_test

import (
	"testing"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/gatewright/gatewright/internal/listeners"
	"github.com/gatewright/gatewright/internal/render"
)

func TestListenersContext(t *testing.T) {
	parsed, err := render.Parse(gatewayTemplates(t, `
apiVersion: v1
kind: ConfigMap
metadata: {name: listeners}
data:
  listeners: {{ toJson .Listeners | quote }}
  served: {{ range .Listeners }}{{ if .valid }}{{ .name }}:{{ .port }} {{ end }}{{ end }}
`))
	if err != nil {
		t.Fatal(err)
	}
	in := testInput(nil)
	if err := yaml.UnmarshalStrict([]byte(`
- {name: http, protocol: HTTP, port: 80}
- {name: https, protocol: HTTPS, port: 443, hostname: shop.example.com, tls: {certificateRefs: [{name: shop-tls}]}}
- {name: foreign, protocol: HTTPS, port: 8443, tls: {certificateRefs: [{name: theirs, namespace: team-b}]}}
- {name: tcp, protocol: TCP, port: 9000}
`), &in.Gateway.Spec.Listeners); err != nil {
		t.Fatal(err)
	}
	in.Listeners = listeners.Evaluate(listeners.Serves{}, in.Gateway.Spec.Listeners, map[gatewayv1.SectionName][]listeners.CertificateRef{
		"https":   {{Kind: "Secret", Namespace: "team-a", Name: "shop-tls", Reason: gatewayv1.ListenerReasonResolvedRefs}},
		"foreign": {{Kind: "Secret", Namespace: "team-b", Name: "theirs", Reason: gatewayv1.ListenerReasonRefNotPermitted, Message: "not permitted"}},
	})
	out, err := parsed.Gateway(in)
	if err != nil {
		t.Fatal(err)
	}
	data := out.Objects[0].Object["data"].(map[string]any)
	if got := data["served"]; got != "http:80 https:443" {
		t.Errorf("served: got %q, want the valid listeners http and https: a template can leave out the others", got)
	}
	want := `[` +
		`{"certificateRefs":[],"hostname":"","name":"http","port":80,"protocol":"HTTP","reason":"ResolvedRefs","valid":true},` +
		`{"certificateRefs":[{"group":"","kind":"Secret","name":"shop-tls","namespace":"team-a","reason":"ResolvedRefs","resolved":true}],"hostname":"shop.example.com","name":"https","port":443,"protocol":"HTTPS","reason":"ResolvedRefs","valid":true},` +
		`{"certificateRefs":[{"group":"","kind":"Secret","name":"theirs","namespace":"team-b","reason":"RefNotPermitted","resolved":false}],"hostname":"","name":"foreign","port":8443,"protocol":"HTTPS","reason":"RefNotPermitted","valid":false},` +
		`{"certificateRefs":[],"hostname":"","name":"tcp","port":9000,"protocol":"TCP","reason":"UnsupportedProtocol","valid":false}]`
	if got := data["listeners"]; got != want {
		t.Errorf(".Listeners:\ngot  %s\nwant %s", got, want)
	}
}

func TestListenersContextWithListenerSets(t *testing.T) {
	parsed, err := render.Parse(gatewayTemplates(t, `
apiVersion: v1
kind: ConfigMap
metadata: {name: listeners}
data:
  served: {{ range .Listeners }}{{ if .valid }}{{ with .listenerSet }}{{ .namespace }}/{{ .name }}/{{ end }}{{ .name }}:{{ .port }} {{ end }}{{ end }}
`))
	if err != nil {
		t.Fatal(err)
	}
	in := testInput(nil)
	if err := yaml.UnmarshalStrict([]byte(`[{name: http, protocol: HTTP, port: 80, hostname: web.example.com}]`), &in.Gateway.Spec.Listeners); err != nil {
		t.Fatal(err)
	}
	all := gatewayv1.NamespacesFromAll
	in.Gateway.Spec.AllowedListeners = &gatewayv1.AllowedListeners{Namespaces: &gatewayv1.ListenerNamespaces{From: &all}}
	serves := listeners.Serves{}.WithListenerSets()
	in.Listeners = listeners.Evaluate(serves, in.Gateway.Spec.Listeners, nil)
	set := func(namespace, name, entries string) listeners.Set {
		ls := &gatewayv1.ListenerSet{}
		ls.Namespace, ls.Name = namespace, name
		if err := yaml.UnmarshalStrict([]byte(entries), &ls.Spec.Listeners); err != nil {
			t.Fatal(err)
		}
		return listeners.SetOf(ls, nil)
	}
	in.ListenerSets = listeners.EvaluateSets(serves, in.Gateway, in.Listeners, []listeners.Set{
		set("team-a", "shop", `[{name: http, protocol: HTTP, port: 80, hostname: shop.example.com}, {name: taken, protocol: HTTP, port: 80, hostname: web.example.com}]`),
		set("team-b", "refused", `[{name: https, protocol: HTTPS, port: 80}]`),
	})
	out, err := parsed.Gateway(in)
	if err != nil {
		t.Fatal(err)
	}
	// The Gateway's own listener first, then those of the attached ListenerSet, named by
	// it; its conflicted listener and the ListenerSet not attached are not valid.
	if got := out.Objects[0].Object["data"].(map[string]any)["served"]; got != "http:80 team-a/shop/http:80" {
		t.Errorf("served: got %q", got)
	}
}
