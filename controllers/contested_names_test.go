package controllers

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// TestContestedNames: an owner refused a name is released once, when the name is let
// go; until then it is requeued ever more slowly; and the owners remembered are bounded.
func TestContestedNames(t *testing.T) {
	owner := func(name string) reconcile.Request {
		return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "team-a", Name: name}}
	}
	config := objectName{kind: "ConfigMap", namespace: "team-a", name: "shared-config"}
	proxy := objectName{kind: "Service", namespace: "team-a", name: "proxy"}

	t.Run("owners waiting for a name are released once, when it is let go", func(t *testing.T) {
		c := newContestedNames()
		c.wait(owner("a"), []objectName{config})
		c.wait(owner("b"), []objectName{config, proxy})
		c.wait(owner("c"), []objectName{proxy})
		released := c.release(config)
		slices.SortFunc(released, func(x, y reconcile.Request) int { return strings.Compare(x.String(), y.String()) })
		if fmt.Sprint(released) != fmt.Sprint([]reconcile.Request{owner("a"), owner("b")}) {
			t.Errorf("released %v, want a and b", released)
		}
		if again := c.release(config); len(again) != 0 {
			t.Errorf("released again %v", again)
		}
		if released := c.release(proxy); fmt.Sprint(released) != fmt.Sprint([]reconcile.Request{owner("c")}) {
			t.Errorf("released %v, want c only: b was retried already", released)
		}
	})

	t.Run("an owner no longer refused is forgotten", func(t *testing.T) {
		c := newContestedNames()
		c.wait(owner("a"), []objectName{config})
		if retry := c.wait(owner("a"), nil); retry != 0 {
			t.Errorf("retry %v, want none", retry)
		}
		if released := c.release(config); len(released) != 0 || len(c.owners) != 0 {
			t.Errorf("released %v, remembered %d", released, len(c.owners))
		}
	})

	t.Run("refusals in a row are retried ever more slowly, up to ten minutes", func(t *testing.T) {
		c := newContestedNames()
		var retries []time.Duration
		for range 7 {
			retries = append(retries, c.wait(owner("a"), []objectName{config}))
		}
		want := []time.Duration{30 * time.Second, time.Minute, 2 * time.Minute, 4 * time.Minute, 8 * time.Minute, 10 * time.Minute, 10 * time.Minute}
		if !slices.Equal(retries, want) {
			t.Errorf("retries %v, want %v", retries, want)
		}
	})

	t.Run("past the bound an owner is requeued but not remembered", func(t *testing.T) {
		c := newContestedNames()
		for i := range maxWaitingOwners + 10 {
			if retry := c.wait(owner(fmt.Sprint(i)), []objectName{config}); retry != contestedRetry {
				t.Fatalf("retry %v, want %v", retry, contestedRetry)
			}
		}
		if n := len(c.release(config)); n != maxWaitingOwners {
			t.Errorf("released %d, want %d", n, maxWaitingOwners)
		}
	})
}
