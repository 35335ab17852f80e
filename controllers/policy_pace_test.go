package controllers

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

func TestJudgementPace(t *testing.T) {
	var pace judgementPace
	quick, slow := types.NamespacedName{Name: "quick"}, types.NamespacedName{Name: "slow"}
	if got := pace.wait(quick); got != policyCoalescing {
		t.Errorf("a policy never judged waits %v, want %v", got, policyCoalescing)
	}
	pace.took(quick, time.Now().Add(-time.Millisecond))
	if got := pace.wait(quick); got != policyCoalescing {
		t.Errorf("a policy judged in 1ms waits %v, want the floor of %v", got, policyCoalescing)
	}
	pace.took(slow, time.Now().Add(-2*time.Second))
	if got := pace.wait(slow); got < 20*time.Second {
		t.Errorf("a policy judged in 2s waits %v, want at least 20s", got)
	}
	pace.forget(slow)
	if got := pace.wait(slow); got != policyCoalescing {
		t.Errorf("a forgotten policy waits %v, want %v", got, policyCoalescing)
	}
}
