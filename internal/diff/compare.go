package diff

import (
	"cmp"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/gatewright/gatewright/internal/offline"
	"github.com/gatewright/gatewright/internal/render"
)

// Options tune Compare.
type Options struct {
	// ControllerNamespace is the namespace whose GatewayClassConfigs are global.
	ControllerNamespace string
	// Progress, when set, hears how many of the reached Gateways are computed, after
	// each; it is called from several goroutines at once.
	Progress func(done, total int)
}

// pair is one reached Gateway on both sides, and what changes.
type pair struct {
	key         client.ObjectKey
	base, after outcome
	changes     changes
}

// Compare reports what changes from base to changed: it translates, on both sides,
// every Gateway the change may reach (and the routes on them), GOMAXPROCS at a time, and
// compares the results. The error is the first read that failed; a Gateway whose
// inputs are bad is a result, not an error.
func Compare(base, changed *offline.Set, opts Options) (*Report, error) {
	keys, policies := reachedGateways(base, changed, opts.ControllerNamespace)
	before := side{set: base, blueprints: &render.Cache{}, controllerNamespace: opts.ControllerNamespace}
	after := side{set: changed, blueprints: &render.Cache{}, controllerNamespace: opts.ControllerNamespace}
	pairs, err := translateAll(keys, before, after, opts.Progress)
	if err != nil {
		return nil, err
	}
	report := &Report{Gateways: []Entry{}, Routes: []Entry{}}
	for i := range pairs {
		report.add(pairs[i].changes)
	}
	slices.SortFunc(report.Routes, func(a, b Entry) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Gateway, b.Gateway), cmp.Compare(a.Kind, b.Kind))
	})
	report.Policies = policyChanges(pairs, policies, base, changed)
	return report, nil
}

// translateAll translates each Gateway of keys on both sides with a pool of workers.
func translateAll(keys []client.ObjectKey, before, after side, progress func(done, total int)) ([]pair, error) {
	pairs := make([]pair, len(keys))
	var next, done atomic.Int64
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(len(keys), 1)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(keys) {
					return
				}
				p := &pairs[i]
				p.key = keys[i]
				var errBase, errAfter error
				p.base, errBase = before.translate(p.key)
				p.after, errAfter = after.translate(p.key)
				if err := firstOf(errBase, errAfter); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					next.Store(int64(len(keys))) // the others stop at their next Gateway
					return
				}
				p.changes = p.compare()
				p.base.release()
				p.after.release()
				if n := done.Add(1); progress != nil {
					progress(int(n), len(keys))
				}
			}
		})
	}
	wg.Wait()
	return pairs, firstErr
}

func firstOf(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
