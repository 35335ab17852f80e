package listeners

import (
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"
)

// listenerSet is a ListenerSet of the tests, created at minute age of the test's clock.
func listenerSet(t *testing.T, namespace, name string, age int, entries string) Set {
	t.Helper()
	var ls gatewayv1.ListenerSet
	if err := yaml.UnmarshalStrict([]byte(entries), &ls.Spec.Listeners); err != nil {
		t.Fatal(err)
	}
	ls.Namespace, ls.Name = namespace, name
	ls.CreationTimestamp = metav1.NewTime(time.Date(2026, 1, 1, 0, age, 0, 0, time.UTC))
	return SetOf(&ls, map[string]string{"tenant": namespace})
}

func gatewayAllowing(t *testing.T, allowed string, listeners string) *gatewayv1.Gateway {
	t.Helper()
	gw := &gatewayv1.Gateway{}
	gw.Namespace, gw.Name, gw.Spec.GatewayClassName = "infra", "gw", "class"
	if err := yaml.UnmarshalStrict([]byte(listeners), &gw.Spec.Listeners); err != nil {
		t.Fatal(err)
	}
	if allowed != "" {
		gw.Spec.AllowedListeners = &gatewayv1.AllowedListeners{}
		if err := yaml.UnmarshalStrict([]byte(allowed), &gw.Spec.AllowedListeners.Namespaces); err != nil {
			t.Fatal(err)
		}
	}
	return gw
}

// summarizeSet is "namespace/name accepted reason: listener verdicts", each listener as
// summarize has it.
func summarizeSet(v SetVerdict) string {
	var ls []string
	for _, s := range v.Listeners {
		if s.ListenerSet == nil || *s.ListenerSet != v.Ref {
			ls = append(ls, "listener without its ListenerSet")
		}
		ls = append(ls, summarize(s))
	}
	return fmt.Sprintf("%s %v %s: %s", v.Ref, v.Accepted, v.Reason, strings.Join(ls, "; "))
}

func TestEvaluateSetsAllowed(t *testing.T) {
	own := `[{name: http, protocol: HTTP, port: 80}]`
	sets := func(t *testing.T) []Set {
		return []Set{
			listenerSet(t, "infra", "same", 1, `[{name: a, protocol: HTTP, port: 8080}]`),
			listenerSet(t, "team-a", "other", 2, `[{name: a, protocol: HTTP, port: 8081}]`),
		}
	}
	tests := []struct {
		name    string
		serves  Serves
		allowed string
		want    []string
		why     string // in the first refused ListenerSet's message
	}{
		{"a Gateway that says nothing allows none", Serves{}.WithListenerSets(), ``,
			[]string{"infra/same false NotAllowed: ", "team-a/other false NotAllowed: "}, "allows no ListenerSets"},
		{"from None allows none", Serves{}.WithListenerSets(), `{from: None}`,
			[]string{"infra/same false NotAllowed: ", "team-a/other false NotAllowed: "}, "allows no ListenerSets"},
		{"from Same allows the Gateway's namespace only", Serves{}.WithListenerSets(), `{from: Same}`,
			[]string{"infra/same true Accepted: a Accepted/ResolvedRefs/NoConflicts [HTTPRoute]", "team-a/other false NotAllowed: "}, "of namespace infra only"},
		{"from All allows every namespace", Serves{}.WithListenerSets(), `{from: All}`,
			[]string{"infra/same true Accepted: a Accepted/ResolvedRefs/NoConflicts [HTTPRoute]", "team-a/other true Accepted: a Accepted/ResolvedRefs/NoConflicts [HTTPRoute]"}, ""},
		{"from Selector allows the namespaces whose labels match", Serves{}.WithListenerSets(), `{from: Selector, selector: {matchLabels: {tenant: team-a}}}`,
			[]string{"infra/same false NotAllowed: ", "team-a/other true Accepted: a Accepted/ResolvedRefs/NoConflicts [HTTPRoute]"}, "its selector selects, and not namespace infra"},
		{"from Selector without a selector allows none", Serves{}.WithListenerSets(), `{from: Selector}`,
			[]string{"infra/same false NotAllowed: ", "team-a/other false NotAllowed: "}, "its selector selects"},
		{"a class that does not claim ListenerSet allows none, whatever the Gateway says", Serves{}, `{from: All}`,
			[]string{"infra/same false NotAllowed: ", "team-a/other false NotAllowed: "}, "does not claim ListenerSet in serves.features"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gw := gatewayAllowing(t, tt.allowed, own)
			got := EvaluateSets(tt.serves, gw, Evaluate(tt.serves, gw.Spec.Listeners, nil), sets(t))
			for i, v := range got {
				if s := summarizeSet(v); s != tt.want[i] {
					t.Errorf("got %q, want %q", s, tt.want[i])
				}
			}
			for _, v := range got {
				if !v.Accepted {
					if !strings.Contains(v.Message, tt.why) {
						t.Errorf("message %q does not say %q", v.Message, tt.why)
					}
					break
				}
			}
		})
	}
}

func TestEvaluateSetsPrecedence(t *testing.T) {
	serves := Serves{}.WithListenerSets()
	gw := gatewayAllowing(t, `{from: All}`, `[
  {name: gateway-listener, protocol: HTTP, port: 80, hostname: gw.example.com},
  {name: taken, protocol: HTTP, port: 80, hostname: taken.example.com}]`)
	sets := []Set{
		// Listed newest first: the precedence is theirs to compute.
		listenerSet(t, "team-b", "newer", 3, `[{name: contested, protocol: HTTP, port: 80, hostname: contested.example.com}]`),
		listenerSet(t, "team-a", "older", 1, `[
  {name: own, protocol: HTTP, port: 80, hostname: a.example.com},
  {name: taken, protocol: HTTP, port: 80, hostname: taken.example.com},
  {name: contested, protocol: HTTP, port: 80, hostname: contested.example.com}]`),
		listenerSet(t, "team-c", "b-same-age", 2, `[{name: https, protocol: HTTPS, port: 80}]`),
		listenerSet(t, "team-c", "a-same-age", 2, `[{name: tcp, protocol: TCP, port: 80}]`),
	}
	got := EvaluateSets(serves, gw, Evaluate(serves, gw.Spec.Listeners, nil), sets)
	want := []string{
		// The Gateway keeps its hostname; the oldest ListenerSet keeps the one it brings first.
		"team-a/older true ListenersNotValid: own Accepted/ResolvedRefs/NoConflicts [HTTPRoute]; taken HostnameConflict/ResolvedRefs/HostnameConflict []; contested Accepted/ResolvedRefs/NoConflicts [HTTPRoute]",
		// Of two of the same age, namespace/name decides; a protocol the class does not
		// serve takes no port, so the HTTPS listener still conflicts with the HTTP ones.
		"team-c/a-same-age false ListenersNotValid: tcp UnsupportedProtocol/ResolvedRefs/NoConflicts []",
		"team-c/b-same-age false ListenersNotValid: https ProtocolConflict/ResolvedRefs/ProtocolConflict []",
		"team-b/newer false ListenersNotValid: contested HostnameConflict/ResolvedRefs/HostnameConflict []",
	}
	if len(got) != len(want) {
		t.Fatalf("got %d verdicts, want %d", len(got), len(want))
	}
	for i, v := range got {
		if s := summarizeSet(v); s != want[i] {
			t.Errorf("got  %q\nwant %q", s, want[i])
		}
	}
	if !strings.Contains(got[0].Message, "taken (HostnameConflict)") {
		t.Errorf("the message of a ListenerSet accepted with a listener refused names it: %q", got[0].Message)
	}
	// The Gateway's own verdicts are its own: nothing a ListenerSet brings changes them.
	for _, s := range Evaluate(serves, gw.Spec.Listeners, nil) {
		if !s.IsValid() {
			t.Errorf("the Gateway's listener %s is not valid: %s", s.Name, s.Reason())
		}
	}
}

func TestEvaluateSetsCertificateRefs(t *testing.T) {
	serves := Serves{}.WithListenerSets()
	gw := gatewayAllowing(t, `{from: All}`, `[{name: http, protocol: HTTP, port: 80}]`)
	granted := listenerSet(t, "team-a", "granted", 1, `[{name: https, protocol: HTTPS, port: 443, hostname: a.example.com}]`)
	granted.CertificateRefs = map[gatewayv1.SectionName][]CertificateRef{"https": {{Kind: "Secret", Namespace: "certs", Name: "c", Reason: gatewayv1.ListenerReasonResolvedRefs}}}
	refused := listenerSet(t, "team-b", "refused", 2, `[{name: https, protocol: HTTPS, port: 443, hostname: b.example.com}]`)
	refused.CertificateRefs = map[gatewayv1.SectionName][]CertificateRef{"https": {{Kind: "Secret", Namespace: "certs", Name: "c", Reason: gatewayv1.ListenerReasonRefNotPermitted, Message: "not permitted"}}}
	got := EvaluateSets(serves, gw, nil, []Set{granted, refused})
	want := []string{
		"team-a/granted true Accepted: https Accepted/ResolvedRefs/NoConflicts [HTTPRoute]",
		// Its only listener is not valid: the ListenerSet is not accepted, the Gateway and
		// the other ListenerSet are left alone.
		"team-b/refused false ListenersNotValid: https Accepted/RefNotPermitted/NoConflicts [HTTPRoute]",
	}
	for i, v := range got {
		if s := summarizeSet(v); s != want[i] {
			t.Errorf("got  %q\nwant %q", s, want[i])
		}
	}
}

func TestEvaluateSetsBound(t *testing.T) {
	serves := Serves{}.WithListenerSets()
	gw := gatewayAllowing(t, `{from: All}`, `[{name: http, protocol: HTTP, port: 80}]`)
	entries := func(port int) string {
		var out []string
		for i := range 64 {
			out = append(out, fmt.Sprintf("{name: l%d, protocol: HTTP, port: %d, hostname: h%d.example.com}", i, port, i))
		}
		return "[" + strings.Join(out, ", ") + "]"
	}
	var sets []Set
	// 63 full ListenerSets and the Gateway's listener leave room for 63 more listeners:
	// the 64th ListenerSet is past the bound; a smaller, newer one still fits, and one
	// refused in between (not allowed) takes nothing.
	for i := range 64 {
		sets = append(sets, listenerSet(t, "team", fmt.Sprintf("set-%02d", i), i, entries(1000+i)))
	}
	small := listenerSet(t, "team", "small", 100, `[{name: l, protocol: HTTP, port: 5000}]`)
	sets = append(sets, small)
	got := EvaluateSets(serves, gw, nil, sets)
	for i, v := range got[:63] {
		if !v.Accepted {
			t.Fatalf("ListenerSet %d is not accepted: %s %s", i, v.Reason, v.Message)
		}
	}
	past := got[63]
	if past.Accepted || past.Reason != gatewayv1.ListenerSetReasonListenersNotValid || !strings.Contains(past.Message, "at most 4096 listeners") {
		t.Errorf("the ListenerSet past the bound: %v %s %q", past.Accepted, past.Reason, past.Message)
	}
	for _, s := range past.Listeners {
		if s.Accepted != gatewayv1.ListenerConditionReason(gatewayv1.ListenerEntryReasonTooManyListeners) {
			t.Errorf("listener %s past the bound: %s, want TooManyListeners", s.Name, s.Accepted)
		}
	}
	if last := got[64]; !last.Accepted {
		t.Errorf("a ListenerSet that fits after the one refused is not accepted: %s %s", last.Reason, last.Message)
	}
}

func TestEvaluateSetsRefusedTakesNothing(t *testing.T) {
	serves := Serves{}.WithListenerSets()
	gw := gatewayAllowing(t, `{from: All}`, `[{name: http, protocol: HTTP, port: 80}]`)
	// The older ListenerSet's only listener is accepted but its certificate does not
	// resolve: it is not attached, and leaves its hostname to the newer one.
	older := listenerSet(t, "team-a", "older", 1, `[{name: https, protocol: HTTPS, port: 443, hostname: shop.example.com}]`)
	older.CertificateRefs = map[gatewayv1.SectionName][]CertificateRef{"https": {{Kind: "Secret", Namespace: "team-a", Name: "gone", Reason: gatewayv1.ListenerReasonInvalidCertificateRef, Message: "gone"}}}
	newer := listenerSet(t, "team-b", "newer", 2, `[{name: https, protocol: HTTPS, port: 443, hostname: shop.example.com}, {name: plain, protocol: HTTP, port: 443, hostname: other.example.com}]`)
	got := EvaluateSets(serves, gw, nil, []Set{older, newer})
	want := []string{
		"team-a/older false ListenersNotValid: https Accepted/InvalidCertificateRef/NoConflicts [HTTPRoute]",
		// Within a ListenerSet, its earlier accepted listener keeps the port's protocol.
		"team-b/newer true ListenersNotValid: https Accepted/ResolvedRefs/NoConflicts [HTTPRoute]; plain ProtocolConflict/ResolvedRefs/ProtocolConflict []",
	}
	for i, v := range got {
		if s := summarizeSet(v); s != want[i] {
			t.Errorf("got  %q\nwant %q", s, want[i])
		}
	}
}
