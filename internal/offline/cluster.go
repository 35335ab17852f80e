package offline

import (
	"context"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/selection"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/routes"
)

// ClusterOptions say where FromCluster looks when the caller may not list a kind in
// every namespace.
type ClusterOptions struct {
	// Namespaces are read one by one when a kind cannot be listed cluster-wide: the
	// caller's namespace, the controller namespace, those of the objects a diff changes.
	Namespaces []string
	// Changes are the objects a diff would apply: the Secrets and Services that their
	// certificateRefs and backendRefs name are read as those of the cluster's objects are.
	Changes *Set
}

// FromCluster reads into a set what the values and templates of the cluster's Gateways
// are computed from, with the caller's rights: every kind the set holds, cluster-wide
// when allowed, else in opts.Namespaces. It returns what the caller's rights kept it from
// reading (a kind the cluster does not serve holds nothing, and is no such read); only a
// failure to reach the API server is an error. Of the Secrets and Services, only
// those of the namespaces that certificateRefs and backendRefs name are kept (Services as
// metadata); when they cannot be read, SecretsUnread or ServicesUnread is set.
func FromCluster(ctx context.Context, r client.Reader, opts ClusterOptions) (*Set, []Unread, error) {
	reader := clusterReader{reader: r, namespaces: opts.Namespaces}
	s := &Set{}
	for _, read := range []func() error{
		func() error {
			return listAll(ctx, &reader, "GatewayClassBlueprints", &gatewrightv1alpha1.GatewayClassBlueprintList{}, &s.Blueprints, false)
		},
		func() error {
			return listAll(ctx, &reader, "GatewayClasses", &gatewayv1.GatewayClassList{}, &s.GatewayClasses, false)
		},
		func() error { return listAll(ctx, &reader, "Gateways", &gatewayv1.GatewayList{}, &s.Gateways, true) },
		func() error {
			return listAll(ctx, &reader, "HTTPRoutes", &gatewayv1.HTTPRouteList{}, &s.HTTPRoutes, true)
		},
		func() error {
			return listAll(ctx, &reader, "ListenerSets", &gatewayv1.ListenerSetList{}, &s.ListenerSets, true)
		},
		func() error { return reader.readOtherRoutes(ctx, s) },
		func() error {
			return listAll(ctx, &reader, "GatewayClassConfigs", &gatewrightv1alpha1.GatewayClassConfigList{}, &s.GatewayClassConfigs, true)
		},
		func() error {
			return listAll(ctx, &reader, "GatewayConfigs", &gatewrightv1alpha1.GatewayConfigList{}, &s.GatewayConfigs, true)
		},
		func() error {
			return listAll(ctx, &reader, "ReferenceGrants", &gatewayv1.ReferenceGrantList{}, &s.ReferenceGrants, true)
		},
		func() error {
			return listAll(ctx, &reader, "Namespaces", &corev1.NamespaceList{}, &s.Namespaces, false)
		},
		func() error { return reader.readSecrets(ctx, s, opts.Changes) },
		func() error { return reader.readServices(ctx, s, opts.Changes) },
		func() error { return reader.readRevisions(ctx, s) },
	} {
		if err := read(); err != nil {
			return nil, nil, err
		}
	}
	return s, reader.unread, nil
}

// clusterReader lists with the caller's rights and keeps what it may not read.
type clusterReader struct {
	reader     client.Reader
	namespaces []string
	unread     []Unread
}

// unreadable tells whether err says the caller may not list a kind (kept in c.unread,
// with meaning), or that the cluster does not serve it (so none exist); any other error
// is not.
func (c *clusterReader) unreadable(err error, kind, namespace string, namespaced bool, meaning string) bool {
	if meta.IsNoMatchError(err) || apierrors.IsNotFound(err) {
		return true
	}
	if !apierrors.IsForbidden(err) {
		return false
	}
	u := unreadOf(err, "list", kind, namespace, namespaced)
	u.Meaning = meaning
	c.unread = append(c.unread, u)
	return true
}

// listAll lists a kind cluster-wide, or, when the caller may not and the kind is
// namespaced, namespace by namespace; the cluster-wide list refused is kept too, with
// the namespaces read instead.
func listAll[T any](ctx context.Context, c *clusterReader, what string, list client.ObjectList, into *[]T, namespaced bool, opts ...client.ListOption) error {
	return listAllMeaning(ctx, c, what, "", list, into, namespaced, opts...)
}

func listAllMeaning[T any](ctx context.Context, c *clusterReader, what, meaning string, list client.ObjectList, into *[]T, namespaced bool, opts ...client.ListOption) error {
	err := c.reader.List(ctx, list, opts...)
	if err == nil {
		return appendItems(list, into)
	}
	if !apierrors.IsForbidden(err) || !namespaced {
		if c.unreadable(err, what, "", namespaced, meaning) {
			return nil
		}
		return err
	}
	everywhere := unreadOf(err, "list", what, "", true)
	everywhere.Meaning = meaning
	read, err := listIn(ctx, c, c.namespaces, list, into, what, meaning, opts...)
	everywhere.ReadIn = read
	c.unread = append(c.unread, everywhere)
	return err
}

// appendItems appends the items of list to into.
func appendItems[T any](list client.ObjectList, into *[]T) error {
	items, err := meta.ExtractList(list)
	if err != nil {
		return err
	}
	for _, item := range items {
		typed, ok := item.(any).(*T)
		if !ok {
			return fmt.Errorf("listed %T, want %T", item, typed)
		}
		*into = append(*into, *typed)
	}
	return nil
}

// readSecrets reads the Secrets of the namespaces that the certificateRefs of the
// cluster's Gateways and of the changed ones name.
func (c *clusterReader) readSecrets(ctx context.Context, s, changes *Set) error {
	var namespaces []string
	for _, set := range nonNil(s, changes) {
		for i := range set.Gateways {
			for _, key := range attach.CertificateSecrets(&set.Gateways[i]) {
				namespaces = append(namespaces, key.Namespace)
			}
		}
	}
	noted := len(c.unread)
	_, err := listIn(ctx, c, namespaces, &corev1.SecretList{}, &s.Secrets, "Secrets", "certificateRefs to them count as resolved")
	s.SecretsUnread = len(c.unread) > noted
	return err
}

// readServices reads the Services of the namespaces that the backendRefs of the
// cluster's HTTPRoutes and of the changed ones name, as metadata: whether one exists is
// all that backendRefs ask, and a cluster's Services are many. They are listed in one
// request where the caller may, else namespace by namespace.
func (c *clusterReader) readServices(ctx context.Context, s, changes *Set) error {
	wanted := map[string]bool{}
	for _, set := range nonNil(s, changes) {
		for i := range set.HTTPRoutes {
			route := &set.HTTPRoutes[i]
			for _, rule := range route.Spec.Rules {
				for _, ref := range rule.BackendRefs {
					if key, isService := attach.BackendService(route, ref.BackendObjectReference); isService {
						wanted[key.Namespace] = true
					}
				}
			}
		}
	}
	if len(wanted) == 0 {
		return nil
	}
	list := &metav1.PartialObjectMetadataList{}
	list.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ServiceList"))
	var found []metav1.PartialObjectMetadata
	err := c.reader.List(ctx, list)
	switch {
	case err == nil:
		found = list.Items
	case apierrors.IsForbidden(err):
		noted := len(c.unread)
		_, err = listIn(ctx, c, slices.Collect(maps.Keys(wanted)), list, &found, "Services", "backendRefs to them count as resolved")
		s.ServicesUnread = len(c.unread) > noted
	}
	if err != nil {
		return err
	}
	for _, m := range found {
		if wanted[m.Namespace] {
			s.Services = append(s.Services, corev1.Service{ObjectMeta: m.ObjectMeta})
		}
	}
	return nil
}

func nonNil(sets ...*Set) []*Set {
	return slices.DeleteFunc(sets, func(s *Set) bool { return s == nil })
}

// listIn lists a kind in each of namespaces, each time into an empty copy of list: a
// list decoded into one that holds items keeps what the new items leave unset (map
// entries, fields), which would mix one namespace's objects into another's. Where the
// caller may not list, it keeps so, with what that means. It returns the namespaces read.
func listIn[T any](ctx context.Context, c *clusterReader, namespaces []string, list client.ObjectList, into *[]T, what, meaning string, opts ...client.ListOption) (read []string, err error) {
	for _, namespace := range uniqueNamespaces(namespaces) {
		page := list.DeepCopyObject().(client.ObjectList)
		if err := c.reader.List(ctx, page, append(opts, client.InNamespace(namespace))...); err != nil {
			if c.unreadable(err, what, namespace, true, meaning) {
				continue
			}
			return read, err
		}
		if err := appendItems(page, into); err != nil {
			return read, err
		}
		read = append(read, namespace)
	}
	return read, nil
}

// readRevisions reads what says which blueprint revision each Gateway runs, when a
// blueprint has revisions: the revisions, and the Renderings of Gateways (not of
// routes), kept to what names their owner and revisions. What the caller may not read
// is kept, with what stands in for it.
func (c *clusterReader) readRevisions(ctx context.Context, s *Set) error {
	if !slices.ContainsFunc(s.Blueprints, func(bp gatewrightv1alpha1.GatewayClassBlueprint) bool { return bp.Status.TargetRevision > 0 }) {
		return nil
	}
	if err := listAllMeaning(ctx, c, "GatewayClassBlueprintRevisions", "Gateways are computed with their blueprint's live spec, not the revision they run",
		&gatewrightv1alpha1.GatewayClassBlueprintRevisionList{}, &s.Revisions, false); err != nil {
		return err
	}
	ofGateways, err := labels.NewRequirement(gatewrightv1alpha1.LabelHTTPRouteName, selection.DoesNotExist, nil)
	if err != nil {
		return err
	}
	if err := listAllMeaning(ctx, c, "Renderings", "their Gateways are taken to run their blueprint's currentRevision, not one a rollout assigned them",
		&gatewrightv1alpha1.RenderingList{}, &s.Renderings, true, client.MatchingLabelsSelector{Selector: labels.NewSelector().Add(*ofGateways)}); err != nil {
		return err
	}
	for i := range s.Renderings {
		r := &s.Renderings[i]
		r.Objects, r.Values, r.ManagedFields = nil, nil, nil
	}
	return nil
}

func uniqueNamespaces(namespaces []string) []string {
	out := slices.Clone(namespaces)
	slices.Sort(out)
	return slices.Compact(out)
}

// readOtherRoutes lists the routes of the other standard kinds, which gateway templates
// read as .GRPCRoutes, .TLSRoutes, .TCPRoutes and .UDPRoutes.
func (c *clusterReader) readOtherRoutes(ctx context.Context, s *Set) error {
	for _, kind := range []string{routes.KindGRPCRoute, routes.KindTLSRoute, routes.KindTCPRoute, routes.KindUDPRoute} {
		var listed []routes.Route
		if err := listRoutes(ctx, c, kind, &listed); err != nil {
			return err
		}
		s.OtherRoutes = append(s.OtherRoutes, listed...)
	}
	return nil
}

// listRoutes lists the routes of kind, as listAll lists a kind it knows the type of.
func listRoutes(ctx context.Context, c *clusterReader, kind string, into *[]routes.Route) error {
	var items []unstructured.Unstructured
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(gatewayv1.SchemeGroupVersion.WithKind(kind + "List"))
	if err := listAll(ctx, c, kind+"s", list, &items, true); err != nil {
		return err
	}
	for i := range items {
		route := routes.New(kind)
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(items[i].Object, route); err != nil {
			return err
		}
		*into = append(*into, route)
	}
	return nil
}
