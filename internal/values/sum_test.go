package values_test

import (
	"errors"
	"fmt"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/values"
)

// namespaceConfigs returns the inputs of Gateway team-a/web with n GatewayConfigs of
// team-a targeting their namespace, named p0, p1, ...; blocks(i) gives the i-th its halves.
func namespaceConfigs(n int, blocks func(i int) gatewrightv1alpha1.DefaultsAndOverrides) (values.Inputs, *gatewayv1.Gateway) {
	in, gw, _ := blockInputs(values.LevelBlueprint, "bp", values.Default, `{"replicas": 1}`)
	refs := []gatewayv1.LocalPolicyTargetReference{targetRef("", "Namespace", "team-a")}
	for i := range n {
		in.GatewayConfigs = append(in.GatewayConfigs, tenantConfig("team-a", fmt.Sprintf("p%d", i), refs, blocks(i)))
	}
	return in, gw
}

func TestChainBounds(t *testing.T) {
	tenant := func(name string, amount int) values.Contribution {
		return values.Contribution{Source: values.Source{Kind: gatewrightv1alpha1.KindGatewayConfig, Namespace: "team-a", Name: name}, Party: values.GatewayOwner, Amount: amount}
	}
	tests := []struct {
		name    string
		n       int
		blocks  func(i int) gatewrightv1alpha1.DefaultsAndOverrides
		want    *values.SumLimitError // nil: the values are computed
		message string
	}{
		{
			name: "40 configs of 498 KiB each, each within the bounds of a block, are refused together, the largest named first",
			n:    40,
			blocks: func(i int) gatewrightv1alpha1.DefaultsAndOverrides {
				return gatewrightv1alpha1.DefaultsAndOverrides{Default: jsonBlock(ofBytes(498<<10 + i))}
			},
			want: &values.SumLimitError{Limit: values.LimitBytes, Max: values.MaxChainBytes, Total: 40*(498<<10) + 39*40/2 + len(`{"replicas": 1}`),
				Party: values.GatewayOwner, Before: len(`{"replicas": 1}`), Added: 40*(498<<10) + 39*40/2,
				Largest: []values.Contribution{tenant("p39", 498<<10+39), tenant("p38", 498<<10+38), tenant("p37", 498<<10+37), tenant("p36", 498<<10+36), tenant("p35", 498<<10+35)},
				Others:  35},
			message: "the policies that reach these values have more than 2097152 bytes of JSON in their blocks together (20398875): " +
				"the Gateway's own policies (levels 5 and 6) bring 20398860 over the 15 of the levels before them; largest first: " +
				"GatewayConfig team-a/p39 (509991), GatewayConfig team-a/p38 (509990), GatewayConfig team-a/p37 (509989), GatewayConfig team-a/p36 (509988), GatewayConfig team-a/p35 (509987), and 35 more",
		},
		{
			name: "five configs of 9,000 elements each, small in bytes, are refused together",
			n:    5,
			blocks: func(i int) gatewrightv1alpha1.DefaultsAndOverrides {
				return gatewrightv1alpha1.DefaultsAndOverrides{Override: jsonBlock(listOf("0", 8999))}
			},
			want: &values.SumLimitError{Limit: values.LimitElements, Max: values.MaxChainElements, Total: 5*9000 + 1,
				Party: values.GatewayOwner, Before: 1, Added: 5 * 9000,
				Largest: []values.Contribution{tenant("p0", 9000), tenant("p1", 9000), tenant("p2", 9000), tenant("p3", 9000), tenant("p4", 9000)}},
		},
		{
			name: "32 configs with both halves and the blueprint's default make 65 blocks, one too many",
			n:    32,
			blocks: func(i int) gatewrightv1alpha1.DefaultsAndOverrides {
				return gatewrightv1alpha1.DefaultsAndOverrides{Default: jsonBlock(`{"a": 1}`), Override: jsonBlock(`{"b": 1}`)}
			},
			want: &values.SumLimitError{Limit: values.LimitBlocks, Max: values.MaxChainBlocks, Total: 65, Party: values.GatewayOwner, Before: 1, Added: 64,
				Largest: []values.Contribution{tenant("p0", 2), tenant("p1", 2), tenant("p10", 2), tenant("p11", 2), tenant("p12", 2)}, Others: 27},
		},
		{
			name: "31 configs with both halves and the blueprint's default make 63 blocks, within the bound",
			n:    31,
			blocks: func(i int) gatewrightv1alpha1.DefaultsAndOverrides {
				return gatewrightv1alpha1.DefaultsAndOverrides{Default: jsonBlock(`{"a": 1}`), Override: jsonBlock(`{"b": 1}`)}
			},
		},
		{
			name: "49 blocks with a condition are refused, even spelt with escapes",
			n:    49,
			blocks: func(i int) gatewrightv1alpha1.DefaultsAndOverrides {
				return gatewrightv1alpha1.DefaultsAndOverrides{Default: jsonBlock(`{"values": {"a": 1}, "wh\u0065n": "true"}`)}
			},
			want: &values.SumLimitError{Limit: values.LimitConditions, Max: values.MaxChainConditions, Total: 49, Party: values.GatewayOwner, Added: 49,
				Largest: []values.Contribution{tenant("p0", 1), tenant("p1", 1), tenant("p10", 1), tenant("p11", 1), tenant("p12", 1)}, Others: 44},
		},
		{
			name: "48 blocks with a condition are within the bound",
			n:    48,
			blocks: func(i int) gatewrightv1alpha1.DefaultsAndOverrides {
				return gatewrightv1alpha1.DefaultsAndOverrides{Default: jsonBlock(`{"values": {"a": 1}, "when": "true"}`)}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, gw := namespaceConfigs(tt.n, tt.blocks)
			res, err := in.ForGateway(gw)
			if tt.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var sumErr *values.SumLimitError
			if !errors.As(err, &sumErr) {
				t.Fatalf("got %v, want a SumLimitError", err)
			}
			if res != nil {
				t.Error("values were computed over a bound")
			}
			if diff := cmp.Diff(tt.want, sumErr, cmpopts.IgnoreUnexported(values.SumLimitError{})); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if tt.message != "" && err.Error() != tt.message {
				t.Errorf("message\n%s\nwant\n%s", err, tt.message)
			}
			if len(err.Error()) > 2048 {
				t.Errorf("the message has %d bytes", len(err.Error()))
			}
		})
	}
}

// TestAChainOverItsBoundsIsRefusedBeforeDecoding is finding 2 of the audit: 40 configs
// of 498 KiB targeting one namespace. Their JSON is 20 MB; refusing it allocates next
// to nothing, as no block is decoded.
func TestAChainOverItsBoundsIsRefusedBeforeDecoding(t *testing.T) {
	const budget = 1 << 20
	in, gw := namespaceConfigs(40, func(int) gatewrightv1alpha1.DefaultsAndOverrides {
		return gatewrightv1alpha1.DefaultsAndOverrides{Default: jsonBlock(ofBytes(498 << 10))}
	})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := in.ForGateway(gw)
	runtime.ReadMemStats(&after)
	var sumErr *values.SumLimitError
	if !errors.As(err, &sumErr) || sumErr.Limit != values.LimitBytes {
		t.Fatalf("got %v, want the bytes of the chain refused", err)
	}
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > budget {
		t.Errorf("refusing the chain allocated %d KiB, want under %d KiB", allocated>>10, budget>>10)
	}
}
