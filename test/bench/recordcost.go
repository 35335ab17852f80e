package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// The record-cost mode (-record-cost) measures what one write of a Gateway's record
// costs the API server, in the shapes Gatewright and the floor write it in a change,
// with a watch on the records open as the controller has one. A change of a class-wide
// GatewayClassConfig costs each changed Gateway one child's apply and one record write;
// this tells how much of the difference from the floor is the record's.

// recordShape is one way of writing the records of n Gateways.
type recordShape struct {
	name string
	// write writes Gateway i's record for the gen-th time.
	write func(ctx context.Context, c client.Client, i, gen int) error
	// creates says each write makes a record; the others update one written before.
	creates bool
}

// recordCostRounds is how many times each shape is measured; the median is printed.
const recordCostRounds = 3

// recordCostWorkers write at once, as the controller's Gateway workers do.
const recordCostWorkers = 16

// gatewrightRecords are the shapes of Gatewright's record measured: the Rendering
// trim leaves of it, each shape on records named with prefix.
var gatewrightRecords = []struct {
	name, prefix string
	trim         func(r *gatewrightv1alpha1.Rendering)
}{
	{"Gatewright: update of a Rendering (5 objects, values record)", "whole", func(*gatewrightv1alpha1.Rendering) {}},
	{"  the same without its values record", "unvalued", func(r *gatewrightv1alpha1.Rendering) { r.Values = nil }},
	{"  the same without objects or values record", "bare", func(r *gatewrightv1alpha1.Rendering) { r.Values, r.Objects = nil, nil }},
}

func recordShapes() []recordShape {
	var mu sync.Mutex
	versions := map[string]string{}
	// update writes a Rendering whole, at the version it last wrote, as Gatewright does.
	update := func(prefix string, trim func(r *gatewrightv1alpha1.Rendering)) func(ctx context.Context, c client.Client, i, gen int) error {
		return func(ctx context.Context, c client.Client, i, gen int) error {
			r := gatewayRecord(i, gen)
			r.Name = prefix + "." + r.Name
			trim(r)
			mu.Lock()
			r.ResourceVersion = versions[r.Name]
			mu.Unlock()
			var err error
			if r.ResourceVersion == "" {
				err = c.Create(ctx, r)
			} else {
				err = c.Update(ctx, r)
			}
			mu.Lock()
			versions[r.Name] = r.ResourceVersion
			mu.Unlock()
			return err
		}
	}
	var shapes []recordShape
	for _, g := range gatewrightRecords {
		shapes = append(shapes, recordShape{name: g.name, write: update(g.prefix, g.trim)})
	}
	return append(shapes,
		recordShape{name: "floor: apply of owner and revision, first (a create)", write: applyFloorRecord("first"), creates: true},
		recordShape{name: "floor: apply of owner and revision, again (an update)", write: applyFloorRecord("again")},
	)
}

// gatewayRecord is Gateway i's Rendering as Gatewright writes it for a bench Gateway
// after gen changes of the global policy's default: its five children (one of them
// changed by each), a values record of five leaves from three policies.
func gatewayRecord(i, gen int) *gatewrightv1alpha1.Rendering {
	name := fmt.Sprintf("gw-%d", i)
	uid := types.UID(fmt.Sprintf("00000000-0000-4000-8000-%012d", i))
	since := metav1.NewTime(time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC))
	namespace := fmt.Sprintf("ns-%d", i)
	global := gatewrightv1alpha1.PolicySource{Kind: gatewrightv1alpha1.KindGatewayClassConfig, Namespace: controllerNamespace, Name: "bench"}
	tenant := gatewrightv1alpha1.PolicySource{Kind: gatewrightv1alpha1.KindGatewayConfig, Namespace: namespace, Name: "team"}
	blueprint := gatewrightv1alpha1.PolicySource{Kind: "GatewayClassBlueprint", Name: "bench"}
	leaf := func(path, value string, from gatewrightv1alpha1.PolicySource, as string, level int32) gatewrightv1alpha1.RecordedLeaf {
		return gatewrightv1alpha1.RecordedLeaf{Path: path, Value: value, RecordedOrigin: gatewrightv1alpha1.RecordedOrigin{Source: from, As: as, Level: level, Strategy: "Patch"}}
	}
	r := &gatewrightv1alpha1.Rendering{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:       "default",
			Name:            "gateway." + name,
			Labels:          map[string]string{"app.kubernetes.io/managed-by": "gatewright", "gateway.networking.k8s.io/gateway-name": name, "gatewright.dev/gateway-namespace": "default"},
			Finalizers:      []string{gatewrightv1alpha1.FinalizerCleanup},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "gateway.networking.k8s.io/v1", Kind: "Gateway", Name: name, UID: uid}},
		},
		Owner: gatewrightv1alpha1.RenderingOwner{Kind: "Gateway", Name: name, UID: uid, GatewayNamespace: "default", GatewayName: name},
		Parts: 1, Revision: 1, RevisionSince: &since,
		ValuesHash:    fmt.Sprintf("%064x", gen),
		RenderedBytes: 4096 + int64(gen),
		TenantInputs:  fmt.Sprintf("%064x", i), TenantInputsSince: &since,
		Values: &gatewrightv1alpha1.RecordedValues{
			RecordedAt: since, GatewayClass: "bench", Blueprint: "bench",
			Provenance: []gatewrightv1alpha1.RecordedLeaf{
				leaf("image", fmt.Sprintf("%q", fmt.Sprintf("envoyproxy/envoy:v1.36.%d", gen)), global, "default", 2),
				leaf("labels.managed", `"platform"`, global, "override", 2),
				leaf("labels.team", fmt.Sprintf("%q", namespace), tenant, "default", 5),
				leaf("labels.tier", `"bench"`, blueprint, "default", 1),
				leaf("replicas", "2", blueprint, "default", 1),
			},
			Policies: []gatewrightv1alpha1.RecordedPolicy{
				{Source: blueprint, Levels: []int32{1}, State: "PartiallyEnforced"},
				{Source: global, Levels: []int32{2}, State: "Enforced"},
				{Source: tenant, Levels: []int32{5}, State: "Enforced"},
			},
		},
	}
	for j, kind := range []string{"ConfigMap", "ConfigMap", "ConfigMap", "Secret", "Service"} {
		hash := fmt.Sprintf("%032x", j)
		if j == 0 {
			hash = fmt.Sprintf("%032x", 1000+gen)
		}
		r.Objects = append(r.Objects, gatewrightv1alpha1.RenderedObject{
			APIVersion: "v1", Kind: kind, Namespace: "default", Name: fmt.Sprintf("%s-%d", name, j),
			Template: fmt.Sprintf("template-%d", j), Hash: hash, Ready: true,
		})
	}
	return r
}

// applyFloorRecord is the floor's record write (floor.recordChange). The records of
// "first" are new at each gen, so that each write creates one; those of "again" are
// the same records, so that each write after the first updates one.
func applyFloorRecord(kind string) func(ctx context.Context, c client.Client, i, gen int) error {
	return func(ctx context.Context, c client.Client, i, gen int) error {
		name := fmt.Sprintf("gw-%d", i)
		recordName := kind + "." + name
		if kind == "first" {
			recordName = fmt.Sprintf("%s-%d.%s", kind, gen, name)
		}
		record := &gatewrightv1alpha1.Rendering{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: recordName},
			Owner:      gatewrightv1alpha1.RenderingOwner{Kind: "Gateway", Name: name, UID: types.UID(fmt.Sprintf("00000000-0000-4000-8000-%012d", i)), GatewayNamespace: "default", GatewayName: name},
			Revision:   int64(gen),
		}
		record.SetGroupVersionKind(gatewrightv1alpha1.GroupVersion.WithKind(gatewrightv1alpha1.KindRendering))
		return c.Patch(ctx, record, client.Apply, client.FieldOwner(floorFieldManager), client.ForceOwnership)
	}
}

// recordCost measures each record shape over n Gateways on a fresh control plane and
// prints the API server's CPU per write, the median of recordCostRounds rounds.
func recordCost(ctx context.Context, binDir string, n int, out io.Writer) error {
	dir, err := os.MkdirTemp("", "gatewright-bench-records-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	c, err := startCluster(dir, binDir, "bench-records", false)
	if err != nil {
		return err
	}
	defer func() { _ = c.env.Stop() }()
	watching, err := cache.New(c.adminCfg, cache.Options{Scheme: c.env.Scheme})
	if err != nil {
		return err
	}
	if _, err := watching.GetInformer(ctx, &gatewrightv1alpha1.Rendering{}); err != nil {
		return err
	}
	go func() { _ = watching.Start(ctx) }()
	if !watching.WaitForCacheSync(ctx) {
		return fmt.Errorf("the watch on Renderings did not sync")
	}
	shapes := recordShapes()
	for _, s := range shapes {
		if s.creates {
			continue
		}
		// Written once before they are measured, so that what is measured are updates.
		if err := writeRecords(ctx, c.admin, s, n, 0); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	fmt.Fprintf(out, "API server CPU per record write, %d Gateways, %d at once, a watch on Renderings open; median of %d rounds (each round's)\n\n", n, recordCostWorkers, recordCostRounds)
	for _, s := range shapes {
		var perWrite []float64
		for round := 1; round <= recordCostRounds; round++ {
			before, err := cpuSeconds(c.apiServer)
			if err != nil {
				return err
			}
			if err := writeRecords(ctx, c.admin, s, n, round); err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
			// The watch's events are sent after the writes are answered.
			time.Sleep(time.Second)
			after, err := cpuSeconds(c.apiServer)
			if err != nil {
				return err
			}
			perWrite = append(perWrite, (after-before)/float64(n)*1000)
		}
		sorted := slices.Clone(perWrite)
		slices.Sort(sorted)
		rounds := make([]string, len(perWrite))
		for i, ms := range perWrite {
			rounds[i] = fmt.Sprintf("%.2f", ms)
		}
		fmt.Fprintf(out, "%-62s %5.2f ms (%s)\n", s.name, sorted[len(sorted)/2], strings.Join(rounds, " "))
	}
	return nil
}

// writeRecords writes the records of n Gateways in shape s, recordCostWorkers at once.
func writeRecords(ctx context.Context, c client.Client, s recordShape, n, gen int) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(recordCostWorkers)
	for i := range n {
		g.Go(func() error { return s.write(ctx, c, i, gen) })
	}
	return g.Wait()
}
