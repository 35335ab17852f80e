package listeners

import (
	"fmt"
	"testing"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"
)

func TestEvaluate(t *testing.T) {
	tests := []struct {
		name      string
		listeners string
		// want is, per listener: name accepted/resolvedRefs/conflicted kinds
		want []string
	}{
		{"an HTTP and an HTTPS listener on their own ports are accepted and support HTTPRoute",
			`[{name: http, protocol: HTTP, port: 80}, {name: https, protocol: HTTPS, port: 443}]`,
			[]string{"http Accepted/ResolvedRefs/NoConflicts [HTTPRoute]", "https Accepted/ResolvedRefs/NoConflicts [HTTPRoute]"}},
		{"a TCP listener is refused for its protocol and supports nothing",
			`[{name: tcp, protocol: TCP, port: 9000}]`,
			[]string{"tcp UnsupportedProtocol/ResolvedRefs/NoConflicts []"}},
		{"an unknown protocol is refused the same way",
			`[{name: invalid, protocol: INVALID, port: 1111}]`,
			[]string{"invalid UnsupportedProtocol/ResolvedRefs/NoConflicts []"}},
		{"a listener listing only a kind Gatewright does not serve supports nothing and has unresolved refs",
			`[{name: http, protocol: HTTP, port: 80, allowedRoutes: {kinds: [{kind: InvalidRoute}]}}]`,
			[]string{"http Accepted/InvalidRouteKinds/NoConflicts []"}},
		{"a listener listing HTTPRoute and TCPRoute supports HTTPRoute and has unresolved refs",
			`[{name: http, protocol: HTTP, port: 80, allowedRoutes: {kinds: [{kind: TCPRoute}, {kind: HTTPRoute}]}}]`,
			[]string{"http Accepted/InvalidRouteKinds/NoConflicts [HTTPRoute]"}},
		{"HTTPRoute of another group is not served",
			`[{name: http, protocol: HTTP, port: 80, allowedRoutes: {kinds: [{group: example.com, kind: HTTPRoute}]}}]`,
			[]string{"http Accepted/InvalidRouteKinds/NoConflicts []"}},
		{"HTTPRoute listed twice is supported once",
			`[{name: http, protocol: HTTP, port: 80, allowedRoutes: {kinds: [{kind: HTTPRoute}, {group: gateway.networking.k8s.io, kind: HTTPRoute}]}}]`,
			[]string{"http Accepted/ResolvedRefs/NoConflicts [HTTPRoute]"}},
		{"HTTPRoute listed on a TCP listener is an invalid kind there",
			`[{name: tcp, protocol: TCP, port: 9000, allowedRoutes: {kinds: [{kind: HTTPRoute}]}}]`,
			[]string{"tcp UnsupportedProtocol/InvalidRouteKinds/NoConflicts []"}},
		{"two HTTP listeners on one port with the same hostname both conflict, and neither wins",
			`[{name: a, protocol: HTTP, port: 80, hostname: example.com}, {name: b, protocol: HTTP, port: 80, hostname: example.com}, {name: c, protocol: HTTP, port: 80, hostname: other.example.com}]`,
			[]string{"a HostnameConflict/ResolvedRefs/HostnameConflict [HTTPRoute]", "b HostnameConflict/ResolvedRefs/HostnameConflict [HTTPRoute]", "c Accepted/ResolvedRefs/NoConflicts [HTTPRoute]"}},
		{"an unset hostname conflicts with an empty one",
			`[{name: a, protocol: HTTP, port: 80}, {name: b, protocol: HTTP, port: 80, hostname: ""}]`,
			[]string{"a HostnameConflict/ResolvedRefs/HostnameConflict [HTTPRoute]", "b HostnameConflict/ResolvedRefs/HostnameConflict [HTTPRoute]"}},
		{"HTTP and HTTPS on one port conflict by protocol, whatever their hostnames",
			`[{name: http, protocol: HTTP, port: 8443, hostname: a.example.com}, {name: https, protocol: HTTPS, port: 8443, hostname: b.example.com}]`,
			[]string{"http ProtocolConflict/ResolvedRefs/ProtocolConflict [HTTPRoute]", "https ProtocolConflict/ResolvedRefs/ProtocolConflict [HTTPRoute]"}},
		{"the same hostname on different ports does not conflict",
			`[{name: a, protocol: HTTP, port: 80, hostname: example.com}, {name: b, protocol: HTTP, port: 8080, hostname: example.com}]`,
			[]string{"a Accepted/ResolvedRefs/NoConflicts [HTTPRoute]", "b Accepted/ResolvedRefs/NoConflicts [HTTPRoute]"}},
		{"a TCP listener on an HTTP listener's port is refused for its protocol and takes the port from no one",
			`[{name: http, protocol: HTTP, port: 80}, {name: tcp, protocol: TCP, port: 80}]`,
			[]string{"http Accepted/ResolvedRefs/NoConflicts [HTTPRoute]", "tcp UnsupportedProtocol/ResolvedRefs/NoConflicts []"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var listeners []gatewayv1.Listener
			if err := yaml.UnmarshalStrict([]byte(tt.listeners), &listeners); err != nil {
				t.Fatal(err)
			}
			got := Evaluate(listeners)
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

func summarize(s Status) string {
	kinds := []string{}
	for _, k := range s.SupportedKinds {
		if k.Group == nil || *k.Group != gatewayv1.GroupName {
			kinds = append(kinds, "wrong group")
		}
		kinds = append(kinds, string(k.Kind))
	}
	return fmt.Sprintf("%s %s/%s/%s %v", s.Name, s.Accepted, s.ResolvedRefs, s.Conflicted, kinds)
}

func TestValidity(t *testing.T) {
	var listeners []gatewayv1.Listener
	if err := yaml.UnmarshalStrict([]byte(`[
  {name: http, protocol: HTTP, port: 80},
  {name: kinds, protocol: HTTP, port: 81, allowedRoutes: {kinds: [{kind: TCPRoute}, {kind: HTTPRoute}]}},
  {name: udp, protocol: UDP, port: 53},
  {name: a, protocol: HTTP, port: 82, hostname: example.com},
  {name: b, protocol: HTTPS, port: 82, hostname: example.com}]`), &listeners); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name                 string
		listener             int
		attachable, valid    bool
		notProgrammedBecause gatewayv1.ListenerConditionReason
	}{
		{"a listener without problems takes routes and is programmed", 0, true, true, gatewayv1.ListenerReasonInvalid},
		{"a listener with an invalid kind still takes the routes of the kinds it supports, but is not programmed", 1, true, false, gatewayv1.ListenerReasonInvalid},
		{"an unsupported protocol takes no routes and is not programmed, as Invalid", 2, false, false, gatewayv1.ListenerReasonInvalid},
		{"a conflicted listener takes no routes and is not programmed, because of the conflict", 3, false, false, gatewayv1.ListenerReasonProtocolConflict},
	}
	statuses := Evaluate(listeners)
	attachable := Attachable(listeners)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := statuses[tt.listener]
			if attachable[s.Name] != tt.attachable || s.IsAccepted() != tt.attachable {
				t.Errorf("attachable: got %v (IsAccepted %v), want %v", attachable[s.Name], s.IsAccepted(), tt.attachable)
			}
			if s.IsValid() != tt.valid {
				t.Errorf("valid: got %v, want %v", s.IsValid(), tt.valid)
			}
			if !tt.valid && s.NotProgrammedReason() != tt.notProgrammedBecause {
				t.Errorf("not programmed because %s, want %s", s.NotProgrammedReason(), tt.notProgrammedBecause)
			}
		})
	}
}
