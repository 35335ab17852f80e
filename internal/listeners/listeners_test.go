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
			[]string{"a HostnameConflict/ResolvedRefs/HostnameConflict []", "b HostnameConflict/ResolvedRefs/HostnameConflict []", "c Accepted/ResolvedRefs/NoConflicts [HTTPRoute]"}},
		{"an unset hostname conflicts with an empty one",
			`[{name: a, protocol: HTTP, port: 80}, {name: b, protocol: HTTP, port: 80, hostname: ""}]`,
			[]string{"a HostnameConflict/ResolvedRefs/HostnameConflict []", "b HostnameConflict/ResolvedRefs/HostnameConflict []"}},
		{"HTTP and HTTPS on one port conflict by protocol, whatever their hostnames",
			`[{name: http, protocol: HTTP, port: 8443, hostname: a.example.com}, {name: https, protocol: HTTPS, port: 8443, hostname: b.example.com}]`,
			[]string{"http ProtocolConflict/ResolvedRefs/ProtocolConflict []", "https ProtocolConflict/ResolvedRefs/ProtocolConflict []"}},
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
			got := Evaluate(Serves{}, listeners, nil)
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
	statuses := Evaluate(Serves{}, listeners, nil)
	attachable := Attachable(Serves{}, listeners)
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

func TestCertificateRefs(t *testing.T) {
	var listeners []gatewayv1.Listener
	if err := yaml.UnmarshalStrict([]byte(`[
  {name: https, protocol: HTTPS, port: 443},
  {name: both, protocol: HTTPS, port: 8443, allowedRoutes: {kinds: [{kind: TCPRoute}]}},
  {name: kinds, protocol: HTTP, port: 80, allowedRoutes: {kinds: [{kind: TCPRoute}]}}]`), &listeners); err != nil {
		t.Fatal(err)
	}
	resolved := CertificateRef{Namespace: "a", Name: "good", Reason: gatewayv1.ListenerReasonResolvedRefs}
	missing := CertificateRef{Namespace: "a", Name: "gone", Reason: gatewayv1.ListenerReasonInvalidCertificateRef, Message: "certificateRef a/gone does not exist"}
	foreign := CertificateRef{Namespace: "b", Name: "theirs", Reason: gatewayv1.ListenerReasonRefNotPermitted, Message: "certificateRef b/theirs is not permitted"}
	tests := []struct {
		name         string
		refs         map[gatewayv1.SectionName][]CertificateRef
		want         []string // per listener: ResolvedRefs reason, valid, message
		wantAccepted bool
	}{
		{"resolved certificateRefs leave a listener valid",
			map[gatewayv1.SectionName][]CertificateRef{"https": {resolved}},
			[]string{"ResolvedRefs valid ", "InvalidRouteKinds invalid allowedRoutes.kinds lists a kind Gatewright does not serve on protocol HTTPS", "InvalidRouteKinds invalid allowedRoutes.kinds lists a kind Gatewright does not serve on protocol HTTP"}, true},
		{"the first certificateRef that does not resolve gives the reason, and the message names each",
			map[gatewayv1.SectionName][]CertificateRef{"https": {resolved, foreign, missing}},
			[]string{"RefNotPermitted invalid certificateRef b/theirs is not permitted; certificateRef a/gone does not exist", "InvalidRouteKinds invalid allowedRoutes.kinds lists a kind Gatewright does not serve on protocol HTTPS", "InvalidRouteKinds invalid allowedRoutes.kinds lists a kind Gatewright does not serve on protocol HTTP"}, true},
		{"a certificate that does not resolve outranks an invalid route kind, and both are in the message",
			map[gatewayv1.SectionName][]CertificateRef{"both": {missing}},
			[]string{"ResolvedRefs valid ", "InvalidCertificateRef invalid certificateRef a/gone does not exist; allowedRoutes.kinds lists a kind Gatewright does not serve on protocol HTTPS", "InvalidRouteKinds invalid allowedRoutes.kinds lists a kind Gatewright does not serve on protocol HTTP"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i, s := range Evaluate(Serves{}, listeners, tt.refs) {
				valid := "invalid"
				if s.IsValid() {
					valid = "valid"
				}
				if got := fmt.Sprintf("%s %s %s", s.ResolvedRefs, valid, s.ResolvedRefsMessage); got != tt.want[i] {
					t.Errorf("listener %s: got %q, want %q", s.Name, got, tt.want[i])
				}
				if s.IsAccepted() != tt.wantAccepted {
					t.Errorf("listener %s: accepted %v, want %v: unresolved references do not refuse routes", s.Name, s.IsAccepted(), tt.wantAccepted)
				}
				if s.Reason() != s.ResolvedRefs {
					t.Errorf("listener %s: Reason() %s, want the ResolvedRefs reason of an accepted listener", s.Name, s.Reason())
				}
			}
		})
	}
}

func TestTerminatesTLS(t *testing.T) {
	tests := []struct {
		name     string
		listener string
		want     bool
	}{
		{"an HTTPS listener with tls terminates it", `{name: a, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: x}]}}`, true},
		{"mode Terminate said out loud is the same", `{name: a, protocol: HTTPS, port: 443, tls: {mode: Terminate, certificateRefs: [{name: x}]}}`, true},
		{"an HTTPS listener without tls has no certificateRefs to read", `{name: a, protocol: HTTPS, port: 443}`, false},
		{"a TLS listener is not served, so its certificateRefs are never read", `{name: a, protocol: TLS, port: 443, tls: {mode: Terminate, certificateRefs: [{name: x}]}}`, false},
		{"a passthrough listener ignores its certificateRefs", `{name: a, protocol: TLS, port: 443, tls: {mode: Passthrough}}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l gatewayv1.Listener
			if err := yaml.UnmarshalStrict([]byte(tt.listener), &l); err != nil {
				t.Fatal(err)
			}
			if got := (Serves{}).TerminatesTLS(&l); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}
