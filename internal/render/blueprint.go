package render

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"sync"
	"text/template"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/values"
)

// Names of the parsed templates that are not resource templates.
const (
	helpersTemplate = "helpers"
	statusTemplate  = "gateway/status"
)

// Blueprint is a GatewayClassBlueprint parsed for rendering: immutable but for its pool
// of clones, and safe for concurrent renders.
type Blueprint struct {
	name      string
	templates *template.Template // every template of the blueprint, and the helpers
	// clones are the copies of templates that no render uses now (takeClone, giveBack):
	// as many, at most, as renders of the blueprint ever ran at once.
	clonesMu sync.Mutex
	clones   []*clone
	gateway  []resourceTemplate // in dependency order
	// routes are the route templates, by route kind; a kind without any has none.
	routes    map[string]routeSet
	hasStatus bool
	// gatewayReadsLive is what the gateway templates and helpers may read of .Resources
	// (ObjectsMayChange, ReadsWhole); statusReadsLive what the status template and
	// helpers may (ReadsWhole).
	gatewayReadsLive, statusReadsLive liveReads
	// gatewayReads and statusReads are the names of the gateway templates' data
	// (HTTPRoutes, RouteTable, ...) that a gateway template, or the status template, or
	// a helper, may read; the others are not built for that render, which for a Gateway
	// of thousands of routes is most of its work.
	gatewayReads, statusReads map[string]bool
	clusterScoped             map[schema.GroupKind]bool
	valuesSchema              *values.Schema // nil when the blueprint has none
	// valuesSchemaSource is the valuesSchema as written, for Lint.
	valuesSchemaSource *apiextensionsv1.JSON
	// known is what the templates read of .Values and the valuesSchema declares.
	known values.Known
	// readyWhen holds the compiled readyWhen of the templates that have one, by id.
	readyWhen map[string]*values.Condition
	// bounds are the bounds of its renders, its renderLimits within the caps it was
	// parsed with; boundsWarnings say which of them asked more than a cap, for Lint.
	bounds         Bounds
	boundsWarnings []Warning
	// servesWarnings say what of spec.serves promises less than meant, for Lint.
	servesWarnings []Warning
}

// Name is the name of the GatewayClassBlueprint.
func (b *Blueprint) Name() string { return b.name }

// HasStatus tells whether the blueprint has a status template. Without one, no render
// reports addresses, and those of a Gateway are to be cleared.
func (b *Blueprint) HasStatus() bool { return b.hasStatus }

// ValuesSchema is the blueprint's valuesSchema, compiled (nil when it has none), for
// values.Inputs.Schema.
func (b *Blueprint) ValuesSchema() *values.Schema { return b.valuesSchema }

// Parse parses every template of bp, checks its dependsOn graph and compiles its
// readyWhen expressions and valuesSchema: a blueprint that parses is a usable blueprint.
// Its renders get its renderLimits within DefaultCaps.
func Parse(bp *gatewrightv1alpha1.GatewayClassBlueprint) (*Blueprint, error) {
	return ParseWithin(bp, DefaultCaps)
}

// ParseWithin is Parse, with bp's renderLimits held within caps, those of the
// controller's operator.
func ParseWithin(bp *gatewrightv1alpha1.GatewayClassBlueprint, caps Bounds) (*Blueprint, error) {
	b := &Blueprint{name: bp.Name, clusterScoped: map[schema.GroupKind]bool{}}
	b.bounds, b.boundsWarnings = resolveBounds(bp.Spec.RenderLimits, caps)
	b.servesWarnings = servesWarnings(bp.Spec.Serves)
	for _, gk := range bp.Spec.ClusterScopedKinds {
		b.clusterScoped[schema.GroupKind{Group: string(gk.Group), Kind: string(gk.Kind)}] = true
	}

	var err error
	if b.gateway, err = dependencyOrder("gateway", bp.Spec.GatewayTemplate.ResourceTemplates); err != nil {
		return nil, b.named(err)
	}
	b.readyWhen = map[string]*values.Condition{}
	if err := compileReadyWhen("gateway", bp.Spec.GatewayTemplate.ResourceTemplates, b.readyWhen); err != nil {
		return nil, b.named(err)
	}
	sources := map[string]string{}
	if err := b.parseRouteSets(bp, sources); err != nil {
		return nil, b.named(err)
	}

	b.templates = template.New(helpersTemplate).Option("missingkey=zero").Funcs(baseFunctions())
	if _, err := b.templates.Parse(bp.Spec.Helpers); err != nil {
		return nil, templateError(b.name, helpersTemplate, err)
	}
	for _, t := range bp.Spec.GatewayTemplate.ResourceTemplates {
		sources["gateway/"+t.Name] = t.Template
	}
	b.gatewayReadsLive = liveReadsOf(append(templateSources(bp.Spec.GatewayTemplate.ResourceTemplates), bp.Spec.Helpers)...)
	if status := bp.Spec.GatewayTemplate.Status; status != nil {
		sources[statusTemplate] = status.Template
		b.hasStatus = true
	}
	b.statusReadsLive = liveReadsOf(bp.Spec.Helpers, sources[statusTemplate])
	b.gatewayReads, b.statusReads = map[string]bool{}, map[string]bool{}
	reads := []string{"HTTPRoutes", "RouteTable"}
	for _, kind := range otherRouteKinds {
		reads = append(reads, kind+"s")
	}
	for _, name := range reads {
		b.gatewayReads[name] = mayRead(name, bp.Spec.Helpers, "", bp.Spec.GatewayTemplate.ResourceTemplates)
		b.statusReads[name] = mayRead(name, bp.Spec.Helpers, sources[statusTemplate], nil)
	}
	for _, id := range append(append(ids(b.gateway), b.routeIDs()...), statusTemplate) {
		source, ok := sources[id]
		if !ok {
			continue
		}
		if _, err := b.templates.New(id).Parse(source); err != nil {
			return nil, templateError(b.name, id, err)
		}
	}
	keepRangeBodies(b.templates.Templates())
	instrument(b.templates.Templates(), nil)
	if bp.Spec.ValuesSchema != nil {
		if b.valuesSchema, err = values.CompileSchema(bp.Spec.ValuesSchema); err != nil {
			return nil, &Error{Blueprint: bp.Name, Message: err.Error()}
		}
		b.valuesSchemaSource = bp.Spec.ValuesSchema.DeepCopy()
	}
	b.known = knownValues(b.templates.Templates(), b.schemaProps())
	return b, nil
}

// callsTpl finds a call of tpl, not a name that holds the letters (httplistener).
var callsTpl = regexp.MustCompile(`\btpl\b`)

// mayRead tells whether the helpers, other (a template's source) or a template may read
// the data called name: by naming it, or through tpl, which runs text the template does
// not show.
func mayRead(name, helpers, other string, templates []gatewrightv1alpha1.ResourceTemplate) bool {
	reads := func(source string) bool {
		return strings.Contains(source, name) || callsTpl.MatchString(source)
	}
	return reads(helpers) || reads(other) || slices.ContainsFunc(templates, func(t gatewrightv1alpha1.ResourceTemplate) bool { return reads(t.Template) })
}

func ids(sets ...[]resourceTemplate) []string {
	var out []string
	for _, set := range sets {
		for _, t := range set {
			out = append(out, t.id)
		}
	}
	return out
}

func (b *Blueprint) named(err error) error {
	var e *Error
	if errors.As(err, &e) {
		e.Blueprint = b.name
	}
	return err
}

// Validate checks everything that makes a blueprint usable: its templates and helpers
// parse, its dependsOn graph is sound, its readyWhen expressions compile and its
// valuesSchema is a valid schema.
func Validate(bp *gatewrightv1alpha1.GatewayClassBlueprint) error {
	_, err := Parse(bp)
	return err
}
