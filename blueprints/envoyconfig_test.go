package blueprints_test

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	bootstrapv3 "github.com/envoyproxy/go-control-plane/envoy/config/bootstrap/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	discoveryv3 "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"
	"sigs.k8s.io/yaml"

	// The other extensions the blueprint names in typed configs: protojson resolves an
	// Any's type URL through the types these packages register.
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/access_loggers/stream/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/health_check/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/router/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/listener/tls_inspector/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/resource_monitors/downstream_connections/v3"
)

// envoySummary counts what a checked bootstrap holds, so a test can tell that it checked
// the shapes it meant to (an HTTPS filter chain, routes) and not an empty configuration.
type envoySummary struct {
	listeners, tlsChains, plainChains, routes, clusters int
}

// checkEnvoyBootstrap decodes an envoy.yaml as Envoy does (unknown fields refused, typed
// configs resolved by type URL), runs the proto validation rules of every message,
// typed configs included, and the load-time checks Envoy makes that no proto rule states.
func checkEnvoyBootstrap(text string) (envoySummary, error) {
	var bootstrap bootstrapv3.Bootstrap
	if err := decodeEnvoyYAML(text, &bootstrap); err != nil {
		return envoySummary{}, err
	}
	if err := validateEnvoy(&bootstrap); err != nil {
		return envoySummary{}, err
	}
	return checkStaticResources(bootstrap.GetStaticResources())
}

// checkEnvoySDS decodes and validates a file-based SDS resource (sds-SECRET.yaml), which
// Envoy reads as a DiscoveryResponse.
func checkEnvoySDS(text string) error {
	var response discoveryv3.DiscoveryResponse
	if err := decodeEnvoyYAML(text, &response); err != nil {
		return err
	}
	if len(response.GetResources()) == 0 {
		return errors.New("the SDS file holds no resource")
	}
	return validateEnvoy(&response)
}

func decodeEnvoyYAML(text string, into proto.Message) error {
	data, err := yaml.YAMLToJSON([]byte(text))
	if err != nil {
		return err
	}
	return protojson.Unmarshal(data, into)
}

// validateEnvoy runs m's ValidateAll, which recurses into embedded messages but not into
// the content of an Any, and then validates the content of every Any below m the same way.
func validateEnvoy(m proto.Message) error {
	var errs []error
	if v, ok := m.(interface{ ValidateAll() error }); ok {
		errs = append(errs, v.ValidateAll())
	}
	eachAny(m.ProtoReflect(), func(a *anypb.Any) {
		content, err := a.UnmarshalNew()
		if err == nil {
			err = validateEnvoy(content)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", a.GetTypeUrl(), err))
		}
	})
	return errors.Join(errs...)
}

// eachAny calls f with every Any below m, not descending into the Anys themselves.
func eachAny(m protoreflect.Message, f func(*anypb.Any)) {
	eachMessage(m, func(child protoreflect.Message) bool {
		if a, ok := child.Interface().(*anypb.Any); ok {
			f(a)
			return false
		}
		return true
	})
}

// eachMessage calls f with every message field below m, depth first; f's false skips the
// message's own fields.
func eachMessage(m protoreflect.Message, f func(protoreflect.Message) bool) {
	visit := func(child protoreflect.Message) {
		if f(child) {
			eachMessage(child, f)
		}
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			for i := 0; i < v.List().Len(); i++ {
				visit(v.List().Get(i).Message())
			}
		case fd.IsMap() && fd.MapValue().Message() != nil:
			v.Map().Range(func(_ protoreflect.MapKey, value protoreflect.Value) bool {
				visit(value.Message())
				return true
			})
		case !fd.IsList() && !fd.IsMap() && fd.Message() != nil:
			visit(v.Message())
		}
		return true
	})
}

// checkStaticResources makes the checks Envoy makes when it loads static resources and
// that no proto rule states: names and addresses unique, every routed cluster defined,
// virtual host domains unique per route table, regular expressions RE2 (Go's regexp reads
// the same syntax), and no header modifier touching Host or a pseudo-header.
func checkStaticResources(resources *bootstrapv3.Bootstrap_StaticResources) (envoySummary, error) {
	var sum envoySummary
	var errs []error
	clusters := map[string]bool{}
	for _, c := range resources.GetClusters() {
		if c.GetName() == "" || clusters[c.GetName()] {
			errs = append(errs, fmt.Errorf("cluster %q: a cluster needs a name of its own", c.GetName()))
		}
		clusters[c.GetName()] = true
	}
	sum.clusters = len(clusters)
	listeners, addresses := map[string]bool{}, map[string]string{}
	for _, l := range resources.GetListeners() {
		address := l.GetAddress().GetSocketAddress()
		at := fmt.Sprintf("%s:%d", address.GetAddress(), address.GetPortValue())
		if listeners[l.GetName()] {
			errs = append(errs, fmt.Errorf("listener %q: the name is taken", l.GetName()))
		}
		if other, taken := addresses[at]; taken {
			errs = append(errs, fmt.Errorf("listener %q: %s is the address of listener %q too", l.GetName(), at, other))
		}
		listeners[l.GetName()], addresses[at] = true, l.GetName()
		sum.listeners++
		for _, chain := range l.GetFilterChains() {
			if chain.GetTransportSocket().GetTypedConfig().MessageIs(&tlsv3.DownstreamTlsContext{}) {
				sum.tlsChains++
			} else {
				sum.plainChains++
			}
			for _, filter := range chain.GetFilters() {
				var hcm hcmv3.HttpConnectionManager
				if !filter.GetTypedConfig().MessageIs(&hcm) {
					continue
				}
				if err := filter.GetTypedConfig().UnmarshalTo(&hcm); err != nil {
					return sum, err
				}
				routes, err := checkRouteConfiguration(hcm.GetRouteConfig(), clusters)
				sum.routes += routes
				if err != nil {
					errs = append(errs, fmt.Errorf("listener %q filter chain %q: %w", l.GetName(), chain.GetName(), err))
				}
			}
		}
	}
	return sum, errors.Join(errs...)
}

func checkRouteConfiguration(config *routev3.RouteConfiguration, clusters map[string]bool) (int, error) {
	var errs []error
	routes := 0
	domains := map[string]string{}
	for _, vhost := range config.GetVirtualHosts() {
		for _, domain := range vhost.GetDomains() {
			if other, taken := domains[domain]; taken {
				errs = append(errs, fmt.Errorf("virtual host %q: domain %q is a domain of virtual host %q too", vhost.GetName(), domain, other))
			}
			domains[domain] = vhost.GetName()
		}
		for _, route := range vhost.GetRoutes() {
			routes++
			if err := checkRoute(route, clusters); err != nil {
				errs = append(errs, fmt.Errorf("virtual host %q route %q: %w", vhost.GetName(), route.GetName(), err))
			}
		}
	}
	return routes, errors.Join(errs...)
}

func checkRoute(route *routev3.Route, clusters map[string]bool) error {
	var errs []error
	targets := []string{}
	if action := route.GetRoute(); action != nil {
		if action.GetCluster() != "" || action.GetWeightedClusters() == nil {
			targets = append(targets, action.GetCluster())
		}
		for _, weighted := range action.GetWeightedClusters().GetClusters() {
			targets = append(targets, weighted.GetName())
		}
	}
	for _, target := range targets {
		if !clusters[target] {
			errs = append(errs, fmt.Errorf("cluster %q is not defined", target))
		}
	}
	eachMessage(route.ProtoReflect(), func(m protoreflect.Message) bool {
		if regex, ok := m.Interface().(*matcherv3.RegexMatcher); ok {
			if _, err := regexp.Compile(regex.GetRegex()); err != nil {
				errs = append(errs, fmt.Errorf("regular expression %q: %w", regex.GetRegex(), err))
			}
		}
		return true
	})
	modified := route.GetRequestHeadersToRemove()
	for _, option := range route.GetRequestHeadersToAdd() {
		modified = append(modified, option.GetHeader().GetKey())
	}
	for _, header := range modified {
		if strings.EqualFold(header, "host") || strings.HasPrefix(header, ":") {
			errs = append(errs, fmt.Errorf("request header %q: Envoy lets no route modify Host or a pseudo-header", header))
		}
	}
	return errors.Join(errs...)
}

// envoyRoutes returns the routes of a bootstrap's HTTP connection managers by name.
func envoyRoutes(text string) (map[string]*routev3.Route, error) {
	var bootstrap bootstrapv3.Bootstrap
	if err := decodeEnvoyYAML(text, &bootstrap); err != nil {
		return nil, err
	}
	routes := map[string]*routev3.Route{}
	for _, l := range bootstrap.GetStaticResources().GetListeners() {
		for _, chain := range l.GetFilterChains() {
			for _, filter := range chain.GetFilters() {
				var hcm hcmv3.HttpConnectionManager
				if !filter.GetTypedConfig().MessageIs(&hcm) {
					continue
				}
				if err := filter.GetTypedConfig().UnmarshalTo(&hcm); err != nil {
					return nil, err
				}
				for _, vhost := range hcm.GetRouteConfig().GetVirtualHosts() {
					for _, route := range vhost.GetRoutes() {
						routes[route.GetName()] = route
					}
				}
			}
		}
	}
	return routes, nil
}
