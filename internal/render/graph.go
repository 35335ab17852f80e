package render

import (
	"fmt"
	"strings"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// resourceTemplate is one entry of resourceTemplates, placed in its set.
type resourceTemplate struct {
	name      string // as written in the blueprint, the key of .Resources
	id        string // the name of the parsed template: "<set>/<name>"
	dependsOn []string
}

// dependencyOrder returns the templates so that each comes after what it depends on,
// keeping the blueprint's order wherever dependencies allow. It refuses a dependsOn
// that names a missing template or forms a cycle.
func dependencyOrder(set string, templates []gatewrightv1alpha1.ResourceTemplate) ([]resourceTemplate, error) {
	byName := make(map[string]gatewrightv1alpha1.ResourceTemplate, len(templates))
	for _, t := range templates {
		byName[t.Name] = t
	}
	for _, t := range templates {
		for _, dep := range t.DependsOn {
			if _, ok := byName[dep]; !ok {
				return nil, &Error{Template: set + "/" + t.Name, Message: fmt.Sprintf("dependsOn names %q, which is not a template of %s", dep, set)}
			}
		}
	}

	placed := make(map[string]bool, len(templates))
	order := make([]resourceTemplate, 0, len(templates))
	for len(order) < len(templates) {
		progress := false
		for _, t := range templates {
			if placed[t.Name] || !allPlaced(t.DependsOn, placed) {
				continue
			}
			placed[t.Name] = true
			order = append(order, resourceTemplate{name: t.Name, id: set + "/" + t.Name, dependsOn: t.DependsOn})
			progress = true
		}
		if !progress {
			cycle := findCycle(templates, byName, placed)
			return nil, &Error{Template: set + "/" + cycle[0], Message: "dependsOn forms a cycle: " + strings.Join(cycle, " -> ")}
		}
	}
	return order, nil
}

func allPlaced(names []string, placed map[string]bool) bool {
	for _, name := range names {
		if !placed[name] {
			return false
		}
	}
	return true
}

// findCycle follows unplaced dependencies from the first unplaced template until a
// name repeats; every unplaced template lies on or leads to a cycle.
func findCycle(templates []gatewrightv1alpha1.ResourceTemplate, byName map[string]gatewrightv1alpha1.ResourceTemplate, placed map[string]bool) []string {
	var start string
	for _, t := range templates {
		if !placed[t.Name] {
			start = t.Name
			break
		}
	}
	seen := map[string]int{}
	var path []string
	for name := start; ; {
		if at, ok := seen[name]; ok {
			return append(path[at:], name)
		}
		seen[name] = len(path)
		path = append(path, name)
		for _, dep := range byName[name].DependsOn {
			if !placed[dep] {
				name = dep
				break
			}
		}
	}
}
