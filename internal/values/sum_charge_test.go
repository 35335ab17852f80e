package values_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gatewright/gatewright/internal/values"
)

// policiesAt returns n policies at level named prefix0, prefix1, ..., each with the
// default def.
func policiesAt(level values.Level, prefix string, n int, def string) string {
	docs := make([]string, n)
	for i := range docs {
		docs[i] = policyAt(level, fmt.Sprintf("%s%02d", prefix, i), def, "")
	}
	return strings.Join(docs, "---\n")
}

// elements is a default of n+1 elements: one key over a list of n items.
func elements(n int) string {
	return "{l: [" + strings.TrimSuffix(strings.Repeat("0,", n), ",") + "]}"
}

// TestSumBoundCharges is issue 40, item 3: a sum bound charges whoever took the chain
// over it, and no one before them. Each case names the policies charged (Invalid), those
// blocked (not in effect, their party at or after the one charged) and those not
// charged (they keep their verdicts), and what the message may say to whom.
func TestSumBoundCharges(t *testing.T) {
	gatewayOwner := policyAt(values.LevelGateway, "hers", "{replicas: 2}", "{tls: {minVersion: '1.3'}}")
	provider := policyAt(values.LevelGlobalClass, "class-wide", "{size: small}", "{waf: on}")
	tests := []struct {
		name     string
		policies string
		route    string // "" for the Gateway
		limit    values.Limit
		party    values.Party
		// charged, blocked and notCharged are policy names (every namespace together).
		charged, blocked, notCharged []string
		// says and hides are, by the namespace of a status, what its message must and
		// must not hold.
		says, hides map[string][]string
	}{
		{
			name: "63 one-key GatewayConfigs of a route's namespace take its chain over 64 blocks: the route's are charged, the Gateway owner's and the provider's are not",
			policies: provider + "---\n" + gatewayOwner + "---\n" +
				policiesAt(values.LevelRouteNamespace, "c", 63, "{k: 1}"),
			route: "team-b/shop", limit: values.LimitBlocks, party: values.RouteOwner,
			charged:    []string{"c00", "c01", "c02", "c03", "c04"},
			blocked:    []string{"c05", "c62"},
			notCharged: []string{"class-wide", "hers"},
			says: map[string][]string{
				"team-b": {"more than 64 blocks", "together (67)", "the route's own policies (levels 7 and 8) bring 63 over the 4 of the levels before them", "GatewayConfig team-b/c00 (1)", "and 58 more"},
				"team-a": {"more than 64 blocks", "63 GatewayConfigs of another namespace"},
			},
			hides: map[string][]string{"team-a": {"team-b/"}, "team-b": {"team-a/", "hers"}},
		},
		{
			name: "a route owner's GatewayConfigs take the route's chain over 40,000 elements, though the Gateway owner's is the largest: his are charged, hers is not",
			policies: policyAt(values.LevelGateway, "hers", elements(9500), "") + "---\n" + provider + "---\n" +
				policiesAt(values.LevelRoute, "his", 4, elements(8000)),
			route: "team-b/shop", limit: values.LimitElements, party: values.RouteOwner,
			charged:    []string{"his00", "his01", "his02", "his03"},
			notCharged: []string{"hers", "class-wide"},
			says: map[string][]string{
				"team-b": {"more than 40000 elements", "GatewayConfig team-b/his00 (8001)"},
				"team-a": {"4 GatewayConfigs of another namespace"},
			},
			hides: map[string][]string{"team-b": {"team-a/", "hers"}, "team-a": {"team-b/", "his0"}},
		},
		{
			name: "the same GatewayConfigs leave the Gateway's own values and a route of its namespace alone",
			policies: policyAt(values.LevelGateway, "hers", elements(9500), "") + "---\n" +
				policiesAt(values.LevelRoute, "his", 4, elements(8000)),
			route: "team-a/local",
		},
		{
			name:     "a Gateway's own chain over 40,000 elements charges the Gateway owner, and a route on it is refused for that, the route's GatewayConfigs blocked",
			policies: provider + "---\n" + policiesAt(values.LevelTenantNamespace, "hers", 5, elements(9000)) + "---\n" + policyAt(values.LevelRoute, "his", "{k: 1}", ""),
			route:    "team-b/shop", limit: values.LimitElements, party: values.GatewayOwner,
			charged:    []string{"hers00", "hers04"},
			blocked:    []string{"his"},
			notCharged: []string{"class-wide"},
			says: map[string][]string{
				"team-a": {"the Gateway's own policies (levels 5 and 6) bring 45005", "GatewayConfig team-a/hers00 (9001)"},
				"team-b": {"5 GatewayConfigs of another namespace"},
			},
			hides: map[string][]string{"team-b": {"team-a/"}},
		},
		{
			name:     "a Gateway's own chain over 40,000 elements charges the Gateway owner on the Gateway too",
			policies: provider + "---\n" + policiesAt(values.LevelTenantNamespace, "hers", 5, elements(9000)),
			limit:    values.LimitElements, party: values.GatewayOwner,
			charged:    []string{"hers00", "hers04"},
			notCharged: []string{"class-wide"},
		},
		{
			name:     "the provider's configs alone over 64 blocks charge the provider, and the Gateway owner's are blocked",
			policies: gatewayOwner + "---\n" + policiesAt(values.LevelGlobalClass, "global", 65, "{k: 1}"),
			limit:    values.LimitBlocks, party: values.GatewayProvider,
			charged: []string{"global00", "global04"},
			blocked: []string{"global05", "hers"},
			says:    map[string][]string{"team-a": {"the blueprint and the provider's policies of the Gateway (levels 1 to 4) bring 65;", "GatewayClassConfig gatewright-system/global00 (1)"}},
		},
		{
			name: "the provider's configs of the route's namespace take the route over: charged to them, the route owner's blocked, the Gateway owner's not charged",
			policies: policyAt(values.LevelGateway, "hers", elements(9000), "") + "---\n" +
				policiesAt(values.LevelRouteProviderNamespace, "b-provider", 4, elements(9000)) + "---\n" +
				policyAt(values.LevelRoute, "his", "{k: 1}", ""),
			route: "team-b/shop", limit: values.LimitElements, party: values.RouteProvider,
			charged:    []string{"b-provider00", "b-provider03"},
			blocked:    []string{"his"},
			notCharged: []string{"hers"},
			hides:      map[string][]string{"team-a": {"team-b/"}},
		},
		{
			name: "a route over 64 blocks on a Gateway over 40,000 elements is refused for the Gateway's bound, which came first",
			policies: policiesAt(values.LevelGateway, "hers", 5, elements(9000)) + "---\n" +
				policiesAt(values.LevelRouteNamespace, "c", 70, "{k: 1}"),
			route: "team-b/shop", limit: values.LimitElements, party: values.GatewayOwner,
			charged: []string{"hers00"},
			blocked: []string{"c00", "c69"},
		},
		{
			name: "ordinary scale meets no bound: a provider's configs, a Gateway owner's and a route owner's, ten of each, of 500 elements",
			policies: policiesAt(values.LevelGlobalClass, "global", 4, elements(500)) + "---\n" +
				policiesAt(values.LevelProviderClass, "a-provider", 3, elements(500)) + "---\n" +
				policiesAt(values.LevelRouteProviderNamespace, "b-provider", 3, elements(500)) + "---\n" +
				policiesAt(values.LevelTenantNamespace, "a-ns", 5, elements(500)) + "---\n" +
				policiesAt(values.LevelGateway, "a-gw", 5, elements(500)) + "---\n" +
				policiesAt(values.LevelRouteNamespace, "b-ns", 5, elements(500)) + "---\n" +
				policiesAt(values.LevelRoute, "b-route", 5, elements(500)),
			route: "team-b/shop",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := compute(t, load(t, tt.policies), tt.route)
			var sumErr *values.SumLimitError
			if tt.party == 0 {
				if err != nil {
					t.Fatalf("got %v, want the values computed", err)
				}
				return
			}
			if !errors.As(err, &sumErr) {
				t.Fatalf("got %v, want a SumLimitError", err)
			}
			if sumErr.Limit != tt.limit || sumErr.Party != tt.party {
				t.Errorf("charged %v of the %s bound, want %v of the %s bound: %v", sumErr.Party, sumErr.Limit, tt.party, tt.limit, err)
			}
			if sumErr.Before > sumErr.Max || sumErr.Before+sumErr.Added <= sumErr.Max {
				t.Errorf("the parties before brought %d and the party charged %d: it did not take %d over %d", sumErr.Before, sumErr.Added, sumErr.Before+sumErr.Added, sumErr.Max)
			}
			sources := map[string]values.Source{}
			for _, source := range sumErr.Sources() {
				sources[source.Name] = source
			}
			for want, names := range map[values.Charge][]string{values.Charged: tt.charged, values.Blocked: tt.blocked, values.NotCharged: tt.notCharged} {
				for _, name := range names {
					source, ok := sources[name]
					if !ok {
						t.Errorf("%s is not in the chain", name)
						continue
					}
					if got := sumErr.ChargeOf(source); got != want {
						t.Errorf("%s: charge %v, want %v", source, got, want)
					}
				}
			}
			for namespace, says := range tt.says {
				message := sumErr.MessageFor(namespace)
				for _, s := range says {
					if !strings.Contains(message, s) {
						t.Errorf("the message for %s does not say %q:\n%s", namespace, s, message)
					}
				}
			}
			for namespace, hides := range tt.hides {
				message := sumErr.MessageFor(namespace)
				for _, s := range hides {
					if strings.Contains(message, s) {
						t.Errorf("the message for %s says %q:\n%s", namespace, s, message)
					}
				}
			}
			if route := tt.route; route != "" {
				namespace, _, _ := strings.Cut(route, "/")
				if err.Error() != sumErr.MessageFor(namespace) {
					t.Errorf("the error of %s is not written for its readers:\n%s", route, err)
				}
			}
		})
	}
}

// TestSumBoundMessageCountsWhatItCannotName: however many objects a reader may not
// read, the message counts them in a few words.
func TestSumBoundMessageCountsWhatItCannotName(t *testing.T) {
	_, err := compute(t, load(t, policyAt(values.LevelGateway, "hers", "{k: 1}", "")+"---\n"+
		policiesAt(values.LevelRouteNamespace, "c", 2000, "{k: 1}")), "team-b/shop")
	var sumErr *values.SumLimitError
	if !errors.As(err, &sumErr) {
		t.Fatalf("got %v, want a SumLimitError", err)
	}
	for _, namespace := range []string{"team-a", "team-b", controllerNamespace, "elsewhere"} {
		message := sumErr.MessageFor(namespace)
		if len(message) > 1024 {
			t.Errorf("the message for %s has %d bytes", namespace, len(message))
		}
		if namespace != "team-b" && namespace != controllerNamespace && !strings.Contains(message, "2000 GatewayConfigs of another namespace") {
			t.Errorf("the message for %s does not count the route's policies: %s", namespace, message)
		}
	}
	if message := sumErr.MessageFor(controllerNamespace); !strings.Contains(message, "GatewayConfig team-b/c00 (1)") {
		t.Errorf("the provider's own status does not name what it may read: %s", message)
	}
}
