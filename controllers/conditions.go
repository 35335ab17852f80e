package controllers

import (
	"fmt"
	"unicode/utf8"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	// maxConditionMessage bounds every condition message Gatewright writes. The API
	// server refuses a condition message over 32768 bytes, and a refused status patch
	// leaves the older status standing; tenants' input reaches messages (a schema
	// violation quotes the value), so the bound must not depend on it. 4 KiB says what
	// is wrong and where; the rest is in the input itself.
	maxConditionMessage = 4 << 10

	// refusedStatusMessage is what every message of a status is cut to when the API
	// server refuses the status as it is: short enough that only the verdict is left.
	refusedStatusMessage = 256
)

// conditionMessage bounds a condition message; every condition Gatewright writes on
// Gateways, listeners, route parents, GatewayClasses and policies goes through it.
func conditionMessage(message string) string {
	return truncateMessage(message, maxConditionMessage)
}

// truncateMessage returns message when it has at most limit bytes, and otherwise its
// beginning, cut at a UTF-8 boundary, followed by "… (N bytes cut)", in at most limit
// bytes in all (for any limit above the suffix's two dozen bytes).
func truncateMessage(message string, limit int) string {
	if len(message) <= limit {
		return message
	}
	// The suffix is at its longest when the most is cut; reserve that much.
	keep := max(limit-len(cutSuffix(len(message))), 0)
	for keep > 0 && !utf8.RuneStart(message[keep]) {
		keep--
	}
	return message[:keep] + cutSuffix(len(message)-keep)
}

func cutSuffix(cut int) string {
	return fmt.Sprintf("… (%d bytes cut)", cut)
}

// shortMessages returns a copy of conditions with every message cut to
// refusedStatusMessage bytes.
func shortMessages(conditions []metav1.Condition) []metav1.Condition {
	if conditions == nil {
		return nil
	}
	out := make([]metav1.Condition, len(conditions))
	for i, c := range conditions {
		c.Message = truncateMessage(c.Message, refusedStatusMessage)
		out[i] = c
	}
	return out
}

// statusRefused tells whether the API server refused a status write for what it holds
// (invalid, or too large), as opposed to a conflict or a failure to reach it: shorter
// messages may then get it through.
func statusRefused(err error) bool {
	return apierrors.IsInvalid(err) || apierrors.IsRequestEntityTooLargeError(err)
}
