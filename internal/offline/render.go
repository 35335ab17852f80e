package offline

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/tlscert"
	"github.com/gatewright/gatewright/internal/translate"
	"github.com/gatewright/gatewright/internal/values"
)

// Rendered is the output of one template run: a Gateway's, or a route's on it.
type Rendered struct {
	Gateway   string // namespace/name
	Route     string // namespace/name, empty for the Gateway's own objects
	RouteKind string // HTTPRoute, GRPCRoute, ...; empty for the Gateway's own objects
	Objects   []*unstructured.Unstructured
	// Warnings name the blocks that applied because their condition could not be
	// evaluated (values.Result.FailedClosedWarnings).
	Warnings []string
}

// Render renders every Gateway of a Gatewright class in the set (or only the Gateway
// namespace/name when given) and the routes attached to it, as the controller would
// with every dependency ready. Any error stops it.
func (s *Set) Render(controllerNamespace, only string) ([]Rendered, error) {
	gateways, err := s.gatewaysToRender(only)
	if err != nil {
		return nil, err
	}
	blueprints := &render.Cache{}
	var out []Rendered
	for _, gw := range gateways {
		snap, err := s.Snapshot(controllerNamespace, gw)
		if err != nil {
			return nil, err
		}
		gwName := gw.Namespace + "/" + gw.Name
		res := snap.Translate(blueprints, translate.Live{})
		var refErr *values.ParametersRefError
		if errors.As(res.Err, &refErr) || (res.Err != nil && res.Blueprint == nil) {
			return nil, res.Err // it names the Gateway, or the blueprint that does not parse
		} else if res.Err != nil {
			return nil, fmt.Errorf("Gateway %s: %w", gwName, res.Err)
		}
		out = append(out, Rendered{Gateway: gwName, Objects: res.Output.Objects, Warnings: res.Warnings()})

		attached, err := s.Routes(snap)
		if err != nil {
			return nil, err
		}
		for _, route := range attached {
			routeName, kind := route.Route.GetNamespace()+"/"+route.Route.GetName(), routes.KindOf(route.Route)
			res := snap.TranslateRoute(blueprints, route, translate.Live{})
			if res.Err != nil {
				return nil, fmt.Errorf("%s %s on Gateway %s: %w", kind, routeName, gwName, res.Err)
			}
			out = append(out, Rendered{Gateway: gwName, Route: routeName, RouteKind: kind, Objects: res.Output.Objects, Warnings: res.Warnings()})
		}
	}
	return out, nil
}

// gatewaysToRender returns the Gateways of Gatewright's classes, sorted, or the one named.
func (s *Set) gatewaysToRender(only string) ([]*gatewayv1.Gateway, error) {
	var gateways []*gatewayv1.Gateway
	for i := range s.Gateways {
		gw := &s.Gateways[i]
		if only != "" {
			if gw.Namespace+"/"+gw.Name == only {
				return []*gatewayv1.Gateway{gw}, nil
			}
			continue
		}
		if translate.IsGatewrightClass(s.class(gw)) {
			gateways = append(gateways, gw)
		}
	}
	if only != "" {
		return nil, fmt.Errorf("no Gateway %s in the input", only)
	}
	sort.Slice(gateways, func(i, j int) bool {
		return gateways[i].Namespace+"/"+gateways[i].Name < gateways[j].Namespace+"/"+gateways[j].Name
	})
	return gateways, nil
}

// serviceExists tells whether the input holds the Service; one it does not hold exists
// if the Services could not be read at all.
func (s *Set) serviceExists(namespace, name string) (bool, error) {
	_, ok := s.indexed().services.byKey[client.ObjectKey{Namespace: namespace, Name: name}]
	return ok || s.ServicesUnread, nil
}

// secretCheck judges a Secret of the input as the controller judges one of the cluster,
// with stringData merged into data as the API server would; one not in the input
// counts as missing, unless the Secrets could not be read at all.
func (s *Set) secretCheck(namespace, name string) (string, error) {
	at, ok := s.indexed().secrets.byKey[client.ObjectKey{Namespace: namespace, Name: name}]
	if !ok {
		if s.SecretsUnread {
			return "", nil
		}
		return "does not exist", nil
	}
	secret := s.Secrets[at]
	secret.Data = maps.Clone(secret.Data)
	for k, v := range secret.StringData {
		if secret.Data == nil {
			secret.Data = map[string][]byte{}
		}
		secret.Data[k] = []byte(v)
	}
	if err := tlscert.Check(&secret); err != nil {
		return err.Error(), nil
	}
	return "", nil
}

func (s *Set) class(gw *gatewayv1.Gateway) *gatewayv1.GatewayClass {
	at, ok := s.indexed().classes.byKey[client.ObjectKey{Name: string(gw.Spec.GatewayClassName)}]
	if !ok {
		return nil
	}
	return &s.GatewayClasses[at]
}

// WriteStream writes rendered objects as one YAML stream, each document headed by a
// comment saying where it came from.
func WriteStream(w io.Writer, rendered []Rendered) error {
	for _, r := range rendered {
		source := "Gateway " + r.Gateway
		set := "gateway"
		if r.Route != "" {
			source = r.RouteKind + " " + r.Route + " on Gateway " + r.Gateway
			set = strings.ToLower(r.RouteKind)
		}
		for _, obj := range r.Objects {
			data, err := yaml.Marshal(obj.Object)
			if err != nil {
				return err
			}
			template := obj.GetLabels()[gatewrightv1alpha1.LabelTemplate]
			if _, err := fmt.Fprintf(w, "---\n# Source: %s, template %s/%s\n%s", source, set, template, data); err != nil {
				return err
			}
		}
	}
	return nil
}
