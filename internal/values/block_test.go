package values_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gatewright/gatewright/internal/values"
)

func TestBlockForm(t *testing.T) {
	tests := []struct {
		name     string
		override string // the override of the Gateway's GatewayConfig (level 6)
		below    string // the route's default (level 8): the values below that override
		want     string
	}{
		{name: "an object without the key values is the shorthand of a Patch block", override: "{replicas: 3}", below: "{replicas: 1, image: envoy}", want: "{replicas: 3, image: envoy}"},
		{name: "a block without strategy is Patch", override: "{values: {replicas: 3}}", below: "{replicas: 1, image: envoy}", want: "{replicas: 3, image: envoy}"},
		{name: "a Merge block replaces each of its top-level keys whole", override: "{values: {resources: {cpu: 1}}, strategy: Merge}", below: "{resources: {cpu: 2, memory: 1Gi}, image: envoy}", want: "{resources: {cpu: 1}, image: envoy}"},
		{name: "a Merge block's null removes its key", override: "{values: {resources: null}, strategy: Merge}", below: "{resources: {cpu: 2}, image: envoy}", want: "image: envoy"},
		{name: "an Atomic block replaces all the values below it", override: "{values: {replicas: 3}, strategy: Atomic}", below: "{replicas: 1, image: envoy}", want: "replicas: 3"},
		{name: "a block's values may use the reserved words as keys", override: "{values: {when: always, strategy: fast, unset: [a], values: 1}}", want: "{when: always, strategy: fast, unset: [a], values: 1}"},
		{name: "an empty Patch block changes nothing", override: "{values: {}}", below: "{replicas: 1}", want: "replicas: 1"},
		{name: "an empty Atomic block empties the values", override: "{values: {}, strategy: Atomic}", below: "{replicas: 1}", want: "{}"},
		{name: "a block whose condition holds applies", override: "{values: {replicas: 3}, when: 'self.replicas < 3'}", below: "{replicas: 1}", want: "replicas: 3"},
		{name: "a block whose condition does not hold does not apply", override: "{values: {replicas: 3}, when: 'self.replicas > 3'}", below: "{replicas: 1}", want: "replicas: 1"},
		{name: "a condition compares integers and decimals as numbers", override: "{values: {ratio: 0.5}, when: 'self.ratio == 1'}", below: "{ratio: 1.0}", want: "ratio: 0.5"},
		{name: "a condition does not see what a null unset", override: "{values: {tls: on}, when: '!has(self.tls)'}", below: "{tls: null}", want: "tls: on"},
		{name: "a condition visits the keys of an object in order, always", override: "{values: {ordered: true}, when: 'self.tags.map(k, k) == [\"a\", \"b\", \"c\", \"d\"] && self.list[0].map(k, k) == [\"p\", \"q\"]'}", below: "{tags: {d: 1, c: 2, b: 3, a: 4}, list: [{q: 1, p: 2}]}", want: "{tags: {d: 1, c: 2, b: 3, a: 4}, list: [{q: 1, p: 2}], ordered: true}"},
		{name: "a condition sees the values below as an object", override: "{values: {many: true}, when: 'size(self) > 1 && self.all(k, k != \"x\")'}", below: "{a: 1, b: 2}", want: "{a: 1, b: 2, many: true}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objects := policyAt(values.LevelGateway, "web", "", tt.override)
			if tt.below != "" {
				objects += "---\n" + policyAt(values.LevelRoute, "shop", tt.below, "")
			}
			equalYAML(t, mustCompute(t, objects, "team-b/shop").Values, tt.want)
		})
	}
}

func TestRefusedBlocks(t *testing.T) {
	tests := []struct {
		name  string
		level values.Level
		half  values.Half
		block string // JSON
		field string
		want  string // the whole message
	}{
		{
			name: "strategy in the shorthand is refused: the user meant a block", level: values.LevelGateway, half: values.Default,
			block: `{"replicas": 3, "strategy": "Atomic"}`, field: "spec.default.strategy",
			want: `GatewayConfig team-a/web: spec.default.strategy: "strategy" is reserved outside the block form: write {values: {...}, strategy: ...}, or {values: {strategy: ...}} for a value named strategy`,
		},
		{
			name: "when in the shorthand is refused", level: values.LevelGlobalClass, half: values.Override,
			block: `{"limit": 100, "when": "self.limit > 100"}`, field: "spec.override.when",
			want: `GatewayClassConfig gatewright-system/web: spec.override.when: "when" is reserved outside the block form: write {values: {...}, when: ...}, or {values: {when: ...}} for a value named when`,
		},
		{
			name: "unset in the shorthand is refused, pointing to null", level: values.LevelRoute, half: values.Default,
			block: `{"unset": ["a"]}`, field: "spec.default.unset",
			want: `GatewayConfig team-b/web: spec.default.unset: "unset" is reserved: unset a key with key: null, or write the block form {values: {unset: ...}} for a value named unset`,
		},
		{
			name: "an unknown key in a block is refused", level: values.LevelGateway, half: values.Override,
			block: `{"values": {"a": 1}, "replicas": 3}`, field: "spec.override",
			want: `GatewayConfig team-a/web: spec.override: unknown key "replicas": a block has only values, strategy and when`,
		},
		{
			name: "unset in a block is refused, pointing to null", level: values.LevelGateway, half: values.Default,
			block: `{"values": {}, "unset": ["a"]}`, field: "spec.default",
			want: `GatewayConfig team-a/web: spec.default: unknown key "unset": a block has only values, strategy and when (unset a key with key: null in values)`,
		},
		{
			name: "a block's values must be an object", level: values.LevelBlueprint, half: values.Default,
			block: `{"values": 3}`, field: "spec.values.default.values",
			want: `GatewayClassBlueprint bp: spec.values.default.values: must be an object, not a number`,
		},
		{
			name: "an unknown strategy is refused", level: values.LevelGateway, half: values.Default,
			block: `{"values": {}, "strategy": "atomic"}`, field: "spec.default.strategy",
			want: `GatewayConfig team-a/web: spec.default.strategy: must be Patch, Merge or Atomic, not "atomic"`,
		},
		{
			name: "a strategy that is not a string is refused", level: values.LevelGateway, half: values.Default,
			block: `{"values": {}, "strategy": ["Merge"]}`, field: "spec.default.strategy",
			want: `GatewayConfig team-a/web: spec.default.strategy: must be Patch, Merge or Atomic, not a list`,
		},
		{
			name: "a condition that is not a string is refused", level: values.LevelGateway, half: values.Override,
			block: `{"values": {}, "when": true}`, field: "spec.override.when",
			want: `GatewayConfig team-a/web: spec.override.when: must be a CEL expression in a string, not a boolean`,
		},
		{
			name: "an empty condition is refused", level: values.LevelGateway, half: values.Override,
			block: `{"values": {}, "when": ""}`, field: "spec.override.when",
			want: `GatewayConfig team-a/web: spec.override.when: is empty: leave out when for a block that always applies`,
		},
		{
			name: "a condition that does not parse is refused with CEL's words", level: values.LevelGateway, half: values.Override,
			block: `{"values": {}, "when": "self.limit >"}`, field: "spec.override.when",
			want: `GatewayConfig team-a/web: spec.override.when: does not compile: ERROR: <input>:1:13: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}`,
		},
		{
			name: "a condition that calls an unknown function is refused", level: values.LevelGateway, half: values.Override,
			block: `{"values": {}, "when": "env('HOME') == '/root'"}`, field: "spec.override.when",
			want: `GatewayConfig team-a/web: spec.override.when: does not compile: ERROR: <input>:1:4: undeclared reference to 'env' (in container '')`,
		},
		{
			name: "a condition that is not a bool is refused", level: values.LevelGateway, half: values.Override,
			block: `{"values": {}, "when": "1 + 2"}`, field: "spec.override.when",
			want: `GatewayConfig team-a/web: spec.override.when: must evaluate to a bool, not int`,
		},
		{
			name: "a condition over the size bound is refused", level: values.LevelGateway, half: values.Override,
			block: `{"values": {}, "when": "` + strings.Repeat("true && ", 600) + `true"}`, field: "spec.override.when",
			want: `GatewayConfig team-a/web: spec.override.when: is longer than 4096 bytes`,
		},
		{
			name: "a half that is not an object is refused", level: values.LevelGateway, half: values.Default,
			block: `[1, 2]`, field: "spec.default",
			want: `GatewayConfig team-a/web: spec.default: must be an object, not a list`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, gw, route := blockInputs(tt.level, "web", tt.half, tt.block)
			res, err := in.ForRoute(gw, route)
			var policyErr *values.PolicyError
			if !errors.As(err, &policyErr) {
				t.Fatalf("got %v, want a PolicyError", err)
			}
			if res != nil {
				t.Error("a refused policy must fail the values, not leave a result without it")
			}
			if err.Error() != tt.want {
				t.Errorf("message\n%s\nwant\n%s", err, tt.want)
			}
			if policyErr.Field != tt.field {
				t.Errorf("field %s, want %s", policyErr.Field, tt.field)
			}
			if err := values.CheckPolicy(policyErr.Source, blocksOf(in, tt.level)); err == nil || err.Error() != tt.want {
				t.Errorf("CheckPolicy says %v, want the same refusal", err)
			}
		})
	}
}
