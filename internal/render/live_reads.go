package render

import (
	"regexp"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// liveReads is what templates may read of .Resources, the live objects by template:
// every template's objects (all), or only those of the templates they name as a field,
// as .Resources.service names the objects of template service. The objects of the
// others are not read from the API server when the cache holds them without their
// content: for a Gateway of thousands of routes, its routes ConfigMap.
type liveReads struct {
	all       bool
	templates map[string]bool
}

// resourcesRef finds each mention of Resources, with the field that follows it if any.
var resourcesRef = regexp.MustCompile(`\bResources\b(\.[A-Za-z_][A-Za-z0-9_]*)?`)

// liveReadsOf is what sources (templates and helpers) may read of .Resources. Only a
// mention followed by a template's name as a field reads that template's objects
// alone; any other (.Resources passed whole, indexed by a computed name, ranged over,
// or quoted for get or index) and any call of tpl, which runs text no source shows,
// may read every template's. A source that reaches it some other way reads what the
// cache holds.
func liveReadsOf(sources ...string) liveReads {
	reads := liveReads{templates: map[string]bool{}}
	for _, source := range sources {
		if callsTpl.MatchString(source) {
			return liveReads{all: true}
		}
		for _, m := range resourcesRef.FindAllStringSubmatch(source, -1) {
			if m[1] == "" {
				return liveReads{all: true}
			}
			reads.templates[m[1][1:]] = true
		}
	}
	return reads
}

// templateSources are the sources of templates.
func templateSources(templates []gatewrightv1alpha1.ResourceTemplate) []string {
	out := make([]string, 0, len(templates))
	for _, t := range templates {
		out = append(out, t.Template)
	}
	return out
}

// any tells whether some template's objects may be read.
func (r liveReads) any() bool { return r.all || len(r.templates) > 0 }

// of tells whether template's objects may be read.
func (r liveReads) of(template string) bool { return r.all || r.templates[template] }

// union is what r or other may read.
func (r liveReads) union(other liveReads) liveReads {
	if r.all || other.all {
		return liveReads{all: true}
	}
	out := liveReads{templates: map[string]bool{}}
	for name := range r.templates {
		out.templates[name] = true
	}
	for name := range other.templates {
		out.templates[name] = true
	}
	return out
}
