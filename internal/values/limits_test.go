package values_test

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/values"
)

// nested returns an object depth levels deep: {"a":{"a":...1}}.
func nested(depth int) string {
	return strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth)
}

// nestedLists returns {"a":[[...[1]...]]}, depth levels deep counting the object.
func nestedLists(depth int) string {
	return `{"a":` + strings.Repeat("[", depth-1) + "1" + strings.Repeat("]", depth-1) + "}"
}

// flatKeys returns an object with n keys k0, k1, ...
func flatKeys(n int) string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf(`"k%d":1`, i)
	}
	return "{" + strings.Join(keys, ",") + "}"
}

// listOf returns an object {"l":[item,item,...]} with n items.
func listOf(item string, n int) string {
	return `{"l":[` + strings.TrimSuffix(strings.Repeat(item+",", n), ",") + "]}"
}

// ofBytes returns an object {"s":"xx..."} of exactly n bytes.
func ofBytes(n int) string {
	return `{"s":"` + strings.Repeat("x", n-len(`{"s":""}`)) + `"}`
}

// longPath returns keys of the given lengths nested in one another, over a leaf.
func longPath(lengths ...int) string {
	out := "1"
	for i := len(lengths) - 1; i >= 0; i-- {
		out = `{"` + strings.Repeat(string(rune('a'+i)), lengths[i]) + `":` + out + "}"
	}
	return out
}

// blockInputs returns the inputs of HTTPRoute team-b/shop on Gateway team-a/web, with
// one object named name at level whose half is raw (JSON).
func blockInputs(level values.Level, name string, half values.Half, raw string) (values.Inputs, *gatewayv1.Gateway, *gatewayv1.HTTPRoute) {
	blocks := gatewrightv1alpha1.DefaultsAndOverrides{Default: &apiextensionsv1.JSON{Raw: []byte(raw)}}
	if half == values.Override {
		blocks = gatewrightv1alpha1.DefaultsAndOverrides{Override: &apiextensionsv1.JSON{Raw: []byte(raw)}}
	}
	in := values.Inputs{
		ControllerNamespace: controllerNamespace,
		Blueprint:           &gatewrightv1alpha1.GatewayClassBlueprint{ObjectMeta: metav1.ObjectMeta{Name: "bp"}},
	}
	kind, namespace, target := targetOf(level)
	refs := []gatewayv1.LocalPolicyTargetReference{target}
	switch {
	case level == values.LevelBlueprint:
		in.Blueprint.Spec.Values = &blocks
	case kind == gatewrightv1alpha1.KindGatewayClassConfig:
		in.GatewayClassConfigs = []gatewrightv1alpha1.GatewayClassConfig{{ObjectMeta: objectMeta(namespace, name, 1),
			Spec: gatewrightv1alpha1.GatewayClassConfigSpec{TargetRefs: refs, DefaultsAndOverrides: blocks}}}
	default:
		in.GatewayConfigs = []gatewrightv1alpha1.GatewayConfig{{ObjectMeta: objectMeta(namespace, name, 1),
			Spec: gatewrightv1alpha1.GatewayConfigSpec{TargetRefs: refs, DefaultsAndOverrides: blocks}}}
	}
	gw := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "team-a"}, Spec: gatewayv1.GatewaySpec{GatewayClassName: "internet"}}
	route := &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "team-b"}}
	return in, gw, route
}

func TestLimits(t *testing.T) {
	tests := []struct {
		name    string
		level   values.Level
		half    values.Half
		raw     string
		want    string // the whole message; "" when the block is accepted
		limit   values.Limit
		wantMax int
	}{
		{name: "a default nested 64 levels deep is accepted", level: values.LevelGateway, half: values.Default, raw: nested(values.MaxDepth)},
		{
			name:  "a default nested 65 levels deep is refused, naming the policy, the block, the limit and the start of the path",
			level: values.LevelGateway, half: values.Default, raw: nested(values.MaxDepth + 1),
			want:  "GatewayConfig team-a/web: spec.default is nested deeper than 64 levels at a.a.a.a.a…",
			limit: values.LimitDepth, wantMax: values.MaxDepth,
		},
		{
			name:  "lists count towards the depth and show as indexes",
			level: values.LevelGateway, half: values.Override, raw: nestedLists(values.MaxDepth + 1),
			want:  "GatewayConfig team-a/web: spec.override is nested deeper than 64 levels at a[0][0][0][0]…",
			limit: values.LimitDepth, wantMax: values.MaxDepth,
		},
		{
			name:  "a number too large for a float does not hide the depth after it",
			level: values.LevelGateway, half: values.Default, raw: `{"big":1e400,"deep":` + nested(values.MaxDepth) + "}",
			want:  "GatewayConfig team-a/web: spec.default is nested deeper than 64 levels at deep.a.a.a.a…",
			limit: values.LimitDepth, wantMax: values.MaxDepth,
		},
		{name: "an override with 10,000 keys is accepted", level: values.LevelGateway, half: values.Override, raw: flatKeys(values.MaxElements)},
		{
			name:  "an override with 10,001 keys is refused at the key that broke the bound",
			level: values.LevelGateway, half: values.Override, raw: flatKeys(values.MaxElements + 1),
			want:  "GatewayConfig team-a/web: spec.override has more than 10000 elements (keys and list items) at k10000",
			limit: values.LimitElements, wantMax: values.MaxElements,
		},
		{name: "a list of empty objects that makes 10,000 elements with its key is accepted", level: values.LevelGateway, half: values.Default, raw: listOf("{}", values.MaxElements-1)},
		{
			name:  "a list of 170,000 empty objects, within 512 KiB, is refused at the item that broke the bound",
			level: values.LevelGateway, half: values.Default, raw: listOf("{}", 170_000),
			want:  "GatewayConfig team-a/web: spec.default has more than 10000 elements (keys and list items) at l[9999]",
			limit: values.LimitElements, wantMax: values.MaxElements,
		},
		{
			name:  "empty lists, scalars and spaces between items count as items",
			level: values.LevelGateway, half: values.Override, raw: `{"l": [ ` + strings.Repeat(`[] , 1 , "x" , `, values.MaxElements/3) + `null ]}`,
			want:  "GatewayConfig team-a/web: spec.override has more than 10000 elements (keys and list items) at l[9999]",
			limit: values.LimitElements, wantMax: values.MaxElements,
		},
		{
			name:  "the nested list of finding 1, 200,000 zeros in 400 KB, is refused at the item that broke the bound",
			level: values.LevelBlueprint, half: values.Default, raw: `{"a": [[` + strings.TrimSuffix(strings.Repeat("0,", 200_000), ",") + `]]}`,
			want:  "GatewayClassBlueprint bp: spec.values.default has more than 10000 elements (keys and list items) at a[0][9998]",
			limit: values.LimitElements, wantMax: values.MaxElements,
		},
		{name: "a default of exactly 512 KiB is accepted", level: values.LevelTenantNamespace, half: values.Default, raw: ofBytes(values.MaxBytes)},
		{
			name:  "a default one byte over 512 KiB is refused without a path",
			level: values.LevelTenantNamespace, half: values.Default, raw: ofBytes(values.MaxBytes + 1),
			want:  "GatewayConfig team-a/web: spec.default is larger than 524288 bytes",
			limit: values.LimitBytes, wantMax: values.MaxBytes,
		},
		{name: "a path whose keys make 1024 bytes is accepted", level: values.LevelGateway, half: values.Default, raw: longPath(256, 256, 256, 256)},
		{
			name:  "a path whose keys make 1025 bytes is refused, each key shown cut short",
			level: values.LevelGateway, half: values.Default, raw: longPath(256, 256, 256, 257),
			want:  "GatewayConfig team-a/web: spec.default has a path whose keys are longer than 1024 bytes together at aaaaaaaaaaaaaaaaaaaa….bbbbbbbbbbbbbbbbbbbb….cccccccccccccccccccc….dddddddddddddddddddd…",
			limit: values.LimitPathBytes, wantMax: values.MaxPathBytes,
		},
		{
			name:  "the blueprint's own values are held to the same bounds",
			level: values.LevelBlueprint, half: values.Default, raw: nested(values.MaxDepth + 1),
			want:  "GatewayClassBlueprint bp: spec.values.default is nested deeper than 64 levels at a.a.a.a.a…",
			limit: values.LimitDepth, wantMax: values.MaxDepth,
		},
		{
			name:  "a provider's override over a bound is refused, not skipped",
			level: values.LevelGlobalClass, half: values.Override, raw: nested(values.MaxDepth + 1),
			want:  "GatewayClassConfig gatewright-system/web: spec.override is nested deeper than 64 levels at a.a.a.a.a…",
			limit: values.LimitDepth, wantMax: values.MaxDepth,
		},
		{
			name:  "a route's policy over a bound fails the route's values",
			level: values.LevelRoute, half: values.Default, raw: flatKeys(values.MaxElements + 1),
			want:  "GatewayConfig team-b/web: spec.default has more than 10000 elements (keys and list items) at k10000",
			limit: values.LimitElements, wantMax: values.MaxElements,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, gw, route := blockInputs(tt.level, "web", tt.half, tt.raw)
			res, err := in.ForRoute(gw, route)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Provenance) == 0 {
					t.Fatal("the accepted block left no values")
				}
				return
			}
			var limitErr *values.LimitError
			if !errors.As(err, &limitErr) {
				t.Fatalf("got %v, want a LimitError", err)
			}
			if res != nil {
				t.Error("a refused policy must fail the values, not leave a result without it")
			}
			if err.Error() != tt.want {
				t.Errorf("message\n%s\nwant\n%s", err, tt.want)
			}
			if limitErr.Limit != tt.limit || limitErr.Max != tt.wantMax || limitErr.Half != tt.half {
				t.Errorf("got limit %q max %d half %s, want %q %d %s", limitErr.Limit, limitErr.Max, limitErr.Half, tt.limit, tt.wantMax, tt.half)
			}
			if err := values.CheckPolicy(limitErr.Source, blocksOf(in, tt.level)); err == nil || err.Error() != tt.want {
				t.Errorf("CheckPolicy says %v, want the same refusal", err)
			}
		})
	}
}

// blocksOf returns the blocks blockInputs put at level.
func blocksOf(in values.Inputs, level values.Level) *gatewrightv1alpha1.DefaultsAndOverrides {
	switch {
	case level == values.LevelBlueprint:
		return in.Blueprint.Spec.Values
	case len(in.GatewayClassConfigs) > 0:
		return &in.GatewayClassConfigs[0].Spec.DefaultsAndOverrides
	default:
		return &in.GatewayConfigs[0].Spec.DefaultsAndOverrides
	}
}

func TestALimitMessageStaysShort(t *testing.T) {
	longName := strings.Repeat("n", 253)
	tests := []struct {
		name string
		raw  string
	}{
		{name: "keys of control characters, which quoting spells out, are cut", raw: strings.Repeat(`{"`+strings.Repeat(`\u0001`, 16)+`":`, values.MaxDepth+1) + "1" + strings.Repeat("}", values.MaxDepth+1)},
		{name: "a key of 100 KiB is cut", raw: longPath(100 << 10)},
		{name: "keys of multibyte characters are cut on a character boundary", raw: `{"` + strings.Repeat("é", 1100) + `":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, gw, _ := blockInputs(values.LevelGateway, longName, values.Default, tt.raw)
			in.GatewayConfigs[0].Spec.TargetRefs = nil
			in.GatewayConfigs[0].Namespace = "team-a"
			gw.Spec.Infrastructure = &gatewayv1.GatewayInfrastructure{ParametersRef: &gatewayv1.LocalParametersReference{
				Group: gatewayv1.Group(gatewrightv1alpha1.GroupVersion.Group), Kind: gatewrightv1alpha1.KindGatewayConfig, Name: longName}}
			_, err := in.ForGateway(gw)
			var limitErr *values.LimitError
			if !errors.As(err, &limitErr) {
				t.Fatalf("got %v, want a LimitError", err)
			}
			if !utf8.ValidString(err.Error()) {
				t.Errorf("the message %q is not valid UTF-8", err)
			}
			if n := len(err.Error()); n >= 1024 {
				t.Errorf("the message has %d bytes: %s", n, err)
			}
			if !strings.Contains(err.Error(), longName) {
				t.Errorf("the message %q does not name the policy", err)
			}
		})
	}
}

// TestADeepPolicyIsRefusedCheaply is the attack of a tenant who nests a default
// thousands of levels deep: the values of its Gateway fail, and computing them costs
// next to nothing.
func TestADeepPolicyIsRefusedCheaply(t *testing.T) {
	const budget = 50 << 20
	tests := []struct {
		name  string
		depth int
	}{
		{name: "a default nested 5,000 levels deep is refused within the memory budget", depth: 5000},
		{name: "a default nested 9,000 levels deep is refused within the memory budget", depth: 9000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, gw, _ := blockInputs(values.LevelGateway, "deep", values.Default, nested(tt.depth))
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := in.ForGateway(gw)
			runtime.ReadMemStats(&after)
			var limitErr *values.LimitError
			if !errors.As(err, &limitErr) || limitErr.Limit != values.LimitDepth {
				t.Fatalf("got %v, want the depth refused", err)
			}
			if allocated := after.TotalAlloc - before.TotalAlloc; allocated > budget {
				t.Errorf("computing the values allocated %d MiB, want under %d MiB", allocated>>20, budget>>20)
			}
		})
	}
}
