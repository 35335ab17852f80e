package listeners

import (
	"testing"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"
)

// servesOf reads a blueprint's spec.serves as YAML; "" is a blueprint without one.
func servesOf(t *testing.T, doc string) Serves {
	t.Helper()
	var s struct {
		Protocols  []gatewayv1.ProtocolType `json:"protocols"`
		TLSModes   []gatewayv1.TLSModeType  `json:"tlsModes"`
		RouteKinds []gatewayv1.Kind         `json:"routeKinds"`
	}
	if err := yaml.UnmarshalStrict([]byte(doc), &s); err != nil {
		t.Fatal(err)
	}
	return NewServes(s.Protocols, s.TLSModes, s.RouteKinds)
}

const (
	everything  = `{protocols: [HTTP, HTTPS, TLS, TCP, UDP], tlsModes: [Terminate, Passthrough], routeKinds: [HTTPRoute, GRPCRoute, TLSRoute, TCPRoute, UDPRoute]}`
	passthrough = `{protocols: [HTTPS, TLS], tlsModes: [Passthrough], routeKinds: [HTTPRoute, TLSRoute]}`
)

func TestServesJudgesListeners(t *testing.T) {
	tests := []struct {
		name      string
		serves    string
		listeners string
		// want is, per listener: name accepted/resolvedRefs/conflicted kinds
		want []string
	}{
		{"a blueprint without serves serves HTTP and HTTPS with HTTPRoute, and nothing else", ``,
			`[{name: http, protocol: HTTP, port: 80}, {name: https, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: c}]}},
			  {name: tls, protocol: TLS, port: 8443, tls: {mode: Passthrough}}, {name: tcp, protocol: TCP, port: 9000}, {name: udp, protocol: UDP, port: 53}]`,
			[]string{"http Accepted/ResolvedRefs/NoConflicts [HTTPRoute]", "https Accepted/ResolvedRefs/NoConflicts [HTTPRoute]",
				"tls UnsupportedProtocol/ResolvedRefs/NoConflicts []", "tcp UnsupportedProtocol/ResolvedRefs/NoConflicts []", "udp UnsupportedProtocol/ResolvedRefs/NoConflicts []"}},
		{"a blueprint serving every protocol and kind gives each protocol its kinds", everything,
			`[{name: http, protocol: HTTP, port: 80}, {name: https, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: c}]}},
			  {name: passthrough, protocol: TLS, port: 8443, tls: {mode: Passthrough}}, {name: terminate, protocol: TLS, port: 9443, tls: {mode: Terminate, certificateRefs: [{name: c}]}},
			  {name: tcp, protocol: TCP, port: 9000}, {name: udp, protocol: UDP, port: 53}]`,
			[]string{"http Accepted/ResolvedRefs/NoConflicts [HTTPRoute GRPCRoute]", "https Accepted/ResolvedRefs/NoConflicts [HTTPRoute GRPCRoute]",
				"passthrough Accepted/ResolvedRefs/NoConflicts [TLSRoute]", "terminate Accepted/ResolvedRefs/NoConflicts [TLSRoute]",
				"tcp Accepted/ResolvedRefs/NoConflicts [TCPRoute]", "udp Accepted/ResolvedRefs/NoConflicts [UDPRoute]"}},
		{"tlsModes left out serves Terminate only: a Passthrough listener has an unsupported value", `{protocols: [TLS], routeKinds: [TLSRoute]}`,
			`[{name: passthrough, protocol: TLS, port: 443, tls: {mode: Passthrough}}, {name: terminate, protocol: TLS, port: 8443, tls: {mode: Terminate, certificateRefs: [{name: c}]}}]`,
			[]string{"passthrough UnsupportedValue/ResolvedRefs/NoConflicts []", "terminate Accepted/ResolvedRefs/NoConflicts [TLSRoute]"}},
		{"a Passthrough-only blueprint refuses TLS Terminate, and HTTPS, which always terminates, stays served", passthrough,
			`[{name: passthrough, protocol: TLS, port: 443, tls: {mode: Passthrough}}, {name: terminate, protocol: TLS, port: 8443, tls: {mode: Terminate, certificateRefs: [{name: c}]}},
			  {name: https, protocol: HTTPS, port: 9443, tls: {certificateRefs: [{name: c}]}}]`,
			[]string{"passthrough Accepted/ResolvedRefs/NoConflicts [TLSRoute]", "terminate UnsupportedValue/ResolvedRefs/NoConflicts []", "https Accepted/ResolvedRefs/NoConflicts [HTTPRoute]"}},
		{"routeKinds narrow what a protocol takes", `{routeKinds: [GRPCRoute]}`,
			`[{name: http, protocol: HTTP, port: 80}, {name: listed, protocol: HTTP, port: 81, allowedRoutes: {kinds: [{kind: HTTPRoute}, {kind: GRPCRoute}]}}]`,
			[]string{"http Accepted/ResolvedRefs/NoConflicts [GRPCRoute]", "listed Accepted/InvalidRouteKinds/NoConflicts [GRPCRoute]"}},
		{"a kind served but not on the listener's protocol is an invalid kind there", everything,
			`[{name: tls, protocol: TLS, port: 443, tls: {mode: Passthrough}, allowedRoutes: {kinds: [{kind: HTTPRoute}, {kind: TLSRoute}, {kind: TLSRoute}]}}]`,
			[]string{"tls Accepted/InvalidRouteKinds/NoConflicts [TLSRoute]"}},
		{"a protocol served with no kind served for it is accepted and supports nothing", `{protocols: [TCP]}`,
			`[{name: tcp, protocol: TCP, port: 9000}]`,
			[]string{"tcp Accepted/ResolvedRefs/NoConflicts []"}},
		{"a served TCP listener takes its port from an HTTP listener: both conflict", everything,
			`[{name: http, protocol: HTTP, port: 80}, {name: tcp, protocol: TCP, port: 80}]`,
			[]string{"http ProtocolConflict/ResolvedRefs/ProtocolConflict []", "tcp ProtocolConflict/ResolvedRefs/ProtocolConflict []"}},
		{"UDP and TCP on one port do not conflict: UDP's port is another", everything,
			`[{name: udp, protocol: UDP, port: 53}, {name: tcp, protocol: TCP, port: 53}]`,
			[]string{"udp Accepted/ResolvedRefs/NoConflicts [UDPRoute]", "tcp Accepted/ResolvedRefs/NoConflicts [TCPRoute]"}},
		{"two UDP listeners on one port conflict", everything,
			`[{name: a, protocol: UDP, port: 53}, {name: b, protocol: UDP, port: 53}]`,
			[]string{"a HostnameConflict/ResolvedRefs/HostnameConflict []", "b HostnameConflict/ResolvedRefs/HostnameConflict []"}},
		{"TLS listeners of both modes on one port conflict, whatever their hostnames, where the class does not serve them mixed", everything,
			`[{name: a, protocol: TLS, port: 443, hostname: a.example.com, tls: {mode: Passthrough}}, {name: b, protocol: TLS, port: 443, hostname: b.example.com, tls: {mode: Terminate, certificateRefs: [{name: c}]}}]`,
			[]string{"a ProtocolConflict/ResolvedRefs/ProtocolConflict []", "b ProtocolConflict/ResolvedRefs/ProtocolConflict []"}},
		{"a TLS listener whose mode is not served takes no port from an HTTPS one", passthrough,
			`[{name: https, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: c}]}}, {name: tls, protocol: TLS, port: 443, tls: {mode: Terminate, certificateRefs: [{name: c}]}}]`,
			[]string{"https Accepted/ResolvedRefs/NoConflicts [HTTPRoute]", "tls UnsupportedValue/ResolvedRefs/NoConflicts []"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var listeners []gatewayv1.Listener
			if err := yaml.UnmarshalStrict([]byte(tt.listeners), &listeners); err != nil {
				t.Fatal(err)
			}
			got := Evaluate(servesOf(t, tt.serves), listeners, nil)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d statuses, want %d", len(got), len(tt.want))
			}
			for i, s := range got {
				if summary := summarize(s); summary != tt.want[i] {
					t.Errorf("got %q, want %q", summary, tt.want[i])
				}
			}
		})
	}
}

func TestServesMixedTLSModesShareAPort(t *testing.T) {
	var listeners []gatewayv1.Listener
	if err := yaml.UnmarshalStrict([]byte(`[{name: a, protocol: TLS, port: 443, hostname: a.example.com, tls: {mode: Passthrough}},
	  {name: b, protocol: TLS, port: 443, hostname: b.example.com, tls: {mode: Terminate, certificateRefs: [{name: c}]}},
	  {name: c, protocol: TLS, port: 443, hostname: b.example.com, tls: {mode: Passthrough}}]`), &listeners); err != nil {
		t.Fatal(err)
	}
	got := Evaluate(servesOf(t, everything).WithMixedTLSModes(), listeners, nil)
	want := []string{"a Accepted/ResolvedRefs/NoConflicts [TLSRoute]", "b HostnameConflict/ResolvedRefs/HostnameConflict []", "c HostnameConflict/ResolvedRefs/HostnameConflict []"}
	for i, s := range got {
		if summary := summarize(s); summary != want[i] {
			t.Errorf("got %q, want %q", summary, want[i])
		}
	}
}

func TestServesSaysWhichCertificateRefsAreRead(t *testing.T) {
	tests := []struct {
		name, serves, listener string
		want                   bool
	}{
		{"a TLS listener that terminates, on a blueprint serving it, has its certificateRefs read", everything,
			`{name: a, protocol: TLS, port: 443, tls: {mode: Terminate, certificateRefs: [{name: x}]}}`, true},
		{"a Passthrough listener needs no certificateRefs, and those it names are never read", everything,
			`{name: a, protocol: TLS, port: 443, tls: {mode: Passthrough, certificateRefs: [{name: x}]}}`, false},
		{"a TLS listener of a mode the blueprint does not serve has none read", passthrough,
			`{name: a, protocol: TLS, port: 443, tls: {mode: Terminate, certificateRefs: [{name: x}]}}`, false},
		{"an HTTPS listener on a Passthrough-only blueprint still terminates", passthrough,
			`{name: a, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: x}]}}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l gatewayv1.Listener
			if err := yaml.UnmarshalStrict([]byte(tt.listener), &l); err != nil {
				t.Fatal(err)
			}
			if got := servesOf(t, tt.serves).TerminatesTLS(&l); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestServesAnswersEachQuestionWithItsDefault(t *testing.T) {
	none, tcpOnly := servesOf(t, ``), servesOf(t, `{protocols: [TCP], routeKinds: [TCPRoute]}`)
	tests := []struct {
		name string
		got  bool
		want bool
	}{
		{"HTTP is served by default", none.Protocol(gatewayv1.HTTPProtocolType), true},
		{"HTTPS is served by default", none.Protocol(gatewayv1.HTTPSProtocolType), true},
		{"TLS is not served by default", none.Protocol(gatewayv1.TLSProtocolType), false},
		{"TCP is not served by default", none.Protocol(gatewayv1.TCPProtocolType), false},
		{"UDP is not served by default", none.Protocol(gatewayv1.UDPProtocolType), false},
		{"Terminate is served by default", none.TLSMode(gatewayv1.TLSModeTerminate), true},
		{"Passthrough is not served by default", none.TLSMode(gatewayv1.TLSModePassthrough), false},
		{"HTTPRoute is served by default", none.RouteKind(HTTPRouteKind), true},
		{"GRPCRoute is not served by default", none.RouteKind(GRPCRouteKind), false},
		{"protocols listed replace the default", tcpOnly.Protocol(gatewayv1.HTTPProtocolType), false},
		{"a protocol listed is served", tcpOnly.Protocol(gatewayv1.TCPProtocolType), true},
		{"routeKinds listed replace the default", tcpOnly.RouteKind(HTTPRouteKind), false},
		{"tlsModes left out keep their default beside other fields", tcpOnly.TLSMode(gatewayv1.TLSModeTerminate), true},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}
