package revisions

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// HistoryLimit is how many revisions a blueprint keeps besides those a Rendering
// records (spec.rollout.revisionHistoryLimit will set it).
const HistoryLimit = 10

const (
	maxName       = 253 // a cluster-scoped object's name
	maxLabelValue = 63
)

// Name names revision n of blueprint: <blueprint>-<n>, the blueprint's name cut and
// ending with a hash when the whole would be too long.
func Name(blueprint string, n int64) string {
	return fit(blueprint, maxName-len(strconv.FormatInt(n, 10))-1) + "-" + strconv.FormatInt(n, 10)
}

// LabelValue is the value of the gatewright.dev/blueprint label on blueprint's
// revisions: its name, cut and ending with a hash when longer than a label value may be.
func LabelValue(blueprint string) string {
	return fit(blueprint, maxLabelValue)
}

// Labels are the labels of blueprint's revisions.
func Labels(blueprint string) map[string]string {
	return map[string]string{
		gatewrightv1alpha1.LabelBlueprint: LabelValue(blueprint),
		gatewrightv1alpha1.LabelManagedBy: gatewrightv1alpha1.ManagedByValue,
	}
}

// fit returns s when it has at most limit characters, else its start and a hash of it.
func fit(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	return strings.TrimRight(s[:limit-9], ".-_") + "-" + hex.EncodeToString(sum[:4])
}
