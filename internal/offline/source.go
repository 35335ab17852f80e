package offline

import (
	"bytes"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// templatePlace is where the text of a blueprint's template starts in a file.
type templatePlace struct {
	file string
	// line is the file's line that holds the template's line 1.
	line int
	// oneLine is true when only line 1 can be placed: the template is a one-line
	// scalar. In a block scalar (template: |) every line of the template is a line of the
	// file; in a folded or quoted one, lines are joined or escaped, and none is placed.
	oneLine bool
}

// Locate names the line of a file that holds line `line` of a template (as render
// errors and lint warnings name templates: "gateway/<name>", "httproute/<name>",
// "gateway/status", "helpers") of a blueprint read by Load, as "file:line". It is ""
// when the blueprint came from elsewhere or the line cannot be placed.
func (s *Set) Locate(blueprint, template string, line int) string {
	place, ok := s.places[blueprint][template]
	if !ok || line < 1 || (place.oneLine && line > 1) {
		return ""
	}
	return place.file + ":" + strconv.Itoa(place.line+line-1)
}

// TemplateSource is the text of a template of a blueprint in the set, named as Locate
// names it; "" when there is none.
func (s *Set) TemplateSource(blueprint, template string) string {
	for i := range s.Blueprints {
		if bp := &s.Blueprints[i]; bp.Name == blueprint {
			return templateSource(bp, template)
		}
	}
	return ""
}

func templateSource(bp *gatewrightv1alpha1.GatewayClassBlueprint, template string) string {
	set, name, _ := strings.Cut(template, "/")
	switch {
	case template == "helpers":
		return bp.Spec.Helpers
	case template == "gateway/status" && bp.Spec.GatewayTemplate.Status != nil:
		return bp.Spec.GatewayTemplate.Status.Template
	case set == "gateway":
		return findTemplate(bp.Spec.GatewayTemplate.ResourceTemplates, name)
	case set == "httproute" && bp.Spec.HTTPRouteTemplate != nil:
		return findTemplate(bp.Spec.HTTPRouteTemplate.ResourceTemplates, name)
	}
	return ""
}

func findTemplate(templates []gatewrightv1alpha1.ResourceTemplate, name string) string {
	for _, t := range templates {
		if t.Name == name {
			return t.Template
		}
	}
	return ""
}

// recordPlaces notes where the templates of the blueprints in a file's YAML are. The
// first blueprint of a name counts, as for rendering. A file that does not parse here
// has already been refused by Add.
func (s *Set) recordPlaces(file string, data []byte) {
	decoder := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		if err := decoder.Decode(&doc); err != nil {
			return // the end of the stream
		}
		if len(doc.Content) == 0 {
			continue
		}
		root := doc.Content[0]
		apiVersion, kind := field(root, "apiVersion"), field(root, "kind")
		if kind == nil || kind.Value != gatewrightv1alpha1.KindGatewayClassBlueprint ||
			apiVersion == nil || !strings.HasPrefix(apiVersion.Value, gatewrightv1alpha1.GroupVersion.Group+"/") {
			continue
		}
		name := field(field(root, "metadata"), "name")
		if name == nil {
			continue
		}
		if _, seen := s.places[name.Value]; seen {
			continue
		}
		if s.places == nil {
			s.places = map[string]map[string]templatePlace{}
		}
		places := map[string]templatePlace{}
		spec := field(root, "spec")
		add := func(template string, node *yaml.Node) {
			if place, ok := placeOf(file, node); ok {
				places[template] = place
			}
		}
		add("helpers", field(spec, "helpers"))
		gateway := field(spec, "gatewayTemplate")
		add("gateway/status", field(field(gateway, "status"), "template"))
		for set, node := range map[string]*yaml.Node{"gateway": gateway, "httproute": field(spec, "httpRouteTemplate")} {
			list := field(node, "resourceTemplates")
			if list == nil {
				continue
			}
			for _, item := range list.Content {
				if name := field(item, "name"); name != nil {
					add(set+"/"+name.Value, field(item, "template"))
				}
			}
		}
		s.places[name.Value] = places
	}
}

// placeOf is where the scalar node's text starts, when its lines are the file's.
func placeOf(file string, node *yaml.Node) (templatePlace, bool) {
	switch {
	case node == nil || node.Kind != yaml.ScalarNode:
		return templatePlace{}, false
	case node.Style&yaml.LiteralStyle != 0:
		return templatePlace{file: file, line: node.Line + 1}, true
	case node.Style&yaml.FoldedStyle == 0 && !strings.Contains(strings.TrimSuffix(node.Value, "\n"), "\n"):
		return templatePlace{file: file, line: node.Line, oneLine: true}, true
	}
	return templatePlace{}, false
}

// field is the value of key in a YAML mapping node, nil when there is none.
func field(node *yaml.Node, key string) *yaml.Node {
	if node == nil || node.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(node.Content); i += 2 {
		if node.Content[i].Value == key {
			return node.Content[i+1]
		}
	}
	return nil
}
