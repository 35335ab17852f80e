package values_test

import (
	"errors"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/gatewright/gatewright/internal/values"
)

const schemaBlueprint = `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassBlueprint
metadata: {name: bp}
spec:
  gatewayTemplate: {}
  values:
    default: {replicas: 1, service: {type: ClusterIP}}
  valuesSchema:
    type: object
    required: [replicas]
    additionalProperties: false
    properties:
      replicas: {type: integer, minimum: 1, maximum: 20}
      service:
        type: object
        additionalProperties: false
        properties:
          type: {type: string, enum: [ClusterIP, LoadBalancer]}
      labels:
        type: object
        additionalProperties: {type: string}
`

func TestValuesSchema(t *testing.T) {
	tests := []struct {
		name   string
		tenant string // default of GatewayConfig team-a/web
		want   []string
	}{
		{name: "values that satisfy the schema pass", tenant: "{replicas: 3}"},
		{
			name:   "a value out of range names the path and the policy that set it",
			tenant: "{replicas: 50}",
			want:   []string{"replicas: should be less than or equal to 20, got 50 (set by GatewayConfig team-a/web as default at level 6)"},
		},
		{
			name:   "a value of the wrong type inside an object names the policy",
			tenant: "{service: {type: NodePort}}",
			want:   []string{`service.type: should be one of [ClusterIP LoadBalancer], got "NodePort" (set by GatewayConfig team-a/web as default at level 6)`},
		},
		{
			name:   "a long refused value is quoted by its beginning and its length only",
			tenant: "{service: {type: " + strings.Repeat("x", 40000) + "}}",
			want:   []string{`service.type: should be one of [ClusterIP LoadBalancer], got "` + strings.Repeat("x", 64) + `"... (40000 bytes) (set by GatewayConfig team-a/web as default at level 6)`},
		},
		{
			name:   "a wrong value under a key with dots is traced to its policy",
			tenant: `{labels: {"app.kubernetes.io/name": 5}}`,
			want:   []string{`labels["app.kubernetes.io/name"]: must be of type string: "integer" (set by GatewayConfig team-a/web as default at level 6)`},
		},
		{
			name:   "an unknown key is reported at its own path with the policy that set it",
			tenant: "{service: {port: 80}}",
			want:   []string{"service.port: is not allowed by the valuesSchema (set by GatewayConfig team-a/web as default at level 6)"},
		},
		{
			name:   "an unknown key holding an object names the policy that set what is under it",
			tenant: "{dns: {provider: route53}}",
			want:   []string{"dns: is not allowed by the valuesSchema (set by GatewayConfig team-a/web as default at level 6)"},
		},
		{
			name:   "a required value unset with null is reported without a source",
			tenant: "{replicas: null}",
			want:   []string{"replicas: is required"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := compute(t, load(t, schemaBlueprint+"---\n"+policyAt(values.LevelGateway, "web", tt.tenant, "")), "")
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var schemaErr *values.SchemaError
			if !errors.As(err, &schemaErr) {
				t.Fatalf("got %v, want a SchemaError", err)
			}
			if res == nil {
				t.Fatal("a schema violation must still return the values and their provenance")
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "values do not match the valuesSchema of GatewayClassBlueprint bp: ") {
				t.Errorf("message %q does not name the blueprint", msg)
			}
			for _, part := range tt.want {
				if !strings.Contains(msg, part) {
					t.Errorf("message %q lacks %q", msg, part)
				}
			}
		})
	}
}

func TestCompileSchema(t *testing.T) {
	tests := []struct {
		name    string
		schema  string
		wantErr string
	}{
		{name: "an OpenAPI v3 schema as in a CRD compiles", schema: `{"type": "object", "properties": {"a": {"type": "integer", "nullable": true}}, "x-kubernetes-preserve-unknown-fields": true}`},
		{name: "a misspelt keyword is refused", schema: `{"type": "object", "propertes": {}}`, wantErr: `unknown field "propertes"`},
		{name: "an unknown type is refused with its path", schema: `{"type": "object", "properties": {"a": {"type": "int"}}}`, wantErr: `valuesSchema.properties[a].type: unknown type "int"`},
		{name: "an unknown type in items is refused", schema: `{"type": "array", "items": {"type": "strin"}}`, wantErr: `valuesSchema.items.type: unknown type "strin"`},
		{name: "a schema that is not an object is refused", schema: `"object"`, wantErr: "valuesSchema:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := values.CompileSchema(&apiextensionsv1.JSON{Raw: []byte(tt.schema)})
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("got %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestAPrecompiledSchemaIsUsed(t *testing.T) {
	set := load(t, schemaBlueprint+"---\n"+policyAt(values.LevelGateway, "web", "{replicas: 3}", ""))
	gw, err := set.Gateway("team-a", "web")
	if err != nil {
		t.Fatal(err)
	}
	snap, err := set.ForValues(controllerNamespace, gw, nil)
	if err != nil {
		t.Fatal(err)
	}
	in := snap.Values
	stricter, err := values.CompileSchema(&apiextensionsv1.JSON{Raw: []byte(`{"type": "object", "properties": {"replicas": {"type": "integer", "maximum": 2}}}`)})
	if err != nil {
		t.Fatal(err)
	}
	in.Schema = stricter
	if _, err := in.ForGateway(gw); err == nil || !strings.Contains(err.Error(), "replicas: should be less than or equal to 2") {
		t.Fatalf("got %v, want the precompiled schema's verdict", err)
	}
}
