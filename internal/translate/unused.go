package translate

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gatewright/gatewright/internal/values"
)

// unusedShown bounds how many unused values a message names.
const unusedShown = 5

// unusedValues gathers, by blueprint, the values a policy sets that no template of the
// blueprint reads and its valuesSchema does not declare: a typo does not make the policy
// Invalid, since nothing is wrong with it but that it does nothing, which its Enforced
// message then says.
type unusedValues map[string][]string

// add records those of found that source set.
func (u unusedValues) add(blueprint string, source values.Source, found []values.UnusedValue) {
	for _, value := range found {
		if value.Source == source && !slices.Contains(u[blueprint], value.Note()) {
			u[blueprint] = append(u[blueprint], value.Note())
		}
	}
}

// note reads "not read by GatewayClassBlueprint X: replica (did you mean replicas?)",
// naming at most unusedShown values per blueprint and unusedShown blueprints; "" when
// there are none.
func (u unusedValues) note() string {
	blueprints := slices.Sorted(maps.Keys(u))
	more := len(blueprints) - unusedShown
	if more > 0 {
		blueprints = blueprints[:unusedShown]
	}
	var parts []string
	for _, blueprint := range blueprints {
		notes := slices.Sorted(slices.Values(u[blueprint]))
		if len(notes) > unusedShown {
			notes = append(notes[:unusedShown], fmt.Sprintf("and %d more", len(notes)-unusedShown))
		}
		parts = append(parts, "not read by GatewayClassBlueprint "+blueprint+": "+strings.Join(notes, ", "))
	}
	if more > 0 {
		parts = append(parts, fmt.Sprintf("and by %d more blueprints", more))
	}
	return strings.Join(parts, "; ")
}
