package apply

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// ApplyRecorded applies objs for the record's owner so that no object is ever applied
// without being recorded: the record first lists every object it held and every planned
// one (when the apply may create one it lacks, recordFirst), then objs are applied, what
// is no longer rendered is pruned (except what keep keeps), and the record shrinks to
// what is there, with each object's readiness.
// When anything fails, the record still lists everything that may exist. When only the
// last write of the record fails (another writer changed it: a rollout's assignment), the
// result says all the same what was applied and deleted: those changes were made.
func (a *Applier) ApplyRecorded(ctx context.Context, rec *Record, objs []*unstructured.Unstructured, keep func(Entry) bool) (*Result, error) {
	planned := plan(rec.owner, objs, rec.readiness())
	var kept Inventory
	for _, e := range rec.Inventory {
		if keep != nil && keep(e) {
			kept = append(kept, e)
		}
	}
	if rec.recordFirst(planned) {
		if err := a.SaveRecord(ctx, rec, Planned(rec.Inventory, planned)); err != nil {
			return nil, err
		}
	}
	read := rec.live
	rec.live = nil // read once: after this round's writes they are out of date
	result, err := a.applyPlanned(ctx, rec.owner, objs, planned, rec.Inventory, keep, read)
	if err != nil {
		return nil, err
	}
	final := Planned(kept, planned)
	if result.NotReady, err = a.readiness(ctx, rec.owner, rec.readiness(), rec.ReadsWhole, final, result.Live); err != nil {
		return nil, err
	}
	if err := a.SaveRecord(ctx, rec, final); err != nil {
		return result, err
	}
	result.Recorded = final
	return result, nil
}

// recordFirst tells whether the record must be written before planned is applied: when
// the apply may create an object the record does not list, or one it lists from another
// template; and when the write changes what others act on before the objects do: the
// blueprint revision (a rollout's soak counts from it), the routes the Gateway leaves out
// or its templates refuse (the routes' status). A change of content only (the objects'
// hashes, the values, the routes served, the tenants' fingerprint) is recorded once, after
// the apply: until then readers see the record of what is still applied, the safe side
// (a rollout reads tenant inputs that differ from the record as a tenant's change).
func (r *Record) recordFirst(planned Inventory) bool {
	head := r.parts[0]
	if head == nil || !head.DeletionTimestamp.IsZero() || head.Revision != r.Revision ||
		head.RouteRefused != r.RouteRefused || !equality.Semantic.DeepEqual(head.RouteCutoff, r.RouteCutoff) {
		return true
	}
	templates := make(map[string]string, len(r.Inventory))
	for _, e := range r.Inventory {
		templates[e.key()] = e.Template
	}
	for _, e := range planned {
		if template, listed := templates[e.key()]; !listed || template != e.Template {
			return true
		}
	}
	return false
}

// readiness returns how the record's objects are judged: by the caller's judge, else by
// kstatus's verdict alone, whose reason counts replicas and would rewrite the owner's
// status at every step of a rollout (render's Blueprint.Readiness says the same).
func (r *Record) readiness() func(*unstructured.Unstructured, string) (bool, string) {
	if r.Readiness != nil {
		return r.Readiness
	}
	return byKstatus
}

// byKstatus is kstatus's verdict on obj, whatever template rendered it, without its reason.
func byKstatus(obj *unstructured.Unstructured, _ string) (bool, string) {
	ready, _ := Readiness(obj)
	return ready, ""
}

// readiness marks each entry of inv ready or not from the live objects, by judge, and
// lists those not ready yet, with the judge's reason when it gives one. The objects just
// applied are judged as the API server returned them; the others (kept while their
// template waits) as the cache has them. Each is judged as its entry's template's, not
// as its labels say: an object that is no entry of inv is not judged.
func (a *Applier) readiness(ctx context.Context, owner Owner, judge func(*unstructured.Unstructured, string) (bool, string), whole func(string) bool, inv Inventory, applied []*unstructured.Unstructured) ([]string, error) {
	templates := make(map[string]string, len(inv))
	for _, e := range inv {
		templates[e.key()] = e.Template
	}
	ready := map[string]bool{}
	reasons := map[string]string{}
	judgeOne := func(obj *unstructured.Unstructured) {
		key := entryOf(obj).key()
		template, ours := templates[key]
		if !ours {
			return
		}
		ready[key], reasons[key] = judge(obj, template)
	}
	for _, obj := range applied {
		judgeOne(obj)
	}
	var others Inventory
	for _, e := range inv {
		if _, seen := ready[e.key()]; !seen {
			others = append(others, e)
		}
	}
	live, err := a.live(ctx, owner, others, whole, nil)
	if err != nil {
		return nil, err
	}
	for _, objs := range live {
		for _, obj := range objs {
			judgeOne(obj)
		}
	}
	var notReady []string
	missing := 0
	for i := range inv {
		isReady, seen := ready[inv[i].key()]
		inv[i].Ready = isReady
		switch {
		case !seen:
			missing++
		case !isReady && reasons[inv[i].key()] != "":
			notReady = append(notReady, inv[i].String()+": "+reasons[inv[i].key()])
		case !isReady:
			notReady = append(notReady, inv[i].String())
		}
	}
	if missing > 0 {
		notReady = append(notReady, fmt.Sprintf("%d object(s) not yet seen", missing))
	}
	return notReady, nil
}
