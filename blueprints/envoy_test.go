package blueprints_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatewright/gatewright/internal/offline"
)

// envoyConfigs renders the envoy-proxy blueprint with testdata/<input> and returns the data
// of every ConfigMap it renders: envoy.yaml and the sds-SECRET.yaml files.
func envoyConfigs(t *testing.T, set *offline.Set) map[string]string {
	t.Helper()
	rendered, err := set.Render(controllerNamespace, "")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, r := range rendered {
		for _, obj := range r.Objects {
			if obj.GetKind() != "ConfigMap" {
				continue
			}
			for key, value := range obj.Object["data"].(map[string]any) {
				files[r.Gateway+"/"+key] = value.(string)
			}
		}
	}
	return files
}

func TestEnvoyLoadsTheRenderedConfiguration(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("envoy-proxy", "testdata", "*.in.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var total envoySummary
	for _, input := range inputs {
		t.Run(filepath.Base(input), func(t *testing.T) {
			files := envoyConfigs(t, load(t, filepath.Join("envoy-proxy", "blueprint.yaml"), input))
			for name, text := range files {
				if strings.HasSuffix(name, "/envoy.yaml") {
					sum, err := checkEnvoyBootstrap(text)
					if err != nil {
						t.Errorf("%s: %v", name, err)
					}
					total.listeners += sum.listeners
					total.tlsChains += sum.tlsChains
					total.plainChains += sum.plainChains
					total.routes += sum.routes
					total.clusters += sum.clusters
				} else if err := checkEnvoySDS(text); err != nil {
					t.Errorf("%s: %v", name, err)
				}
			}
		})
	}
	// The example's HTTP and HTTPS listeners and its routes (plus the ready listener's).
	if total.tlsChains == 0 || total.plainChains < 2 || total.routes < 10 || total.clusters < 5 {
		t.Errorf("the inputs gave fewer shapes to check than the example has: %+v", total)
	}
}

// TestEnvoyCheckRefusesWhatEnvoyRefuses breaks the example's rendered bootstrap in ways
// Envoy would refuse at load, and expects the check of the test above to say so.
func TestEnvoyCheckRefusesWhatEnvoyRefuses(t *testing.T) {
	tests := []struct {
		name     string
		old, new string // a replacement in the rendered envoy.yaml
		want     string
	}{
		{
			name: "a route without a path match",
			old:  `match: {prefix: /stats/prometheus}`, new: `match: {}`,
			want: "PathSpecifier: value is required",
		},
		{
			name: "a cluster without a name",
			old:  `- name: "team-a_shop-api_8080"`, new: `- name: ""`,
			want: "Cluster.Name: value length must be at least 1 runes",
		},
		{
			name: "a route to a cluster that is not defined",
			old:  `"cluster":"team-a_shop-api_8080"`, new: `"cluster":"team-a_shop-apj_8080"`,
			want: `cluster "team-a_shop-apj_8080" is not defined`,
		},
		{
			name: "two listeners on one address",
			old:  `port_value: 10443`, new: `port_value: 10080`,
			want: `listener "https-443": 0.0.0.0:10080 is the address of listener "http-80" too`,
		},
		{
			name: "a field Envoy does not know",
			old:  `stat_prefix: ready`, new: `stat_prefx: ready`,
			want: `unknown field "stat_prefx"`,
		},
		{
			name: "a typed config of a type Envoy does not know",
			old:  `router.v3.Router`, new: `router.v3.Ruter`,
			want: `unable to resolve "type.googleapis.com/envoy.extensions.filters.http.router.v3.Ruter"`,
		},
		{
			name: "a typed config that breaks its own type's rules",
			old:  `max_active_downstream_connections: 20000`, new: `max_active_downstream_connections: 0`,
			want: "MaxActiveDownstreamConnections: value must be greater than 0",
		},
		{
			name: "a regular expression that is not RE2",
			old:  `"regex":"/v[0-9]+/.*"`, new: `"regex":"/v[0-9+/.*"`,
			want: `regular expression "/v[0-9+/.*": error parsing regexp`,
		},
		{
			name: "a route that sets the Host header",
			old:  `"key":"x-forwarded-prefix"`, new: `"key":"host"`,
			want: `request header "host": Envoy lets no route modify Host`,
		},
	}
	set := load(t, filepath.Join("envoy-proxy", "blueprint.yaml"), filepath.Join("envoy-proxy", "testdata", "example.in.yaml"))
	bootstrap := envoyConfigs(t, set)["team-a/web/envoy.yaml"]
	if _, err := checkEnvoyBootstrap(bootstrap); err != nil {
		t.Fatalf("the example's bootstrap does not pass to begin with: %v", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(bootstrap, tt.old) {
				t.Fatalf("the rendered bootstrap has no %q to replace", tt.old)
			}
			_, err := checkEnvoyBootstrap(strings.Replace(bootstrap, tt.old, tt.new, 1))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// TestEnvoyBlueprintRefusesListenersItCannotServe adds to the example a Gateway whose
// listeners Envoy could not load: the Gateway's owner wrote them, so its render fails,
// naming the listener.
func TestEnvoyBlueprintRefusesListenersItCannotServe(t *testing.T) {
	tests := []struct {
		name  string
		input string // added to testdata/example.in.yaml
		want  string
	}{
		{
			name:  "a listener whose container port another listener's port maps to",
			input: gatewayWithListeners(`{name: http, protocol: HTTP, port: 80}`, `{name: alt, protocol: HTTP, port: 10080}`),
			want:  `Gateway team-a/ports listener "alt" (port 10080): port 80 is served from container port 10080 too; Envoy cannot listen on it twice`,
		},
		{
			name:  "a listener on the port of Envoy's readiness listener",
			input: gatewayWithListeners(`{name: metrics, protocol: HTTP, port: 19001}`),
			want:  `Gateway team-a/ports listener "metrics" (port 19001): Envoy listens on container port 19001 itself (admin, readiness, and the 500s of backends that do not resolve)`,
		},
		{
			name:  "a listener on the port of Envoy's listener for backends that do not resolve",
			input: gatewayWithListeners(`{name: other, protocol: HTTP, port: 19002}`),
			want:  `Gateway team-a/ports listener "other" (port 19002): Envoy listens on container port 19002 itself`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := load(t, filepath.Join("envoy-proxy", "blueprint.yaml"), filepath.Join("envoy-proxy", "testdata", "example.in.yaml"))
			if err := set.Add([]byte(tt.input)); err != nil {
				t.Fatal(err)
			}
			_, err := set.Render(controllerNamespace, "team-a/ports")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func gatewayWithListeners(listeners ...string) string {
	return `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: ports, namespace: team-a}
spec:
  gatewayClassName: envoy-public
  listeners: [` + strings.Join(listeners, ", ") + `]`
}
