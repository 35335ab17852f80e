package listeners

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/fuzzchoices"
)

// What tenants' ListenerSets are made of here: few ports, protocols that conflict on
// them, hostnames equal to the Gateway's and each other's, names that repeat across
// sets, creation times that tie.
var (
	fuzzPorts     = []gatewayv1.PortNumber{80, 443, 8080}
	fuzzProtocols = []gatewayv1.ProtocolType{gatewayv1.HTTPProtocolType, gatewayv1.HTTPSProtocolType, gatewayv1.TLSProtocolType, gatewayv1.TCPProtocolType, gatewayv1.UDPProtocolType, "Other"}
	fuzzHostnames = []*gatewayv1.Hostname{nil, new(gatewayv1.Hostname("a.example")), new(gatewayv1.Hostname("*.example")), new(gatewayv1.Hostname(""))}
	fuzzTLSModes  = []*gatewayv1.TLSModeType{nil, new(gatewayv1.TLSModeTerminate), new(gatewayv1.TLSModePassthrough)}
)

func fuzzListener(c *fuzzchoices.Choices) gatewayv1.Listener {
	l := gatewayv1.Listener{
		Name:     gatewayv1.SectionName(fmt.Sprintf("l%d", c.Pick(3))),
		Port:     fuzzPorts[c.Pick(len(fuzzPorts))],
		Protocol: fuzzProtocols[c.Pick(len(fuzzProtocols))],
		Hostname: fuzzHostnames[c.Pick(len(fuzzHostnames))],
	}
	if mode := fuzzTLSModes[c.Pick(len(fuzzTLSModes))]; mode != nil {
		l.TLS = &gatewayv1.ListenerTLSConfig{Mode: mode}
	}
	return l
}

// fuzzSet is ListenerSet i of up to four listeners, in one of two namespaces.
func fuzzSet(c *fuzzchoices.Choices, i int) Set {
	s := Set{
		Ref:               SetRef{Namespace: []string{"infra", "team-a"}[c.Pick(2)], Name: fmt.Sprintf("set-%d", i)},
		CreationTimestamp: metav1.NewTime(time.Date(2026, 1, 1, 0, c.Pick(3), 0, 0, time.UTC)),
		NamespaceLabels:   map[string]string{},
	}
	for range 1 + c.Pick(4) {
		s.Listeners = append(s.Listeners, fuzzListener(c))
	}
	return s
}

// FuzzEvaluateSets judges a Gateway's listeners and its tenants' ListenerSets, whatever
// they hold, and checks what ListenerSets promise: the verdicts do not depend on the
// order the ListenerSets come in; the listeners served (the Gateway's own and those
// accepted of attached ListenerSets) never conflict with one another; and a newer
// ListenerSet changes nothing of an older one's verdicts (the Gateway's own are judged
// without any), so a tenant never takes a port or hostname from the Gateway or from an
// older ListenerSet.
func FuzzEvaluateSets(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x02\x00\x00\x00\x00\x00\x03\x00\x00\x01\x00\x01\x00\x01\x00\x00\x01\x01\x00\x00\x00\x00\x01\x01\x02\x00\x00"))
	f.Add([]byte("\x01\x01\x01\x00\x01\x02\x02\x03\x00\x01\x02\x03\x01\x01\x02\x00\x00\x02\x02\x00\x01\x02\x01\x01\x00\x02\x01\x02\x02\x02\x01\x00\x01"))
	serves := Serves{}.WithListenerSets()
	f.Fuzz(func(t *testing.T, data []byte) {
		c := fuzzchoices.New(data)
		gw := &gatewayv1.Gateway{}
		gw.Namespace, gw.Name, gw.Spec.GatewayClassName = "infra", "gw", "class"
		gw.Spec.AllowedListeners = &gatewayv1.AllowedListeners{Namespaces: &gatewayv1.ListenerNamespaces{From: new(gatewayv1.NamespacesFromAll)}}
		for range 1 + c.Pick(3) {
			gw.Spec.Listeners = append(gw.Spec.Listeners, fuzzListener(c))
		}
		own := Evaluate(serves, gw.Spec.Listeners, nil)
		var sets []Set
		for i := range 1 + c.Pick(5) {
			sets = append(sets, fuzzSet(c, i))
		}
		verdicts := EvaluateSets(serves, gw, own, sets)

		reversed := slices.Clone(sets)
		slices.Reverse(reversed)
		if !reflect.DeepEqual(EvaluateSets(serves, gw, own, reversed), verdicts) {
			t.Fatal("the verdicts depend on the order the ListenerSets come in")
		}

		var served []*gatewayv1.Listener
		for i := range gw.Spec.Listeners {
			if own[i].IsAccepted() && own[i].Conflicted == gatewayv1.ListenerReasonNoConflicts {
				served = append(served, &gw.Spec.Listeners[i])
			}
		}
		for _, v := range verdicts {
			for i, s := range v.Listeners {
				if !s.IsAccepted() {
					continue
				}
				if !v.Accepted {
					t.Fatalf("ListenerSet %s is not attached, yet its listener %s is accepted", v.Ref, s.Name)
				}
				l := &v.Entries[i]
				for _, other := range served {
					if why := serves.conflictWith(l, other); why != gatewayv1.ListenerReasonNoConflicts {
						t.Fatalf("listener %s of ListenerSet %s is accepted in %s with a listener served before it", s.Name, v.Ref, why)
					}
				}
				served = append(served, l)
			}
		}

		// The newest ListenerSet, judged with the others and without: nothing older moves.
		newest := InPrecedence(sets)[len(sets)-1]
		var older []Set
		for _, s := range sets {
			if s.Ref != newest.Ref {
				older = append(older, s)
			}
		}
		without := EvaluateSets(serves, gw, own, older)
		if !reflect.DeepEqual(verdicts[:len(without)], without) {
			t.Fatalf("a newer ListenerSet, %s, changed the verdicts of older ones", newest.Ref)
		}
	})
}
