package routing

import (
	"fmt"
	"strings"
	"testing"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func TestTheNewestRoutesPastTheCountAreRefused(t *testing.T) {
	routes := make([]RouteInput, 0, DefaultLimits.Routes+2)
	for i := range DefaultLimits.Routes + 2 {
		// Ages fall with i, so the last two routes are the newest.
		r := route(t, fmt.Sprintf("team-%d", i%10), fmt.Sprintf("r%05d", i), DefaultLimits.Routes+2-i, `{rules: [{}]}`)
		routes = append(routes, RouteInput{Route: r, Listeners: []gatewayv1.SectionName{"http"}})
	}
	cutoff := Admit(routes, Limits{})
	if cutoff == nil || cutoff.Name != fmt.Sprintf("r%05d", DefaultLimits.Routes) {
		t.Fatalf("cutoff %+v, want at route r%05d", cutoff, DefaultLimits.Routes)
	}
	for i, r := range routes {
		refused := r.Refusal != nil
		if want := i >= DefaultLimits.Routes; refused != want || cutoff.Refuses(r.Route) != want {
			t.Fatalf("route %d refused %v (cutoff says %v), want %v", i, refused, cutoff.Refuses(r.Route), want)
		}
	}
	if !strings.Contains(cutoff.Message, "its 10000 oldest routes") || routes[DefaultLimits.Routes].Refusal.Reason != ReasonRouteLimit {
		t.Errorf("refusal %+v, want %s counting the routes served", routes[DefaultLimits.Routes].Refusal, ReasonRouteLimit)
	}
	if cutoff := Admit(routes[:5], Limits{Routes: 3}); cutoff == nil || cutoff.Name != "r00003" {
		t.Errorf("an operator's bound of 3: cutoff %+v, want at route r00003", cutoff)
	}
}

func TestTheNewestRoutesPastTheSizeAreRefusedAndTheLargestOrdinaryGatewayFits(t *testing.T) {
	gw := gateway(t)
	var big []RouteInput
	value := strings.Repeat("v", 4096)
	headers := fmt.Sprintf(`[{name: a, value: %s}, {name: b, value: %s}, {name: c, value: %s}, {name: d, value: %s}]`, value, value, value, value)
	var matches []string
	for range 64 {
		matches = append(matches, `{headers: `+headers+`}`)
	}
	spec := `{rules: [{matches: [` + strings.Join(matches, ",") + `]}]}` // about 1 MiB
	for i := range 40 {
		big = append(big, RouteInput{Route: route(t, "big", fmt.Sprintf("r%02d", i), 100-i, spec), Listeners: []gatewayv1.SectionName{"http"}})
	}
	cutoff := Admit(big, Limits{})
	if cutoff == nil || big[0].Refusal != nil || big[39].Refusal == nil || !strings.Contains(cutoff.Message, "bound of 33554432 bytes") {
		t.Fatalf("40 routes of 1 MiB: cutoff %+v; want the oldest served, the newest refused past 32 MiB", cutoff)
	}

	ordinary := resolvedInput(t, gw, nil)
	for i := range 5000 {
		r := route(t, fmt.Sprintf("team-%d", i%10), fmt.Sprintf("r%d", i), i%7,
			fmt.Sprintf(`{hostnames: [app%d.example], rules: [{matches: [{path: {value: /api}, headers: [{name: x-version, value: v1}]}], backendRefs: [{name: svc%d, port: 80}]}]}`, i, i))
		ordinary.Routes = append(ordinary.Routes, RouteInput{Route: r, Listeners: []gatewayv1.SectionName{"http"}})
	}
	var wide []string
	for i := range 128 {
		wide = append(wide, fmt.Sprintf(`{path: {value: /m%d}, headers: [{name: x-a, value: b}]}`, i))
	}
	ordinary.Routes = append(ordinary.Routes, RouteInput{Route: route(t, "big", "wide", 0, `{rules: [{matches: [`+strings.Join(wide, ",")+`]}]}`), Listeners: []gatewayv1.SectionName{"http"}})
	if cutoff := Admit(ordinary.Routes, Limits{}); cutoff != nil {
		t.Errorf("5,000 ordinary routes and one of 128 matches: cutoff %+v, want none", cutoff)
	}
}

// A route's hostnames and listeners multiply its matches in the table: routes within
// the count and bytes bounds can still ask for millions of entries, and the newest past
// the entries bound are refused.
func TestTheNewestRoutesPastTheTableEntriesAreRefused(t *testing.T) {
	var hostnames, matches []string
	for i := range 16 {
		hostnames = append(hostnames, fmt.Sprintf("h%d.example", i))
	}
	for i := range 128 {
		matches = append(matches, fmt.Sprintf("{path: {value: /m%d}}", i))
	}
	spec := `{hostnames: [` + strings.Join(hostnames, ",") + `], rules: [{matches: [` + strings.Join(matches, ",") + `]}]}`
	var listeners []gatewayv1.SectionName
	for i := range 8 {
		listeners = append(listeners, gatewayv1.SectionName(fmt.Sprintf("l%d", i)))
	}
	var routes []RouteInput
	for i := range 20 { // 16,384 entries each
		routes = append(routes, RouteInput{Route: route(t, "wide", fmt.Sprintf("r%02d", i), 100-i, spec), Listeners: listeners})
	}
	cutoff := Admit(routes, Limits{})
	if cutoff == nil || cutoff.Name != "r15" || routes[14].Refusal != nil || routes[15].Refusal == nil ||
		!strings.Contains(cutoff.Message, "this route's 16384 (matches × hostnames × listeners) would pass its bound of 250000 entries") {
		t.Fatalf("cutoff %+v; want the 16th route refused, 15 served (245,760 entries)", cutoff)
	}
}
