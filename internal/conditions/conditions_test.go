package conditions

import (
	"strings"
	"testing"
	"unicode/utf8"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func TestTruncateMessage(t *testing.T) {
	tests := []struct {
		name    string
		message string
		limit   int
		want    string
	}{
		{name: "short", message: "fine", limit: 64, want: "fine"},
		{name: "exactly the limit", message: strings.Repeat("a", 64), limit: 64, want: strings.Repeat("a", 64)},
		// 65 bytes: the suffix for up to 99 bytes cut is 18 bytes ("…" is 3), 46 are kept.
		{name: "one byte over", message: strings.Repeat("a", 65), limit: 64, want: strings.Repeat("a", 46) + "… (19 bytes cut)"},
		// "é" is 2 bytes: byte 46 is in the middle of one, so only 45 bytes are kept.
		{name: "UTF-8 boundary", message: "x" + strings.Repeat("é", 40), limit: 64, want: "x" + strings.Repeat("é", 22) + "… (36 bytes cut)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Truncate(tt.message, tt.limit)
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if len(got) > tt.limit || !utf8.ValidString(got) {
				t.Errorf("%d bytes (limit %d), valid UTF-8: %v", len(got), tt.limit, utf8.ValidString(got))
			}
		})
	}
}

func TestConditionMessageBound(t *testing.T) {
	for _, n := range []int{MaxMessage, MaxMessage + 1, 40000, 1 << 20} {
		message := strings.Repeat("€", n/3) + strings.Repeat("a", n%3)
		got := Message(message)
		if len(got) > MaxMessage || !utf8.ValidString(got) {
			t.Fatalf("%d bytes in: %d bytes out, valid UTF-8: %v", n, len(got), utf8.ValidString(got))
		}
		if n > MaxMessage {
			// The cut tells how many bytes it left out, and leaves out hardly more than it must
			// (a partial rune, and the digits reserved for the count).
			kept := strings.TrimSuffix(got, cutSuffix(n-strings.Index(got, "… (")))
			if kept == got || !strings.HasPrefix(message, kept) || len(got) < MaxMessage-8 {
				t.Errorf("%d bytes in: %q… ends %q", n, got[:16], got[len(got)-24:])
			}
		}
	}
}

func TestStatusRefused(t *testing.T) {
	gk := schema.GroupKind{Group: gatewayv1.GroupName, Kind: "Gateway"}
	for err, want := range map[error]bool{
		apierrors.NewInvalid(gk, "web", field.ErrorList{field.TooLong(field.NewPath("status"), "", 32768)}): true,
		apierrors.NewRequestEntityTooLargeError("limit is 3145728"):                                         true,
		apierrors.NewConflict(gatewayv1.Resource("gateways"), "web", nil):                                   false,
		nil: false,
	} {
		if got := Refused(err); got != want {
			t.Errorf("%v: got %v", err, got)
		}
	}
}
