// Package conditions builds the status conditions Gatewright writes, each message
// bounded: on Gateways, listeners, route parents, GatewayClasses, blueprints and
// policies. It is plain Go, shared by the controllers and the pipeline that predicts
// them (internal/translate).
package conditions

import (
	"fmt"
	"strings"
	"unicode/utf8"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	// MaxMessage bounds every condition message Gatewright writes. The API
	// server refuses a condition message over 32768 bytes, and a refused status patch
	// leaves the older status standing; tenants' input reaches messages (a schema
	// violation quotes the value), so the bound must not depend on it. 4 KiB says what
	// is wrong and where; the rest is in the input itself.
	MaxMessage = 4 << 10

	// RefusedMessage is what every message of a status is cut to when the API
	// server refuses the status as it is: short enough that only the verdict is left.
	RefusedMessage = 256
)

// Message bounds a condition message; every condition Gatewright writes goes through it.
func Message(message string) string {
	return Truncate(message, MaxMessage)
}

// Set sets the condition of conditionType in conditions, of an object of generation,
// its message bounded; the transition time changes only with the status.
func Set(conditions *[]metav1.Condition, conditionType string, ok bool, reason, message string, generation int64) {
	status := metav1.ConditionFalse
	if ok {
		status = metav1.ConditionTrue
	}
	meta.SetStatusCondition(conditions, metav1.Condition{
		Type: conditionType, Status: status, Reason: reason, Message: Message(message), ObservedGeneration: generation,
	})
}

// Truncate returns message when it has at most limit bytes, and otherwise its
// beginning, cut at a UTF-8 boundary, followed by "… (N bytes cut)", in at most limit
// bytes in all (for any limit above the suffix's two dozen bytes).
func Truncate(message string, limit int) string {
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

// FirstFew joins, for a message, the first n of items, and counts the rest.
func FirstFew(items []string, n int) string {
	shown := items[:min(len(items), n)]
	out := strings.Join(shown, "; ")
	if more := len(items) - len(shown); more > 0 {
		out += fmt.Sprintf("; and %d more", more)
	}
	return out
}

// Short returns a copy of conditions with every message cut to
// RefusedMessage bytes.
func Short(conditions []metav1.Condition) []metav1.Condition {
	if conditions == nil {
		return nil
	}
	out := make([]metav1.Condition, len(conditions))
	for i, c := range conditions {
		c.Message = Truncate(c.Message, RefusedMessage)
		out[i] = c
	}
	return out
}

// Refused tells whether the API server refused a status write for what it holds
// (invalid, or too large), as opposed to a conflict or a failure to reach it: shorter
// messages may then get it through.
func Refused(err error) bool {
	return apierrors.IsInvalid(err) || apierrors.IsRequestEntityTooLargeError(err)
}
