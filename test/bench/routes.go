package main

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// The routes shape: one Gateway, and -routes HTTPRoutes from every tenant namespace
// created at once, each attached to its listener "http" with one PathPrefix match and a
// backend Service of its namespace. The bench blueprint's routes ConfigMap then holds
// every accepted route, one line each, printed from .RouteTable (about 40 bytes a route:
// 5,000 fit in one ConfigMap); no route template. What a controller must do for it is
// one status write per route and one configuration holding them all, rendered as few
// times as the routes' events allow. The floor (floor_routes.go) does just that.
const (
	// routesGatewayIndex is the Gateway the routes attach to: gw-0 of tenant-0.
	routesGatewayIndex = 0
	// routesListener is the listener the routes name in their parentRefs.
	routesListener = "http"
	// routesTemplate is the blueprint's template of the routes ConfigMap, whose key
	// routesKey lists the routes.
	routesTemplate = "routes"
	routesKey      = "routes"
	// backendName and backendPort are each tenant namespace's backend Service.
	backendName = "echo"
	backendPort = 8080
	// editedRoute is the route whose path the edit changes.
	editedRoute = 0
)

// routesData is the routes template's data line in the bench blueprint (workload.go).
const routesData = `data: {count: {{ len .HTTPRoutes | quote }}}`

// routeTableData prints one line per accepted route match, "namespace/name path", in the
// route table's order.
const routeTableData = `data:
          ` + routesKey + `: |
            {{- range $l := .RouteTable.listeners }}{{ range $l.hosts }}{{ range .matches }}
            {{ .route.namespace }}/{{ .route.name }} {{ .path.value }}
            {{- end }}{{ end }}{{ end }}`

// routesBlueprint is the bench blueprint whose routes ConfigMap holds every route.
func routesBlueprint(bp string) string {
	return strings.Replace(bp, routesData, routeTableData, 1)
}

// routeName is the namespace and name of route i.
func routeName(i, namespaces int) types.NamespacedName {
	return types.NamespacedName{Namespace: namespaceName(i % namespaces), Name: fmt.Sprintf("route-%d", i)}
}

// routePath is the path route i matches: as created (edit 0), or after the edit-th
// change of its path.
func routePath(i, namespaces, edit int) string {
	path := "/" + routeName(i, namespaces).String()
	if edit > 0 {
		path += fmt.Sprintf("/edited-%d", edit)
	}
	return path
}

// httpRoute is route i of namespaces, attached to the bench Gateway's listener http.
func httpRoute(i, namespaces int) *gatewayv1.HTTPRoute {
	gw := gateway(routesGatewayIndex, namespaces)
	key := routeName(i, namespaces)
	route := &gatewayv1.HTTPRoute{Spec: gatewayv1.HTTPRouteSpec{
		CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{
			Namespace: ptr.To(gatewayv1.Namespace(gw.Namespace)), Name: gatewayv1.ObjectName(gw.Name), SectionName: ptr.To(gatewayv1.SectionName(routesListener)),
		}}},
		Rules: []gatewayv1.HTTPRouteRule{{
			Matches: []gatewayv1.HTTPRouteMatch{{Path: &gatewayv1.HTTPPathMatch{
				Type: ptr.To(gatewayv1.PathMatchPathPrefix), Value: ptr.To(routePath(i, namespaces, 0)),
			}}},
			BackendRefs: []gatewayv1.HTTPBackendRef{{BackendRef: gatewayv1.BackendRef{BackendObjectReference: gatewayv1.BackendObjectReference{
				Name: backendName, Port: ptr.To(gatewayv1.PortNumber(backendPort)),
			}}}},
		}},
	}}
	route.Namespace, route.Name = key.Namespace, key.Name
	return route
}

// allowRoutesFromAll lets every namespace's routes attach to gw's listeners.
func allowRoutesFromAll(gw *gatewayv1.Gateway) {
	for i := range gw.Spec.Listeners {
		gw.Spec.Listeners[i].AllowedRoutes = &gatewayv1.AllowedRoutes{Namespaces: &gatewayv1.RouteNamespaces{From: ptr.To(gatewayv1.NamespacesFromAll)}}
	}
}

// backendService is namespace's backend Service, which every route there refers to.
func backendService(namespace string) string {
	return fmt.Sprintf(`
apiVersion: v1
kind: Service
metadata: {name: %[1]s, namespace: %[2]s}
spec:
  type: ClusterIP
  selector: {app: %[1]s}
  ports: [{name: http, port: %[3]d}]
`, backendName, namespace, backendPort)
}

// createRoutes creates the routes, s.parallel at a time.
func createRoutes(ctx context.Context, admin client.Client, s settings) error {
	next := make(chan int)
	errs := make([]error, s.parallel)
	var wg sync.WaitGroup
	for w := range s.parallel {
		wg.Go(func() {
			for i := range next {
				if errs[w] == nil {
					errs[w] = admin.Create(ctx, httpRoute(i, s.namespaces))
				}
			}
		})
	}
	for i := range s.routes {
		next <- i
	}
	close(next)
	wg.Wait()
	return errors.Join(errs...)
}

// heldRoutes reads the routes a routes ConfigMap's data holds: the path of each, by
// "namespace/name". A route with several matches is held at its last.
func heldRoutes(data map[string]string) map[string]string {
	held := map[string]string{}
	for _, line := range strings.Split(data[routesKey], "\n") {
		if name, path, ok := strings.Cut(strings.TrimSpace(line), " "); ok {
			held[name] = path
		}
	}
	return held
}

// routeLines is what the routes ConfigMap holds for routes, as the blueprint prints it
// (routeTableData) but sorted by name rather than by precedence: one line per match.
func routeLines(routes []*gatewayv1.HTTPRoute) string {
	var lines []string
	for _, route := range routes {
		for _, rule := range route.Spec.Rules {
			matches := rule.Matches
			if len(matches) == 0 {
				matches = []gatewayv1.HTTPRouteMatch{{}} // the table's PathPrefix "/"
			}
			for _, match := range matches {
				path := "/"
				if match.Path != nil && match.Path.Value != nil {
					path = *match.Path.Value
				}
				lines = append(lines, route.Namespace+"/"+route.Name+" "+path+"\n")
			}
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "")
}

// routesShape makes s the routes shape: one Gateway, without a change or a restart.
func routesShape(s *settings) error {
	if s.change != noChange || s.restart {
		return fmt.Errorf("-routes %d: measured alone, without -change or -restart", s.routes)
	}
	if s.routeEdits < 1 {
		return fmt.Errorf("-route-edits %d: at least one", s.routeEdits)
	}
	s.gateways = 1
	return nil
}
