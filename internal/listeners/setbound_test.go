package listeners

import (
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// oneListenerSet is a ListenerSet of namespace/name, created at second age of the
// test's clock, with one HTTP listener on port.
func oneListenerSet(namespace, name string, age int, port int) Set {
	return Set{Ref: SetRef{Namespace: namespace, Name: name},
		CreationTimestamp: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, age, 0, time.UTC)),
		Listeners:         []gatewayv1.Listener{{Name: "l", Protocol: gatewayv1.HTTPProtocolType, Port: gatewayv1.PortNumber(port)}},
		NamespaceLabels:   map[string]string{"tenant": namespace}}
}

func TestEvaluateSetsSetBound(t *testing.T) {
	serves := Serves{}.WithListenerSets()
	gw := gatewayAllowing(t, `{from: Same}`, `[{name: http, protocol: HTTP, port: 80}]`)
	// A hostile tenant names the Gateway with more refused ListenerSets than it judges,
	// all older than the Gateway's own team's: those past the bound are refused whole,
	// with one message, and none of them is judged.
	var sets []Set
	for i := range MaxGatewayListenerSets + 100 {
		sets = append(sets, oneListenerSet("hostile", fmt.Sprintf("ls-%05d", i), 0, 1000))
	}
	sets = append(sets, oneListenerSet("infra", "late", 1, 8080))
	got := EvaluateSets(serves, gw, nil, sets)
	if len(got) != len(sets) {
		t.Fatalf("%d verdicts for %d ListenerSets", len(got), len(sets))
	}
	for _, v := range got[:MaxGatewayListenerSets] {
		if v.Accepted || !strings.Contains(v.Message, "allows ListenerSets of namespace infra only") {
			t.Fatalf("%s within the bound: %v %s %q, want refused by allowedListeners", v.Ref, v.Accepted, v.Reason, v.Message)
		}
	}
	message := got[MaxGatewayListenerSets].Message
	for _, v := range got[MaxGatewayListenerSets:] {
		if v.Accepted || v.Reason != gatewayv1.ListenerSetReasonNotAllowed || v.Message != message || len(v.Listeners) != 0 {
			t.Fatalf("%s past the bound: %v %s %q with %d listeners", v.Ref, v.Accepted, v.Reason, v.Message, len(v.Listeners))
		}
	}
	if !strings.Contains(message, "judges at most 4096 ListenerSets") {
		t.Errorf("the message past the bound: %q", message)
	}
	if last := got[len(got)-1]; last.Ref.Name != "late" {
		t.Errorf("the newest ListenerSet is judged in place %d", len(got)-1)
	}
}

func TestEvaluateSetsLargestLegitimate(t *testing.T) {
	serves := Serves{}.WithListenerSets()
	gw := gatewayAllowing(t, `{from: All}`, `[{name: http, protocol: HTTP, port: 80}]`)
	// As many one-listener ListenerSets as the listener bound leaves room for, each on a
	// port of its own, all attach: the ListenerSet bound refuses none of them.
	var sets []Set
	for i := range MaxGatewayListeners - 1 {
		sets = append(sets, oneListenerSet(fmt.Sprintf("team-%d", i%50), fmt.Sprintf("ls-%05d", i), i, 1000+i))
	}
	for _, v := range EvaluateSets(serves, gw, nil, sets) {
		if !v.Accepted {
			t.Fatalf("%s is not attached: %s %q", v.Ref, v.Reason, v.Message)
		}
	}
}

func TestPrecedence(t *testing.T) {
	sets := []Set{oneListenerSet("b", "x", 2, 1), oneListenerSet("b", "a", 1, 1), oneListenerSet("a", "z", 1, 1)}
	var got []string
	for _, s := range InPrecedence(sets) {
		got = append(got, s.Ref.String())
	}
	if want := "a/z b/a b/x"; strings.Join(got, " ") != want {
		t.Errorf("in precedence: %v, want %s (oldest first, then namespace/name)", got, want)
	}
}
