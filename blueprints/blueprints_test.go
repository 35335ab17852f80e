// Package blueprints_test checks the example blueprints the way their users meet them:
// lint --strict, `gatewright render` of the example input against golden files, and the
// valuesSchema refusing bad tenant values.
package blueprints_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatewright/gatewright/internal/offline"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/test/golden"
)

const controllerNamespace = "gatewright-system"

// blueprints are the folders under blueprints/, each with blueprint.yaml and testdata/.
var blueprints = []string{"envoy-proxy", "aws-nlb-istio", "istio-certs-dns"}

// load reads the files as `gatewright render -f` does.
func load(t *testing.T, paths ...string) *offline.Set {
	t.Helper()
	set, err := offline.Load(paths...)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func TestBlueprintsParseAndLintClean(t *testing.T) {
	for _, name := range blueprints {
		t.Run(name, func(t *testing.T) {
			set := load(t, filepath.Join(name, "blueprint.yaml"))
			if len(set.Blueprints) != 1 || set.Blueprints[0].Name != name {
				t.Fatalf("%s/blueprint.yaml must hold one GatewayClassBlueprint named %s", name, name)
			}
			parsed, err := render.Parse(&set.Blueprints[0])
			if err != nil {
				t.Fatal(err)
			}
			if parsed.ValuesSchema() == nil {
				t.Error("the blueprint has no valuesSchema")
			}
			for _, w := range parsed.Lint() {
				t.Errorf("lint: %s", w)
			}
		})
	}
}

// TestGoldenRender renders blueprint.yaml with every testdata/<case>.in.yaml exactly as
// `gatewright render -f blueprint.yaml -f testdata/<case>.in.yaml` does, and compares the
// stream with testdata/<case>.out.yaml (go test ./blueprints -update rewrites them).
func TestGoldenRender(t *testing.T) {
	for _, name := range blueprints {
		inputs, err := filepath.Glob(filepath.Join(name, "testdata", "*.in.yaml"))
		if err != nil || len(inputs) == 0 {
			t.Fatalf("%s has no testdata/*.in.yaml: %v", name, err)
		}
		for _, input := range inputs {
			testCase := strings.TrimSuffix(filepath.Base(input), ".in.yaml")
			t.Run(name+"/"+testCase, func(t *testing.T) {
				set := load(t, filepath.Join(name, "blueprint.yaml"), input)
				rendered, err := set.Render(controllerNamespace, "")
				if err != nil {
					t.Fatal(err)
				}
				var out bytes.Buffer
				if err := offline.WriteStream(&out, rendered); err != nil {
					t.Fatal(err)
				}
				golden.Check(t, filepath.Join(name, "testdata", testCase+".out.yaml"), out.Bytes())
			})
		}
	}
}

func TestValuesSchemaRefusesBadTenantValues(t *testing.T) {
	tests := []struct {
		name      string
		blueprint string
		gateway   string // namespace/name, the target of the tenant's GatewayConfig
		values    string // the GatewayConfig's spec.default
		want      string
	}{
		{
			name:      "a tenant cannot scale the proxy beyond the schema's bound",
			blueprint: "envoy-proxy",
			gateway:   "team-a/web",
			values:    "{autoscaling: {enabled: true, maxReplicas: 500}}",
			want:      "values do not match the valuesSchema of GatewayClassBlueprint envoy-proxy: autoscaling.maxReplicas: should be less than or equal to 100, got 500 (set by GatewayConfig team-a/bad as default at level 6)",
		},
		{
			name:      "a source range carrying YAML of its own is not a CIDR",
			blueprint: "aws-nlb-istio",
			gateway:   "team-a/public",
			values:    `{sourceRanges: ["10.0.0.0/8\n---\nkind: ClusterRoleBinding"]}`,
			want:      `values do not match the valuesSchema of GatewayClassBlueprint aws-nlb-istio: sourceRanges[0]: should match '^([0-9]{1,3}\.){3}[0-9]{1,3}/[0-9]{1,2}$', got "10.0.0.0/8\n---\nkind: ClusterRoleBinding" (set by GatewayConfig team-a/bad as default at level 6)`,
		},
		{
			name:      "a tenant cannot ask for a key size the schema does not list",
			blueprint: "istio-certs-dns",
			gateway:   "team-a/apps",
			values:    "{certificate: {privateKeyAlgorithm: RSA, privateKeySize: 1024}}",
			want:      "values do not match the valuesSchema of GatewayClassBlueprint istio-certs-dns: certificate.privateKeySize: should be one of [256 384 521 2048 3072 4096], got 1024 (set by GatewayConfig team-a/bad as default at level 6)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := load(t, filepath.Join(tt.blueprint, "blueprint.yaml"), filepath.Join(tt.blueprint, "testdata", "example.in.yaml"))
			namespace, gateway, _ := strings.Cut(tt.gateway, "/")
			// Newer than the example's own configs, which have no creationTimestamp: of two
			// defaults at one level, the newer wins.
			policy := `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: bad, namespace: ` + namespace + `, creationTimestamp: "2026-01-01T00:00:00Z"}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: ` + gateway + `}]
  default: ` + tt.values
			if err := set.Add([]byte(policy)); err != nil {
				t.Fatal(err)
			}
			_, err := set.Render(controllerNamespace, "")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}
