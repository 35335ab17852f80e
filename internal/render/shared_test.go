package render_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gatewright/gatewright/internal/render"
)

// TestRendersShareAPoolPastTheirOwnShare fills the pool every render shares, as renders
// near their budgets running at once would: a render that stays within its own share
// goes on, one that needs more is stopped as busy (retried, not an input error), and
// every render gives back what it drew.
func TestRendersShareAPoolPastTheirOwnShare(t *testing.T) {
	if held := render.SharedAllocated(); held != 0 {
		t.Fatalf("the pool holds %d bytes before the test", held)
	}
	small := gatewayTemplates(t, configMap+"data:\n  text: {{ repeat 1000 \"x\" | quote }}\n")
	large := gatewayTemplates(t, configMap+"data:\n  text: {{ repeat 6000000 \"x\" | len }}\n")

	if _, err := renderGateway(t, large, nil); err != nil {
		t.Fatalf("with the pool free, a render beyond its own share failed: %v", err)
	}
	if held := render.SharedAllocated(); held != 0 {
		t.Fatalf("a render that ended still holds %d bytes of the pool", held)
	}

	render.HoldSharedPool(t) // the renders running elsewhere hold it all
	if _, err := renderGateway(t, small, nil); err != nil {
		t.Fatalf("a render within its own share failed while the pool was full: %v", err)
	}
	_, err := renderGateway(t, large, nil)
	if !errors.Is(err, render.ErrBusy) || !strings.Contains(err.Error(), "while the renders running now hold the 128 MiB they share") {
		t.Fatalf("got %v, want the render stopped as busy", err)
	}
	if held := render.SharedAllocated(); held != render.SharedPoolBytes {
		t.Fatalf("the pool holds %d bytes after a refused render, want what the others hold", held)
	}
}
